// One search run: every MPI rank is an island that proposes, evaluates and keeps the best;
// elites migrate around a ring; rank 0 writes the one results file and, at the end, times the
// winner interleaved with the baselines so the reported speedup is a side-by-side ratio.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace galapagos::archipelago {

struct run_overrides {
  std::optional<std::filesystem::path> out;
  std::optional<int> budget;
  std::optional<std::uint64_t> seed;
  bool quiet = false;
};

// Runs the search described by `config`. Returns the process exit code: 0 on success, 2 when
// the configuration, the family or a baseline is unusable (one line on stderr, no results
// file written).
int run_search(MPI_Comm comm, const std::filesystem::path& config, const run_overrides& o);

}  // namespace galapagos::archipelago
