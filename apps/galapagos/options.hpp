// Command-line parsing shared by the subcommands: named options plus one positional argument.
#pragma once

#include <boost/program_options.hpp>
#include <functional>
#include <string>
#include <vector>

namespace galapagos::cli {

// Reads `args` against `opts` and one positional argument named `positional` (hidden from the
// help). `check` may throw boost::program_options::error to refuse what was given (a required
// argument missing, options that exclude each other). Returns 0 after printing the help, 2 after
// printing "galapagos COMMAND: problem" on stderr, and -1 when `vm` holds what to run with.
int parse_command_line(const std::string& command, const std::vector<std::string>& args,
                       const boost::program_options::options_description& opts, const char* positional,
                       boost::program_options::variables_map& vm,
                       const std::function<void(const boost::program_options::variables_map&)>& check = {});

}  // namespace galapagos::cli
