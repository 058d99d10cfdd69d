// The worker side of isolation (docs/threat-model.md): an IPC namespace of its own, resource
// limits, dropped capabilities and a seccomp allow-list. Applied by galapagos-worker after its
// own setup and before it loads any candidate, so nothing a candidate runs (its constructors
// included) escapes them.
#pragma once

#include <cstdint>
#include <string_view>

namespace galapagos::worker::sandbox {

struct limits {
  std::uint64_t address_space_bytes = 0;  // 0 = unlimited (sanitizer builds)
  std::uint64_t cpu_seconds = 60;
  std::uint64_t open_files = 64;
  std::uint64_t file_size_bytes = 16u << 20;
};

// Moves the process into a new IPC namespace, so that System V segments, semaphores and POSIX
// message queues it could create die with it and it cannot reach other processes' ones. As an
// unprivileged user this needs a user namespace too (uid and gid mapped to themselves, so file
// access is unchanged). Must run while the process has a single thread. Best effort: returns
// false where the kernel refuses both (the filter refuses those calls anyway).
bool enter_private_ipc();
// setrlimit for address space, CPU time, open files, file size; core dumps, real-time priority,
// nice raising and message queues off. Hard = soft.
void apply_limits(const limits& l);
// Drops every capability (also from the bounding set) and sets no_new_privs.
void drop_privileges();
// Installs the system-call allow-list: any call not on it kills the process (SIGSYS), and so
// do the listed calls' dangerous forms (see docs/threat-model.md, "The system-call allow-list").
// The GPU backends ("cuda", "hip") keep two allowances the GPU driver may need: executable mappings and new
// signal handlers.
void install_filter(std::string_view backend);

}  // namespace galapagos::worker::sandbox
