// Search strategies over the genomes of one search_space, behind one interface that an island
// runner (measured or simulated) drives the same way: propose a batch of unseen valid genomes,
// tell it each measured fitness (a time in seconds, lower is better, +inf = failed), advance
// one generation, and exchange elites. A strategy never evaluates anything itself.
//
//   ga         the island genetic algorithm (core::island) behind this interface
//   random     uniform samples of the valid points, never one twice
//   exhaustive every valid point once, in lexicographic order (or the points of one shard)
//   annealing  simulated annealing over single-parameter moves, restarting when stuck
//   forest     (default) a few random samples, then a random-forest model of the measured log
//              times chooses each batch by Thompson sampling over the unseen valid points
//   hybrid     a few random samples, then greedy local search around the elites
//              (steps to the next value of one parameter first, then any value of one, then of
//              two), with GA offspring of the population beside it
//
// Kinds may differ between the islands of one archipelago: migrants are told like any other
// evaluated individual. state() and restore() carry everything a checkpoint needs as text.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/island.hpp"
#include "core/rng.hpp"
#include "core/search_space.hpp"

namespace galapagos::core {

struct strategy_settings {
  std::string kind = "forest";  // forest | hybrid | ga | random | exhaustive | annealing
  ga_settings ga;               // population, offspring (the batch), elite, ... (ga and hybrid)
  // forest and hybrid
  int initial = 8;            // random samples before the model or the local search starts
  double local_share = 0.75;  // share of a batch that is local moves (the rest: GA offspring)
  int local_elites = 3;       // elites whose neighbourhoods are searched, best first
  // forest
  double random_share = 0.25;  // share of a batch that is random samples
  int pool = 20000;            // candidates scored per batch: every valid point when there
                               // are no more, else this many random ones (and neighbourhoods)
  // annealing
  double temperature = 0.10;  // initial temperature, in relative time (0.1: a 10% worse
                              // move is accepted with probability 1/e)
  double cooling = 0.97;      // temperature factor per evaluation
  int restart_after = 25;     // evaluations without improvement before a random restart
  // exhaustive: this island enumerates every shards-th valid point, starting with the shard-th
  int shard = 0;
  int shards = 1;
};

// The kinds make_strategy knows, in the order the docs list them.
const std::vector<std::string>& strategy_kinds();

class strategy {
 public:
  virtual ~strategy() = default;
  virtual std::string kind() const = 0;

  // Up to `count` valid genomes, never seen by this strategy and distinct; fewer (possibly
  // none) when the space, or this strategy's part of it, is exhausted.
  virtual std::vector<genome> propose(int count) = 0;
  // A measured individual: one this strategy proposed, or a migrant. Marks it seen.
  virtual void tell(const individual& ind);
  // Ends a generation (the GA selects survivors here).
  virtual void advance() { ++generation_; }

  void mark_seen(const genome& g) {
    seen_.insert(g);
    on_mark_seen(g);
  }
  bool seen(const genome& g) const { return seen_.contains(g); }
  std::size_t evaluated() const { return history_.size(); }
  int generation() const { return generation_; }
  // The k best individuals told so far (failed ones last), best first; ties keep telling order.
  std::vector<individual> best(int k) const;
  // Every individual told, in order.
  const std::vector<individual>& history() const { return history_; }

  // Warm start: points measured in a related search (another problem size, device or run) as
  // genomes of this space, with their fitness there (+inf: failed there). The forest fits them
  // beside its own measurements (strategy_forest.cpp); they are never counted as evaluated or
  // seen, and other kinds ignore them. Not part of state(): a resumed run is given them again.
  void warm_start(std::vector<individual> prior) { prior_ = std::move(prior); }

  // The whole state as text (one item per line), and back. restore() expects a strategy made
  // by make_strategy with the same space and settings; it throws std::invalid_argument for a
  // text of another kind, a genome of the wrong length or a malformed line.
  std::string state() const;
  void restore(const std::string& text);

 protected:
  strategy(const search_space& space, std::uint64_t seed) : space_(space), rng_(seed) {}
  virtual void on_tell(const individual&) {}
  virtual void on_mark_seen(const genome&) {}
  // Extra state of a kind: lines "key value..." that load_extra reads back.
  virtual std::string save_extra() const { return {}; }
  virtual void load_extra(const std::vector<std::string>&) {}
  // After restore has rebuilt history and seen (the GA rebuilds its island here).
  virtual void after_restore() {}

  // A uniformly drawn valid genome that is neither seen nor in `taken`; enumerates small spaces
  // when sampling finds nothing new.
  std::optional<genome> fresh_random(const std::set<genome>& taken, int max_tries = 2000);
  bool fresh(const genome& g, const std::set<genome>& taken) const {
    return !seen_.contains(g) && !taken.contains(g) && space_.is_valid(g);
  }

  const search_space& space_;
  rng rng_;
  std::set<genome> seen_;
  std::vector<individual> history_;
  std::vector<individual> prior_;  // warm_start()
  int generation_ = 0;
};

// Throws std::invalid_argument for an unknown kind or settings out of range, naming the key.
std::unique_ptr<strategy> make_strategy(const search_space& space, const strategy_settings& settings, std::uint64_t seed);

// Checks settings (kind known, shares in [0, 1], counts positive ...); throws
// std::invalid_argument "<key>: <problem>".
void validate(const strategy_settings& settings);

}  // namespace galapagos::core
