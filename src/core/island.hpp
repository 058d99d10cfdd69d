// One island of the genetic search: a population of evaluated genomes, tournament selection,
// uniform crossover, per-gene mutation, elitism. The island never evaluates anything itself:
// it proposes genomes, is told their fitness (a time in seconds, lower is better; +inf for a
// failed candidate) and advances. No genome is proposed twice on one island.
//
// Two-level search: besides the family's template (variant 0, the island's own space), an
// island may hold source variants (rewrites a model proposed), each with its own parameter
// space (add_variant). Individuals of every variant share the population; a child keeps the
// variant of its first parent and takes, from a parent of another variant, only the values of
// parameters both spaces have. So the model changes the structure and the GA tunes constants.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/rng.hpp"
#include "core/search_space.hpp"

namespace galapagos::core {

struct ga_settings {
  int population = 8;           // survivors kept per generation
  int offspring = 8;            // genomes proposed per generation (after generation 0)
  int elite = 2;                // best individuals always kept
  int tournament = 3;           // tournament size for parent selection
  double crossover_rate = 0.9;  // probability that a child is a uniform crossover of two parents
  double mutation_rate = 0.2;   // per-gene probability of drawing a new value
  int max_tries = 2000;         // attempts to find an unseen valid genome before giving up
};

struct individual {
  genome g;
  double fitness = std::numeric_limits<double>::infinity();  // seconds; +inf = failed
  std::int64_t id = -1;                                      // candidate id in the results file
  int variant = 0;  // the source variant g belongs to (island::add_variant); 0 = the template
};

// A point of the two-level space: a source variant and a genome of its parameter space.
struct point {
  int variant = 0;
  genome g;
  auto operator<=>(const point&) const = default;
};

class island {
 public:
  island(const search_space& space, ga_settings settings, std::uint64_t seed);

  // Registers a source variant's parameter space (which must outlive the island); returns its
  // number. Its individuals enter through record().
  int add_variant(const search_space& space);
  const search_space& space(int variant) const { return *spaces_.at(static_cast<std::size_t>(variant)); }
  int variants() const { return static_cast<int>(spaces_.size()); }
  // Up to `count` new points, valid and never seen on this island. Random samples of the
  // template's space while the population is empty; bred from the population afterwards
  // (falling back to random samples). Returns fewer (possibly none) when the space is exhausted.
  std::vector<point> propose_points(int count);
  // The candidate ids of the population members a point of the latest propose_points() was bred
  // from (one for a mutant, two for a crossover; none for a random sample): its lineage.
  std::vector<std::int64_t> parents_of(const point& p) const;
  // The same for an island without variants: the genomes of propose_points(count).
  std::vector<genome> propose(int count);
  // Marks a point as seen without evaluating it (e.g. a migrant this island already knows).
  void mark_seen(const point& p);
  bool seen(const point& p) const;
  void mark_seen(const genome& g) { mark_seen(point{0, g}); }
  bool seen(const genome& g) const { return seen(point{0, g}); }
  // An evaluated individual (own offspring or a re-measured migrant); also marks it seen.
  void record(const individual& ind);
  // Survivor selection: elites plus the best of population ∪ recorded-this-generation, up to
  // settings.population. Increments generation().
  void advance();
  // Puts the island back where a checkpoint left it, between two generations: its generation
  // count, population, random engine state (rng::state() text) and every genome it has seen.
  // Throws std::invalid_argument for a genome of the wrong length or a malformed engine state.
  void restore(int generation, std::vector<individual> population, const std::string& rng_state, const std::vector<point>& seen);
  void restore(int generation, std::vector<individual> population, const std::string& rng_state, const std::vector<genome>& seen);

  const std::vector<individual>& population() const { return population_; }
  // The value index of `variant`'s parameter i that `from` holds, or -1 when its space has no
  // parameter of that name or not that value.
  int shared_value(int variant, std::size_t i, const individual& from) const;
  std::vector<individual> best(int k) const;  // the k fittest of the population, best first
  int generation() const { return generation_; }
  std::size_t evaluated() const { return seen_.size(); }
  rng& random() { return rng_; }
  const ga_settings& settings() const { return settings_; }

 private:
  const individual& tournament_pick();
  point breed(std::vector<std::int64_t>& parents);
  void check_length(const point& p, const char* who) const;

  std::vector<const search_space*> spaces_;
  ga_settings settings_;
  rng rng_;
  std::vector<individual> population_;
  std::vector<individual> incoming_;
  std::set<point> seen_;
  std::map<point, std::vector<std::int64_t>> bred_from_;  // of the latest propose_points()
  int generation_ = 0;
};

}  // namespace galapagos::core
