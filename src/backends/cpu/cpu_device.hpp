// The host CPU as a device: every core of the node, an OpenMP pool started before any candidate
// is loaded (so threads a candidate leaves behind can be told apart), arguments handed over in
// place from the shared arena, and a flush that touches every page of the staged arguments and
// then sweeps a buffer larger than the LLC.
#pragma once

#include "backends/device.hpp"

namespace galapagos::backends::cpu {

// Widens this process's CPU mask to every CPU the node allows (an MPI launcher may have pinned
// it to one core) and returns how many it now has.
int widen_affinity();

}  // namespace galapagos::backends::cpu
