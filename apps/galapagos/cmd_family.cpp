// galapagos family new NAME [--dir DIR] | family check NAME [--dir DIR] [--backend cpu]
#include <boost/program_options.hpp>

#include "commands.hpp"
#include "family_check.hpp"
#include "family_scaffold.hpp"
#include "options.hpp"
#include "util/report.hpp"

namespace po = boost::program_options;

namespace galapagos::cli {

int family_command(const std::vector<std::string>& args) {
  const std::string what = args.empty() ? "" : args[0];
  if (what != "new" && what != "check") {
    const bool help = what == "--help" || what == "-h";
    const char* usage =
        "usage: galapagos family new NAME [--dir DIR]     write a minimal working family into DIR/NAME (default: .)\n"
        "       galapagos family check NAME [--dir DIR]   check a family (found in DIR first, then the usual places)\n"
        "       galapagos family new|check --help         their options";
    if (help)
      report::line("%s", usage);
    else
      report::problem("%s", usage);
    return help ? 0 : 2;
  }
  po::options_description opts(what == "new" ? "galapagos family new NAME" : "galapagos family check NAME");
  opts.add_options()("help,h", "this help")(
      "dir", po::value<std::string>(),
      what == "new" ? "the folder to write NAME/ into (default: the current folder)" : "look for DIR/NAME/family.toml first");
  if (what == "check")
    opts.add_options()("backend", po::value<std::string>()->default_value("cpu"), "the backend to check (cpu)");
  po::variables_map vm;
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  const int code = parse_command_line("family " + what, rest, opts, "name", vm, [](const po::variables_map& given) {
    if (!given.count("name")) throw po::error("a family NAME is required");
  });
  if (code >= 0) return code;
  const std::string name = vm["name"].as<std::string>();
  try {
    if (what == "new") {
      const auto dir = vm.count("dir") ? std::filesystem::path(vm["dir"].as<std::string>()) : std::filesystem::current_path();
      const auto folder = write_family_scaffold(name, dir);
      report::line("wrote %s: family.toml, reference.cpp, cpu/%s.cpp, baselines/openmp_plain.cpp", folder.c_str(), name.c_str());
      report::line("next: galapagos family check %s --dir %s", name.c_str(), dir.c_str());
      return 0;
    }
    std::vector<std::filesystem::path> first;
    if (vm.count("dir")) first.emplace_back(vm["dir"].as<std::string>());
    return check_family(name, first, vm["backend"].as<std::string>());
  } catch (const std::exception& e) {
    report::problem("galapagos family %s: %s", what.c_str(), e.what());
    return 2;
  }
}

}  // namespace galapagos::cli
