// One problem instance of a family at one size: the inputs (kept privately by the trusted
// process), the reference outputs computed from them, and their staging in the shared arena.
// verify() is the oracle: inputs unchanged, every output element written, no NaN or Inf,
// error relative to the output's scale within the family's tolerance.
#pragma once

#include "eval/candidate_status.hpp"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "eval/arena.hpp"
#include "eval/family_process.hpp"
#include "families/family.hpp"
#include "glp_kernel.h"
#include "worker/protocol.hpp"

namespace galapagos::eval {

namespace protocol = worker::protocol;  // the orchestrator's side speaks it too

using reference_fn = int (*)(const glp_arg*, int, const std::int64_t*);
// A family's optional checker (glp_check, beside glp_reference): decides from the inputs and a
// candidate's outputs, far faster than the reference computes them, whether the outputs are right
// (e.g. Freivalds' test for a matrix product: O(n^2) against O(n^3)). `seed` is secret and drawn
// after the run; *rel_error gets the error on the family's tolerance scale. Returns 0 when it could
// judge. inputs[i].data is the private copy of an in/inout argument (null for out), outputs[i].data
// the candidate's result of an out/inout argument (null for in).
using check_fn = int (*)(const glp_arg* inputs, const glp_arg* outputs, int nargs, const std::int64_t* sizes, std::uint64_t seed,
                         double* rel_error);

// A family's trusted input generator (optional): problem specs to sizes, and inputs for the
// arguments marked generated = true (matrix structures, ...).
struct generator_fns {
  int (*problem_sizes)(const char* spec, std::int64_t* sizes) = nullptr;
  int (*generate)(const char* spec, const glp_arg* args, int nargs, const std::int64_t* sizes, std::uint64_t seed,
                  int distribution) = nullptr;
  const char* (*last_error)() = nullptr;
  std::string error() const { return last_error && last_error() ? last_error() : "no message"; }
};

namespace detail {
// u^(-1/3) for u in (0, 1], within 4 ulps (the largest relative error over the whole range is
// 8.3e-16): the magnitude of a heavy-tailed input. An estimate from the exponent bits, then
// Newton's step y <- y (4 - u y^3) / 3, which needs no division and vectorises (inline, so that
// the drawing loop does): libm's cbrt is a call per element, 10-15x slower over a redraw of 15 M
// elements.
[[gnu::always_inline]] inline double inverse_cube_root(double u) {
  std::uint64_t bits;
  std::memcpy(&bits, &u, 8);
  const std::uint64_t guess = 0x5540000000000000ull - static_cast<std::uint64_t>(static_cast<double>(bits) * (1.0 / 3.0));
  double y;
  std::memcpy(&y, &guess, 8);
  for (int step = 0; step < 6; ++step) y = y * (4.0 - u * y * y * y) * (1.0 / 3.0);
  return y;
}
}  // namespace detail

struct verdict {
  candidate_status status = candidate_status::ok;  // ok, wrong_result, input_modified
  std::string reason;
  double rel_error = 0;
};

class problem {
 public:
  // spec/gen: the generator's problem spec and functions, when the family has a generator.
  // family_code: the process that runs the family's reference, checker and generator (started by
  // the owner once every problem of it exists: its requests point at them).
  // region: the arena's region it lives in (0, or a further input set of a timing batch).
  problem(const families::family& f, families::sizes s, arena& shared, family_process& family_code, std::string spec = {},
          const generator_fns* gen = nullptr, int region = 0);
  // The handler of that process: runs a problem's generate, reference or check request there.
  static void serve(const family_process::request& q, family_process::reply& r);
  // Arena bytes a problem of this family and size needs (in an arena of this misalignment).
  static std::size_t arena_bytes(const families::family& f, const families::sizes& s, std::size_t misalign = 0);

  // Fresh inputs from a seed: generated arguments from the generator, the others drawn from
  // their distributions[distribution % n]. Starts a new problem instance.
  void fill(std::uint64_t seed, int distribution);
  // Starts a new instance with a copy of another problem's inputs (the same family and size): a
  // further input set of a timing batch shares the generated structure that the candidate's
  // glp_setup prepared, and gets values of its own from redraw().
  void copy_instance(const problem& leader);
  // Redraws every element of every input that is not generated (matrix structures stay: a
  // candidate's setup for the instance stays valid), so that no timed run can reuse anything of
  // an earlier one.
  void redraw(std::uint64_t seed);
  void compute_reference(reference_fn ref);
  bool reference_current() const { return reference_current_; }  // no fill or redraw since
  // Puts the inputs into the arena and fills every out element with the poison pattern. An input
  // whose arena bytes a verify() found equal to the private copy since the last run request, and
  // that was not redrawn since, is already there and is not copied again (a matrix kept for the
  // instance: hundreds of megabytes per run).
  void stage();
  // How a run's outputs are judged: against the reference (compute_reference first), by the
  // family's checker, or only by what needs neither (inputs unchanged, every output written, no
  // NaN/Inf), which every judgement includes.
  enum class judge { reference, checker, basic };
  verdict verify(judge how = judge::reference, check_fn checker = nullptr, std::uint64_t check_seed = 0);
  // Keeps a copy of the arena's outputs now; max_difference_ulps() is the largest difference
  // between the arena's outputs then and now, relative to the reference scale, in units of the
  // output's own precision (the machine epsilon of float64 or float32; float64's for integers), for
  // the determinism check.
  void snapshot_outputs();
  double max_difference_ulps() const;

  // The request that runs the candidate on the arena. From here on nothing in the arena is
  // believed until verify() compared it again.
  protocol::request run_request();
  // Bit i for every generated input: what the further sets of a timing batch share with the
  // first (copy_instance), so that they can use its device copy (protocol::request::from_first).
  std::uint32_t instance_inputs() const;
  const families::sizes& size() const { return sizes_; }
  std::string describe() const;                         // the spec and/or the symbol values
  std::uint64_t instance() const { return instance_; }  // changes at every fill()
  double bytes() const { return bytes_; }
  double flops() const { return flops_; }

 private:
  struct slot {
    const families::arg_spec* spec;
    std::int64_t count;
    std::size_t offset;     // in the arena
    shared_bytes input;     // private copy of in/inout values
    shared_bytes expected;  // reference result for out/inout
    shared_bytes snapshot;  // the determinism check's copy of an out/inout (pre-faulted in region 0)
    bool in_arena = false;  // the arena holds exactly `input` (see stage())
  };
  const families::family& family_;
  families::sizes sizes_;
  arena& arena_;
  family_process& family_code_;
  std::string spec_;
  const generator_fns* generator_;
  std::uint64_t instance_ = 0;
  int region_ = 0;
  std::vector<slot> slots_;
  bool reference_current_ = false;
  void draw_inputs(std::uint64_t seed, int distribution);
  std::vector<glp_arg> reference_args() const;
  // What serve() runs in the family's process.
  void generate_here(std::uint64_t seed, int distribution, family_process::reply& r) const;
  void check_here(check_fn checker, std::uint64_t seed, family_process::reply& r) const;
  double bytes_, flops_;
};

}  // namespace galapagos::eval
