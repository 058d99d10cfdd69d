#include "eval/builder.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include "eval/compile_sandbox.hpp"
#include "eval/source_guard.hpp"
#include "util/error.hpp"
#include "util/hash.hpp"
#include "util/isolated.hpp"

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

builder::builder(std::string compiler, std::filesystem::path cache_dir, double timeout_s, std::uintmax_t cache_max_bytes)
    : compiler_(std::move(compiler)),
      cache_dir_(std::move(cache_dir)),
      timeout_s_(timeout_s),
      cache_max_bytes_(cache_max_bytes ? cache_max_bytes : default_cache_max_bytes()) {
  std::error_code ec;
  std::filesystem::create_directories(cache_dir_ / "tmp", ec);
  if (ec) throw error(cache_dir_.string(), "cannot create the build cache folder: " + ec.message());
  identity(compiler_);
  prune_cache(cache_dir_, cache_max_bytes_);
}

const std::string& builder::identity(const std::string& compiler) const {
  std::lock_guard<std::mutex> hold(identities_mutex_);
  auto it = identities_.find(compiler);
  if (it != identities_.end()) return it->second;
  std::string out;
  if (run_program({compiler, "--version"}, out, 30) != 0) throw error(compiler, "compiler not usable: " + out.substr(0, 200));
  // nvcc prints its release on the last line, g++ on the first.
  std::string id = out;
  while (!id.empty() && id.back() == '\n') id.pop_back();
  return identities_[compiler] = id;
}

std::uintmax_t default_cache_max_bytes() {
  const char* mb = std::getenv("GALAPAGOS_CACHE_MAX_MB");
  if (!mb) return std::uintmax_t{2048} << 20;
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(mb, &end, 10);
  if (!*mb || *end || errno || mb[0] == '-' || v == 0)
    throw error("GALAPAGOS_CACHE_MAX_MB", std::string("expected a positive whole number of MiB, got '") + mb + "'");
  return static_cast<std::uintmax_t>(v) << 20;
}

const std::string& processor_identity(const std::string& compiler) {
  static std::mutex mutex;
  static std::map<std::string, std::string> known;
  std::lock_guard<std::mutex> hold(mutex);
  if (auto it = known.find(compiler); it != known.end()) return it->second;
  std::string id;
  std::ifstream cpuinfo("/proc/cpuinfo");
  bool model = false, flags = false;
  for (std::string line; std::getline(cpuinfo, line) && !(model && flags);) {
    const bool is_model = line.rfind("model name", 0) == 0 || line.rfind("CPU part", 0) == 0;
    const bool is_flags = line.rfind("flags", 0) == 0 || line.rfind("Features", 0) == 0;
    if ((is_model && !model) || (is_flags && !flags)) id += line + "\n";
    model |= is_model;
    flags |= is_flags;
  }
  std::string resolved;
  if (run_program({compiler, "-march=native", "-Q", "--help=target"}, resolved, 60) == 0) id += resolved;
  return known[compiler] = id;
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
void add_quoted_includes(util::sha256& key, const std::string& text, const std::filesystem::path& dir,
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

std::filesystem::path source_dir_of(const build_request& r) {
  return r.source.empty() ? std::filesystem::current_path() : std::filesystem::absolute(r.source).parent_path();
}

std::vector<std::string> include_dirs_of(const build_request& r) {
  std::vector<std::string> dirs = r.include_dirs;
  if (!r.source.empty()) dirs.push_back(source_dir_of(r).string());
  return dirs;
}

std::vector<std::string> shared_flags_of(const build_request& r) {
  return r.shared_flags.empty()
             ? std::vector<std::string>{"-fPIC", "-shared", "-fvisibility=hidden", "-fvisibility-inlines-hidden"}
             : r.shared_flags;
}

// What a compile of r passes before the source: its flags, the toolchain's (they name the target:
// nvcc's -gencode, hipcc's --offload-arch), its include folders and its defines. The build and the
// preprocessing of defined_macros share them, so that both see the same conditionals (without the
// target a device pass is preprocessed for the compiler's default architecture, where a template
// may stop with #error: cp.async before sm_80).
std::vector<std::string> compile_options(const build_request& r) {
  std::vector<std::string> options = r.flags;
  for (const auto& f : shared_flags_of(r)) options.push_back(f);
  for (const auto& d : include_dirs_of(r)) options.push_back("-I" + d);
  for (const auto& d : r.defines) options.push_back("-D" + d);
  return options;
}

bool is_nvcc(const std::string& compiler) { return std::filesystem::path(compiler).filename() == "nvcc"; }

// Where the compile may read: the source's folder (and its family's, when the source lies in
// kernels/<family>/<backend>/), the include folders, folders and files the flags name, and the
// compiler's own search list.
read_roots roots_for(const build_request& r, const std::vector<std::string>& include_dirs, const std::string& compiler,
                     const std::string& default_compiler) {
  read_roots roots;
  for (const auto& d : include_dirs) roots.add(d);
  const auto dir = source_dir_of(r);
  std::error_code ec;
  if (!r.source.empty() && std::filesystem::exists(dir.parent_path() / "family.toml", ec)) roots.add(dir.parent_path());
  for (const auto* list : {&r.flags, &r.shared_flags})
    for (std::size_t i = 0; i < list->size(); ++i) {
      const std::string& f = (*list)[i];
      for (const char* opt : {"-I", "-isystem", "-iquote", "-idirafter", "-include"}) {
        const std::size_t n = std::char_traits<char>::length(opt);
        if (f.compare(0, n, opt) != 0) continue;
        const std::string value = f.size() > n ? f.substr(n) : (i + 1 < list->size() ? (*list)[i + 1] : "");
        if (value.empty()) continue;
        const std::filesystem::path p(value);
        roots.add(std::string(opt) == "-include" ? p.parent_path() : p);
      }
    }
  for (const auto& d : compiler_search_dirs(compiler, default_compiler)) roots.add(d);
  return roots;
}

// A compiler sub-process (cc1plus, as, cicc) ended by a signal: the node, not the source.
bool subprocess_killed(const std::string& log) {
  return log.find("terminated program") != std::string::npos || log.find("Killed signal") != std::string::npos ||
         log.find("internal compiler error: Killed") != std::string::npos;
}

// A private folder for one compile, inside the cache (so the object is renamed into place on the
// same file system), removed when the compile is done.
struct private_folder {
  std::filesystem::path root;
  explicit private_folder(const std::filesystem::path& cache_dir) {
    std::string tmpl = (cache_dir / "tmp" / "build-XXXXXX").string();
    if (!mkdtemp(tmpl.data()))
      throw error(cache_dir.string(), std::string("cannot create a build folder: ") + std::strerror(errno));
    root = tmpl;
    std::filesystem::create_directories(root / "src");
    std::filesystem::create_directories(root / "tmp");
  }
  ~private_folder() {
    std::error_code ec;
    std::filesystem::remove_all(root, ec);
  }
};

}  // namespace

std::string build_key(const build_request& r, const std::string& compiler_identity, const std::string& processor) {
  const std::string text = r.source_text.empty() ? util::read_file(r.source.string()) : r.source_text;
  const std::vector<std::string> include_dirs = include_dirs_of(r), shared = shared_flags_of(r);
  util::sha256 key;
  key.add("galapagos build key 2").add(compiler_identity).add(text);
  bool native = false;
  for (const auto* list : {&r.flags, &shared})
    for (const auto& f : *list) native |= f.find("native") != std::string::npos;
  key.add(native ? processor : "");
  for (const auto& dir : include_dirs)
    for (const auto& e : std::filesystem::directory_iterator(dir, std::filesystem::directory_options::skip_permission_denied))
      if (e.is_regular_file() && (e.path().extension() == ".h" || e.path().extension() == ".hpp"))
        key.add(e.path().filename().string()).add(util::read_file(e.path().string()));
  std::set<std::filesystem::path> seen;
  add_quoted_includes(key, text, source_dir_of(r), include_dirs, seen);
  for (const std::vector<std::string>* list :
       std::initializer_list<const std::vector<std::string>*>{&r.flags, &shared, &r.defines, &include_dirs, &r.libs}) {
    key.add(std::to_string(list->size()));
    for (const auto& s : *list) key.add(s);
  }
  return key.hex();
}

void prune_cache(const std::filesystem::path& cache_dir, std::uintmax_t max_bytes) {
  struct entry {
    std::uintmax_t bytes = 0;
    std::filesystem::file_time_type used{};
    std::vector<std::filesystem::path> files;
  };
  std::map<std::string, entry> entries;
  std::uintmax_t total = 0;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(cache_dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code fec;
    if (!it->is_regular_file(fec)) continue;  // tmp/: builds in flight
    const std::string name = it->path().filename().string();
    if (name.find(".tmp") != std::string::npos) continue;  // a file being written
    const auto bytes = it->file_size(fec);
    const auto used = it->last_write_time(fec);
    if (fec) continue;
    entry& e = entries[name.substr(0, name.find('.'))];
    e.bytes += bytes;
    e.used = std::max(e.used, used);
    e.files.push_back(it->path());
    total += bytes;
  }
  if (total <= max_bytes) return;
  std::vector<const entry*> oldest_first;
  for (const auto& [key, e] : entries) oldest_first.push_back(&e);
  std::sort(oldest_first.begin(), oldest_first.end(), [](const entry* a, const entry* b) { return a->used < b->used; });
  for (const entry* e : oldest_first) {
    if (total <= max_bytes) break;
    for (const auto& f : e->files) std::filesystem::remove(f, ec);  // another process may have removed it first
    total -= e->bytes;
  }
}

std::string builder::defined_macros(const build_request& r) const {
  if (r.source.empty() || !r.source_text.empty()) return "";  // the file on disk is what is read
  const std::string compiler = r.compiler.empty() ? compiler_ : r.compiler;
  std::vector<std::string> argv{compiler};
  for (auto& o : compile_options(r)) argv.push_back(std::move(o));
  if (is_nvcc(compiler))
    argv.insert(argv.end(), {"-E", "-Xcompiler", "-dM"});
  else
    argv.insert(argv.end(), {"-E", "-dM"});
  argv.push_back(r.source.string());
  std::string out;
  const int rc = run_program(argv, out, 60);
  return rc == 0 ? out : "";
}

build_result builder::build(const build_request& r) const {
  build_result out;
  const std::string text = r.source_text.empty() ? util::read_file(r.source.string()) : r.source_text;
  out.source_hash = util::hash_text(text);
  const std::string& compiler = r.compiler.empty() ? compiler_ : r.compiler;
  const std::vector<std::string> include_dirs = include_dirs_of(r);
  const std::string name = r.source.empty() ? "candidate.cpp" : r.source.filename().string();
  out.key = build_key(r, identity(compiler), processor_identity(compiler_));

  const auto so = cache_dir_ / (out.key + ".so");
  const auto failed = cache_dir_ / (out.key + ".error");
  const auto src = cache_dir_ / (out.key + r.source.extension().string());
  out.shared_object = so;

  const std::vector<std::string> options = compile_options(r);
  out.command = compiler;
  for (const auto& o : options) out.command += " " + o;
  out.command += " " + src.string() + " -o " + so.string();
  for (const auto& l : r.libs) out.command += " " + l;

  read_roots roots = roots_for(r, include_dirs, compiler, compiler_);
  std::vector<std::filesystem::path> quote_bases = {source_dir_of(r)};
  for (const auto& d : include_dirs) quote_bases.emplace_back(d);
  const std::string refused = scan_source(text, name, quote_bases, roots);
  if (!refused.empty()) {  // checked before the cache: nothing built from such a text is served
    out.log = refused + "\n";
    return out;
  }

  std::error_code ec;
  if (std::filesystem::exists(so)) {
    std::filesystem::last_write_time(so, std::filesystem::file_time_type::clock::now(), ec);  // recently used
    out.ok = out.cached = true;
    return out;
  }
  if (std::filesystem::exists(failed)) {
    std::filesystem::last_write_time(failed, std::filesystem::file_time_type::clock::now(), ec);
    out.cached = true;
    out.log = util::read_file(failed.string());
    return out;
  }
  private_folder work(cache_dir_);
  const auto workdir = work.root / "src";
  roots.add(workdir);
  write_text(src, text);
  write_text(workdir / name, text);
  const auto object = work.root / "out.so", deps = work.root / "deps.d";
  std::vector<std::string> argv = {compiler};
  argv.insert(argv.end(), options.begin(), options.end());
  for (const char* f : {"-MD", "-MF"}) argv.emplace_back(f);
  argv.push_back(deps.string());
  if (!is_nvcc(compiler)) argv.emplace_back("-fno-working-directory");
  for (const auto& a : {name, std::string("-o"), object.string()}) argv.push_back(a);
  for (const auto& l : r.libs) argv.push_back(l);

  const auto t0 = std::chrono::steady_clock::now();
  const compile_outcome run = run_compiler(argv, workdir, work.root / "log", compiler_environment(compiler, work.root / "tmp"),
                                           compile_limits_for(timeout_s_));
  out.compile_time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const std::string log = candidate_diagnostics(run.output, name, work.root / "tmp");
  if (!run.started || run.exit_code == 126 || run.exit_code == 127) {
    out.killed = true;
    out.log = name + ": error: the compiler did not start: " + (run.started ? run.output.substr(0, 300) : run.error) + "\n";
    return out;
  }
  if (run.timed_out || run.signal || subprocess_killed(run.output)) {
    out.killed = true;
    out.log = log + name + ": error: the compiler was " +
              (run.timed_out ? "killed after " + std::to_string(static_cast<int>(timeout_s_)) + " s (time-out)"
               : run.signal  ? "killed by " + util::signal_name(run.signal)
                             : std::string("stopped: a sub-process was killed")) +
              "; not cached\n";
    return out;
  }
  std::string outside;
  if (std::filesystem::exists(deps))
    outside = reads_outside(util::read_file(deps.string()), workdir, roots);
  else if (run.exit_code == 0)
    outside = "(no dependency list was written)";
  if (!outside.empty()) {
    out.log = name + ": error: refused: the compile read " + outside + ", outside the folders a candidate may read\n";
  } else if (run.exit_code == 0 && std::filesystem::exists(object)) {
    std::filesystem::rename(object, so);  // atomic: readers see a whole file or none
    out.ok = true;
    out.log = log;
  } else {
    out.log = log.empty() ? name + ": error: the compiler exited with status " + std::to_string(run.exit_code) + "\n" : log;
  }
  if (!out.ok) write_text(failed, out.log);
  prune_cache(cache_dir_, cache_max_bytes_);
  return out;
}

}  // namespace galapagos::eval
