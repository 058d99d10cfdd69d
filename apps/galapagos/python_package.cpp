#include "python_package.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>

#include "util/build_info.hpp"
#include "util/install_layout.hpp"
#include "util/report.hpp"

namespace galapagos::cli {

namespace {

bool executable(const std::filesystem::path& p) {
  std::error_code ec;
  return access(p.c_str(), X_OK) == 0 && std::filesystem::is_regular_file(p, ec);
}

// PYTHONPATH with `folder` first (the caller's entries kept after it).
std::string with_folder(const std::string& folder) {
  const char* old = std::getenv("PYTHONPATH");
  return old && *old ? folder + ":" + old : folder;
}

// Whether `python` imports every module (its exit status; its output discarded).
bool imports(const std::string& python, const std::string& pythonpath, const std::vector<std::string>& modules) {
  std::string code = "import ";
  for (std::size_t i = 0; i < modules.size(); ++i) code += (i ? ", " : "") + modules[i];
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) return false;
  if (pid == 0) {
    const int null = open("/dev/null", O_RDWR);
    if (null >= 0) {
      dup2(null, STDIN_FILENO);
      dup2(null, STDOUT_FILENO);
      dup2(null, STDERR_FILENO);
    }
    if (!pythonpath.empty()) setenv("PYTHONPATH", with_folder(pythonpath).c_str(), 1);
    setenv("PYTHONDONTWRITEBYTECODE", "1", 1);
    execl(python.c_str(), python.c_str(), "-c", code.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

// The first `name` in a folder of PATH; nullopt when none is there.
std::optional<std::string> on_path(const std::string& name) {
  if (const char* path = std::getenv("PATH")) {
    std::stringstream dirs(path);
    std::string dir;
    while (std::getline(dirs, dir, ':'))
      if (!dir.empty() && executable(std::filesystem::path(dir) / name)) return (std::filesystem::path(dir) / name).string();
  }
  return std::nullopt;
}

std::vector<std::string> candidates() {
  if (const char* env = std::getenv("GALAPAGOS_PYTHON"); env && *env) {
    const std::string name = env;  // a bare name ("python3.11") is looked up on PATH
    return {name.find('/') == std::string::npos ? on_path(name).value_or(name) : name};
  }
  std::vector<std::string> out;
  if (const auto first = on_path("python3")) out.push_back(*first);
  if (out.empty() || out[0] != "/usr/bin/python3") out.push_back("/usr/bin/python3");
  return out;
}

}  // namespace

std::optional<package_python> find_package_python(const std::vector<std::string>& modules, std::string& tried) {
  const std::string folder = util::python_dir().string();
  const bool have_folder = std::filesystem::is_regular_file(util::python_dir() / "galapagos" / "__init__.py");
  tried.clear();
  for (const auto& python : candidates()) {
    tried += (tried.empty() ? "" : ", ") + python;
    if (!executable(python)) {
      tried += " (not an executable file)";
      continue;
    }
    if (imports(python, "", modules)) return package_python{python, ""};
    if (have_folder && imports(python, folder, modules)) return package_python{python, folder};
  }
  if (!have_folder) tried += "; no package folder " + (util::python_dir() / "galapagos").string();
  return std::nullopt;
}

int exec_package_module(const std::string& command, const package_python& python, const std::string& module,
                        const std::vector<std::string>& args) {
  std::vector<std::string> argv = {python.interpreter, "-m", module};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> cargv;
  for (auto& a : argv) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  if (!python.pythonpath.empty()) setenv("PYTHONPATH", with_folder(python.pythonpath).c_str(), 1);
  setenv("GALAPAGOS_VERSION", build_info::version, 1);
  std::fflush(nullptr);
  execv(cargv[0], cargv.data());
  report::problem("galapagos %s: cannot run %s: %s (set GALAPAGOS_PYTHON to a python3 that has h5py, pandas and matplotlib)",
                  command.c_str(), cargv[0], std::strerror(errno));
  return 2;
}

int run_package_module(const std::string& command, const std::vector<std::string>& modules, const std::string& module,
                       const std::vector<std::string>& args) {
  std::string tried;
  const auto python = find_package_python(modules, tried);
  if (!python) {
    std::string list;
    for (const auto& m : modules) list += (list.empty() ? "" : ", ") + m;
    report::problem(
        "galapagos %s: no python3 imports %s (tried %s): install python3-h5py python3-pandas "
        "python3-matplotlib, `pip install` share/galapagos/python, or set GALAPAGOS_PYTHON",
        command.c_str(), list.c_str(), tried.c_str());
    return 2;
  }
  return exec_package_module(command, *python, module, args);
}

}  // namespace galapagos::cli
