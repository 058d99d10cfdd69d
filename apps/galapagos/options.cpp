#include "options.hpp"

#include <cstdio>
#include <iostream>

namespace po = boost::program_options;

namespace galapagos::cli {

int parse_command_line(const std::string& command, const std::vector<std::string>& args, const po::options_description& opts,
                       const char* positional, po::variables_map& vm, const std::function<void(const po::variables_map&)>& check) {
  po::options_description hidden;
  hidden.add_options()(positional, po::value<std::string>());
  po::options_description all;
  all.add(opts).add(hidden);
  po::positional_options_description pos;
  pos.add(positional, 1);
  try {
    po::store(po::command_line_parser(args).options(all).positional(pos).run(), vm);
    po::notify(vm);
    if (vm.count("help")) {
      std::cout << opts << "\n";
      return 0;
    }
    if (check) check(vm);
  } catch (const po::error& e) {
    std::fprintf(stderr, "galapagos %s: %s\n", command.c_str(), e.what());
    return 2;
  }
  return -1;
}

}  // namespace galapagos::cli
