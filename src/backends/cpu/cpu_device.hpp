// The host CPU as a device: every core of the node, an OpenMP pool started before any candidate
// is loaded (so threads a candidate leaves behind can be told apart), arguments handed over in
// place from the shared arena, and a flush that touches every page of the staged arguments and
// every resident page of the candidate's own memory, then sweeps a buffer larger than the LLC.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "backends/device.hpp"

namespace galapagos::backends::cpu {

// Widens this process's CPU mask to every CPU the node allows (an MPI launcher may have pinned
// it to one core) and returns how many it now has.
int widen_affinity();

// Reads one byte of every resident page of this process's private, writable, anonymous mappings
// (the heap and what malloc or mmap handed out: a candidate's own buffers, which no staged
// argument names), except [skip_lo, skip_hi). Pages never touched are not resident and are not
// faulted in. Returns, per mapping, its range and how many pages were read.
struct touched_range {
  std::uintptr_t lo = 0, hi = 0;
  std::size_t pages = 0;
};
std::vector<touched_range> touch_private_pages(const void* skip_lo, const void* skip_hi);

}  // namespace galapagos::backends::cpu
