// galapagos: the command line. `galapagos run CONFIG` searches; `galapagos resume FILE`
// continues a checkpointed search; `galapagos eval` judges one candidate source exactly as a
// search would. `galapagos --help` lists the commands.
#include <sys/prctl.h>
#include <unistd.h>

#include <Kokkos_Core.hpp>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "archipelago/stop_request.hpp"
#include "commands.hpp"
#include "util/build_info.hpp"
#include "util/report.hpp"

namespace {

const char* usage =
    "usage: galapagos COMMAND [options]\n"
    "\n"
    "commands:\n"
    "  run CONFIG [--out FILE] [--force] [--budget N] [--seed S] [--quiet | --verbose] [--replay RECORDED.h5 [--replay-delay "
    "S]]\n"
    "      [--time-limit S] [--target-roofline F] [--stagnant-generations N]\n"
    "        island-model search described by a TOML config; under mpirun every rank is an island. An existing\n"
    "        FILE is refused (continue it with resume, or replace a galapagos results file with --force)\n"
    "  resume FILE [--budget N] [--time-limit S] [--target-roofline F] [--stagnant-generations N] [--quiet | --verbose]\n"
    "        continue a run from the checkpoint in its results file (same number of MPI ranks); --budget N\n"
    "        continues a finished or stopped run up to N evaluations per island\n"
    "  eval --family NAME --backend cpu SOURCE [--param K=V ...] [--json] [--size NAME]\n"
    "       [--config FILE] [--no-baselines]\n"
    "        evaluate one candidate source: exit 0 accepted, 1 rejected, 2 usage or setup error\n"
    "  simulate SPACE [--strategy KIND[,KIND...]] [--islands N] [--budget N] [--budget-s S] [--seed S]\n"
    "       [--seeds N] [--config FILE] [--at N[,N...]] [--json]\n"
    "        replay search strategies against a recorded space (results file, Kernel Tuner cache, .gz too, or T4 file)\n"
    "  report FILE [--out DIR]\n"
    "        HTML and Markdown report of a run with PNG plots (python3-matplotlib)\n"
    "  export FILE [--id N | --best] [--out DIR] [--seeds N]\n"
    "        review package of a candidate, verified again on held-out sizes and seeds: exit 0 verified,\n"
    "        1 FLAGGED (fails on held-out problems), 2 usage or bad file\n"
    "  watch FILE [--interval S] [--once]\n"
    "        live summary of a run's results file while it runs; ends with the run (exit 0; 1 when it died unfinished)\n"
    "  compare FILE|DIR ... [--plot FILE.png] [--csv FILE]\n"
    "        one table across runs (a folder: every .h5 in it), a plot with matplotlib\n"
    "  recheck FILE [--rounds N] [--tolerance T] [--baseline-flags FLAGS]\n"
    "        rebuild, verify and time the winner against the baselines here again: exit 0 still faster,\n"
    "        3 no longer faster, 4 no longer correct, 2 usage or bad file (appended to the file's /rechecks)\n"
    "  space FAMILY [--backend B] [--sample N] [--seed S] [--json]\n"
    "        size of a family's parameter space, its constraints and a sample of valid points\n"
    "  family new NAME [--dir DIR] | family check NAME [--dir DIR] [--backend cpu]\n"
    "        write a minimal working family; check a family (extremes, threads, misaligned pointers, ASan)\n"
    "  help [COMMAND]\n"
    "        this list, or a command's options (the same as COMMAND --help)\n"
    "  version";

}  // namespace

int main(int argc, char** argv) {
  // The orchestrator's own OpenMP threads (input generation, checks) must sleep, not spin,
  // while a worker times a kernel on the same cores. libgomp reads this only at start-up.
  if (!std::getenv("OMP_WAIT_POLICY")) {
    setenv("OMP_WAIT_POLICY", "PASSIVE", 1);
    execv("/proc/self/exe", argv);
  }
  if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h") {
    if (argc < 2)
      galapagos::report::problem("%s", usage);
    else
      galapagos::report::line("%s", usage);
    return argc < 2 ? 2 : 0;
  }
  // Candidates run as the same user: without this they could read the expected outputs out of
  // this process through /proc/<pid>/mem.
  prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
  std::string cmd = argv[1];
  std::vector<std::string> args(argv + 2, argv + argc);
  if (cmd == "help") {  // `galapagos help CMD` is `galapagos CMD --help`
    if (args.empty() || args[0] == "help") {
      galapagos::report::line("%s", usage);
      return 0;
    }
    cmd = args[0];
    args = {"--help"};
  }
  if (cmd == "--version") cmd = "version";
  if (cmd == "simulate") return galapagos::cli::simulate_command(args);  // runs no kernels: no Kokkos
  if (cmd == "report") return galapagos::cli::report_command(args);      // runs no kernels: no Kokkos
  if (cmd == "space") return galapagos::cli::space_command(args);
  if (cmd == "watch") return galapagos::cli::watch_command(args);      // runs no kernels: no Kokkos
  if (cmd == "compare") return galapagos::cli::compare_command(args);  // runs no kernels: no Kokkos
  if (cmd == "version") {
    galapagos::report::line(args.empty() ? "galapagos %s (%s)" : "usage: galapagos version (prints %s and the git revision %s)",
                            galapagos::build_info::version, galapagos::build_info::git_revision);
    return 0;
  }
  if (cmd != "run" && cmd != "eval" && cmd != "resume" && cmd != "export" && cmd != "recheck" && cmd != "family") {
    galapagos::report::problem("galapagos: unknown command '%s'\n%s", cmd.c_str(), usage);
    return 2;
  }
  // A stop request (SIGTERM, SIGUSR1) that arrives while the run starts up is kept, not fatal.
  if (cmd == "run" || cmd == "resume") galapagos::archipelago::install_stop_handlers();
  // The references are Kokkos code loaded at run time into this process.
  Kokkos::InitArguments kargs;
  kargs.disable_warnings = true;
  Kokkos::ScopeGuard kokkos(kargs);
  if (cmd == "run") return galapagos::cli::run_command(args, argc, argv);
  if (cmd == "resume") return galapagos::cli::resume_command(args, argc, argv);
  if (cmd == "export") return galapagos::cli::export_command(args);
  if (cmd == "recheck") return galapagos::cli::recheck_command(args);
  if (cmd == "family") return galapagos::cli::family_command(args);
  return galapagos::cli::eval_command(args);
}
