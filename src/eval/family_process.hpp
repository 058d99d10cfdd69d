// A family's own code (its reference, its checker, its input generator) is trusted, but it is
// still code that can crash or loop, and a crash in the orchestrator would take the whole run
// down with a bare SIGSEGV. It runs in a child process instead: forked once, it serves every call
// for the evaluator's life, working directly on the problems' inputs and outputs, which live in
// shared memory. A crash is an error naming the family and the signal, a call that does not finish
// is killed after a generous time limit, and the run ends with one line instead of dying or
// hanging forever.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>

#include "families/family.hpp"

namespace galapagos::eval {

// The time limit of one call: `limit_s` ([eval] reference_timeout_s) when > 0, else
// max(60 s, 20 x eval_timeout_s), eval_timeout_s being the time-out of one worker request (the
// reference is serial and may be far slower than a kernel). Set once per process from the run's
// settings; 20 x 60 s before.
void set_reference_time_limit(double eval_timeout_s, double limit_s = 0);
double reference_time_limit_s();

// Which of the family's functions a call runs: names it in errors, and picks the source file named.
enum class family_code { reference, checker, generator };

class family_process {
 public:
  // What the orchestrator asks. Pointers must name memory that existed when the child was forked
  // (the child has a copy of the orchestrator's memory as it was then; shared mappings it sees live).
  struct request {
    std::int32_t op = 0;
    const void* target = nullptr;
    const void* function = nullptr;
    std::uint64_t seed = 0;
    std::int32_t distribution = 0;
  };
  struct reply {
    std::int32_t rc = -1;
    double value = 0;
    std::int64_t sizes[16] = {};
    char message[400] = {};
  };
  using handler = void (*)(const request&, reply&);

  family_process(const families::family& f, handler h) : family_(f), handler_(h) {}
  ~family_process();
  family_process(const family_process&) = delete;
  family_process& operator=(const family_process&) = delete;

  // Forks the child now (a call also does when none runs). Call it once everything the requests
  // will point at exists.
  void start();
  // Runs handler(q, reply) in the child and returns the reply. Throws galapagos::error naming the
  // family's source of `code` when the child dies ("the reference of family F crashed with
  // SIGSEGV (Segmentation fault) at AT") or runs past the limit ("... did not finish within N s
  // at AT"). The child is gone then; the next call starts another.
  reply call(const request& q, family_code code, const std::string& at);

 private:
  void stop();
  [[noreturn]] void fail(family_code code, const std::string& what);
  const families::family& family_;
  handler handler_;
  pid_t pid_ = -1;
  int socket_ = -1;          // the parent's end of the socket pair: a byte each way per call
  void* mailbox_ = nullptr;  // shared: the request, then the reply
};

}  // namespace galapagos::eval
