// The Python side of the CLI: `galapagos report` and `galapagos compare --plot` run a module of
// the galapagos Python package (python/galapagos) in an interpreter that can import it with what
// it needs. The interpreter is $GALAPAGOS_PYTHON when set, else the python3 first on PATH, else
// /usr/bin/python3; each is tried as it is (the package pip-installed into it) and then with the
// package folder of this galapagos (util::python_dir(): share/galapagos/python, or python/ of the
// source tree) put first on its PYTHONPATH.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace galapagos::cli {

struct package_python {
  std::string interpreter;
  std::string pythonpath;  // the package folder to put on PYTHONPATH; empty: installed in the interpreter
};

// The first candidate interpreter that imports every module of `modules` (e.g. {"galapagos.report",
// "h5py", "matplotlib"}); nullopt when none does, with `tried` naming what was tried.
std::optional<package_python> find_package_python(const std::vector<std::string>& modules, std::string& tried);

// Replaces this process with `python -m module args...` (PYTHONPATH set as `python` says, the
// environment otherwise kept). Returns only when that fails, after printing one line for `command`:
// exit code 2.
int exec_package_module(const std::string& command, const package_python& python, const std::string& module,
                        const std::vector<std::string>& args);

// find_package_python and exec_package_module together; one line naming the interpreters tried and
// what to install when none works. Returns 2 then.
int run_package_module(const std::string& command, const std::vector<std::string>& modules, const std::string& module,
                       const std::vector<std::string>& args);

}  // namespace galapagos::cli
