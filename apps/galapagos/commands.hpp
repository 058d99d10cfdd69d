// The subcommands of the galapagos CLI. Each returns the process exit code.
#pragma once

#include <string>
#include <vector>

namespace galapagos::cli {

int run_command(const std::vector<std::string>& args, int argc, char** argv);
int resume_command(const std::vector<std::string>& args, int argc, char** argv);
int eval_command(const std::vector<std::string>& args);
int report_command(const std::vector<std::string>& args);
int export_command(const std::vector<std::string>& args);
int recheck_command(const std::vector<std::string>& args);
int space_command(const std::vector<std::string>& args);
int simulate_command(const std::vector<std::string>& args);
int watch_command(const std::vector<std::string>& args);
int compare_command(const std::vector<std::string>& args);
// family new NAME [--dir DIR] | family check NAME [--dir DIR] (cmd_family.cpp)
int family_command(const std::vector<std::string>& args);

}  // namespace galapagos::cli
