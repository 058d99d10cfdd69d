#include "simulate/strategy_config.hpp"

#include <stdexcept>

#include "util/error.hpp"

namespace galapagos::simulate {

using util::toml_section;

namespace {

int whole(const toml_section& s, const std::string& key, int dflt) {
  const auto v = s.integer(key, dflt);
  if (v < 0 || v > 1000000000) s.fail(key, "must be a non-negative integer");
  return static_cast<int>(v);
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
  base.initial = whole(t, "initial", base.initial);
  base.local_share = t.num("local_share", base.local_share);
  base.local_elites = whole(t, "local_elites", base.local_elites);
  base.temperature = t.num("temperature", base.temperature);
  base.cooling = t.num("cooling", base.cooling);
  base.restart_after = whole(t, "restart_after", base.restart_after);
  base.random_share = t.num("random_share", base.random_share);
  base.pool = whole(t, "pool", base.pool);
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

simulation_settings read_simulation_config(const std::filesystem::path& file, int islands) {
  const toml::table doc = util::parse_toml_file(file);
  const std::string f = file.string();
  core::strategy_settings base;
  simulation_settings out;
  if (doc.contains("search")) {
    const toml_section s(*doc["search"].as_table(), f, "search");
    auto& ga = base.ga;
    ga.population = whole(s, "population", ga.population);
    ga.offspring = whole(s, "offspring", ga.offspring);
    ga.elite = whole(s, "elite", ga.elite);
    ga.tournament = whole(s, "tournament", ga.tournament);
    ga.crossover_rate = s.num("crossover_rate", ga.crossover_rate);
    ga.mutation_rate = s.num("mutation_rate", ga.mutation_rate);
    ga.max_tries = whole(s, "max_tries", ga.max_tries);
    out.budget = whole(s, "budget", 40);
    out.seed = static_cast<std::uint64_t>(s.integer("seed", 1));
    check(s, base);
  } else {
    out.budget = 40;
  }
  std::vector<std::string> kinds{base.kind};
  if (doc.contains("strategy")) {
    if (!doc["strategy"].is_table()) throw error(f, "[strategy] must be a table");
    kinds = read_strategy_table(toml_section(*doc["strategy"].as_table(), f, "strategy"), base);
  }
  if (doc.contains("migration")) {
    const toml_section m(*doc["migration"].as_table(), f, "migration");
    out.topology = m.str("topology", out.topology);
    if (out.topology != "ring" && out.topology != "full" && out.topology != "none")
      m.fail("topology", "simulate knows ring, full and none");
    out.interval = whole(m, "interval", out.interval);
    if (out.interval < 1) m.fail("interval", "must be at least 1");
    out.count = whole(m, "count", out.count);
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
