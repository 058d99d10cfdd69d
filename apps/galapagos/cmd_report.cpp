// galapagos report FILE [--out DIR]: the run's report, drawn by tools/galapagos_report.py
// (matplotlib and h5py, through report_python()). This side checks the file and adds what only
// the family knows: bytes and flops at the fitness size (the roofline chart) and the sizes the
// search checked (the winner's evidence).
#include <unistd.h>

#include <boost/program_options.hpp>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "commands.hpp"
#include "options.hpp"
#include "results_context.hpp"
#include "util/build_info.hpp"
#include "util/error.hpp"
#include "util/install_layout.hpp"
#include "util/report.hpp"

namespace po = boost::program_options;

namespace galapagos::cli {

namespace {

bool executable(const std::filesystem::path& p) { return access(p.c_str(), X_OK) == 0 && std::filesystem::is_regular_file(p); }

// Whether `python` can import h5py (its exit status, no output).
bool has_h5py(const std::string& python) {
  const std::string cmd = "'" + python + "' -c 'import h5py' >/dev/null 2>&1";
  return std::system(cmd.c_str()) == 0;
}

// The interpreter that draws the report: $GALAPAGOS_PYTHON, else /usr/bin/python3 where it has
// h5py (Debian's packages, whatever python3 a module or a virtual environment put first on PATH),
// else the python3 first on PATH.
std::string report_python() {
  if (const char* env = std::getenv("GALAPAGOS_PYTHON"); env && *env) return env;
  const std::string system_python = "/usr/bin/python3";
  if (executable(system_python) && has_h5py(system_python)) return system_python;
  if (const char* path = std::getenv("PATH")) {
    std::stringstream dirs(path);
    std::string dir;
    while (std::getline(dirs, dir, ':'))
      if (!dir.empty() && executable(std::filesystem::path(dir) / "python3"))
        return (std::filesystem::path(dir) / "python3").string();
  }
  return system_python;
}

}  // namespace

int report_command(const std::vector<std::string>& args) {
  po::options_description opts("galapagos report FILE");
  opts.add_options()("help,h", "this help")("out", po::value<std::string>(),
                                            "output folder (default: FILE without .h5, plus -report)");
  po::variables_map vm;
  const int code = parse_command_line("report", args, opts, "file", vm, [](const po::variables_map& given) {
    if (!given.count("file")) throw po::error("a results FILE is required (the HDF5 file of a run)");
  });
  if (code >= 0) return code;
  const std::string file = vm["file"].as<std::string>();
  nlohmann::json cost;
  try {
    const auto f = open_results(file);
    try {  // without its family the report is still drawn, only the roofline chart is missing
      const auto run = read_run(f);
      cost["accept_sizes"] = describe_accept_sizes(run.family);
      cost["seeds"] = run.config.eval.checks.seeds;
      cost["fitness"] = run.fitness;
      cost["dtype"] = families::dtype_name(run.family.compute_type());
      if (const auto s = sizes_in(run.family, run.fitness)) {
        cost["bytes"] = run.family.bytes(*s);
        cost["flops"] = run.family.flops(*s);
      }
    } catch (const damaged_file&) {
      throw;  // a damaged file is an error, not a missing chart
    } catch (const std::exception& e) {
      report::problem("galapagos report: no roofline chart: %s", e.what());
    }
  } catch (const std::exception& e) {
    report::problem("galapagos report: %s", e.what());
    return 2;
  }
  const std::string script = (util::tools_dir() / "galapagos_report.py").string();
  if (!std::filesystem::is_regular_file(script)) {
    report::problem("galapagos report: %s: no such file (the report script; set GALAPAGOS_TOOLS to the tools/ folder)",
                    script.c_str());
    return 2;
  }
  std::vector<std::string> argv = {report_python(), script, file};
  if (vm.count("out")) argv.insert(argv.end(), {"--out", vm["out"].as<std::string>()});
  if (!cost.empty()) argv.insert(argv.end(), {"--cost", cost.dump()});
  std::vector<char*> cargv;
  for (auto& a : argv) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  setenv("GALAPAGOS_VERSION", build_info::version, 1);
  std::fflush(nullptr);
  execv(cargv[0], cargv.data());
  report::problem("galapagos report: cannot run %s: %s (set GALAPAGOS_PYTHON to a python3 with matplotlib, h5py and pandas)",
                  cargv[0], std::strerror(errno));
  return 2;
}

}  // namespace galapagos::cli
