#include "simulate/strategy_config.hpp"

#include <cstdint>
#include <stdexcept>

#include "util/error.hpp"

namespace galapagos::simulate {

using util::toml_section;

namespace {

constexpr std::int64_t max_count = 1000000000;  // budgets, evaluations, generations

int whole(const toml_section& s, const std::string& key, int dflt, std::int64_t min, std::int64_t max) {
  return static_cast<int>(s.integer(key, dflt, min, max));
}

// Runs validate() and turns its "<key>: <problem>" into an error naming the file and table.
void check(const toml_section& s, const core::strategy_settings& settings) {
  try {
    core::validate(settings);
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    const auto colon = what.find(": ");
    s.fail(what.substr(0, colon), colon == std::string::npos ? what : what.substr(colon + 2));
  }
}

}  // namespace

std::vector<std::string> read_strategy_table(const toml_section& t, core::strategy_settings& base) {
  t.allow_only({"kind", "kinds", "initial", "local_share", "local_elites", "temperature", "cooling", "restart_after",
                 "random_share", "pool"});
  base.kind = t.str("kind", base.kind);
  base.initial = whole(t, "initial", base.initial, 0, max_count);
  base.local_share = t.num("local_share", base.local_share, 0, 1);
  base.local_elites = whole(t, "local_elites", base.local_elites, 1, 3);
  base.temperature = t.num("temperature", base.temperature, 0, 1e6);
  base.cooling = t.num("cooling", base.cooling, 0, 1, "", true);
  base.restart_after = whole(t, "restart_after", base.restart_after, 1, max_count);
  base.random_share = t.num("random_share", base.random_share, 0, 1);
  base.pool = whole(t, "pool", base.pool, 1, 10000000);
  check(t, base);
  std::vector<std::string> kinds = t.strings("kinds");
  for (const auto& k : kinds) {
    core::strategy_settings s = base;
    s.kind = k;
    check(t, s);
  }
  if (kinds.empty()) kinds.push_back(base.kind);
  return kinds;
}

void read_search_table(const toml_section& s, core::ga_settings& ga, int& budget, std::uint64_t& seed) {
  s.allow_only({"budget", "seed", "population", "offspring", "elite", "tournament", "crossover_rate", "mutation_rate", "max_tries"});
  budget = whole(s, "budget", budget, 1, max_count);
  seed = static_cast<std::uint64_t>(s.integer("seed", static_cast<std::int64_t>(seed), 0, INT64_MAX));
  ga.population = whole(s, "population", ga.population, 1, 100000);
  ga.offspring = whole(s, "offspring", ga.offspring, 1, 100000);
  ga.elite = whole(s, "elite", ga.elite, 0, ga.population);
  ga.tournament = whole(s, "tournament", ga.tournament, 1, 100000);
  ga.crossover_rate = s.num("crossover_rate", ga.crossover_rate, 0, 1);
  ga.mutation_rate = s.num("mutation_rate", ga.mutation_rate, 0, 1);
  ga.max_tries = whole(s, "max_tries", ga.max_tries, 1, max_count);
}

void read_migration_schedule(const toml_section& m, int& interval, int& count) {
  interval = whole(m, "interval", interval, 1, max_count);
  count = whole(m, "count", count, 0, 100000);
}

simulation_settings read_simulation_config(const std::filesystem::path& file, int islands) {
  const toml::table doc = util::parse_toml_file(file);
  const std::string f = file.string();
  const toml_section root(doc, f, "");
  core::strategy_settings base;
  simulation_settings out;
  out.budget = 40;
  if (auto s = root.sub("search")) {
    read_search_table(*s, base.ga, out.budget, out.seed);
    check(*s, base);
  }
  std::vector<std::string> kinds{base.kind};
  if (auto st = root.sub("strategy")) kinds = read_strategy_table(*st, base);
  if (auto m = root.sub("migration")) {
    out.topology = m->str("topology", out.topology);
    if (out.topology != "ring" && out.topology != "full" && out.topology != "none")
      m->fail("topology", "simulate knows ring, full and none");
    read_migration_schedule(*m, out.interval, out.count);
  }
  out.islands.clear();
  for (int i = 0; i < islands; ++i) {
    core::strategy_settings s = base;
    s.kind = kinds[static_cast<std::size_t>(i) % kinds.size()];
    out.islands.push_back(s);
  }
  return out;
}

}  // namespace galapagos::simulate
