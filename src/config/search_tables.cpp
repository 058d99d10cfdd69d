#include "config/search_tables.hpp"

#include <stdexcept>

#include "util/error.hpp"

namespace galapagos::config {

using util::toml_section;

namespace {

constexpr std::int64_t max_count = 1000000000;  // budgets, evaluations, generations

// Runs core::validate() and turns its "<key>: <problem>" into an error naming the file and table.
void check(const toml_section& s, const core::strategy_settings& settings) {
  try {
    core::validate(settings);
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    const auto colon = what.find(": ");
    s.fail(what.substr(0, colon), colon == std::string::npos ? what : what.substr(colon + 2));
  }
}

void read_search(const toml_section& s, search_settings& out) {
  s.allow_only({"budget", "seed", "population", "offspring", "elite", "tournament", "crossover_rate", "mutation_rate",
                "max_tries", "objective"});
  if (s.has("objective")) {
    const auto o = core::parse_objective(s.str("objective"));
    if (!o) s.fail("objective", "must be \"time\", \"energy\" or \"edp\" (energy x time), got '" + s.str("objective") + "'");
    out.objective = *o;
  }
  auto& ga = out.ga;
  out.budget = s.whole("budget", out.budget, 1, max_count);
  out.seed = static_cast<std::uint64_t>(s.integer("seed", static_cast<std::int64_t>(out.seed), 0, INT64_MAX));
  ga.population = s.whole("population", ga.population, 1, 100000);
  ga.offspring = s.whole("offspring", ga.offspring, 1, 100000);
  ga.elite = s.whole("elite", ga.elite, 0, ga.population);
  ga.tournament = s.whole("tournament", ga.tournament, 1, 100000);
  ga.crossover_rate = s.num("crossover_rate", ga.crossover_rate, 0, 1);
  ga.mutation_rate = s.num("mutation_rate", ga.mutation_rate, 0, 1);
  ga.max_tries = s.whole("max_tries", ga.max_tries, 1, max_count);
}

// [strategy]: the kind and the settings of each kind; `kinds` (cycled over the islands) when
// given, else `kind` for every island.
void read_strategy(const toml_section& t, search_settings& out) {
  t.allow_only({"kind", "kinds", "initial", "local_share", "local_elites", "temperature", "cooling", "restart_after",
                "random_share", "pool", "warm_start", "template_first"});
  auto& base = out.strategy;
  base.kind = t.str("kind", base.kind);
  base.initial = t.whole("initial", base.initial, 0, max_count);
  base.local_share = t.num("local_share", base.local_share, 0, 1);
  base.local_elites = t.whole("local_elites", base.local_elites, 1, 3);
  base.temperature = t.num("temperature", base.temperature, 0, 1e6);
  base.cooling = t.num("cooling", base.cooling, 0, 1, "", true);
  base.restart_after = t.whole("restart_after", base.restart_after, 1, max_count);
  base.random_share = t.num("random_share", base.random_share, 0, 1);
  base.pool = t.whole("pool", base.pool, 1, 10000000);
  check(t, base);
  out.strategy_kinds = t.strings("kinds");
  for (const auto& k : out.strategy_kinds) {
    core::strategy_settings s = base;
    s.kind = k;
    check(t, s);
  }
  if (out.strategy_kinds.empty()) out.strategy_kinds.push_back(base.kind);
  out.template_first = t.boolean("template_first", out.template_first);
  out.warm_start.clear();
  for (const auto& f : t.strings("warm_start")) {
    if (f.empty()) t.fail("warm_start", "holds an empty file name");
    const std::filesystem::path p = f;
    out.warm_start.push_back(p.is_relative() ? std::filesystem::path(t.file()).parent_path() / p : p);
  }
}

void read_migration(const toml_section& m, migration_settings& out) {
  m.allow_only({"topology", "degree", "interval", "count", "arrival"});
  out.arrival = m.str("arrival", out.arrival);
  if (out.arrival != "auto" && out.arrival != "asynchronous") m.fail("arrival", "must be auto or asynchronous");
  out.topology = m.str("topology", out.topology);
  if (out.topology != "ring" && out.topology != "full" && out.topology != "random" && out.topology != "none")
    m.fail("topology", "must be ring, full, random or none");
  out.degree = m.whole("degree", out.degree, 1, 4096);
  out.interval = m.whole("interval", out.interval, 1, max_count);
  out.count = m.whole("count", out.count, 0, 100000);
}

}  // namespace

void read_search_tables(const toml_section& root, search_settings& out) {
  if (auto s = root.sub("search")) read_search(*s, out);
  out.strategy.ga = out.ga;
  if (auto s = root.sub("search")) check(*s, out.strategy);
  if (auto t = root.sub("strategy")) read_strategy(*t, out);
  if (auto m = root.sub("migration")) read_migration(*m, out.migration);
}

}  // namespace galapagos::config
