// galapagos compare A.h5 B.h5 ... [DIR ...] [--plot FILE.png] [--csv FILE]: one table across runs,
// made by the Python package's galapagos.compare (pandas, h5py; matplotlib for --plot) in the
// interpreter python_package.hpp finds.
#include <algorithm>

#include "commands.hpp"
#include "python_package.hpp"

namespace galapagos::cli {

int compare_command(const std::vector<std::string>& args) {
  std::vector<std::string> modules = {"galapagos.compare", "h5py", "pandas"};
  if (std::any_of(args.begin(), args.end(), [](const std::string& a) { return a == "--plot" || a.rfind("--plot=", 0) == 0; }))
    modules.push_back("matplotlib");
  return run_package_module("compare", modules, "galapagos.compare", args);
}

}  // namespace galapagos::cli
