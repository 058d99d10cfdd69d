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

struct verdict {
  std::string status = "ok";  // ok, wrong_result, input_modified
  std::string reason;
  double rel_error = 0;
};

class problem {
 public:
  problem(const families::family& f, families::sizes s, arena& shared);
  // Arena bytes a problem of this family and size needs.
  static std::size_t arena_bytes(const families::family& f, const families::sizes& s);

  // Fresh inputs from a seed, drawn from the arguments' distributions[distribution % n].
  void fill(std::uint64_t seed, int distribution);
  // Redraws `count` elements at random positions of every input (inputs change between runs).
  void perturb(std::uint64_t seed, std::int64_t count);
  void compute_reference(reference_fn ref);
  // Puts the inputs into the arena and fills every out element with the poison pattern. When
  // the arena's inputs were verified identical after the last run, only the elements redrawn
  // since are copied.
  void stage();
  // Checks the arena after a run.
  verdict verify();
  // Largest difference between the arena's outputs now and `snapshot`, relative to the
  // reference scale (for the determinism check).
  std::vector<std::vector<std::byte>> snapshot_outputs() const;
  double max_relative_difference(const std::vector<std::vector<std::byte>>& snapshot) const;

  protocol::request run_request() const;
  const families::sizes& size() const { return sizes_; }
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
  std::vector<slot> slots_;
  std::vector<std::pair<std::size_t, std::int64_t>> redrawn_;  // (slot, element) since the last stage
  bool arena_inputs_verified_ = false;
  double bytes_, flops_;
};

}  // namespace galapagos::eval
