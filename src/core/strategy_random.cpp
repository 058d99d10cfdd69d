// The random and the exhaustive strategy.
#include "core/strategy_parts.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <utility>

namespace galapagos::core::detail {

namespace {

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
      if (key == "cursor")
        cursor_ = read_genome(in, space_.parameters().size());
      else if (key == "index")
        in >> index_;
      else if (key == "done")
        in >> done_;
      else
        bad_state("unknown line '" + key + "' for exhaustive");
    }
  }

 private:
  int shard_, shards_;
  genome cursor_;
  std::uint64_t index_ = 0;
  bool done_ = false;
};

}  // namespace

std::unique_ptr<strategy> make_random_strategy(const search_space& s, std::uint64_t seed) {
  return std::make_unique<random_strategy>(s, seed);
}

std::unique_ptr<strategy> make_exhaustive_strategy(const search_space& s, const strategy_settings& st, std::uint64_t seed) {
  return std::make_unique<exhaustive_strategy>(s, st, seed);
}

}  // namespace galapagos::core::detail
