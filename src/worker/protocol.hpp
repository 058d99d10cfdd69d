// The messages between the trusted orchestrator and a galapagos-worker process, sent as
// fixed-size records over a SOCK_SEQPACKET socket pair. Argument data never travels here:
// it lives in a shared-memory arena mapped by both sides. Every reply echoes the request's
// nonce; anything else (a short read, a wrong magic, a stale nonce) is a protocol error.
#pragma once

#include <cstdint>

namespace galapagos::worker::protocol {

inline constexpr std::uint32_t magic = 0x474c5057;  // "GLPW"
inline constexpr int max_args = 16;
inline constexpr int max_sizes = 8;
inline constexpr int path_bytes = 1024;
inline constexpr int preload_bytes = 4096;
inline constexpr int message_bytes = 512;
// Input sets the device holds at once: a batch runs the entry point on each in turn (distinct
// inputs and outputs per call, so that nothing one call computed serves the next).
inline constexpr int max_sets = 16;

// A timed run is: stage (arena -> device), flush, run, collect (device -> arena). On the CPU
// stage and collect do nothing: the kernel works on the arena in place. A batch stages several
// input sets (request::set), runs the entry point once on each in one request, and collects each.
// preload loads the libraries a candidate links (their own threads start then), load the
// candidate itself: the orchestrator counts the worker's threads in between.
enum class request_kind : std::uint32_t {
  load = 1,
  run = 2,
  flush = 3,
  quit = 4,
  ping = 5,
  stage = 6,
  collect = 7,
  probe = 8,
  preload = 9
};

struct arg_slot {
  std::uint64_t offset;  // byte offset in the arena
  std::int64_t count;    // elements
  std::int32_t dtype;    // glp_dtype
  std::int32_t intent;   // glp_intent
};

inline constexpr std::int32_t run_setup_first = 1;  // run: call glp_setup (if exported) first
inline constexpr std::int32_t run_profiled = 2;     // run: inside the profiler's capture range
inline constexpr std::int32_t run_setup_only = 4;   // run: call glp_setup (if exported) and nothing else
// run: time an empty function through the same path as the entry point (the device's events and
// synchronisation included). Before a candidate is loaded, the orchestrator calibrates with it
// what its own clock adds to a run.
inline constexpr std::int32_t run_empty = 8;
// run: the device's own calibration work (device::run_calibration_work) instead of the entry point.
inline constexpr std::int32_t run_calibration = 16;

struct request {
  std::uint32_t magic_value;
  request_kind kind;
  std::uint64_t nonce;
  char path[path_bytes];        // load: the shared object
  char preload[preload_bytes];  // load: libraries it links, newline-separated, loaded first
  std::int32_t flags;
  std::int32_t repeat;  // run: calls of the entry point back to back (0 or 1: one)
  // stage, collect: which input set (0 .. max_sets-1). run: how many sets, called in turn
  // 0, 1, ..., set-1 between the device's events (0 or 1: set 0 alone).
  std::int32_t set;
  // stage, set > 0: bit i set when argument i is an input of the problem instance that set 0
  // holds too (the same bytes: a generated matrix): the set uses set 0's device copy, so that a
  // glp_setup made for set 0's arguments serves every set of the batch.
  std::uint32_t from_first;
  std::int32_t nargs;
  std::int32_t nsizes;
  arg_slot args[max_args];
  std::int64_t sizes[max_sizes];
};

enum class reply_status : std::int32_t {
  ok = 0,
  load_error = 1,     // dlopen/dlsym failed
  kernel_error = 2,   // the entry point returned non-zero
  out_of_memory = 3,  // std::bad_alloc escaped the entry point
  exception = 4,      // another C++ exception escaped
  bad_request = 6,
  device_fault = 7,  // the device is lost (illegal address, ...): the worker ends after replying
};

struct reply {
  std::uint32_t magic_value;
  request_kind kind;
  std::uint64_t nonce;
  reply_status status;
  std::int32_t kernel_rc;
  // run: the worker's clock around the entry point (all repeats). On GPUs its device events; never
  // believed beyond the orchestrator's own clock (docs/threat-model.md).
  double time_s;
  double setup_time_s;              // run: around glp_setup, when it was called
  double ceilings[3];               // probe: bandwidth GB/s, float64 and float32 GFLOP/s
  std::uint64_t free_memory_bytes;  // probe: the device's free memory (0: unknown)
  char message[message_bytes];
};

}  // namespace galapagos::worker::protocol
