#include "eval/builder.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include "util/error.hpp"
#include "util/hash.hpp"

extern char** environ;

namespace galapagos::eval {

sigset_t stop_signals() {
  sigset_t s;
  sigemptyset(&s);
  sigaddset(&s, SIGTERM);
  sigaddset(&s, SIGUSR1);
  return s;
}

int run_program(const std::vector<std::string>& argv, std::string& output, double timeout_s) {
  int pipefd[2];
  if (pipe2(pipefd, O_CLOEXEC) != 0) return -1;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1);
  posix_spawn_file_actions_adddup2(&fa, pipefd[1], 2);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  const sigset_t blocked = stop_signals();
  posix_spawnattr_setsigmask(&attr, &blocked);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  const int rc = posix_spawnp(&pid, args[0], &fa, &attr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  close(pipefd[1]);
  if (rc != 0) {
    close(pipefd[0]);
    output = std::string("cannot start ") + argv[0] + ": " + std::strerror(rc);
    return -1;
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  bool killed = false;
  char buf[4096];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) {
      kill(-pid, SIGKILL);
      killed = true;
      break;
    }
    pollfd p{pipefd[0], POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left)) <= 0) continue;
    const ssize_t n = read(pipefd[0], buf, sizeof buf);
    if (n <= 0) break;
    if (output.size() < (1u << 20)) output.append(buf, static_cast<std::size_t>(n));
  }
  close(pipefd[0]);
  int st = 0;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  if (killed) {
    output += "\n(killed after " + std::to_string(timeout_s) + " s)";
    return -1;
  }
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

std::filesystem::path default_cache_dir() {
  if (const char* c = std::getenv("GALAPAGOS_CACHE")) return c;
  if (const char* x = std::getenv("XDG_CACHE_HOME")) return std::filesystem::path(x) / "galapagos";
  if (const char* h = std::getenv("HOME")) return std::filesystem::path(h) / ".cache" / "galapagos";
  return "/tmp/galapagos-cache";
}

builder::builder(std::string compiler, std::filesystem::path cache_dir, double timeout_s)
    : compiler_(std::move(compiler)), cache_dir_(std::move(cache_dir)), timeout_s_(timeout_s) {
  std::error_code ec;
  std::filesystem::create_directories(cache_dir_, ec);
  if (ec) throw error(cache_dir_.string(), "cannot create the build cache folder: " + ec.message());
  identity(compiler_);
}

const std::string& builder::identity(const std::string& compiler) const {
  std::lock_guard<std::mutex> hold(identities_mutex_);
  auto it = identities_.find(compiler);
  if (it != identities_.end()) return it->second;
  std::string out;
  if (run_program({compiler, "--version"}, out, 30) != 0)
    throw error(compiler, "compiler not usable: " + out.substr(0, 200));
  // nvcc prints its release on the last line, g++ on the first.
  std::string id = out;
  while (!id.empty() && id.back() == '\n') id.pop_back();
  return identities_[compiler] = id;
}

namespace {

// A name beside `p` that no other process or thread writes at the same time.
std::string temporary_name(const std::filesystem::path& p) {
  static std::atomic<unsigned> counter{0};
  return p.string() + ".tmp" + std::to_string(getpid()) + "." + std::to_string(counter++);
}

// Adds to the build key every header the text reaches through #include "..." (resolved beside
// the including file first, then in the include folders), recursively: editing a header that
// sources share through a relative path (kernels/<family>/cuda_hip/...) then rebuilds them.
void add_quoted_includes(util::content_hash& key, const std::string& text, const std::filesystem::path& dir,
                         const std::vector<std::string>& include_dirs, std::set<std::filesystem::path>& seen) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::size_t i = line.find_first_not_of(" \t");
    if (i == std::string::npos || line[i] != '#') continue;
    i = line.find_first_not_of(" \t", i + 1);
    if (i == std::string::npos || line.compare(i, 7, "include") != 0) continue;
    const std::size_t open = line.find('"', i + 7), close = open == std::string::npos ? open : line.find('"', open + 1);
    if (close == std::string::npos) continue;  // <...>: a system header
    const std::string name = line.substr(open + 1, close - open - 1);
    std::vector<std::filesystem::path> places = {dir / name};
    for (const auto& d : include_dirs) places.push_back(std::filesystem::path(d) / name);
    for (const auto& place : places) {
      std::error_code ec;
      if (!std::filesystem::is_regular_file(place, ec)) continue;
      const auto file = std::filesystem::weakly_canonical(place, ec);
      if (seen.insert(file).second) {
        const std::string header = util::read_file(file.string());
        key.add(name).add(header);
        add_quoted_includes(key, header, file.parent_path(), include_dirs, seen);
      }
      break;
    }
  }
}

void write_text(const std::filesystem::path& p, const std::string& text) {
  const auto tmp = temporary_name(p);
  {
    std::ofstream o(tmp, std::ios::binary);
    o << text;
  }
  std::filesystem::rename(tmp, p);
}

}  // namespace

build_result builder::build(const build_request& r) const {
  build_result out;
  const std::string text = r.source_text.empty() ? util::read_file(r.source.string()) : r.source_text;
  out.source_hash = util::hash_text(text);

  std::vector<std::string> include_dirs = r.include_dirs;
  if (!r.source.empty()) include_dirs.push_back(std::filesystem::absolute(r.source).parent_path().string());
  const std::string& compiler = r.compiler.empty() ? compiler_ : r.compiler;
  const std::vector<std::string> shared = r.shared_flags.empty()
      ? std::vector<std::string>{"-fPIC", "-shared", "-fvisibility=hidden", "-fvisibility-inlines-hidden"} : r.shared_flags;
  util::content_hash key;
  key.add(identity(compiler)).add(text);
  for (const auto& dir : include_dirs)
    for (const auto& e : std::filesystem::directory_iterator(dir, std::filesystem::directory_options::skip_permission_denied))
      if (e.is_regular_file() && (e.path().extension() == ".h" || e.path().extension() == ".hpp"))
        key.add(e.path().filename().string()).add(util::read_file(e.path().string()));
  std::set<std::filesystem::path> seen;
  add_quoted_includes(key, text, r.source.empty() ? std::filesystem::current_path() : std::filesystem::absolute(r.source).parent_path(),
                      include_dirs, seen);
  for (const std::vector<std::string>* list : std::initializer_list<const std::vector<std::string>*>{&r.flags, &shared, &r.defines, &include_dirs, &r.libs})
    for (const auto& s : *list) key.add(s);
  out.key = key.hex();

  const auto so = cache_dir_ / (out.key + ".so");
  const auto failed = cache_dir_ / (out.key + ".error");
  const auto src = cache_dir_ / (out.key + r.source.extension().string());
  out.shared_object = so;

  std::vector<std::string> argv = {compiler};
  for (const auto& f : r.flags) argv.push_back(f);
  for (const auto& f : shared) argv.push_back(f);
  for (const auto& d : include_dirs) argv.push_back("-I" + d);
  for (const auto& d : r.defines) argv.push_back("-D" + d);
  argv.push_back(src.string());
  argv.push_back("-o");
  const std::string tmp_so = temporary_name(so);
  argv.push_back(tmp_so);
  for (const auto& l : r.libs) argv.push_back(l);
  for (std::size_t i = 0; i < argv.size(); ++i) out.command += (i ? " " : "") + argv[i];

  if (std::filesystem::exists(so)) {
    out.ok = out.cached = true;
    return out;
  }
  if (std::filesystem::exists(failed)) {
    out.cached = true;
    out.log = util::read_file(failed.string());
    return out;
  }
  write_text(src, text);
  const auto t0 = std::chrono::steady_clock::now();
  std::string log;
  const int rc = run_program(argv, log, timeout_s_);
  out.compile_time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  out.log = log;
  if (rc == 0 && std::filesystem::exists(tmp_so)) {
    std::filesystem::rename(tmp_so, so);  // atomic: readers see a whole file or none
    out.ok = true;
  } else {
    std::error_code ec;
    std::filesystem::remove(tmp_so, ec);
    write_text(failed, log.empty() ? "compiler exited with status " + std::to_string(rc) : log);
  }
  return out;
}

}  // namespace galapagos::eval
