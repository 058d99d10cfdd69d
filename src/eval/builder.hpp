// Builds sources into shared objects through a content-addressed cache: the key (SHA-256) covers
// the source text, the headers it reaches, every flag, the compiler's identity and, for flags
// that ask for the native processor, the processor itself, so nothing is compiled twice, within
// a run or across runs, and a cache shared by several nodes never serves a build made for
// another processor. Compiler diagnostics are cached too: they are data. A compile stopped from
// outside (time-out, a signal) is not. Every compile runs in the compiler sandbox
// (compile_sandbox.hpp) behind the read checks of source_guard.hpp; the cache is pruned to a
// size limit, least recently used entries first.
#pragma once

#include <signal.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace galapagos::eval {

struct build_request {
  std::string compiler;                   // empty: the builder's default (g++)
  std::vector<std::string> shared_flags;  // how this compiler makes a shared object; empty: g++'s
  std::filesystem::path source;
  std::string source_text;           // empty: read from `source`
  std::vector<std::string> flags;    // the family's flags
  std::vector<std::string> defines;  // "GLP_TILE_X=64"
  std::vector<std::string> include_dirs;
  std::vector<std::string> libs;  // "-lopenblas", "-L/dir"
};

struct build_result {
  bool ok = false;
  std::filesystem::path shared_object;
  std::string source_hash;  // of the source text alone (the results file's key)
  std::string key;          // of everything that went into the build
  std::string log;          // the compiler's diagnostics about the candidate's own file, or why it was refused
  std::string command;      // the command line, as run on the cache's copy of the source
  double compile_time_s = 0;
  bool cached = false;
  bool killed = false;  // stopped from outside (time-out, a signal) or did not start: not cached
};

class builder {
 public:
  // compiler: the default C++ compiler driver (g++). cache_dir is created if needed, and kept
  // under cache_max_bytes (0: default_cache_max_bytes()).
  builder(std::string compiler, std::filesystem::path cache_dir, double timeout_s = 300, std::uintmax_t cache_max_bytes = 0);
  // Safe to call from several threads at once (the evaluator compiles ahead on spare cores).
  build_result build(const build_request& r) const;
  const std::string& compiler_identity() const { return identity(compiler_); }
  // The compiler's version line, asked once (throws galapagos::error when it does not run).
  const std::string& identity(const std::string& compiler) const;
  const std::filesystem::path& cache_dir() const { return cache_dir_; }
  // The macros defined after preprocessing r's source file with the options its build passes
  // (flags, the toolchain's target flags, include folders, defines; `-E -dM`), one
  // "#define NAME VALUE" per line: what a build of r sees, conditionals and headers resolved. Empty when r has no file or carries
  // a text of its own, or when the compiler cannot tell (it fails, or takes over 60 s).
  std::string defined_macros(const build_request& r) const;

 private:
  std::string compiler_;
  std::filesystem::path cache_dir_;
  mutable std::map<std::string, std::string> identities_;
  mutable std::mutex identities_mutex_;
  double timeout_s_;
  std::uintmax_t cache_max_bytes_;
};

// The cache key of a build: SHA-256 of the compiler's identity, the text, the headers it reaches,
// every flag, define, include folder and library, and `processor` when a flag names the native
// processor (-march=native, -mcpu=native, -arch=native ...).
std::string build_key(const build_request& r, const std::string& compiler_identity, const std::string& processor);

// The host processor as a build for `-march=native` sees it: /proc/cpuinfo's model name and
// flags, and what `compiler -march=native -Q --help=target` resolves native to. Asked once per
// compiler and process.
const std::string& processor_identity(const std::string& compiler);

// Deletes the least recently used entries (an entry: the files of one key) until the cache
// holds at most max_bytes. Builds in flight (tmp/) are left alone.
void prune_cache(const std::filesystem::path& cache_dir, std::uintmax_t max_bytes);

// $GALAPAGOS_CACHE_MAX_MB (a whole number of MiB), else 2 GiB. Throws galapagos::error for
// anything but a number.
std::uintmax_t default_cache_max_bytes();

// The signals that ask galapagos to checkpoint and stop (SIGTERM, SIGUSR1). A batch system may
// send them to every process of the job (srun does), so the programs galapagos starts (compilers,
// workers) start with them blocked: only the orchestrator acts on them, and a build or timing in
// flight finishes.
sigset_t stop_signals();

// Runs a program with arguments (no shell), capturing stdout+stderr; kills it after timeout_s.
// Returns the exit status (-1 when it could not start or was killed).
int run_program(const std::vector<std::string>& argv, std::string& output, double timeout_s);

// $GALAPAGOS_CACHE, else $XDG_CACHE_HOME/galapagos, else ~/.cache/galapagos.
std::filesystem::path default_cache_dir();

}  // namespace galapagos::eval
