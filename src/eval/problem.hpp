// One problem instance of a family at one size: the inputs (kept privately by the trusted
// process), the reference outputs computed from them, and their staging in the shared arena.
// verify() is the oracle: inputs unchanged, every output element written, no NaN or Inf,
// error relative to the output's scale within the family's tolerance.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "eval/protocol.hpp"
#include "families/family.hpp"
#include "glp_kernel.h"

namespace galapagos::eval {

class arena;
using reference_fn = int (*)(const glp_arg*, int, const std::int64_t*);

// A family's trusted input generator (optional): problem specs to sizes, and inputs for the
// arguments marked generated = true (matrix structures, ...).
struct generator_fns {
  int (*problem_sizes)(const char* spec, std::int64_t* sizes) = nullptr;
  int (*generate)(const char* spec, const glp_arg* args, int nargs, const std::int64_t* sizes, std::uint64_t seed,
                  int distribution) = nullptr;
  const char* (*last_error)() = nullptr;
  std::string error() const { return last_error && last_error() ? last_error() : "no message"; }
};

struct verdict {
  std::string status = "ok";  // ok, wrong_result, input_modified
  std::string reason;
  double rel_error = 0;
};

class problem {
 public:
  // spec/gen: the generator's problem spec and functions, when the family has a generator.
  problem(const families::family& f, families::sizes s, arena& shared, std::string spec = {},
          const generator_fns* gen = nullptr);
  // Arena bytes a problem of this family and size needs.
  static std::size_t arena_bytes(const families::family& f, const families::sizes& s);

  // Fresh inputs from a seed: generated arguments from the generator, the others drawn from
  // their distributions[distribution % n]. Starts a new problem instance.
  void fill(std::uint64_t seed, int distribution);
  // Redraws `count` elements at random positions of every input that is not generated
  // (inputs change between runs; a candidate's setup for the instance stays valid).
  void perturb(std::uint64_t seed, std::int64_t count);
  void compute_reference(reference_fn ref);
  bool reference_current() const { return reference_current_; }  // no fill or perturb since
  // Puts the inputs into the arena and fills every out element with the poison pattern. When
  // the arena's inputs were verified identical after the last run, only the elements redrawn
  // since are copied.
  void stage();
  // Checks the arena after a run. Without the reference (a timed run not drawn for the full
  // check), only what needs no reference: inputs unchanged, every output written, no NaN/Inf.
  verdict verify(bool against_reference = true);
  // Largest difference between the arena's outputs now and `snapshot`, relative to the
  // reference scale (for the determinism check).
  std::vector<std::vector<std::byte>> snapshot_outputs() const;
  double max_relative_difference(const std::vector<std::vector<std::byte>>& snapshot) const;

  protocol::request run_request() const;
  const families::sizes& size() const { return sizes_; }
  std::string describe() const;                   // the spec and/or the symbol values
  std::uint64_t instance() const { return instance_; }  // changes at every fill()
  double bytes() const { return bytes_; }
  double flops() const { return flops_; }

 private:
  struct slot {
    const families::arg_spec* spec;
    std::int64_t count;
    std::size_t offset;                    // in the arena
    std::vector<std::byte> input;          // private copy of in/inout values
    std::vector<std::byte> expected;       // reference result for out/inout
  };
  const families::family& family_;
  families::sizes sizes_;
  arena& arena_;
  std::string spec_;
  const generator_fns* generator_;
  std::uint64_t instance_ = 0;
  std::vector<slot> slots_;
  std::vector<std::pair<std::size_t, std::int64_t>> redrawn_;  // (slot, element) since the last stage
  bool arena_inputs_verified_ = false;
  bool reference_current_ = false;
  double bytes_, flops_;
};

}  // namespace galapagos::eval
