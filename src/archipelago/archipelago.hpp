// One search run: every MPI rank is an island that proposes, evaluates and keeps the best;
// elites migrate around a ring; rank 0 writes the one results file and, at the end, times the
// winner interleaved with the baselines so the reported speedup is a side-by-side ratio.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "run/setup.hpp"

namespace galapagos::archipelago {

using run::run_overrides;  // what the command line changes (run/setup.hpp)

// Runs the search described by `config`. Returns the process exit code: 0 on success (also when
// stopped by SIGTERM or SIGUSR1 after a checkpoint), 2 when the configuration, the family, a
// baseline or the replay recording is unusable (one line on stderr, no results file written).
int run_search(MPI_Comm comm, const std::filesystem::path& config, const run_overrides& o);

// Continues the run checkpointed in `results` (galapagos resume): same islands, states, budget,
// seed and replay recording; the baselines are measured again. Returns 0 when the run finished
// or was stopped again (checkpointed), 0 with a message when it had already finished, 2 when
// the file cannot be resumed (one line on stderr naming it; the file is left untouched).
// Both print through the console (util/report.hpp) at the level the command configured.
// `o` may give a larger budget (continuing a finished run too) and stopping rules for this session.
int resume_search(MPI_Comm comm, const std::filesystem::path& results, const run_overrides& o = {});

}  // namespace galapagos::archipelago
