// What the evaluator's files share (eval/evaluator.hpp has the interface): a worker session,
// the queue of builds made ahead on spare cores, and small helpers. The evaluator is one file per
// concern: evaluator.cpp (construction, ceilings, the family's code, evaluate),
// evaluator_build.cpp (builds and the queue), evaluator_timing.cpp (calibration, runs,
// acceptance, statistics), evaluator_profile.cpp (Nsight Compute). Private to src/eval.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <filesystem>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "eval/evaluator.hpp"
#include "eval/worker_process.hpp"

namespace galapagos::eval {

namespace detail {

using clock_type = std::chrono::steady_clock;
double seconds_since(clock_type::time_point t0);
// The folder of glp_kernel.h for a family: beside its kernels folder, else the shipped one.
std::filesystem::path abi_include_dir(const families::family& f);
// The first line of a compiler log that says "error", else its first line.
std::string first_error_line(const std::string& log);
// The key of a build in the queue: everything that goes into it.
std::string request_key(const build_request& r);

}  // namespace detail

struct evaluator::session {
  std::unique_ptr<worker_process> worker;
  std::map<const problem*, std::uint64_t> set_up;  // problem instance glp_setup last ran on
  double empty_run_s = 0;                          // the orchestrator's clock around an empty run, calibrated before loading
  double busy_excess_s = 0;                        // GPUs: what a run of real device work adds beyond its events (calibrated)
  int threads = -1;                                // the worker's threads before the candidate was loaded
  // Where the evaluation's time went, by phase (GALAPAGOS_TIMING_TRACE prints it at the end).
  std::map<std::string, double> phase_s;
};

namespace detail {
// Adds the time from its construction to its destruction to a phase of the session.
class phase_timer {
 public:
  phase_timer(std::map<std::string, double>& phases, const char* phase)
      : phases_(phases), phase_(phase), t0_(clock_type::now()) {}
  ~phase_timer() { phases_[phase_] += seconds_since(t0_); }
  phase_timer(const phase_timer&) = delete;
  phase_timer& operator=(const phase_timer&) = delete;

 private:
  std::map<std::string, double>& phases_;
  const char* phase_;
  clock_type::time_point t0_;
};
}  // namespace detail

// Builds waiting for their turn on spare cores while the device measures. A build that has not
// started when its candidate comes up is taken back and built by the caller.
struct evaluator::compile_queue {
  struct entry {
    build_request request;
    bool started = false;
    std::promise<build_result> done;
    std::shared_future<build_result> result;
  };
  const builder& b;
  std::mutex mutex;
  std::condition_variable wake;
  std::deque<std::string> waiting;
  std::map<std::string, std::shared_ptr<entry>> entries;
  bool stopping = false;
  std::vector<std::thread> threads;

  compile_queue(const builder& bld, int jobs);
  ~compile_queue();
  void work();
  void add(const std::string& key, build_request r);
  // The build of an earlier add(), waited for; nothing when there was none or it had not started.
  std::optional<build_result> take(const std::string& key);
};

}  // namespace galapagos::eval
