// The island GA as a strategy, and the hybrid: GA offspring plus local moves around distinct elites.
#include "core/strategy_parts.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <utility>

namespace galapagos::core::detail {

namespace {

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
  mutable island island_;               // random() is not const; state() only reads it
  std::vector<individual> population_;  // read by load_extra for after_restore
  std::string rng_text_;
};

// ------------------------------------------------------------------------------------------
class hybrid_strategy final : public ga_strategy {
 public:
  hybrid_strategy(const search_space& s, const strategy_settings& st, std::uint64_t seed) : ga_strategy(s, st, seed), moves_(s) {}
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

}  // namespace

std::unique_ptr<strategy> make_ga_strategy(const search_space& s, const strategy_settings& st, std::uint64_t seed) {
  return std::make_unique<ga_strategy>(s, st, seed);
}

std::unique_ptr<strategy> make_hybrid_strategy(const search_space& s, const strategy_settings& st, std::uint64_t seed) {
  return std::make_unique<hybrid_strategy>(s, st, seed);
}

}  // namespace galapagos::core::detail
