// Per-element loops of the trusted process that stream hundreds of MB per timed run (drawing
// fresh inputs, poisoning outputs, scanning them) are built for the baseline x86-64 and again for
// x86-64-v3 (AVX2, FMA) and x86-64-v4 (AVX-512); the loader picks the best the CPU runs (GCC's
// target_clones). A binary built on a login node stays correct on any compute node, and is as
// fast there as one built for it. Elsewhere (other compilers or ISAs) the macro is empty.
#pragma once

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define GALAPAGOS_ISA_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define GALAPAGOS_ISA_CLONES
#endif
