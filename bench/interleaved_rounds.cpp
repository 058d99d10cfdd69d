// bench_interleaved_rounds [FAMILY] [SIZE] [ROUNDS]: one candidate (the family's CPU template at
// its defaults) timed by the evaluator four ways, side by side, three times over: alone
// (evaluate), interleaved with nothing, interleaved with the first baseline (as a final
// comparison times it), and interleaved with a second worker running itself. Prints each
// median and its ratio to the alone figure of the same pass. On the 2-core VM (2026-12-04,
// stencil3d7 at `tune`) the interleaved figures were 1.2-1.5x the alone ones until the flush
// before each timed run touched every page of the staged arguments (a worker waiting its turn
// finds its pages cold there); since, 0.9-1.1x within the node's noise.
// Built with the tests (build/bin/bench_interleaved_rounds); docs/BENCHMARKS.md.
#include <unistd.h>

#include <Kokkos_Core.hpp>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "eval/evaluator.hpp"
#include "families/family.hpp"

namespace ge = galapagos::eval;
namespace gf = galapagos::families;

int main(int argc, char** argv) {
  if (!std::getenv("OMP_WAIT_POLICY")) {  // as galapagos itself: this process's threads sleep
    setenv("OMP_WAIT_POLICY", "PASSIVE", 1);
    execv("/proc/self/exe", argv);
  }
  Kokkos::ScopeGuard kokkos(argc, argv);
  const std::string name = argc > 1 ? argv[1] : "stencil3d7";
  const auto family = gf::load_family(name, {std::filesystem::path(GALAPAGOS_SOURCE_DIR) / "kernels"});
  ge::eval_settings s;
  s.fitness_size = argc > 2 ? argv[2] : "tune";
  const int rounds = argc > 3 ? std::atoi(argv[3]) : 10;
  s.timing.min_repetitions = s.timing.max_repetitions = rounds;
  const auto& b = family.backend("cpu");
  ge::evaluator ev(family, "cpu", s, ge::probe_machine().limits(), 99);
  const ge::candidate_source c = ge::candidate_from(b.tmpl);
  const ge::candidate_source base = ge::baseline_from(b.baselines.at(0));
  for (int pass = 1; pass <= 3; ++pass) {
    const double alone = ev.evaluate(c).time_median_s;
    const double inter = ev.evaluate_interleaved({c}, rounds)[0].time_median_s;
    const auto with_base = ev.evaluate_interleaved({c, base}, rounds);
    const auto with_self = ev.evaluate_interleaved({c, c}, rounds);
    std::printf(
        "pass %d: alone %.3f ms | interleaved alone %.3f ms (%.2fx) | beside %s %.3f ms (%.2fx) | beside itself %.3f ms "
        "(%.2fx)\n",
        pass, alone * 1e3, inter * 1e3, inter / alone, base.baseline.c_str(), with_base[0].time_median_s * 1e3,
        with_base[0].time_median_s / alone, with_self[0].time_median_s * 1e3, with_self[0].time_median_s / alone);
  }
}
