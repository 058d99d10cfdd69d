#include "config/run_config.hpp"

#include "util/error.hpp"
#include "util/hash.hpp"
#include "util/install_layout.hpp"
#include "util/toml_reader.hpp"

namespace galapagos::config {

using util::toml_section;

eval::eval_settings default_eval_settings() { return eval::eval_settings{}; }

namespace {

// Ranges of the [eval] and [llm] keys (docs/configuration.md lists them beside each key).
constexpr std::int64_t max_count = 1000000000;  // budgets, evaluations, generations
constexpr double day_s = 86400;

void read_eval(const toml_section& e, eval::eval_settings& ev, run_config& c) {
  e.allow_only({"fitness_size",        "fitness_problem", "threads",        "timeout_s",    "seeds",          "warmup",
                "min_repetitions",     "max_repetitions", "target_spread",  "time_cap_s",   "physics_margin", "memory_limit_mb",
                "cache_dir",           "scratch_dir",     "compiler",       "device",       "node_lock",      "final_rounds",
                "compute_margin",      "verify_fraction", "energy_burst_s", "compile_jobs", "profiler",       "profile_elites",
                "reference_timeout_s", "timing_sets"});
  ev.fitness_size = e.str("fitness_size", ev.fitness_size);
  ev.fitness_problem = e.str("fitness_problem", ev.fitness_problem);
  ev.threads = e.whole("threads", ev.threads, 0, 4096);
  ev.timeout_s = e.num("timeout_s", ev.timeout_s, 0, day_s, "seconds", true);
  c.reference_timeout_s = e.num("reference_timeout_s", c.reference_timeout_s, 0, 7 * day_s, "seconds (0: automatic)");
  ev.checks.seeds = e.whole("seeds", ev.checks.seeds, 1, 1000);
  ev.timing.warmup = e.whole("warmup", ev.timing.warmup, 2, 100000);
  ev.timing.min_repetitions = e.whole("min_repetitions", ev.timing.min_repetitions, 3, 1000000);
  ev.timing.max_repetitions = e.whole("max_repetitions", ev.timing.max_repetitions, ev.timing.min_repetitions, 1000000);
  if (ev.timing.max_repetitions < ev.timing.min_repetitions)
    e.fail("max_repetitions", "must be at least min_repetitions (" + std::to_string(ev.timing.min_repetitions) + "), got " +
                                  std::to_string(ev.timing.max_repetitions));
  ev.timing.target_spread = e.num("target_spread", ev.timing.target_spread, 0, 10);
  ev.timing.time_cap_s = e.num("time_cap_s", ev.timing.time_cap_s, 0, day_s, "seconds", true);
  ev.checks.physics_margin = e.num("physics_margin", ev.checks.physics_margin, 1, 1000);
  ev.checks.compute_margin = e.num("compute_margin", ev.checks.compute_margin, 1, 1000);
  ev.memory_limit_bytes =
      static_cast<std::uint64_t>(
          e.integer("memory_limit_mb", static_cast<std::int64_t>(ev.memory_limit_bytes >> 20), 1, std::int64_t{1} << 24, "MiB"))
      << 20;
  if (e.has("cache_dir")) ev.cache_dir = e.str("cache_dir");
  ev.scratch_dir = e.str("scratch_dir", ev.scratch_dir.string());
  ev.compiler = e.str("compiler", ev.compiler);
  ev.device = e.whole("device", ev.device, -1, 1023);
  c.node_lock = e.str("node_lock", c.node_lock.string());
  c.final_rounds = e.whole("final_rounds", c.final_rounds, 1, 10000);
  ev.checks.verify_fraction = e.num("verify_fraction", ev.checks.verify_fraction, 0, 1);
  ev.timing.energy_burst_s = e.num("energy_burst_s", ev.timing.energy_burst_s, 0, 60, "seconds");
  ev.compile_jobs = static_cast<int>(e.integer("compile_jobs", ev.compile_jobs, -1, 1024, "(-1: automatic, 0: none)"));
  ev.profiler = e.str("profiler", ev.profiler);
  ev.profile_elites = e.whole("profile_elites", ev.profile_elites, 0, 1000);
  ev.timing.batch = static_cast<int>(e.integer("timing_sets", ev.timing.batch, 0, 16, "(0: automatic)"));
}

// [llm] and its [[llm.models]]: the LLM proposer (docs/llm.md).
void read_llm(const toml_section& l, propose::llm_settings& s, const std::filesystem::path& config_file) {
  l.allow_only({"share", "island_shares", "refine", "turns", "bandit", "stagnation_generations", "whole_file", "elites_in_prompt",
                "tools", "supervisor_after", "max_tokens", "max_cost", "prompts", "notes", "models"});
  s.share = l.num("share", s.share, 0, 1);
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
  s.turns = l.whole("turns", s.turns, 1, 100);
  s.tools = l.boolean("tools", s.tools);
  s.supervisor_after = l.whole("supervisor_after", s.supervisor_after, 0, 100);
  s.bandit = l.boolean("bandit", s.bandit);
  s.stagnation_generations = l.whole("stagnation_generations", s.stagnation_generations, 0, max_count);
  s.whole_file = l.boolean("whole_file", s.whole_file);
  s.elites_in_prompt = l.whole("elites_in_prompt", s.elites_in_prompt, 0, 100);
  s.budget.max_tokens = l.integer("max_tokens", s.budget.max_tokens, 0, std::int64_t{1} << 50, "tokens (0: no limit)");
  s.budget.max_cost = l.num("max_cost", s.budget.max_cost, 0, 1e9, "(0: no limit)");
  auto relative = [&](const std::string& p) {
    std::filesystem::path path = p;
    return path.is_relative() ? config_file.parent_path() / path : path;
  };
  const std::filesystem::path prompts = l.has("prompts") ? relative(l.str("prompts")) : util::configs_dir() / "prompts";
  s.system_prompt = prompts / "system.md";
  s.variation_prompt = prompts / "variation.md";
  s.repair_prompt = prompts / "repair.md";
  for (const auto& n : l.strings("notes")) s.notes.push_back(relative(n));
  const auto models = l.array_of_tables("models");
  if (models.empty()) l.fail("models", "name at least one model: [[llm.models]] with url and model");
  for (const auto& m : models) {
    m.allow_only({"name", "url", "base_url", "model", "weight", "temperature", "max_tokens", "timeout_s", "api_key_env",
                  "max_attempts", "backoff_initial_s", "backoff_max_s", "price_prompt_per_mtok", "price_completion_per_mtok"});
    propose::llm_model x;
    auto& e = x.endpoint;
    // The endpoint itself (url), or the API's base as OpenAI's clients take it (base_url, to which
    // /chat/completions is appended).
    if (m.has("url") == m.has("base_url")) m.fail("url", "give either url (the chat completions endpoint) or base_url");
    const std::string key = m.has("url") ? "url" : "base_url";
    e.url = m.str(key);
    if (!e.url.starts_with("http://") && !e.url.starts_with("https://")) m.fail(key, "must start with http:// or https://");
    if (key == "base_url") {
      while (e.url.ends_with("/")) e.url.pop_back();
      e.url += "/chat/completions";
    }
    e.model = m.str("model");
    x.name = m.str("name", e.model);
    for (const auto& other : s.models)
      if (other.name == x.name) m.fail("name", "two models are named '" + x.name + "'");
    x.weight = m.num("weight", x.weight, 0, 1e6, "", true);
    e.temperature = m.num("temperature", e.temperature, 0, 2);
    e.max_tokens = m.whole("max_tokens", e.max_tokens, 1, 10000000);
    e.timeout_s = m.num("timeout_s", e.timeout_s, 0, day_s, "seconds", true);
    e.api_key_env = m.str("api_key_env", e.api_key_env);
    e.max_attempts = m.whole("max_attempts", e.max_attempts, 1, 100);
    e.backoff_initial_s = m.num("backoff_initial_s", e.backoff_initial_s, 0, 3600, "seconds");
    e.backoff_max_s = m.num("backoff_max_s", e.backoff_max_s, 0, day_s, "seconds");
    if (e.backoff_max_s < e.backoff_initial_s)
      m.fail("backoff_max_s", "backoff times must satisfy 0 <= backoff_initial_s <= backoff_max_s");
    e.price_prompt_per_mtok = m.num("price_prompt_per_mtok", e.price_prompt_per_mtok, 0, 1e6);
    e.price_completion_per_mtok = m.num("price_completion_per_mtok", e.price_completion_per_mtok, 0, 1e6);
    s.models.push_back(std::move(x));
  }
}

}  // namespace

run_config load_run_config(const std::filesystem::path& file) {
  return parse_run_config(util::read_file(file.string(), "a TOML file"), file, file.string());
}

run_config parse_run_config(const std::string& text, const std::filesystem::path& file, const std::string& origin) {
  run_config c;
  c.file = file;
  c.text = text;
  const toml::table root = util::parse_toml_text(c.text, origin);
  toml_section s(root, origin, "");
  s.allow_only({"run", "search", "migration", "eval", "llm", "strategy", "export"});
  auto run = s.sub("run");
  if (!run) s.fail("run", "missing [run] table (family, backend, out)");
  run->allow_only(
      {"family", "backend", "out", "kernel_paths", "grace_s", "time_limit_s", "target_roofline", "stagnant_generations"});
  c.family = run->str("family");
  c.backend = run->str("backend", c.backend);
  if (c.backend != "cpu" && c.backend != "cuda" && c.backend != "hip") run->fail("backend", "must be cpu, cuda or hip");
  c.out = run->str("out", c.out.string());
  c.grace_s = run->num("grace_s", c.grace_s, 0, day_s, "seconds", true);
  c.stop.time_limit_s = run->num("time_limit_s", c.stop.time_limit_s, 0, 365 * day_s, "seconds (0: no limit)");
  c.stop.target_roofline = run->num("target_roofline", c.stop.target_roofline, 0, 1, "(0: no target)");
  c.stop.stagnant_generations = run->whole("stagnant_generations", c.stop.stagnant_generations, 0, max_count);
  for (const auto& p : run->strings("kernel_paths")) {
    std::filesystem::path kp = p;
    c.kernel_paths.push_back(kp.is_relative() ? file.parent_path() / kp : kp);
  }

  read_search_tables(s, c);
  // Energy per call is measured on GPUs only, through NVML or ROCm SMI (the evaluator's energy burst); a CPU has
  // no reading, so an energy objective could never rank two candidates there.
  if (core::needs_energy(c.objective) && c.backend == "cpu")
    s.sub("search")->fail("objective",
                          std::string("'") + core::to_string(c.objective) +
                              "' needs the energy of each call, which galapagos measures on GPUs only (NVML, ROCm SMI); "
                              "the cpu backend measures time: use objective = \"time\"");
  if (auto e = s.sub("eval")) read_eval(*e, c.eval, c);
  if (auto l = s.sub("llm")) read_llm(*l, c.llm, file);
  if (auto x = s.sub("export")) {
    x->allow_only({"user_file", "begin_marker", "end_marker", "lines"});
    auto& t = c.export_to;
    t.user_file_as_written = x->str("user_file", "");
    if (!t.user_file_as_written.empty()) {
      t.user_file = t.user_file_as_written;
      if (t.user_file.is_relative()) t.user_file = file.parent_path() / t.user_file;
    }
    t.begin_marker = x->str("begin_marker", "");
    t.end_marker = x->str("end_marker", "");
    if (t.begin_marker.empty() != t.end_marker.empty())
      x->fail(t.begin_marker.empty() ? "begin_marker" : "end_marker", "begin_marker and end_marker go together");
    const std::string lines = x->str("lines", "");
    if (!parse_line_range(lines, t.first_line, t.last_line))
      x->fail("lines", "must be \"FIRST-LAST\" (1-based line numbers, FIRST <= LAST), got \"" + lines + "\"");
    if (!lines.empty() && !t.begin_marker.empty()) x->fail("lines", "give either lines or begin_marker/end_marker, not both");
  }
  if (core::needs_energy(c.objective) && c.eval.timing.energy_burst_s == 0)
    s.sub("eval")->fail("energy_burst_s", std::string("0 turns the energy reading off, which [search] objective '") +
                                              core::to_string(c.objective) + "' needs");
  return c;
}

bool parse_line_range(const std::string& text, int& first, int& last) {
  first = last = 0;
  if (text.empty()) return true;
  const auto dash = text.find('-');
  if (dash == std::string::npos || dash == 0 || dash + 1 == text.size()) return false;
  const std::string a = text.substr(0, dash), b = text.substr(dash + 1);
  if (a.find_first_not_of("0123456789") != std::string::npos || b.find_first_not_of("0123456789") != std::string::npos ||
      a.size() > 9 || b.size() > 9)
    return false;
  first = std::stoi(a), last = std::stoi(b);
  return first >= 1 && first <= last;
}

}  // namespace galapagos::config
