#include <mpi.h>

#include <boost/program_options.hpp>
#include <cstdio>
#include <iostream>

#include "archipelago/archipelago.hpp"
#include "commands.hpp"
#include "config/run_config.hpp"
#include "options.hpp"
#include "util/report.hpp"

namespace po = boost::program_options;

namespace galapagos::cli {

namespace {

// Runs `body` between MPI_Init and MPI_Finalize; an unexpected error ends every rank.
template <class F>
int with_mpi(int argc, char** argv, F body) {
  MPI_Init(&argc, &argv);
  int code = 2;
  try {
    code = body();
  } catch (const std::exception& e) {
    report::problem("galapagos: %s", e.what());
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size > 1) MPI_Abort(MPI_COMM_WORLD, 3);
    code = 3;
  }
  MPI_Finalize();
  return code;
}

// The console's level from --quiet and --verbose; false (with the error printed) when both are given.
bool configure_console(const char* command, const po::variables_map& vm) {
  const bool quiet = vm.count("quiet") > 0, verbose = vm.count("verbose") > 0;
  if (quiet && verbose) {
    report::problem("galapagos %s: --quiet and --verbose exclude each other", command);
    return false;
  }
  report::configure(quiet ? report::verbosity::quiet : verbose ? report::verbosity::verbose : report::verbosity::normal);
  return true;
}

// The stopping rules' options, shared by run and resume ([run] keys of the same names, 0: off).
void add_stop_options(po::options_description& opts) {
  opts.add_options()("time-limit", po::value<double>(),
                     "seconds of wall clock for this session: the search ends and the winner is compared, leaving [run] "
                     "grace_s for the generation in flight (0: none)")(
      "target-roofline", po::value<double>(), "end the search once a candidate reaches this fraction of the roofline (0: none)")(
      "stagnant-generations", po::value<int>(), "end the search after this many generations without a better best (0: never)");
}

void take_stop_options(const po::variables_map& vm, archipelago::run_overrides& o) {
  if (vm.count("time-limit")) o.time_limit_s = vm["time-limit"].as<double>();
  if (vm.count("target-roofline")) o.target_roofline = vm["target-roofline"].as<double>();
  if (vm.count("stagnant-generations")) o.stagnant_generations = vm["stagnant-generations"].as<int>();
}

// --print-config: the resolved config on stdout, exit 0; a bad config: one line, exit 2.
int print_config(const std::string& file, const archipelago::run_overrides& o) {
  try {
    auto c = config::load_run_config(file);
    if (o.out) c.out = *o.out;
    if (o.budget) c.budget = *o.budget;
    if (o.seed) c.seed = *o.seed;
    if (o.time_limit_s) c.stop.time_limit_s = *o.time_limit_s;
    if (o.target_roofline) c.stop.target_roofline = *o.target_roofline;
    if (o.stagnant_generations) c.stop.stagnant_generations = *o.stagnant_generations;
    report::line("%s", config::resolved_config_toml(c).c_str());
  } catch (const std::exception& e) {
    report::problem("galapagos run: %s", e.what());
    return 2;
  }
  return 0;
}

}  // namespace

int run_command(const std::vector<std::string>& args, int argc, char** argv) {
  po::options_description opts("galapagos run CONFIG");
  opts.add_options()("help,h", "this help")("out", po::value<std::string>(), "results file (HDF5), overrides [run] out")(
      "budget", po::value<int>(), "evaluations per island, overrides [search] budget")(
      "seed", po::value<std::uint64_t>(), "search seed, overrides [search] seed")("quiet", "only the summary")(
      "verbose", "every candidate, and one plain line per generation even on a terminal")(
      "replay", po::value<std::string>(), "serve measurements from this recorded results file instead of measuring")(
      "replay-delay", po::value<double>(), "seconds each replayed evaluation takes (default 0)")(
      "force", "replace an existing galapagos results file at the --out path (never any other file)")(
      "print-config", "print the config as the run would use it (every default filled in, the options above applied) and exit");
  add_stop_options(opts);
  po::variables_map vm;
  const int code = parse_command_line("run", args, opts, "config", vm, [](const po::variables_map& given) {
    if (!given.count("config")) throw po::error("a CONFIG file is required (e.g. configs/stencil3d7-cpu.toml)");
  });
  if (code >= 0) return code;
  archipelago::run_overrides o;
  if (vm.count("out")) o.out = vm["out"].as<std::string>();
  o.replace = vm.count("force") > 0;
  if (vm.count("budget")) {
    o.budget = vm["budget"].as<int>();
    if (*o.budget < 1) {
      report::problem("galapagos run: --budget must be >= 1");
      return 2;
    }
  }
  if (vm.count("seed")) o.seed = vm["seed"].as<std::uint64_t>();
  take_stop_options(vm, o);
  if (!configure_console("run", vm)) return 2;
  if (vm.count("print-config")) return print_config(vm["config"].as<std::string>(), o);
  if (vm.count("replay")) o.replay = vm["replay"].as<std::string>();
  if (vm.count("replay-delay")) {
    o.replay_delay_s = vm["replay-delay"].as<double>();
    if (!o.replay || !(o.replay_delay_s >= 0)) {
      report::problem("galapagos run: --replay-delay needs --replay and a number of seconds >= 0");
      return 2;
    }
  }
  return with_mpi(argc, argv, [&] { return archipelago::run_search(MPI_COMM_WORLD, vm["config"].as<std::string>(), o); });
}

int resume_command(const std::vector<std::string>& args, int argc, char** argv) {
  po::options_description opts("galapagos resume FILE");
  opts.add_options()("help,h", "this help")("quiet", "only the summary")(
      "verbose", "every candidate, and one plain line per generation even on a terminal")(
      "budget", po::value<int>(),
      "evaluations per island in all, at least the run's: continues a finished run too (the winner is compared again)");
  add_stop_options(opts);
  po::variables_map vm;
  const int code = parse_command_line("resume", args, opts, "file", vm, [](const po::variables_map& given) {
    if (!given.count("file")) throw po::error("a results FILE is required (the HDF5 file of the run to continue)");
  });
  if (code >= 0) return code;
  if (!configure_console("resume", vm)) return 2;
  archipelago::run_overrides o;
  if (vm.count("budget")) o.budget = vm["budget"].as<int>();
  take_stop_options(vm, o);
  return with_mpi(argc, argv, [&] { return archipelago::resume_search(MPI_COMM_WORLD, vm["file"].as<std::string>(), o); });
}

}  // namespace galapagos::cli
