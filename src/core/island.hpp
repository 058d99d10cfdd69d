// One island of the genetic search: a population of evaluated genomes, tournament selection,
// uniform crossover, per-gene mutation, elitism. The island never evaluates anything itself:
// it proposes genomes, is told their fitness (a time in seconds, lower is better; +inf for a
// failed candidate) and advances. No genome is proposed twice on one island.
#pragma once

#include <cstdint>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "core/rng.hpp"
#include "core/search_space.hpp"

namespace galapagos::core {

struct ga_settings {
  int population = 8;          // survivors kept per generation
  int offspring = 8;           // genomes proposed per generation (after generation 0)
  int elite = 2;               // best individuals always kept
  int tournament = 3;          // tournament size for parent selection
  double crossover_rate = 0.9; // probability that a child is a uniform crossover of two parents
  double mutation_rate = 0.2;  // per-gene probability of drawing a new value
  int max_tries = 2000;        // attempts to find an unseen valid genome before giving up
};

struct individual {
  genome g;
  double fitness = std::numeric_limits<double>::infinity();  // seconds; +inf = failed
  std::int64_t id = -1;                                      // candidate id in the results file
};

class island {
 public:
  island(const search_space& space, ga_settings settings, std::uint64_t seed);

  // Up to `count` new genomes, valid and never seen on this island. Random samples while the
  // population is empty; bred from the population afterwards (falling back to random samples).
  // Returns fewer (possibly none) when the space is exhausted.
  std::vector<genome> propose(int count);
  // Marks a genome as seen without evaluating it (e.g. a migrant this island already knows).
  void mark_seen(const genome& g);
  bool seen(const genome& g) const;
  // An evaluated individual (own offspring or a re-measured migrant); also marks it seen.
  void record(const individual& ind);
  // Survivor selection: elites plus the best of population ∪ recorded-this-generation, up to
  // settings.population. Increments generation().
  void advance();
  // Puts the island back where a checkpoint left it, between two generations: its generation
  // count, population, random engine state (rng::state() text) and every genome it has seen.
  // Throws std::invalid_argument for a genome of the wrong length or a malformed engine state.
  void restore(int generation, std::vector<individual> population, const std::string& rng_state,
               const std::vector<genome>& seen);

  const std::vector<individual>& population() const { return population_; }
  std::vector<individual> best(int k) const;  // the k fittest of the population, best first
  int generation() const { return generation_; }
  std::size_t evaluated() const { return seen_.size(); }
  rng& random() { return rng_; }
  const ga_settings& settings() const { return settings_; }

 private:
  const individual& tournament_pick();
  genome breed();

  const search_space& space_;
  ga_settings settings_;
  rng rng_;
  std::vector<individual> population_;
  std::vector<individual> incoming_;
  std::set<genome> seen_;
  int generation_ = 0;
};

}  // namespace galapagos::core
