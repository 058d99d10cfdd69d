// What the worker needs to run candidates on the host CPU: every core of the node, an OpenMP
// pool started before any candidate is loaded (so threads a candidate leaves behind can be
// told apart), arguments handed over in place from the shared arena, and a cache flush.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "glp_kernel.h"

namespace galapagos::backends::cpu {

using kernel_fn = int (*)(const glp_arg*, int, const std::int64_t*, void*);

// Widens this process's CPU mask to every CPU the node allows (an MPI launcher may have pinned
// it to one core) and returns how many it now has.
int widen_affinity();

class device {
 public:
  // threads = 0: every CPU this process may run on. flush_bytes: the size of the buffer swept
  // between timed runs (about twice the last-level cache).
  device(int threads, std::size_t flush_bytes);
  int threads() const { return threads_; }
  // Evicts the caches by writing and reading a buffer larger than the last-level cache.
  void flush();
  // Calls the kernel and returns its wall time in seconds (steady clock).
  double run(kernel_fn fn, const std::vector<glp_arg>& args, const std::vector<std::int64_t>& sizes, int& rc);

 private:
  int threads_;
  std::vector<double> flush_buffer_;
};

}  // namespace galapagos::backends::cpu
