// galapagos report FILE [--out DIR]: the run's report, drawn by the Python package's
// galapagos.report (matplotlib and h5py, in the interpreter python_package.hpp finds). This side
// checks the file and adds what only the family knows: bytes and flops at the fitness size (the
// roofline chart) and the sizes the search checked (the winner's evidence).
#include <boost/program_options.hpp>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "options.hpp"
#include "python_package.hpp"
#include "results_context.hpp"
#include "util/error.hpp"
#include "util/report.hpp"

namespace po = boost::program_options;

namespace galapagos::cli {

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
  std::vector<std::string> argv = {file};
  if (vm.count("out")) argv.insert(argv.end(), {"--out", vm["out"].as<std::string>()});
  if (!cost.empty()) argv.insert(argv.end(), {"--cost", cost.dump()});
  return run_package_module("report", {"galapagos.report", "h5py", "pandas", "matplotlib"}, "galapagos.report", argv);
}

}  // namespace galapagos::cli
