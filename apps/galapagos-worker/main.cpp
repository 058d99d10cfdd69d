// galapagos-worker: the sandboxed process that loads one candidate and runs it on request.
// Started by the orchestrator only (eval/worker_process.cpp), never by users:
//   galapagos-worker SOCKET_FD ARENA_FD ARENA_BYTES THREADS FLUSH_BYTES AS_BYTES CPU_SECONDS BACKEND DEVICE
// BACKEND is cpu or cuda; "cuda:profiled" runs under a profiler (Nsight Compute), which talks to
// its injection library over local sockets and files: that worker keeps its limits and drops its
// privileges but has no system-call filter. Only candidates that already passed every check are
// profiled (docs/threat-model.md).
// It knows nothing about the search, the reference or the expected outputs: it maps the arena,
// stages its contents onto the device, times the candidate and reports on the socket.
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <span>
#include <string>
#include <vector>

#include "backends/device.hpp"
#include "worker/protocol.hpp"
#include "worker/sandbox.hpp"

namespace {

using namespace galapagos::worker;
namespace be = galapagos::backends;

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "galapagos-worker: %s\n", what.c_str());
  std::_Exit(120);
}

std::uint64_t arg_u64(char** argv, int i) { return std::strtoull(argv[i], nullptr, 10); }

static_assert(protocol::max_sets == be::max_input_sets, "the protocol and the device agree on the input sets");

struct worker {
  int socket_fd;
  std::byte* arena;
  std::uint64_t arena_bytes;
  be::device& dev;
  be::kernel_fn kernel = nullptr;
  be::kernel_fn setup = nullptr;  // optional glp_setup: same signature
  // Per input set: the arena's bytes of each argument, and the arguments as staged on the device.
  std::array<std::vector<be::arena_arg>, protocol::max_sets> host_args;
  std::array<std::vector<glp_arg>, protocol::max_sets> staged;
  // Per input set: the arguments it takes from set 0 (protocol::request::from_first).
  std::array<std::uint32_t, protocol::max_sets> from_first{};

  // The bits of q.from_first that may be honoured: set 0 staged an argument of the same count and
  // type at that position.
  std::uint32_t shareable(const protocol::request& q) const {
    if (q.set <= 0) return 0;
    const auto& first = host_args[0];
    const auto& args = host_args[static_cast<std::size_t>(q.set)];
    std::uint32_t bits = 0;
    for (std::size_t i = 0; i < args.size() && i < first.size() && i < staged[0].size(); ++i)
      if ((q.from_first >> i & 1u) && args[i].count == first[i].count && args[i].dtype == first[i].dtype &&
          args[i].intent == GLP_IN && first[i].intent == GLP_IN)
        bits |= 1u << i;
    return bits;
  }

  // Set `set`'s arguments back into the arena, but for those it took from set 0 (set 0's own
  // collection brings them back).
  void collect(int set) {
    const auto k = static_cast<std::size_t>(set);
    if (from_first[k] == 0) return dev.collect(host_args[k], staged[k]);
    std::vector<be::arena_arg> args;
    std::vector<glp_arg> own;
    for (std::size_t i = 0; i < host_args[k].size() && i < staged[k].size(); ++i)
      if (!(from_first[k] >> i & 1u)) {
        args.push_back(host_args[k][i]);
        own.push_back(staged[k][i]);
      }
    dev.collect(args, own);
  }

  void send(protocol::reply& r) {
    r.magic_value = protocol::magic;
    if (write(socket_fd, &r, sizeof r) != static_cast<ssize_t>(sizeof r)) std::_Exit(121);
  }

  // Libraries the candidate links (OpenBLAS, Kokkos, ...) may start threads of their own when
  // loaded: they are loaded first, and the orchestrator counts the threads before the candidate.
  void preload(const protocol::request& q, protocol::reply& r) {
    std::string list(q.preload, strnlen(q.preload, sizeof q.preload));
    for (std::size_t pos = 0; pos < list.size();) {
      const std::size_t end = std::min(list.find('\n', pos), list.size());
      const std::string lib = list.substr(pos, end - pos);
      if (!lib.empty() && !dlopen(lib.c_str(), RTLD_NOW | RTLD_GLOBAL)) {
        r.status = protocol::reply_status::load_error;
        std::snprintf(r.message, sizeof r.message, "%s", dlerror());
        return;
      }
      pos = end + 1;
    }
  }

  void load(const protocol::request& q, protocol::reply& r) {
    void* h = dlopen(q.path, RTLD_NOW | RTLD_LOCAL);
    if (h) {
      kernel = reinterpret_cast<be::kernel_fn>(dlsym(h, "glp_kernel"));
      setup = reinterpret_cast<be::kernel_fn>(dlsym(h, "glp_setup"));
    }
    if (!kernel) {
      r.status = protocol::reply_status::load_error;
      std::snprintf(r.message, sizeof r.message, "%s", dlerror());
    }
  }

  static bool valid_set(const protocol::request& q) { return q.set >= 0 && q.set < protocol::max_sets; }

  bool read_args(const protocol::request& q) {
    if (q.nargs < 0 || q.nargs > protocol::max_args || q.nsizes < 0 || q.nsizes > protocol::max_sizes || !valid_set(q))
      return false;
    auto& args = host_args[static_cast<std::size_t>(q.set)];
    args.clear();
    for (int i = 0; i < q.nargs; ++i) {
      const auto& s = q.args[i];
      const std::uint64_t bytes = static_cast<std::uint64_t>(s.count) * be::dtype_bytes(s.dtype);
      if (s.count < 0 || s.offset > arena_bytes || bytes > arena_bytes - s.offset) return false;
      args.push_back({arena + s.offset, s.count, s.dtype, s.intent});
    }
    return true;
  }

  // Leaked threads and work left running are the orchestrator's to find: it freezes this process
  // at the reply and counts its threads itself. Nothing here is believed once a candidate is loaded.
  void run(const protocol::request& q, protocol::reply& r) {
    const bool empty = q.flags & (protocol::run_empty | protocol::run_calibration);
    const int sets = std::max(q.set, 1);
    bool staged_ok = q.set >= 0 && q.set <= protocol::max_sets;
    for (int k = 0; staged_ok && k < sets; ++k)
      staged_ok = staged[static_cast<std::size_t>(k)].size() == static_cast<std::size_t>(q.nargs);
    if ((!kernel && !empty) || (!empty && !staged_ok) || q.nsizes < 0 || q.nsizes > protocol::max_sizes) {
      r.status = protocol::reply_status::bad_request;
      return;
    }
    const std::span<const std::vector<glp_arg>> all(staged.data(), static_cast<std::size_t>(sets));
    std::vector<std::int64_t> sizes(q.sizes, q.sizes + q.nsizes);
    try {
      int rc = 0;
      if (empty) {
        r.time_s = (q.flags & protocol::run_calibration)
                       ? dev.run_calibration_work()
                       : dev.run(&nothing, std::span<const std::vector<glp_arg>>(), sizes, 1, rc);
        return;
      }
      if ((q.flags & (protocol::run_setup_first | protocol::run_setup_only)) && setup) {
        r.setup_time_s = dev.run(setup, all.first(1), sizes, 1, rc);
        if (rc != 0) {
          r.status = protocol::reply_status::kernel_error;
          r.kernel_rc = rc;
          std::snprintf(r.message, sizeof r.message, "glp_setup returned %d", rc);
          return;
        }
      }
      if (q.flags & protocol::run_setup_only) return;
      const bool profiled = q.flags & protocol::run_profiled;
      if (profiled) dev.profiler_range(true);
      r.time_s = dev.run(kernel, all, sizes, std::clamp(q.repeat, 1, 1 << 20), rc);
      if (profiled) dev.profiler_range(false);
      r.kernel_rc = rc;
      if (rc != 0) r.status = protocol::reply_status::kernel_error;
    } catch (const std::bad_alloc&) {
      r.status = protocol::reply_status::out_of_memory;
    } catch (const be::device_fault&) {
      throw;
    } catch (...) {
      r.status = protocol::reply_status::exception;
    }
  }

  static int nothing(const glp_arg*, int, const std::int64_t*, void*) { return 0; }

  void handle(const protocol::request& q, protocol::reply& r) {
    switch (q.kind) {
      case protocol::request_kind::preload:
        preload(q, r);
        break;
      case protocol::request_kind::load:
        load(q, r);
        break;
      case protocol::request_kind::stage:
        if (!read_args(q)) {
          r.status = protocol::reply_status::bad_request;
        } else {
          const auto k = static_cast<std::size_t>(q.set);
          from_first[k] = shareable(q);
          staged[k] = dev.stage(host_args[k], q.set, from_first[k]);
        }
        break;
      case protocol::request_kind::run:
        run(q, r);
        break;
      case protocol::request_kind::collect:
        if (!valid_set(q))
          r.status = protocol::reply_status::bad_request;
        else
          collect(q.set);
        break;
      case protocol::request_kind::flush:
        dev.flush();
        break;
      case protocol::request_kind::probe: {
        const auto c = dev.probe();
        r.ceilings[0] = c.bandwidth_gbs;
        r.ceilings[1] = c.peak_gflops;
        r.ceilings[2] = c.peak_gflops_f32;
        r.free_memory_bytes = c.free_memory_bytes;
        std::snprintf(r.message, sizeof r.message, "%s", c.pci_bus_id.c_str());
        break;
      }
      case protocol::request_kind::ping:
        break;
      default:
        r.status = protocol::reply_status::bad_request;
    }
  }

  void serve() {
    for (;;) {
      protocol::request q{};
      const ssize_t n = read(socket_fd, &q, sizeof q);
      if (n == 0) return;  // orchestrator closed the channel
      if (n != static_cast<ssize_t>(sizeof q) || q.magic_value != protocol::magic) std::_Exit(122);
      protocol::reply r{};
      r.kind = q.kind;
      r.nonce = q.nonce;
      r.status = protocol::reply_status::ok;
      if (q.kind == protocol::request_kind::quit) {
        send(r);
        return;
      }
      try {
        handle(q, r);
      } catch (const be::device_fault& e) {
        r.status = protocol::reply_status::device_fault;
        std::snprintf(r.message, sizeof r.message, "%s", e.what());
        send(r);
        std::_Exit(123);  // the device context is gone: nothing after this could be trusted
      }
      send(r);
    }
  }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 11) die("started with the wrong arguments: this program is run by galapagos itself");
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  const int socket_fd = static_cast<int>(arg_u64(argv, 1));
  const int arena_fd = static_cast<int>(arg_u64(argv, 2));
  const std::uint64_t arena_bytes = arg_u64(argv, 3);
  const int threads = static_cast<int>(arg_u64(argv, 4));
  const std::uint64_t flush_bytes = arg_u64(argv, 5);
  sandbox::limits lim;
  lim.address_space_bytes = arg_u64(argv, 6);
  lim.cpu_seconds = arg_u64(argv, 7);
  std::string backend = argv[8];
  const bool profiled = backend.size() > 9 && backend.compare(backend.size() - 9, 9, ":profiled") == 0;
  if (profiled) {
    backend.resize(backend.size() - 9);
    lim.open_files = 4096;  // the profiler's injection library opens many files and sockets
  }
  const int device_index = static_cast<int>(arg_u64(argv, 9));
  const int flush_fd = static_cast<int>(std::strtol(argv[10], nullptr, 10));  // -1: none
  // Now, while this process has a single thread (the device runtime starts more). The profiler
  // talks to its injection library through IPC: that worker keeps the machine's namespace.
  if (!profiled) sandbox::enter_private_ipc();

  fcntl(socket_fd, F_SETFD, FD_CLOEXEC);  // the result channel never reaches another program
  // On CPUs populated now, so that no timed run pays for first-touch page faults (the kernel works
  // on the arena itself). A GPU's kernel works on device copies: there the arena's further regions
  // (a timing batch's input sets) stay unallocated until the orchestrator writes them.
  void* arena =
      mmap(nullptr, arena_bytes, PROT_READ | PROT_WRITE, MAP_SHARED | (backend == "cpu" ? MAP_POPULATE : 0), arena_fd, 0);
  if (arena == MAP_FAILED) die("cannot map the shared arena");
  close(arena_fd);
  // The flush buffer the orchestrator keeps faulted in for every worker it starts (CPU only).
  void* flush_memory = nullptr;
  if (flush_fd >= 0) {
    if (backend == "cpu") {
      flush_memory = mmap(nullptr, flush_bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, flush_fd, 0);
      if (flush_memory == MAP_FAILED) die("cannot map the flush buffer");
    }
    close(flush_fd);
  }
  std::unique_ptr<be::device> dev;
  try {
    // The device runtime starts before the sandbox closes: it opens device files and reserves
    // address space that no candidate may touch afterwards.
    if (backend == "cpu") {
      dev = be::make_cpu_device(threads, flush_bytes, flush_memory);
    } else if (backend == "cuda" || backend == "hip") {
      dev = backend == "cuda" ? be::make_cuda_device(device_index) : be::make_hip_device(device_index);
      lim.address_space_bytes = 0;  // GPU drivers reserve the whole unified address space
    } else {
      die("unknown backend '" + backend + "'");
    }
#if defined(__SANITIZE_ADDRESS__)
    lim.address_space_bytes = 0;  // AddressSanitizer reserves terabytes of address space
#endif
    sandbox::apply_limits(lim);
    sandbox::drop_privileges();
    if (!profiled) sandbox::install_filter(backend);
  } catch (const std::exception& e) {
    die(std::string("setup failed: ") + e.what());
  }
  worker w{socket_fd, static_cast<std::byte*>(arena), arena_bytes, *dev};
  w.serve();
  return 0;
}
