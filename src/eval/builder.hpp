// Builds sources into shared objects through a content-addressed cache: the key covers the
// source text, the ABI header, every flag and the compiler's identity, so nothing is compiled
// twice, within a run or across runs. Compile failures are cached too: they are data.
#pragma once

#include <signal.h>

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
  std::string source_text;                // empty: read from `source`
  std::vector<std::string> flags;         // the family's flags
  std::vector<std::string> defines;       // "GLP_TILE_X=64"
  std::vector<std::string> include_dirs;
  std::vector<std::string> libs;          // "-lopenblas", "-L/dir"
};

struct build_result {
  bool ok = false;
  std::filesystem::path shared_object;
  std::string source_hash;  // of the source text alone (the results file's key)
  std::string key;          // of everything that went into the build
  std::string log;          // compiler output (errors and warnings)
  std::string command;      // the exact command line
  double compile_time_s = 0;
  bool cached = false;
};

class builder {
 public:
  // compiler: the default C++ compiler driver (g++). cache_dir is created if needed.
  builder(std::string compiler, std::filesystem::path cache_dir, double timeout_s = 300);
  // Safe to call from several threads at once (the evaluator compiles ahead on spare cores).
  build_result build(const build_request& r) const;
  const std::string& compiler_identity() const { return identity(compiler_); }
  // The compiler's version line, asked once (throws galapagos::error when it does not run).
  const std::string& identity(const std::string& compiler) const;
  const std::filesystem::path& cache_dir() const { return cache_dir_; }

 private:
  std::string compiler_;
  std::filesystem::path cache_dir_;
  mutable std::map<std::string, std::string> identities_;
  mutable std::mutex identities_mutex_;
  double timeout_s_;
};

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
