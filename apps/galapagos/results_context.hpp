// What `galapagos report` and `galapagos export` need from a finished (or stopped) run's results
// file: the file checked to be a galapagos results file this galapagos can read, its stored
// config, its family, and its candidates. Every problem is a galapagos::error naming the file.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "config/run_config.hpp"
#include "families/family.hpp"
#include "store/results_reader.hpp"

namespace galapagos::cli {

struct candidate_record {  // one row of /candidates, the fields export reads
  std::int64_t id = -1;
  int island = 0, generation = 0;
  std::string origin, status, reason, params, source_hash;
  double time_median_s = 0, time_min_s = 0, time_spread_s = 0, rel_error = 0, speedup = 0;
  int repetitions = 0;
};

struct run_context {
  std::string path;
  std::string version;        // galapagos_version of the file
  config::run_config config;  // the stored config (kernel paths relative to its file)
  families::family family;
  std::string backend;
  std::string fitness;  // root attribute fitness_size
  std::vector<candidate_record> candidates;
};

// Opens `path` and checks it: a readable HDF5 file with galapagos's root attributes and
// /candidates, written by this galapagos version or an older one.
store::results_reader open_results(const std::string& path);
// The run behind the file: stored config, family (searched along the config's kernel paths,
// $GALAPAGOS_KERNELS and the source tree), candidates. `family`/`backend` override the root
// attributes (island kinds of a mixed job).
run_context read_run(const store::results_reader& f, std::string family = {}, std::string backend = {});
// The candidates that passed every check, fastest first; throws naming the file when none did.
std::vector<candidate_record> successful(const run_context& r);
// The text stored in /sources/<hash>; nullopt when the file holds none.
std::optional<std::string> stored_source(const std::string& path, const std::string& hash);
// The family's symbol values in a description such as "poisson7 n=50 (nrows=125000 ...)".
std::optional<families::sizes> sizes_in(const families::family& f, const std::string& description);
// The family's acceptance sizes, one description each.
std::vector<std::string> describe_accept_sizes(const families::family& f);

}  // namespace galapagos::cli
