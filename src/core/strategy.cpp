#include "core/strategy.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "core/forest.hpp"

namespace galapagos::core {

namespace {

constexpr double inf = std::numeric_limits<double>::infinity();
// Spaces up to this many raw points are enumerated when random sampling finds nothing new.
constexpr double enumeration_limit = 65536.0;

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

[[noreturn]] void bad_state(const std::string& what) { throw std::invalid_argument("strategy::restore: " + what); }

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

bool better(const individual& a, const individual& b) { return a.fitness < b.fitness; }

// ------------------------------------------------------------------------------------------
class random_strategy final : public strategy {
 public:
  random_strategy(const search_space& s, std::uint64_t seed) : strategy(s, seed) {}
  std::string kind() const override { return "random"; }
  std::vector<genome> propose(int count) override {
    std::vector<genome> out;
    std::set<genome> taken;
    while (static_cast<int>(out.size()) < count) {
      auto g = fresh_random(taken);
      if (!g) break;
      taken.insert(*g);
      out.push_back(std::move(*g));
    }
    return out;
  }
};

// ------------------------------------------------------------------------------------------
class exhaustive_strategy final : public strategy {
 public:
  exhaustive_strategy(const search_space& s, const strategy_settings& st, std::uint64_t seed)
      : strategy(s, seed), shard_(st.shard), shards_(st.shards), cursor_(s.parameters().size(), 0) {}
  std::string kind() const override { return "exhaustive"; }
  std::vector<genome> propose(int count) override {
    std::vector<genome> out;
    const auto& params = space_.parameters();
    while (!done_ && static_cast<int>(out.size()) < count) {
      const genome g = cursor_;
      // Odometer step: the last gene turns fastest (lexicographic order, as search_space::enumerate).
      std::size_t i = cursor_.size();
      done_ = true;
      while (i > 0) {
        --i;
        if (static_cast<std::size_t>(++cursor_[i]) < params[i].values.size()) {
          done_ = false;
          break;
        }
        cursor_[i] = 0;
      }
      if (!space_.is_valid(g)) continue;
      const bool mine = index_++ % static_cast<std::uint64_t>(shards_) == static_cast<std::uint64_t>(shard_);
      if (mine && !seen_.contains(g)) out.push_back(g);
    }
    return out;
  }

 protected:
  std::string save_extra() const override {
    return "cursor " + genome_text(cursor_) + "\nindex " + std::to_string(index_) + "\ndone " + (done_ ? "1" : "0") + "\n";
  }
  void load_extra(const std::vector<std::string>& lines) override {
    for (const auto& line : lines) {
      std::istringstream in(line);
      std::string key;
      in >> key;
      if (key == "cursor") cursor_ = read_genome(in, space_.parameters().size());
      else if (key == "index") in >> index_;
      else if (key == "done") in >> done_;
      else bad_state("unknown line '" + key + "' for exhaustive");
    }
  }

 private:
  int shard_, shards_;
  genome cursor_;
  std::uint64_t index_ = 0;
  bool done_ = false;
};

// ------------------------------------------------------------------------------------------
// Single-parameter moves around a genome, and two-parameter ones, for the local searches.
class neighbourhood {
 public:
  explicit neighbourhood(const search_space& s) : space_(s) {}
  // Tier 1: one parameter to its next or previous value; tier 2: one parameter to any other
  // value; tier 3: two parameters to any other values. Shuffled by r.
  std::vector<genome> moves(const genome& g, int tier, rng& r) const {
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

 private:
  const search_space& space_;
};

// ------------------------------------------------------------------------------------------
class annealing_strategy final : public strategy {
 public:
  annealing_strategy(const search_space& s, const strategy_settings& st, std::uint64_t seed)
      : strategy(s, seed), settings_(st), moves_(s), temperature_(st.temperature) {}
  std::string kind() const override { return "annealing"; }

  std::vector<genome> propose(int count) override {
    std::vector<genome> out;
    std::set<genome> taken;
    while (static_cast<int>(out.size()) < count) {
      std::optional<genome> g;
      if (has_current_) {
        for (int tier = 1; tier <= 3 && !g; ++tier) {
          // Tier 1 with probability 0.7 even when tier 2 still has moves: mostly small steps.
          if (tier == 2 && rng_.uniform() < 0.3) continue;
          for (auto& m : moves_.moves(current_.g, tier, rng_))
            if (fresh(m, taken)) {
              g = std::move(m);
              break;
            }
        }
        if (!g) has_current_ = false;  // a local optimum whose neighbourhood is spent: restart
      }
      if (!g) g = fresh_random(taken);
      if (!g) break;
      taken.insert(*g);
      out.push_back(std::move(*g));
    }
    return out;
  }

 protected:
  void on_tell(const individual& ind) override {
    if (ind.fitness < best_) {
      best_ = ind.fitness;
      since_improvement_ = 0;
    } else {
      ++since_improvement_;
    }
    bool accept = !has_current_ && std::isfinite(ind.fitness);
    if (has_current_ && std::isfinite(ind.fitness)) {
      const double worse = ind.fitness / current_.fitness - 1.0;
      accept = worse <= 0 || (temperature_ > 0 && rng_.uniform() < std::exp(-worse / temperature_));
    }
    if (accept) {
      current_ = ind;
      has_current_ = true;
    }
    temperature_ *= settings_.cooling;
    if (since_improvement_ >= settings_.restart_after) {  // reheat from a random point
      has_current_ = false;
      since_improvement_ = 0;
      temperature_ = settings_.temperature;
    }
  }
  std::string save_extra() const override {
    std::string s = "temperature " + number_text(temperature_) + "\nsince " + std::to_string(since_improvement_) +
                    "\nbest " + number_text(best_) + "\n";
    if (has_current_) s += "current " + number_text(current_.fitness) + " " + genome_text(current_.g) + "\n";
    return s;
  }
  void load_extra(const std::vector<std::string>& lines) override {
    has_current_ = false;
    for (const auto& line : lines) {
      std::istringstream in(line);
      std::string key;
      in >> key;
      if (key == "temperature") temperature_ = read_number(in);
      else if (key == "since") in >> since_improvement_;
      else if (key == "best") best_ = read_number(in);
      else if (key == "current") {
        current_.fitness = read_number(in);
        current_.g = read_genome(in, space_.parameters().size());
        has_current_ = true;
      } else {
        bad_state("unknown line '" + key + "' for annealing");
      }
    }
  }

 private:
  strategy_settings settings_;
  neighbourhood moves_;
  individual current_;
  bool has_current_ = false;
  double temperature_;
  double best_ = inf;
  int since_improvement_ = 0;
};

// ------------------------------------------------------------------------------------------
// The island GA behind the strategy interface; the hybrid adds local moves to it.
class ga_strategy : public strategy {
 public:
  ga_strategy(const search_space& s, const strategy_settings& st, std::uint64_t seed)
      : strategy(s, seed), settings_(st), island_(s, st.ga, derive_seed(seed, 0x6761)) {}
  std::string kind() const override { return "ga"; }
  std::vector<genome> propose(int count) override { return island_proposals(count, {}); }
  void advance() override {
    island_.advance();
    ++generation_;
  }

 protected:
  // Up to `count` GA offspring that are neither seen nor taken.
  std::vector<genome> island_proposals(int count, const std::set<genome>& taken) {
    std::vector<genome> out;
    if (count <= 0) return out;
    for (auto& g : island_.propose(count + static_cast<int>(taken.size())))
      if (static_cast<int>(out.size()) < count && !taken.contains(g) && !seen_.contains(g)) out.push_back(std::move(g));
    return out;
  }
  void on_tell(const individual& ind) override {
    individual copy;
    copy.g = ind.g;
    copy.fitness = ind.fitness;
    copy.id = ind.id;
    island_.record(copy);
  }
  void on_mark_seen(const genome& g) override { island_.mark_seen(g); }
  std::string save_extra() const override {
    std::string s = "island_rng " + island_rng_state() + "\n";
    for (const auto& ind : island_.population())
      s += "member " + number_text(ind.fitness) + " " + std::to_string(ind.id) + " " + genome_text(ind.g) + "\n";
    return s;
  }
  void load_extra(const std::vector<std::string>& lines) override {
    population_.clear();
    rng_text_.clear();
    for (const auto& line : lines) {
      std::istringstream in(line);
      std::string key;
      in >> key;
      if (key == "island_rng") {
        std::getline(in >> std::ws, rng_text_);
      } else if (key == "member") {
        individual ind;
        ind.fitness = read_number(in);
        in >> ind.id;
        ind.g = read_genome(in, space_.parameters().size());
        population_.push_back(std::move(ind));
      } else {
        bad_state("unknown line '" + key + "' for " + kind());
      }
    }
  }
  void after_restore() override {
    std::vector<genome> seen(seen_.begin(), seen_.end());
    island_.restore(generation_, population_, rng_text_, seen);
  }

  strategy_settings settings_;

 private:
  std::string island_rng_state() const { return island_.random().state(); }
  mutable island island_;  // random() is not const; state() only reads it
  std::vector<individual> population_;  // read by load_extra for after_restore
  std::string rng_text_;
};

// ------------------------------------------------------------------------------------------
class hybrid_strategy final : public ga_strategy {
 public:
  hybrid_strategy(const search_space& s, const strategy_settings& st, std::uint64_t seed)
      : ga_strategy(s, st, seed), moves_(s) {}
  std::string kind() const override { return "hybrid"; }

  std::vector<genome> propose(int count) override {
    std::vector<genome> out;
    std::set<genome> taken;
    auto take = [&](genome g) {
      taken.insert(g);
      out.push_back(std::move(g));
    };
    // Random samples until `initial` points are known (the whole first batch when none is).
    const int known = static_cast<int>(history_.size());
    int randoms = known == 0 ? count : std::clamp(settings_.initial - known, 0, count);
    const auto elites = distinct_elites();
    if (elites.empty()) randoms = count;
    for (int i = 0; i < randoms; ++i)
      if (auto g = fresh_random(taken)) take(std::move(*g));
    const int rest = count - static_cast<int>(out.size());
    if (rest <= 0 || elites.empty()) return out;
    const int local = static_cast<int>(std::lround(settings_.local_share * rest));
    // Local moves: the best elite's nearest neighbours first, then wider moves and other elites.
    static constexpr std::pair<int, int> order[] = {{0, 1}, {0, 2}, {1, 1}, {2, 1}, {1, 2}, {2, 2}, {0, 3}, {1, 3}, {2, 3}};
    const auto local_moves = [&](int want) {
      for (const auto& [e, tier] : order) {
        if (want <= 0) break;
        if (e >= static_cast<int>(elites.size())) continue;
        for (auto& m : moves_.moves(elites[e].g, tier, rng_)) {
          if (want <= 0) break;
          if (!fresh(m, taken)) continue;
          take(std::move(m));
          --want;
        }
      }
      return want;
    };
    int missing = local_moves(local);
    // GA offspring for the rest; local moves, then random samples, where the GA finds too few.
    missing += rest - local;
    for (auto& g : island_proposals(missing, taken)) {
      take(std::move(g));
      --missing;
    }
    missing = local_moves(missing);
    for (; missing > 0; --missing)
      if (auto g = fresh_random(taken)) take(std::move(*g));
    return out;
  }

 private:
  // The best individual, then the next best ones that differ from every one taken in at least
  // `basin_distance` parameters: local searches in distinct basins rather than around one.
  std::vector<individual> distinct_elites() const {
    std::vector<individual> out;
    for (const auto& ind : best(static_cast<int>(history_.size()))) {
      if (static_cast<int>(out.size()) >= settings_.local_elites || !std::isfinite(ind.fitness)) break;
      bool far = true;
      for (const auto& e : out) {
        int differ = 0;
        for (std::size_t i = 0; i < ind.g.size(); ++i) differ += ind.g[i] != e.g[i];
        far = far && differ >= basin_distance;
      }
      if (far) out.push_back(ind);
    }
    return out;
  }
  static constexpr int basin_distance = 3;
  neighbourhood moves_;
};

// ------------------------------------------------------------------------------------------
// Model-based search: a random forest (core::forest) is fitted to the log times measured so far,
// and each slot of a batch takes the candidate that a random handful of its trees predicts
// fastest (Thompson sampling: where the trees disagree, some slots explore; where they agree,
// all exploit). Candidates are every unseen valid point when there are at most `pool` of them,
// else the elites' neighbourhoods and `pool` random valid points. A `random_share` of each batch
// stays random (space-filling draws, see diverse_random), so that a wrong model cannot trap the
// search. The model is refitted from the
// history at every batch with the strategy's own engine, so state() needs nothing more.
class forest_strategy final : public strategy {
 public:
  forest_strategy(const search_space& s, const strategy_settings& st, std::uint64_t seed)
      : strategy(s, seed), settings_(st), moves_(s) {}
  std::string kind() const override { return "forest"; }

  std::vector<genome> propose(int count) override {
    std::vector<genome> out;
    std::set<genome> taken;
    int finite = 0;
    for (const auto& ind : history_) finite += std::isfinite(ind.fitness);
    // Random samples until `initial` points are known (the whole first batch when none is) and
    // two of them did not fail; then `random_share` of each batch.
    const int known = static_cast<int>(history_.size());
    int randoms = known == 0 || finite < 2 ? count : std::clamp(settings_.initial - known, 0, count);
    if (randoms < count) randoms = std::max(randoms, static_cast<int>(std::lround(settings_.random_share * count)));
    if (randoms < count) {
      for (auto& g : modelled(count - randoms)) {
        taken.insert(g);
        out.push_back(std::move(g));
      }
    }
    while (static_cast<int>(out.size()) < count) {
      auto g = diverse_random(taken);
      if (!g) break;
      taken.insert(*g);
      out.push_back(std::move(*g));
    }
    return out;
  }

 private:
  // Of `diversity_draws` random unseen valid points, the one farthest (in parameters that
  // differ) from every point measured or taken: a space-filling start that reaches each
  // parameter's extreme values sooner than uniform draws, where a narrow optimum often lies.
  static constexpr int diversity_draws = 10;
  std::optional<genome> diverse_random(const std::set<genome>& taken) {
    std::optional<genome> out;
    int farthest = -1;
    for (int k = 0; k < diversity_draws; ++k) {
      auto g = fresh_random(taken);
      if (!g) break;
      int nearest = std::numeric_limits<int>::max();
      auto closer = [&](const genome& o) {
        int differ = 0;
        for (std::size_t i = 0; i < o.size(); ++i) differ += o[i] != (*g)[i];
        nearest = std::min(nearest, differ);
      };
      for (const auto& o : taken) closer(o);
      for (const auto& o : history_) closer(o.g);
      if (nearest > farthest) {
        farthest = nearest;
        out = std::move(g);
      }
    }
    return out;
  }

  static constexpr int trees_per_slot = 3;

  std::vector<genome> modelled(int count) {
    // Targets: log times; a failed point counts as the slowest point measured.
    std::vector<genome> x;
    std::vector<double> y;
    double worst = -inf;
    for (const auto& ind : history_)
      if (std::isfinite(ind.fitness)) worst = std::max(worst, std::log(ind.fitness));
    for (const auto& ind : history_) {
      x.push_back(ind.g);
      y.push_back(std::isfinite(ind.fitness) ? std::log(ind.fitness) : worst);
    }
    forest model;
    model.fit(x, y, rng_);

    const auto candidates = pool();
    std::vector<genome> out;
    std::vector<char> used(candidates.size(), 0);
    for (int slot = 0; slot < count && out.size() < candidates.size(); ++slot) {
      int trees[trees_per_slot];
      for (auto& t : trees) t = rng_.below(model.trees());
      double lowest = inf;
      std::size_t pick = 0;
      for (std::size_t i = 0; i < candidates.size(); ++i) {
        if (used[i]) continue;
        double v = 0;
        for (const int t : trees) v += model.predict(candidates[i], t);
        if (v < lowest) {
          lowest = v;
          pick = i;
        }
      }
      used[pick] = 1;
      out.push_back(candidates[pick]);
    }
    return out;
  }

  // Distinct unseen valid candidates: the elites' neighbourhoods first, nearest moves first (so
  // that ties among the trees' predictions go to the best's neighbours), then every other valid
  // point in random order, or `pool` random ones when the space has more.
  std::vector<genome> pool() {
    std::vector<genome> out;
    std::set<genome> near;
    const auto elites = best(settings_.local_elites);
    for (std::size_t e = 0; e < elites.size() && std::isfinite(elites[e].fitness); ++e)
      for (int tier = 1; tier <= (e == 0 ? 3 : 2); ++tier)
        for (auto& m : moves_.moves(elites[e].g, tier, rng_))
          if (fresh(m, near)) {
            near.insert(m);
            out.push_back(std::move(m));
          }
    const auto local = static_cast<std::ptrdiff_t>(out.size());
    if (!all_valid().empty()) {
      for (const auto& g : all_valid())
        if (!seen_.contains(g) && !near.contains(g)) out.push_back(g);
    } else {
      std::vector<genome> drawn;
      for (int i = 0; i < settings_.pool; ++i)
        if (auto g = space_.sample(rng_, 2000); g && !seen_.contains(*g) && !near.contains(*g)) drawn.push_back(std::move(*g));
      std::sort(drawn.begin(), drawn.end());
      drawn.erase(std::unique(drawn.begin(), drawn.end()), drawn.end());
      for (auto& g : drawn) out.push_back(std::move(g));
    }
    std::shuffle(out.begin() + local, out.end(), rng_.engine());
    return out;
  }

  // Every valid point when there are at most `pool` of them, else none; found once.
  const std::vector<genome>& all_valid() {
    if (!counted_) {
      counted_ = true;
      // One pass: collect until one more than `pool`, and give up on the list if it got there.
      const auto limit = static_cast<std::size_t>(settings_.pool);
      space_.enumerate([&](const genome& g) {
        valid_.push_back(g);
        return valid_.size() <= limit;
      });
      if (valid_.size() > limit) valid_ = {};
    }
    return valid_;
  }

  strategy_settings settings_;
  neighbourhood moves_;
  bool counted_ = false;
  std::vector<genome> valid_;
};

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
  for (int t = 0; t < max_tries; ++t) {
    auto g = space_.sample(rng_, max_tries);
    if (!g) break;
    if (!seen_.contains(*g) && !taken.contains(*g)) return g;
  }
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
  if (settings.kind == "ga") return std::make_unique<ga_strategy>(space, settings, seed);
  if (settings.kind == "random") return std::make_unique<random_strategy>(space, seed);
  if (settings.kind == "exhaustive") return std::make_unique<exhaustive_strategy>(space, settings, seed);
  if (settings.kind == "annealing") return std::make_unique<annealing_strategy>(space, settings, seed);
  if (settings.kind == "forest") return std::make_unique<forest_strategy>(space, settings, seed);
  return std::make_unique<hybrid_strategy>(space, settings, seed);
}

}  // namespace galapagos::core
