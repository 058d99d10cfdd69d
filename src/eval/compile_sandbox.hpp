// Runs a compiler on source that may be hostile (docs/threat-model.md, "The compiler"): resource
// limits, a clean environment, no network where the kernel allows a private network namespace,
// stdin from /dev/null, output to a file, and a private working folder. The whole process group
// (driver, cc1plus, as, ld, nvcc's helpers) is killed on the time-out and when galapagos exits.
//
// How: fork, then in the child (only async-signal-safe calls) a new session, limits and
// namespaces, then one more fork. The first child stays behind as a tiny supervisor: it has
// PR_SET_PDEATHSIG, and when galapagos dies it kills its own process group, which holds every
// program the compiler driver started (PR_SET_PDEATHSIG alone would reach the driver but leave
// cc1plus running). posix_spawn cannot set limits or a parent-death signal; a separate
// trampoline binary would need to be found and installed beside galapagos.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace galapagos::eval {

struct compile_limits {
  double wall_s = 300;                             // the group is SIGKILLed past it
  std::uint64_t cpu_seconds = 300;                 // per process (RLIMIT_CPU)
  std::uint64_t address_space_bytes = 8ull << 30;  // per process (RLIMIT_AS); 0 = unlimited
  std::uint64_t file_size_bytes = 256ull << 20;    // largest file a compiler may write
  std::uint64_t extra_processes = 256;             // RLIMIT_NPROC beyond the node's current count
  std::uint64_t open_files = 1024;
};

struct compile_outcome {
  bool started = false;
  bool timed_out = false;  // killed by the wall clock
  int exit_code = -1;      // the driver's exit status when it exited
  int signal = 0;          // the signal that ended the driver (RLIMIT_CPU's SIGXCPU among them)
  std::string output;      // stdout + stderr (the first `max_output_bytes`)
  std::string error;       // why it could not start
};

// Runs argv[0] (a path, or a name looked up in $PATH of galapagos) with argv in `workdir`.
// The environment is exactly `env`. Output goes to `log_file` (outside workdir), then is read
// back. `private_tmp` becomes HOME and TMPDIR when `env` does not name them.
compile_outcome run_compiler(const std::vector<std::string>& argv, const std::filesystem::path& workdir,
                             const std::filesystem::path& log_file, const std::vector<std::string>& env,
                             const compile_limits& limits, std::size_t max_output_bytes = 1u << 20);

// The environment a compiler gets: PATH of the compiler's own folder (and the CUDA toolkit's for
// nvcc) before the system's, LANG=C, HOME and TMPDIR in `private_tmp`, and LD_LIBRARY_PATH
// (compilers from environment modules need it; it holds no secrets). Nothing else.
std::vector<std::string> compiler_environment(const std::string& compiler, const std::filesystem::path& private_tmp);

// The resolved path of a program name (as execvp would find it on $PATH), or "" when none.
std::string find_program(const std::string& name);

// Limits for a compile of `timeout_s` seconds; $GALAPAGOS_COMPILE_MEMORY_MB overrides the
// address-space limit (0 = unlimited; anything but a number throws galapagos::error).
compile_limits compile_limits_for(double timeout_s);

}  // namespace galapagos::eval
