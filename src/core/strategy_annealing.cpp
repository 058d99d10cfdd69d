// Simulated annealing over the neighbourhood moves, with reheating restarts.
#include "core/strategy_parts.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <utility>

namespace galapagos::core::detail {

namespace {

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
    std::string s = "temperature " + number_text(temperature_) + "\nsince " + std::to_string(since_improvement_) + "\nbest " +
                    number_text(best_) + "\n";
    if (has_current_) s += "current " + number_text(current_.fitness) + " " + genome_text(current_.g) + "\n";
    return s;
  }
  void load_extra(const std::vector<std::string>& lines) override {
    has_current_ = false;
    for (const auto& line : lines) {
      std::istringstream in(line);
      std::string key;
      in >> key;
      if (key == "temperature")
        temperature_ = read_number(in);
      else if (key == "since")
        in >> since_improvement_;
      else if (key == "best")
        best_ = read_number(in);
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

}  // namespace

std::unique_ptr<strategy> make_annealing_strategy(const search_space& s, const strategy_settings& st, std::uint64_t seed) {
  return std::make_unique<annealing_strategy>(s, st, seed);
}

}  // namespace galapagos::core::detail
