// A family's reference is trusted code (it is ours, or the family author's), but it is still code
// that can crash or loop, and it runs inside the orchestrator. run_reference calls it in a forked
// child process: a crash is reported as an error naming the family and the signal, a reference
// that does not finish is killed after a generous time limit, and the run ends with one line
// instead of dying with a bare SIGSEGV or hanging forever.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "families/family.hpp"
#include "glp_kernel.h"

namespace galapagos::eval {

// The time limit of one reference call: `limit_s` ([eval] reference_timeout_s) when > 0, else
// max(60 s, 20 x eval_timeout_s), eval_timeout_s being the time-out of one worker request (the
// reference is serial and may be far slower than a kernel). Set once per process from the run's
// settings; 20 x 60 s before.
void set_reference_time_limit(double eval_timeout_s, double limit_s = 0);
double reference_time_limit_s();

// Calls ref(args, nargs, sizes) in a child process, the first time at each size: once it has
// returned 0 at a size, later calls at that size (the timed runs') run in this process, since a
// fork costs a page fault per page of the problem. The child writes the out and inout
// arguments into memory shared with this process, copied into args[i].data when it finishes.
// Returns what ref returned. Throws galapagos::error naming f's reference source when the
// child dies of a signal ("the reference of family F crashed with SIGSEGV (Segmentation fault)
// at AT") or runs past the limit ("... did not finish within N s at AT"); AT says the size.
int run_reference(const families::family& f, int (*ref)(const glp_arg*, int, const std::int64_t*), std::vector<glp_arg>& args,
                  const std::int64_t* sizes, const std::string& at);

}  // namespace galapagos::eval
