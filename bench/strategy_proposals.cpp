// bench_strategy_proposals [FAMILY] [BACKEND] [BATCHES] [KIND]: the search logic's own time on a
// family's live parameter space (no kernel is built or run), two ways side by side: the space as
// galapagos builds it (each constraint's verdicts kept in a table over the parameters it names)
// and the same constraints evaluated with muParser at every question. One strategy of each, same
// seed, proposes BATCHES batches of 8 and is told a made-up time for every point (a hash of its
// values); prints the seconds per batch, the ratio, and whether both proposed the same points
// (they must: the tables change how fast a verdict comes, not what it is).
// Built with the tests (build/bin/bench_strategy_proposals); docs/BENCHMARKS.md.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>

#include "core/strategy.hpp"
#include "families/family.hpp"

namespace gc = galapagos::core;
namespace gf = galapagos::families;

namespace {

// What family::space asked before the tables: every expression, every time.
gc::search_space evaluated_every_time(const gf::backend_spec& b) {
  return gc::search_space(b.params, [&b](const gc::genome& g) { return gf::satisfies_constraints(b, g); });
}

struct outcome {
  std::vector<double> batch_s;
  std::vector<gc::genome> proposed;
};

outcome run(const gc::search_space& space, const std::string& kind, int batches) {
  gc::strategy_settings st;
  st.kind = kind;
  auto s = gc::make_strategy(space, st, 7);
  outcome out;
  for (int b = 0; b < batches; ++b) {
    const auto t0 = std::chrono::steady_clock::now();
    const auto batch = s->propose(8);
    out.batch_s.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    for (const auto& g : batch) {
      gc::individual ind;
      ind.g = g;
      ind.fitness = 1e-3 * (1.0 + static_cast<double>(std::hash<std::string>{}(space.to_json(g)) % 1000) / 100.0);
      s->tell(ind);
      out.proposed.push_back(g);
    }
    s->advance();
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string name = argc > 1 ? argv[1] : "gemm", backend = argc > 2 ? argv[2] : "cuda";
  const int batches = argc > 3 ? std::atoi(argv[3]) : 4;
  const std::string kind = argc > 4 ? argv[4] : "forest";
  const auto family = gf::load_family(name, {std::filesystem::path(GALAPAGOS_SOURCE_DIR) / "kernels"});
  const auto& b = family.backend(backend);
  const auto tables = run(family.space(backend), kind, batches);
  const auto direct = run(evaluated_every_time(b), kind, batches);
  double t_tables = 0, t_direct = 0;
  for (int k = 0; k < batches; ++k) {
    std::printf("batch %d: %.3f s with tables, %.3f s evaluated every time\n", k + 1, tables.batch_s[k], direct.batch_s[k]);
    t_tables += tables.batch_s[k];
    t_direct += direct.batch_s[k];
  }
  const bool same = tables.proposed == direct.proposed;
  std::printf("%s %s, %s, %d batches of 8: %.3f s with tables, %.3f s evaluated every time (%.1fx); same points: %s\n",
              name.c_str(), backend.c_str(), kind.c_str(), batches, t_tables, t_direct, t_direct / t_tables, same ? "yes" : "NO");
  return same ? 0 : 1;
}
