#include "archipelago/run_config.hpp"

#include "simulate/strategy_config.hpp"
#include "util/build_info.hpp"
#include "util/error.hpp"
#include "util/hash.hpp"
#include "util/toml_reader.hpp"

namespace galapagos::archipelago {

using util::toml_section;

eval::eval_settings default_eval_settings() { return eval::eval_settings{}; }

namespace {

int positive(const toml_section& s, const std::string& key, int dflt, int min = 1) {
  const auto v = s.integer(key, dflt);
  if (v < min) s.fail(key, "must be >= " + std::to_string(min));
  return static_cast<int>(v);
}

double fraction(const toml_section& s, const std::string& key, double dflt) {
  const double v = s.num(key, dflt);
  if (v < 0 || v > 1) s.fail(key, "must lie in [0, 1]");
  return v;
}

void read_eval(const toml_section& e, eval::eval_settings& ev, run_config& c) {
  e.allow_only({"fitness_size", "fitness_problem", "threads", "timeout_s", "seeds", "warmup", "min_repetitions", "max_repetitions",
                "target_spread", "time_cap_s", "physics_margin", "memory_limit_mb", "cache_dir", "scratch_dir",
                "compiler", "device", "node_lock", "final_rounds", "perturb_count", "verify_fraction", "energy_burst_s",
                "compile_jobs", "profiler", "profile_elites"});
  ev.fitness_size = e.str("fitness_size", ev.fitness_size);
  ev.fitness_problem = e.str("fitness_problem", ev.fitness_problem);
  ev.threads = positive(e, "threads", ev.threads, 0);
  ev.timeout_s = e.num("timeout_s", ev.timeout_s);
  if (ev.timeout_s <= 0) e.fail("timeout_s", "must be > 0");
  ev.checks.seeds = positive(e, "seeds", ev.checks.seeds);
  ev.timing.warmup = positive(e, "warmup", ev.timing.warmup, 2);
  ev.timing.min_repetitions = positive(e, "min_repetitions", ev.timing.min_repetitions, 3);
  ev.timing.max_repetitions = positive(e, "max_repetitions", ev.timing.max_repetitions, ev.timing.min_repetitions);
  ev.timing.target_spread = e.num("target_spread", ev.timing.target_spread);
  ev.timing.time_cap_s = e.num("time_cap_s", ev.timing.time_cap_s);
  ev.checks.physics_margin = e.num("physics_margin", ev.checks.physics_margin);
  if (ev.checks.physics_margin < 1) e.fail("physics_margin", "must be >= 1");
  ev.checks.perturb_count = e.integer("perturb_count", ev.checks.perturb_count);
  ev.memory_limit_bytes = static_cast<std::uint64_t>(positive(e, "memory_limit_mb", static_cast<int>(ev.memory_limit_bytes >> 20))) << 20;
  if (e.has("cache_dir")) ev.cache_dir = e.str("cache_dir");
  ev.scratch_dir = e.str("scratch_dir", ev.scratch_dir.string());
  ev.compiler = e.str("compiler", ev.compiler);
  ev.device = static_cast<int>(e.integer("device", ev.device));
  c.node_lock = e.str("node_lock", c.node_lock.string());
  c.final_rounds = positive(e, "final_rounds", c.final_rounds);
  ev.checks.verify_fraction = fraction(e, "verify_fraction", ev.checks.verify_fraction);
  ev.timing.energy_burst_s = e.num("energy_burst_s", ev.timing.energy_burst_s);
  if (ev.timing.energy_burst_s < 0 || ev.timing.energy_burst_s > 60) e.fail("energy_burst_s", "must lie in [0, 60] seconds");
  ev.compile_jobs = static_cast<int>(e.integer("compile_jobs", ev.compile_jobs));
  if (ev.compile_jobs < -1) e.fail("compile_jobs", "must be -1 (automatic), 0 (none) or a number of parallel builds");
  ev.profiler = e.str("profiler", ev.profiler);
  ev.profile_elites = positive(e, "profile_elites", ev.profile_elites, 0);
}

// [llm] and its [[llm.models]]: the LLM proposer (docs/llm.md).
void read_llm(const toml_section& l, propose::llm_settings& s, const std::filesystem::path& config_file) {
  l.allow_only({"share", "island_shares", "refine", "turns", "bandit", "stagnation_generations", "whole_file", "elites_in_prompt", "max_tokens",
                "max_cost", "prompts", "notes", "models"});
  s.share = fraction(l, "share", s.share);
  for (const auto& v : l.scalars_as_text("island_shares")) {
    double x = -1;
    try {
      x = std::stod(v);
    } catch (const std::exception&) {
    }
    if (!(x >= 0 && x <= 1)) l.fail("island_shares", "every share must be a number in [0, 1]");
    s.island_shares.push_back(x);
  }
  s.refine = l.boolean("refine", s.refine);
  s.turns = positive(l, "turns", s.turns);
  s.bandit = l.boolean("bandit", s.bandit);
  s.stagnation_generations = positive(l, "stagnation_generations", s.stagnation_generations, 0);
  s.whole_file = l.boolean("whole_file", s.whole_file);
  s.elites_in_prompt = positive(l, "elites_in_prompt", s.elites_in_prompt, 0);
  s.budget.max_tokens = l.integer("max_tokens", s.budget.max_tokens);
  if (s.budget.max_tokens < 0) l.fail("max_tokens", "must be >= 0 (0: no limit)");
  s.budget.max_cost = l.num("max_cost", s.budget.max_cost);
  if (s.budget.max_cost < 0) l.fail("max_cost", "must be >= 0 (0: no limit)");
  auto relative = [&](const std::string& p) {
    std::filesystem::path path = p;
    return path.is_relative() ? config_file.parent_path() / path : path;
  };
  const std::filesystem::path prompts = l.has("prompts") ? relative(l.str("prompts"))
                                                         : std::filesystem::path(build_info::source_kernels_dir).parent_path() / "configs" / "prompts";
  s.system_prompt = prompts / "system.md";
  s.variation_prompt = prompts / "variation.md";
  s.repair_prompt = prompts / "repair.md";
  for (const auto& n : l.strings("notes")) s.notes.push_back(relative(n));
  const auto models = l.array_of_tables("models");
  if (models.empty()) l.fail("models", "name at least one model: [[llm.models]] with url and model");
  for (const auto& m : models) {
    m.allow_only({"name", "url", "model", "weight", "temperature", "max_tokens", "timeout_s", "api_key_env", "max_attempts",
                  "backoff_initial_s", "backoff_max_s", "price_prompt_per_mtok", "price_completion_per_mtok"});
    propose::llm_model x;
    auto& e = x.endpoint;
    e.url = m.str("url");
    if (!e.url.starts_with("http://") && !e.url.starts_with("https://")) m.fail("url", "must start with http:// or https://");
    e.model = m.str("model");
    x.name = m.str("name", e.model);
    for (const auto& other : s.models)
      if (other.name == x.name) m.fail("name", "two models are named '" + x.name + "'");
    x.weight = m.num("weight", x.weight);
    if (!(x.weight > 0)) m.fail("weight", "must be > 0");
    e.temperature = m.num("temperature", e.temperature);
    if (e.temperature < 0 || e.temperature > 2) m.fail("temperature", "must lie in [0, 2]");
    e.max_tokens = positive(m, "max_tokens", e.max_tokens);
    e.timeout_s = m.num("timeout_s", e.timeout_s);
    if (!(e.timeout_s > 0)) m.fail("timeout_s", "must be > 0");
    e.api_key_env = m.str("api_key_env", e.api_key_env);
    e.max_attempts = positive(m, "max_attempts", e.max_attempts);
    e.backoff_initial_s = m.num("backoff_initial_s", e.backoff_initial_s);
    e.backoff_max_s = m.num("backoff_max_s", e.backoff_max_s);
    if (e.backoff_initial_s < 0 || e.backoff_max_s < e.backoff_initial_s) m.fail("backoff_max_s", "backoff times must satisfy 0 <= backoff_initial_s <= backoff_max_s");
    e.price_prompt_per_mtok = m.num("price_prompt_per_mtok", e.price_prompt_per_mtok);
    e.price_completion_per_mtok = m.num("price_completion_per_mtok", e.price_completion_per_mtok);
    if (e.price_prompt_per_mtok < 0 || e.price_completion_per_mtok < 0) m.fail("price_prompt_per_mtok", "prices must be >= 0");
    s.models.push_back(std::move(x));
  }
}

}  // namespace

run_config load_run_config(const std::filesystem::path& file) { return parse_run_config(util::read_file(file.string()), file, file.string()); }

run_config parse_run_config(const std::string& text, const std::filesystem::path& file, const std::string& origin) {
  run_config c;
  c.file = file;
  c.text = text;
  const toml::table root = util::parse_toml_text(c.text, origin);
  toml_section s(root, origin, "");
  s.allow_only({"run", "search", "migration", "eval", "llm", "strategy"});
  auto run = s.sub("run");
  if (!run) s.fail("run", "missing [run] table (family, backend, out)");
  run->allow_only({"family", "backend", "out", "kernel_paths", "grace_s"});
  c.family = run->str("family");
  c.backend = run->str("backend", c.backend);
  if (c.backend != "cpu" && c.backend != "cuda" && c.backend != "hip") run->fail("backend", "must be cpu, cuda or hip");
  c.out = run->str("out", c.out.string());
  c.grace_s = run->num("grace_s", c.grace_s);
  if (!(c.grace_s > 0)) run->fail("grace_s", "must be > 0");
  for (const auto& p : run->strings("kernel_paths")) {
    std::filesystem::path kp = p;
    c.kernel_paths.push_back(kp.is_relative() ? file.parent_path() / kp : kp);
  }

  if (auto se = s.sub("search")) {
    se->allow_only({"budget", "seed", "population", "offspring", "elite", "tournament", "crossover_rate",
                    "mutation_rate", "max_tries"});
    c.budget = positive(*se, "budget", c.budget);
    c.seed = static_cast<std::uint64_t>(se->integer("seed", static_cast<std::int64_t>(c.seed)));
    c.ga.population = positive(*se, "population", c.ga.population);
    c.ga.offspring = positive(*se, "offspring", c.ga.offspring);
    c.ga.elite = positive(*se, "elite", c.ga.elite, 0);
    if (c.ga.elite > c.ga.population) se->fail("elite", "cannot exceed population");
    c.ga.tournament = positive(*se, "tournament", c.ga.tournament);
    c.ga.crossover_rate = fraction(*se, "crossover_rate", c.ga.crossover_rate);
    c.ga.mutation_rate = fraction(*se, "mutation_rate", c.ga.mutation_rate);
    c.ga.max_tries = positive(*se, "max_tries", c.ga.max_tries);
  }
  c.strategy.ga = c.ga;
  c.strategy.kind = "forest";
  if (auto st = s.sub("strategy")) c.strategy_kinds = simulate::read_strategy_table(*st, c.strategy);
  if (auto m = s.sub("migration")) {
    m->allow_only({"topology", "degree", "interval", "count", "arrival"});
    c.migration.arrival = m->str("arrival", c.migration.arrival);
    if (c.migration.arrival != "auto" && c.migration.arrival != "asynchronous") m->fail("arrival", "must be auto or asynchronous");
    c.migration.topology = m->str("topology", c.migration.topology);
    if (c.migration.topology != "ring" && c.migration.topology != "full" && c.migration.topology != "random" &&
        c.migration.topology != "none")
      m->fail("topology", "must be ring, full, random or none");
    c.migration.degree = positive(*m, "degree", c.migration.degree);
    c.migration.interval = positive(*m, "interval", c.migration.interval);
    c.migration.count = positive(*m, "count", c.migration.count, 0);
  }
  if (auto e = s.sub("eval")) read_eval(*e, c.eval, c);
  if (auto l = s.sub("llm")) read_llm(*l, c.llm, file);
  return c;
}

}  // namespace galapagos::archipelago
