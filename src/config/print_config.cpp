// `galapagos run --print-config`: the config as the run would use it, every default filled in.
#include <toml++/toml.h>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "config/run_config.hpp"

namespace galapagos::config {

namespace {

toml::array paths(const std::vector<std::filesystem::path>& v) {
  toml::array a;
  for (const auto& p : v) a.push_back(p.string());
  return a;
}

toml::array texts(const std::vector<std::string>& v) {
  toml::array a;
  for (const auto& s : v) a.push_back(s);
  return a;
}

toml::table llm_table(const propose::llm_settings& l) {
  toml::array shares;
  for (const double s : l.island_shares) shares.push_back(s);
  toml::array models;
  for (const auto& m : l.models) {
    const auto& e = m.endpoint;
    models.push_back(toml::table{{"name", m.name},
                                 {"url", e.url},
                                 {"model", e.model},
                                 {"weight", m.weight},
                                 {"temperature", e.temperature},
                                 {"max_tokens", e.max_tokens},
                                 {"timeout_s", e.timeout_s},
                                 {"api_key_env", e.api_key_env},
                                 {"max_attempts", e.max_attempts},
                                 {"backoff_initial_s", e.backoff_initial_s},
                                 {"backoff_max_s", e.backoff_max_s},
                                 {"price_prompt_per_mtok", e.price_prompt_per_mtok},
                                 {"price_completion_per_mtok", e.price_completion_per_mtok}});
  }
  return toml::table{{"share", l.share},
                     {"island_shares", shares},
                     {"refine", l.refine},
                     {"turns", l.turns},
                     {"tools", l.tools},
                     {"supervisor_after", l.supervisor_after},
                     {"bandit", l.bandit},
                     {"stagnation_generations", l.stagnation_generations},
                     {"whole_file", l.whole_file},
                     {"elites_in_prompt", l.elites_in_prompt},
                     {"max_tokens", l.budget.max_tokens},
                     {"max_cost", l.budget.max_cost},
                     {"prompts", l.system_prompt.parent_path().string()},
                     {"notes", paths(l.notes)},
                     {"models", models}};
}

// toml++ prints a double with 17 significant digits (0.20000000000000001); this rewrites each
// `key = <float>` line with the shortest text that reads back as the same double (0.2).
std::string shortest_floats(const std::string& text) {
  std::istringstream in(text);
  std::ostringstream out;
  std::string line;
  while (std::getline(in, line)) {
    const auto eq = line.find(" = ");
    if (eq != std::string::npos && line.find_first_of(".eE", eq) != std::string::npos) {
      const std::string value = line.substr(eq + 3);
      char* end = nullptr;
      const double v = std::strtod(value.c_str(), &end);
      if (!value.empty() && *end == '\0' && std::isfinite(v)) {
        char buf[64];
        const auto r = std::to_chars(buf, buf + sizeof buf, v);
        std::string shortest(buf, r.ptr);
        if (shortest.find_first_of(".e") == std::string::npos) shortest += ".0";  // still a float
        line = line.substr(0, eq + 3) + shortest;
      }
    }
    out << line << "\n";
  }
  return out.str();
}

}  // namespace

std::string resolved_config_toml(const run_config& c) {
  const auto& ev = c.eval;
  const auto& ga = c.ga;
  const auto& st = c.strategy;
  toml::table root{
      {"run", toml::table{{"family", c.family},
                          {"backend", c.backend},
                          {"out", c.out.string()},
                          {"kernel_paths", paths(c.kernel_paths)},
                          {"grace_s", c.grace_s},
                          {"time_limit_s", c.stop.time_limit_s},
                          {"target_roofline", c.stop.target_roofline},
                          {"stagnant_generations", c.stop.stagnant_generations}}},
      {"search", toml::table{{"budget", c.budget},
                             {"seed", static_cast<std::int64_t>(c.seed)},
                             {"objective", core::to_string(c.objective)},
                             {"population", ga.population},
                             {"offspring", ga.offspring},
                             {"elite", ga.elite},
                             {"tournament", ga.tournament},
                             {"crossover_rate", ga.crossover_rate},
                             {"mutation_rate", ga.mutation_rate},
                             {"max_tries", ga.max_tries}}},
      {"strategy", toml::table{{"kind", st.kind},
                               {"kinds", texts(c.strategy_kinds)},
                               {"initial", st.initial},
                               {"local_share", st.local_share},
                               {"local_elites", st.local_elites},
                               {"temperature", st.temperature},
                               {"cooling", st.cooling},
                               {"restart_after", st.restart_after},
                               {"random_share", st.random_share},
                               {"pool", st.pool},
                               {"warm_start", paths(c.warm_start)},
                               {"template_first", c.template_first}}},
      {"migration", toml::table{{"topology", c.migration.topology},
                                {"degree", c.migration.degree},
                                {"interval", c.migration.interval},
                                {"count", c.migration.count},
                                {"arrival", c.migration.arrival}}},
      {"eval", toml::table{{"fitness_size", ev.fitness_size},
                           {"fitness_problem", ev.fitness_problem},
                           {"threads", ev.threads},
                           {"timeout_s", ev.timeout_s},
                           {"reference_timeout_s", c.reference_timeout_s},
                           {"seeds", ev.checks.seeds},
                           {"warmup", ev.timing.warmup},
                           {"min_repetitions", ev.timing.min_repetitions},
                           {"max_repetitions", ev.timing.max_repetitions},
                           {"target_spread", ev.timing.target_spread},
                           {"time_cap_s", ev.timing.time_cap_s},
                           {"physics_margin", ev.checks.physics_margin},
                           {"compute_margin", ev.checks.compute_margin},
                           {"memory_limit_mb", static_cast<std::int64_t>(ev.memory_limit_bytes >> 20)},
                           {"cache_dir", ev.cache_dir.string()},
                           {"scratch_dir", ev.scratch_dir.string()},
                           {"compiler", ev.compiler},
                           {"device", ev.device},
                           {"node_lock", c.node_lock.string()},
                           {"final_rounds", c.final_rounds},
                           {"verify_fraction", ev.checks.verify_fraction},
                           {"energy_burst_s", ev.timing.energy_burst_s},
                           {"compile_jobs", ev.compile_jobs},
                           {"profiler", ev.profiler},
                           {"profile_elites", ev.profile_elites}}},
  };
  if (c.llm.enabled()) root.insert("llm", llm_table(c.llm));
  std::ostringstream table;
  table << root;
  std::ostringstream os;
  os << "# " << c.file.string() << " as the run would use it, every default filled in\n"
     << "# (eval.cache_dir \"\": the default cache; eval.reference_timeout_s 0 and compile_jobs -1: automatic)\n"
     << shortest_floats(table.str());
  return os.str();
}

}  // namespace galapagos::config
