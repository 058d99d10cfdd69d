#include "archipelago/run_config.hpp"

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

}  // namespace

run_config load_run_config(const std::filesystem::path& file) { return parse_run_config(util::read_file(file.string()), file, file.string()); }

run_config parse_run_config(const std::string& text, const std::filesystem::path& file, const std::string& origin) {
  run_config c;
  c.file = file;
  c.text = text;
  const toml::table root = util::parse_toml_text(c.text, origin);
  toml_section s(root, origin, "");
  s.allow_only({"run", "search", "migration", "eval"});
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
  return c;
}

}  // namespace galapagos::archipelago
