// galapagos-worker: the sandboxed process that loads one candidate and runs it on request.
// Started by the orchestrator only (eval/worker_process.cpp), never by users:
//   galapagos-worker SOCKET_FD ARENA_FD ARENA_BYTES THREADS FLUSH_BYTES AS_BYTES CPU_SECONDS
// It knows nothing about the search, the reference or the expected outputs: it maps the arena,
// hands its addresses to the candidate, times the call and reports on the socket.
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <thread>
#include <vector>

#include "backends/cpu/cpu_device.hpp"
#include "eval/protocol.hpp"
#include "eval/sandbox.hpp"

namespace {

using namespace galapagos::eval;
namespace cpu = galapagos::backends::cpu;

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "galapagos-worker: %s\n", what.c_str());
  std::_Exit(120);
}

std::uint64_t arg_u64(char** argv, int i) { return std::strtoull(argv[i], nullptr, 10); }

struct worker {
  int socket_fd;
  std::byte* arena;
  std::uint64_t arena_bytes;
  cpu::device& dev;
  cpu::kernel_fn kernel = nullptr;
  cpu::kernel_fn setup = nullptr;  // optional glp_setup: same signature
  int baseline_threads = 0;

  void send(protocol::reply& r) {
    r.magic_value = protocol::magic;
    r.replied_at_s = std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
    if (write(socket_fd, &r, sizeof r) != static_cast<ssize_t>(sizeof r)) std::_Exit(121);
  }

  void load(const protocol::request& q, protocol::reply& r) {
    // Libraries the candidate links (OpenBLAS, Kokkos, ...) may start threads of their own when
    // loaded: load them first. Then count: a thread the candidate's constructors start is its.
    std::string preload(q.preload, strnlen(q.preload, sizeof q.preload));
    for (std::size_t pos = 0; pos < preload.size();) {
      const std::size_t end = std::min(preload.find('\n', pos), preload.size());
      const std::string lib = preload.substr(pos, end - pos);
      if (!lib.empty() && !dlopen(lib.c_str(), RTLD_NOW | RTLD_GLOBAL)) {
        r.status = protocol::reply_status::load_error;
        std::snprintf(r.message, sizeof r.message, "%s", dlerror());
        return;
      }
      pos = end + 1;
    }
    baseline_threads = sandbox::thread_count();
    void* h = dlopen(q.path, RTLD_NOW | RTLD_LOCAL);
    if (h) {
      kernel = reinterpret_cast<cpu::kernel_fn>(dlsym(h, "glp_kernel"));
      setup = reinterpret_cast<cpu::kernel_fn>(dlsym(h, "glp_setup"));
    }
    if (!kernel) {
      r.status = protocol::reply_status::load_error;
      std::snprintf(r.message, sizeof r.message, "%s", dlerror());
    }
  }

  void run(const protocol::request& q, protocol::reply& r) {
    if (!kernel || q.nargs < 0 || q.nargs > protocol::max_args || q.nsizes < 0 || q.nsizes > protocol::max_sizes) {
      r.status = protocol::reply_status::bad_request;
      return;
    }
    std::vector<glp_arg> args(static_cast<std::size_t>(q.nargs));
    for (int i = 0; i < q.nargs; ++i) {
      const auto& s = q.args[i];
      if (s.offset > arena_bytes) { r.status = protocol::reply_status::bad_request; return; }
      args[i] = glp_arg{arena + s.offset, s.count, s.dtype, s.intent};
    }
    std::vector<std::int64_t> sizes(q.sizes, q.sizes + q.nsizes);
    try {
      int rc = 0;
      if ((q.flags & protocol::run_setup_first) && setup) {
        r.setup_time_s = dev.run(setup, args, sizes, rc);
        if (rc != 0) {
          r.status = protocol::reply_status::kernel_error;
          r.kernel_rc = rc;
          std::snprintf(r.message, sizeof r.message, "glp_setup returned %d", rc);
          return;
        }
      }
      r.time_s = dev.run(kernel, args, sizes, rc);
      r.kernel_rc = rc;
      if (rc != 0) r.status = protocol::reply_status::kernel_error;
    } catch (const std::bad_alloc&) {
      r.status = protocol::reply_status::out_of_memory;
    } catch (...) {
      r.status = protocol::reply_status::exception;
    }
    // A thread the candidate started and did not join may still be writing the outputs.
    // Joined threads can take a moment to disappear from /proc, so look a few times.
    int extra = 0;
    for (int attempt = 0; attempt < 20; ++attempt) {
      extra = sandbox::thread_count() - baseline_threads;
      if (extra <= 0) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    if (extra > 0) {
      r.extra_threads = extra;
      if (r.status == protocol::reply_status::ok) r.status = protocol::reply_status::leaked_thread;
    }
  }

  void serve() {
    for (;;) {
      protocol::request q{};
      const ssize_t n = read(socket_fd, &q, sizeof q);
      if (n == 0) return;  // orchestrator closed the channel
      if (n != static_cast<ssize_t>(sizeof q) || q.magic_value != protocol::magic) std::_Exit(122);
      protocol::reply r{};
      r.received_at_s = std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
      r.kind = q.kind;
      r.nonce = q.nonce;
      r.status = protocol::reply_status::ok;
      switch (q.kind) {
        case protocol::request_kind::load: load(q, r); break;
        case protocol::request_kind::run: run(q, r); break;
        case protocol::request_kind::flush: dev.flush(); break;
        case protocol::request_kind::ping: break;
        case protocol::request_kind::quit: send(r); return;
        default: r.status = protocol::reply_status::bad_request;
      }
      send(r);
    }
  }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 8) die("started with the wrong arguments: this program is run by galapagos itself");
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  const int socket_fd = static_cast<int>(arg_u64(argv, 1));
  const int arena_fd = static_cast<int>(arg_u64(argv, 2));
  const std::uint64_t arena_bytes = arg_u64(argv, 3);
  const int threads = static_cast<int>(arg_u64(argv, 4));
  const std::uint64_t flush_bytes = arg_u64(argv, 5);
  sandbox::limits lim;
  lim.address_space_bytes = arg_u64(argv, 6);
  lim.cpu_seconds = arg_u64(argv, 7);

  fcntl(socket_fd, F_SETFD, FD_CLOEXEC);  // the result channel never reaches another program
  // Populated now, so that no timed run pays for first-touch page faults.
  void* arena = mmap(nullptr, arena_bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, arena_fd, 0);
  if (arena == MAP_FAILED) die("cannot map the shared arena");
  close(arena_fd);
  cpu::device dev(threads, flush_bytes);
  try {
#if defined(__SANITIZE_ADDRESS__)
    lim.address_space_bytes = 0;  // AddressSanitizer reserves terabytes of address space
#endif
    sandbox::apply_limits(lim);
    sandbox::drop_privileges();
    sandbox::install_filter();
  } catch (const std::exception& e) {
    die(std::string("sandbox setup failed: ") + e.what());
  }
  worker w{socket_fd, static_cast<std::byte*>(arena), arena_bytes, dev};
  w.serve();
  return 0;
}
