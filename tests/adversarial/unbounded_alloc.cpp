// expect: out_of_memory
// Bug/attack: a workspace "pool" that grows on every call and every sweep and never gives
// anything back: it keeps allocating 256 MiB blocks with new char[1 << 28] and touching every
// page (so the memory is really committed), keeping all of them alive in a static list.
// Why it must be stopped: one candidate must not be able to exhaust the node's memory and take
// down the orchestrator or other islands' workers. RLIMIT_AS makes the allocation fail inside
// the worker; the std::bad_alloc escapes glp_kernel and the worker reports out_of_memory
// (rather than the kernel OOM killer picking a victim, which would look like a crash).
#include "glp_kernel.h"

#include <stdint.h>
#include <string.h>

#include <vector>

namespace {
std::vector<char*> g_pool;
}

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  (void)args;
  (void)nargs;
  (void)sizes;
  (void)stream;
  g_pool.reserve(4096);
  for (;;) {
    char* block = new char[static_cast<size_t>(1) << 28];
    memset(block, 0x5a, static_cast<size_t>(1) << 28);  // commit every page
    g_pool.push_back(block);
  }
}
