// For a family's trusted code (its checker glp_check, its reference): a loop split into one
// contiguous share per core with plain std::thread, so that a check over hundreds of megabytes
// does not run on one core while the rest of the node waits (the worker is frozen during the
// checks). Trusted code is built without -fopenmp; this needs nothing but the C++ library.
#ifndef GLP_PARALLEL_HPP
#define GLP_PARALLEL_HPP

#include <sched.h>

#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

namespace glp {

// The cores this process may run on (its affinity mask: a Slurm allocation, taskset), at least 1.
inline int usable_cores() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
  return std::max(1u, std::thread::hardware_concurrency());
}

// How many shares [0, n) is split into: one per usable core, none smaller than min_share.
inline int parts_for(int64_t n, int64_t min_share) {
  const int64_t wanted = min_share > 0 ? (n + min_share - 1) / min_share : n;
  return static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(usable_cores(), wanted)));
}

// Calls body(part, begin, end) for each of `parts` contiguous shares of [0, n), each on a thread
// of its own (share 0 on the calling thread). Every call has returned when this returns.
template <class Body>
void parallel_parts(int parts, int64_t n, Body body) {
  std::vector<std::thread> threads;
  for (int t = 1; t < parts; ++t) threads.emplace_back([=, &body] { body(t, n * t / parts, n * (t + 1) / parts); });
  body(0, 0, n / parts);
  for (auto& th : threads) th.join();
}

}  // namespace glp

#endif
