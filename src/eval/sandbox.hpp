// The worker side of isolation (docs/threat-model.md): resource limits, dropped capabilities
// and a seccomp filter. Applied by galapagos-worker after its own setup and before it loads
// any candidate, so nothing a candidate runs (its constructors included) escapes them.
#pragma once

#include <cstdint>

namespace galapagos::eval::sandbox {

struct limits {
  std::uint64_t address_space_bytes = 0;  // 0 = unlimited (sanitizer builds)
  std::uint64_t cpu_seconds = 60;
  std::uint64_t open_files = 64;
  std::uint64_t file_size_bytes = 16u << 20;
};

// setrlimit for address space, CPU time, open files, file size; core dumps off. Hard = soft.
void apply_limits(const limits& l);
// Drops every capability (also from the bounding set) and sets no_new_privs.
void drop_privileges();
// Kills the process (SIGSYS) on: sockets and socket calls, exec, fork/vfork, clone without
// CLONE_THREAD, ptrace and cross-process memory access, opening files for writing or creating,
// changing files or their metadata, signals to other processes, raising resource limits.
void install_filter();
// Number of threads of this process (/proc/self/task).
int thread_count();

}  // namespace galapagos::eval::sandbox
