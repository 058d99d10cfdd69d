// Children that run library code or a family's code on untrusted data (libhdf5 reading a damaged
// file, a family's reference), so that a crash or a hang there ends the child, not galapagos; and
// the names by which the one line about such a child calls the signal that ended it.
#pragma once

#include <sys/types.h>

#include <string>

namespace galapagos::util {

// What a forked child does first: default handlers of the crash signals, no signal blocked, no
// core file, death with `parent`, standard output and error to /dev/null.
void quiet_child(pid_t parent);

// "SIGSEGV"; "signal 70" for a number without a name.
std::string signal_name(int sig);
// "SIGSEGV (Segmentation fault)".
std::string signal_description(int sig);

}  // namespace galapagos::util
