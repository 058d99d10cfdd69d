#include "core/strategy.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <stdexcept>

#include "core/strategy_parts.hpp"

namespace galapagos::core {

namespace detail {

std::string number_text(double v) {
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

std::string genome_text(const genome& g) {
  std::string out;
  for (std::size_t i = 0; i < g.size(); ++i) {
    if (i) out += ' ';
    out += std::to_string(g[i]);
  }
  return out;
}

void bad_state(const std::string& what) { throw std::invalid_argument("strategy::restore: " + what); }

genome read_genome(std::istringstream& in, std::size_t length) {
  genome g;
  int v = 0;
  while (in >> v) g.push_back(v);
  if (g.size() != length) bad_state("genome length mismatch");
  return g;
}

double read_number(std::istringstream& in) {
  std::string t;
  if (!(in >> t)) bad_state("missing number");
  char* end = nullptr;
  const double v = std::strtod(t.c_str(), &end);
  if (end == t.c_str() || *end) bad_state("malformed number '" + t + "'");
  return v;
}

std::vector<genome> neighbourhood::moves(const genome& g, int tier, rng& r) const {
  std::vector<genome> out;
  const auto& params = space_.parameters();
  const int n = static_cast<int>(g.size());
  for (int i = 0; i < n; ++i) {
    const int size = static_cast<int>(params[i].values.size());
    if (tier == 1) {
      for (const int d : {-1, 1}) {
        const int v = g[i] + d;
        if (v < 0 || v >= size) continue;
        genome m = g;
        m[i] = v;
        out.push_back(std::move(m));
      }
    } else if (tier == 3) {
      // Two parameters at once, any values: reaches valid points that every single change
      // leaves through an invalid one (constraints tying parameters together).
      for (int v = 0; v < size; ++v) {
        if (v == g[i]) continue;
        for (int j = i + 1; j < n; ++j) {
          const int size_j = static_cast<int>(params[j].values.size());
          for (int w = 0; w < size_j; ++w) {
            if (w == g[j]) continue;
            genome m = g;
            m[i] = v;
            m[j] = w;
            out.push_back(std::move(m));
          }
        }
      }
    } else {
      for (int v = 0; v < size; ++v) {
        if (v == g[i] || v == g[i] - 1 || v == g[i] + 1) continue;  // those are tier 1
        genome m = g;
        m[i] = v;
        out.push_back(std::move(m));
      }
    }
  }
  std::shuffle(out.begin(), out.end(), r.engine());
  return out;
}

}  // namespace detail

using namespace detail;

namespace {

// Spaces up to this many raw points are enumerated when random sampling finds nothing new.
constexpr double enumeration_limit = 65536.0;

bool better(const individual& a, const individual& b) { return a.fitness < b.fitness; }

}  // namespace

const std::vector<std::string>& strategy_kinds() {
  static const std::vector<std::string> kinds = {"hybrid", "forest", "ga", "random", "exhaustive", "annealing"};
  return kinds;
}

void strategy::tell(const individual& ind) {
  if (ind.g.size() != space_.parameters().size()) throw std::invalid_argument("strategy::tell: genome length mismatch");
  individual copy;
  copy.g = ind.g;
  copy.id = ind.id;
  copy.fitness = std::isnan(ind.fitness) ? inf : ind.fitness;
  seen_.insert(copy.g);
  history_.push_back(copy);
  on_tell(copy);
}

std::vector<individual> strategy::best(int k) const {
  std::vector<individual> sorted = history_;
  std::stable_sort(sorted.begin(), sorted.end(), better);
  // The same genome told twice (a migrant this island had measured) counts once: its best.
  std::vector<individual> out;
  std::set<genome> in;
  for (auto& ind : sorted) {
    if (static_cast<int>(out.size()) >= k) break;
    if (in.insert(ind.g).second) out.push_back(std::move(ind));
  }
  return out;
}

std::optional<genome> strategy::fresh_random(const std::set<genome>& taken, int max_tries) {
  if (auto g = space_.sample_fresh(rng_, max_tries, [&](const genome& x) { return !seen_.contains(x) && !taken.contains(x); }))
    return g;
  if (space_.cardinality() > enumeration_limit) return std::nullopt;
  std::vector<genome> left;
  space_.enumerate([&](const genome& g) {
    if (!seen_.contains(g) && !taken.contains(g)) left.push_back(g);
    return true;
  });
  if (left.empty()) return std::nullopt;
  return left[static_cast<std::size_t>(rng_.below(static_cast<int>(left.size())))];
}

std::string strategy::state() const {
  std::string s = "strategy " + kind() + "\ngeneration " + std::to_string(generation_) + "\nrng " + rng_.state() + "\n";
  std::set<genome> told;
  for (const auto& ind : history_) {
    s += "told " + number_text(ind.fitness) + " " + std::to_string(ind.id) + " " + genome_text(ind.g) + "\n";
    told.insert(ind.g);
  }
  for (const auto& g : seen_)
    if (!told.contains(g)) s += "seen " + genome_text(g) + "\n";
  return s + save_extra();
}

void strategy::restore(const std::string& text) {
  std::istringstream lines(text);
  std::string line;
  if (!std::getline(lines, line) || line != "strategy " + kind()) bad_state("not the state of a " + kind() + " strategy");
  const std::size_t length = space_.parameters().size();
  std::vector<individual> history;
  std::set<genome> seen;
  std::vector<std::string> extra;
  int generation = -1;
  std::string rng_text;
  while (std::getline(lines, line)) {
    if (line.empty()) continue;
    std::istringstream in(line);
    std::string key;
    in >> key;
    if (key == "generation") {
      if (!(in >> generation) || generation < 0) bad_state("malformed generation");
    } else if (key == "rng") {
      std::getline(in >> std::ws, rng_text);
    } else if (key == "told") {
      individual ind;
      ind.fitness = read_number(in);
      if (!(in >> ind.id)) bad_state("malformed told line");
      ind.g = read_genome(in, length);
      seen.insert(ind.g);
      history.push_back(std::move(ind));
    } else if (key == "seen") {
      seen.insert(read_genome(in, length));
    } else {
      extra.push_back(line);
    }
  }
  if (generation < 0 || rng_text.empty()) bad_state("missing generation or rng line");
  rng_.restore(rng_text);
  generation_ = generation;
  history_ = std::move(history);
  seen_ = std::move(seen);
  load_extra(extra);
  after_restore();
}

void validate(const strategy_settings& s) {
  const auto fail = [](const std::string& key, const std::string& problem) { throw std::invalid_argument(key + ": " + problem); };
  const auto& kinds = strategy_kinds();
  if (std::find(kinds.begin(), kinds.end(), s.kind) == kinds.end())
    fail("kind", "unknown strategy '" + s.kind + "' (known: hybrid, forest, ga, random, exhaustive, annealing)");
  if (s.ga.population < 1) fail("population", "must be at least 1");
  if (s.ga.offspring < 1) fail("offspring", "must be at least 1");
  if (s.ga.elite < 0) fail("elite", "must not be negative");
  if (s.ga.tournament < 1) fail("tournament", "must be at least 1");
  if (!(s.ga.crossover_rate >= 0 && s.ga.crossover_rate <= 1)) fail("crossover_rate", "must be in [0, 1]");
  if (!(s.ga.mutation_rate >= 0 && s.ga.mutation_rate <= 1)) fail("mutation_rate", "must be in [0, 1]");
  if (s.initial < 0) fail("initial", "must not be negative");
  if (!(s.local_share >= 0 && s.local_share <= 1)) fail("local_share", "must be in [0, 1]");
  if (s.local_elites < 1 || s.local_elites > 3) fail("local_elites", "must be 1, 2 or 3");
  if (!(s.random_share >= 0 && s.random_share <= 1)) fail("random_share", "must be in [0, 1]");
  if (s.pool < 1) fail("pool", "must be at least 1");
  if (!(s.temperature >= 0)) fail("temperature", "must not be negative");
  if (!(s.cooling > 0 && s.cooling <= 1)) fail("cooling", "must be in (0, 1]");
  if (s.restart_after < 1) fail("restart_after", "must be at least 1");
  if (s.shards < 1) fail("shards", "must be at least 1");
  if (s.shard < 0 || s.shard >= s.shards) fail("shard", "must be in [0, shards)");
}

std::unique_ptr<strategy> make_strategy(const search_space& space, const strategy_settings& settings, std::uint64_t seed) {
  validate(settings);
  if (settings.kind == "ga") return make_ga_strategy(space, settings, seed);
  if (settings.kind == "random") return make_random_strategy(space, seed);
  if (settings.kind == "exhaustive") return make_exhaustive_strategy(space, settings, seed);
  if (settings.kind == "annealing") return make_annealing_strategy(space, settings, seed);
  if (settings.kind == "forest") return make_forest_strategy(space, settings, seed);
  return make_hybrid_strategy(space, settings, seed);
}

}  // namespace galapagos::core
