#include "run/checkpoint.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <limits>
#include <nlohmann/json.hpp>

#include "eval/candidate_status.hpp"
#include "run/records.hpp"
#include "store/publish.hpp"
#include "store/results_reader.hpp"
#include "util/build_info.hpp"
#include "util/error.hpp"
#include "util/json.hpp"
#include "util/params_json.hpp"
#include "util/report.hpp"
#include "util/utc.hpp"

namespace galapagos::run {

using nlohmann::json;

namespace {

constexpr double inf = std::numeric_limits<double>::infinity();
constexpr double nan = std::numeric_limits<double>::quiet_NaN();

json num(double v) { return util::json_number(v); }  // a short name: records hold many numbers
double num_or(const json& j, double null_value) { return j.is_null() ? null_value : j.get<double>(); }

std::string island_group(int island) { return "/checkpoint/island_" + std::to_string(island); }

}  // namespace

std::string to_json_text(const island_snapshot& s) {
  return json{{"island", s.island},
              {"generation", s.generation},
              {"evaluated", s.evaluated},
              {"failed", s.failed},
              {"next_id", s.next_id},
              {"best_time_s", num(s.best_time_s)},
              {"best_speedup", num(s.best_speedup)},
              {"baseline_time_s", num(s.baseline_time_s)},
              {"baseline_min_s", num(s.baseline_min_s)},
              {"baseline_max_s", num(s.baseline_max_s)},
              {"wall_time_s", s.wall_time_s},
              {"migrants_through", s.migrants_through},
              {"sources_sent", s.sources_sent},
              {"rng_state", s.rng_state},
              {"population", s.population},
              {"strategy_state", s.strategy_state},
              {"llm_state", s.llm_state},
              {"llm_conversation", s.llm_conversation},
              {"unfinished", s.unfinished}}
      .dump();
}

island_snapshot snapshot_from_json(const std::string& text) {
  const json j = json::parse(text);
  island_snapshot s;
  s.island = j.at("island");
  s.generation = j.at("generation");
  s.evaluated = j.at("evaluated");
  s.failed = j.at("failed");
  s.next_id = j.at("next_id");
  s.best_time_s = num_or(j.at("best_time_s"), inf);
  s.best_speedup = num_or(j.value("best_speedup", json()), nan);  // absent before the baseline was re-timed
  s.baseline_time_s = num_or(j.value("baseline_time_s", json()), nan);
  s.baseline_min_s = num_or(j.value("baseline_min_s", json()), inf);
  s.baseline_max_s = num_or(j.value("baseline_max_s", json()), 0);
  s.wall_time_s = j.at("wall_time_s");
  s.migrants_through = j.at("migrants_through");
  s.sources_sent = j.at("sources_sent");
  s.rng_state = j.at("rng_state");
  s.population = j.at("population");
  s.strategy_state = j.value("strategy_state", "");
  s.llm_state = j.value("llm_state", "");
  s.llm_conversation = j.value("llm_conversation", "");
  s.unfinished = j.value("unfinished", 0);
  return s;
}

std::string population_json(const core::island& island, const std::vector<std::string>& variant_hashes) {
  json out = json::array();
  for (const auto& ind : island.population()) {
    json j{{"id", ind.id}, {"fitness", num(ind.fitness)}, {"params", json::parse(island.space(ind.variant).to_json(ind.g))}};
    if (ind.variant != 0) j["variant"] = variant_hashes.at(static_cast<std::size_t>(ind.variant));
    out.push_back(std::move(j));
  }
  return out.dump();
}

std::optional<core::genome> genome_from_params(const core::search_space& space, const std::string& params_json) {
  const auto decoded = util::params_from_json(params_json);
  if (!decoded) return std::nullopt;
  const auto& params = space.parameters();
  core::genome g(params.size());
  for (std::size_t i = 0; i < params.size(); ++i) {
    const auto it = decoded->find(params[i].name);
    if (it == decoded->end()) return std::nullopt;
    const auto& values = params[i].values;
    const auto pos =
        std::find_if(values.begin(), values.end(), [&](const std::string& v) { return util::canonical_value(v) == it->second; });
    if (pos == values.end()) return std::nullopt;
    g[i] = static_cast<int>(pos - values.begin());
  }
  return g;
}

std::vector<core::individual> population_from_json(const core::island& island, const std::string& text,
                                                   const std::function<int(const std::string&)>& variant_of,
                                                   const std::string& origin) {
  std::vector<core::individual> out;
  for (const auto& ind : json::parse(text)) {
    const int v = variant_of(ind.value("variant", std::string()));
    const auto g = genome_from_params(island.space(v), ind.at("params").dump());
    if (!g)
      throw error(origin, "population member " + ind.at("params").dump() + " is not in the family's parameter space any more");
    out.push_back({*g, num_or(ind.at("fitness"), inf), ind.at("id").get<std::int64_t>(), v});
  }
  return out;
}

// --- checkpoint_writer ----------------------------------------------------------------------

checkpoint_writer::checkpoint_writer(store::results_file& working, std::filesystem::path target, int islands, bool status_line)
    : working_(working), target_(std::move(target)), islands_(islands), status_line_(status_line) {}

void checkpoint_writer::note(const std::string& snapshot_json) { note(snapshot_from_json(snapshot_json)); }

void checkpoint_writer::note(const island_snapshot& s) {
  latest_[s.island] = s;
  changed_[s.island] = true;
  dirty_ = true;
}

int checkpoint_writer::generation() const {
  int g = std::numeric_limits<int>::max();
  for (int i = 0; i < islands_; ++i) {
    const auto it = latest_.find(i);
    g = std::min(g, it == latest_.end() ? 0 : it->second.generation);
  }
  return islands_ > 0 ? g : 0;
}

void checkpoint_writer::write(announce how) {
  const auto t0 = std::chrono::steady_clock::now();
  for (auto& [island, changed] : changed_) {
    if (!changed) continue;
    const auto& s = latest_.at(island);
    const std::string group = island_group(island);
    working_.set_text(group + "/rng_state", s.rng_state);
    working_.set_text(group + "/population", s.population);
    if (!s.strategy_state.empty()) working_.set_text(group + "/strategy_state", s.strategy_state);
    if (!s.llm_state.empty()) working_.set_text(group + "/llm_state", s.llm_state);
    if (!s.llm_conversation.empty()) working_.set_text(group + "/llm_conversation", s.llm_conversation);
    working_.set_attribute(group, "generation", s.generation);
    working_.set_attribute(group, "evaluated", s.evaluated);
    working_.set_attribute(group, "failed", s.failed);
    working_.set_attribute(group, "next_candidate_id", s.next_id);
    working_.set_attribute(group, "best_time_s", s.best_time_s);
    working_.set_attribute(group, "best_speedup", s.best_speedup);
    working_.set_attribute(group, "baseline_time_s", s.baseline_time_s);
    working_.set_attribute(group, "baseline_min_s", s.baseline_min_s);
    working_.set_attribute(group, "baseline_max_s", s.baseline_max_s);
    working_.set_attribute(group, "wall_time_s", s.wall_time_s);
    working_.set_attribute(group, "migrants_received_through", s.migrants_through);
    working_.set_attribute(group, "sources_sent", s.sources_sent);
    working_.set_attribute(group, "unfinished_rows", s.unfinished);
    changed = false;
  }
  const int gen = generation();
  ++count_;
  working_.set_attribute("/checkpoint", "generation", gen);
  working_.set_attribute("/checkpoint", "checkpoints_written", count_);
  working_.set_attribute("/checkpoint", "checkpoint_time_s", total_s_);
  working_.set_attributes("/checkpoint", {{"written_utc", util::utc_now()}});
  working_.flush();
  store::publish_copy(working_.path(), target_);
  const double took_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  total_s_ += took_s;
  session_s_ += took_s;
  dirty_ = false;
  if (gen != announced_ || how != announce::when_new) {
    announced_ = gen;
    if (how == announce::shown)
      report::line("checkpoint written: generation %d, %s", gen, target_.c_str());
    else if (how == announce::verbose || !status_line_)  // routine checkpoints: only with --verbose
      report::detail("checkpoint written: generation %d, %s", gen, target_.c_str());
  }
}

void checkpoint_writer::finish() {
  working_.set_attribute("/checkpoint", "checkpoint_time_s", total_s_);
  working_.close();
  store::publish_move(store::working_path(target_), target_);
}

// --- reading a checkpoint -------------------------------------------------------------------

namespace {

// A mixed job's kinds and each kind's config (root attributes island_kinds and kind_configs);
// nothing for a job of one kind.
void read_kinds(const store::results_reader& f, resume_plan& p) {
  const auto kinds = f.string_attribute("/", "island_kinds");
  if (!kinds) return;  // files of earlier galapagos: one kind
  auto damaged = [&](const std::string& what) { return error(p.path, "root attribute " + what + ": the run cannot be resumed"); };
  const auto list = json::parse(*kinds, nullptr, false);
  if (!list.is_array() || static_cast<int>(list.size()) != p.islands)
    throw damaged("island_kinds is not a list of the " + std::to_string(p.islands) + " islands' kinds");
  std::vector<std::string> of_island;
  for (const auto& k : list) {
    if (!k.is_string()) throw damaged("island_kinds holds " + k.dump() + ", not a kind");
    of_island.push_back(k.get<std::string>());
  }
  if (std::all_of(of_island.begin(), of_island.end(), [&](const std::string& k) { return k == of_island.front(); })) return;
  const auto text = f.string_attribute("/", "kind_configs");
  if (!text)
    throw error(p.path, "the run mixed families or backends (" + *kinds +
                            ") and the file does not keep each kind's config (root attribute kind_configs): it was written by "
                            "an earlier galapagos and cannot be resumed");
  const auto configs = json::parse(*text, nullptr, false);
  if (!configs.is_object()) throw damaged("kind_configs is not a JSON object");
  for (const auto& kind : of_island) {
    if (p.kind_configs.contains(kind)) continue;
    const auto it = configs.find(kind);
    if (it == configs.end() || !it->is_object()) throw damaged("kind_configs has no config for the islands of " + kind);
    const auto& c = *it;
    const auto text_of = [&](const char* key) {
      if (!c.contains(key) || !c[key].is_string()) throw damaged(std::string("kind_configs: ") + kind + " has no " + key);
      return c[key].get<std::string>();
    };
    const std::string seed = text_of("seed");
    if (!c.contains("budget") || !c["budget"].is_number_integer() || c["budget"].get<int>() < 1 || seed.empty() ||
        seed.size() > 19 || seed.find_first_not_of("0123456789") != std::string::npos)
      throw damaged(std::string("kind_configs: ") + kind + " has no valid budget and seed");
    p.kind_configs[kind] = {text_of("config_toml"), text_of("config_file"), c["budget"].get<int>(), std::stoull(seed)};
  }
  p.island_kinds = std::move(of_island);
}

}  // namespace

resume_plan read_resume_plan(const std::string& path, bool extend_finished) {
  const auto f = store::results_reader::open(path);
  resume_plan p;
  p.path = path;
  const auto version = f.string_attribute("/", "galapagos_version");
  if (!version) throw error(path, "not a galapagos results file (no root attribute galapagos_version)");
  if (f.flag_attribute("/", "finished").value_or(false)) {
    p.finished = true;
    if (!extend_finished) return p;
  }
  if (!f.has("/checkpoint"))
    throw error(path,
                "no checkpoint (/checkpoint is missing, or the file is damaged): the run cannot be resumed from this file; "
                "keep it, and write a new run to another --out");
  const auto format = f.number_attribute("/checkpoint", "format_version");
  if (!format || *format != checkpoint_format_version)
    throw error(path, "checkpoint format " + (format ? std::to_string(static_cast<int>(*format)) : std::string("unknown")) +
                          ", this galapagos reads format " + std::to_string(checkpoint_format_version));
  if (*version != build_info::version)
    throw error(path, "written by galapagos " + *version + ", this is galapagos " + build_info::version +
                          ": resume it with the galapagos that started it");
  auto required_string = [&](const std::string& object, const std::string& key) {
    const auto v = f.string_attribute(object, key);
    if (!v) throw error(path, "attribute '" + key + "' of " + object + " is missing: not a resumable galapagos results file");
    return *v;
  };
  auto required_number = [&](const std::string& object, const std::string& key) {
    const auto v = f.number_attribute(object, key);
    if (!v) throw error(path, "attribute '" + key + "' of " + object + " is missing: not a resumable galapagos results file");
    return *v;
  };
  // Counters are integers (older files: doubles, the seed a text); the readers take either.
  auto required_integer = [&](const std::string& object, const std::string& key) {
    const auto v = f.integer_attribute(object, key);
    if (!v) throw error(path, "attribute '" + key + "' of " + object + " is missing: not a resumable galapagos results file");
    return *v;
  };
  p.config_text = required_string("/", "config_toml");
  p.config_file = required_string("/", "config_file");
  p.islands = static_cast<int>(required_integer("/checkpoint", "islands"));
  p.settings.budget = static_cast<int>(required_integer("/checkpoint", "budget"));
  const std::int64_t seed = required_integer("/checkpoint", "seed");
  if (seed < 0) throw error(path, "/checkpoint has a negative seed");
  p.settings.seed = static_cast<std::uint64_t>(seed);
  p.settings.replay = f.string_attribute("/checkpoint", "replay").value_or("");
  p.settings.replay_delay_s = f.number_attribute("/checkpoint", "replay_delay_s").value_or(0);
  if (const auto limit = f.number_attribute("/checkpoint", "time_limit_s")) {
    config::stop_rules r;
    r.time_limit_s = *limit;
    r.target_roofline = f.number_attribute("/checkpoint", "target_roofline").value_or(0);
    r.stagnant_generations = static_cast<int>(f.integer_attribute("/checkpoint", "stagnant_generations").value_or(0));
    p.settings.stop = r;
  }
  p.session = static_cast<int>(f.integer_attribute("/checkpoint", "sessions").value_or(1));
  p.checkpoints = static_cast<int>(f.integer_attribute("/checkpoint", "checkpoints_written").value_or(0));
  p.checkpoint_time_s = f.number_attribute("/checkpoint", "checkpoint_time_s").value_or(0);
  if (p.islands < 1) throw error(path, "/checkpoint says the run has no islands");
  read_kinds(f, p);
  p.baseline_rows = static_cast<int>(f.rows("/baselines"));
  if (f.has("/machine")) p.machines = read_machines(f);

  p.per_island.resize(static_cast<std::size_t>(p.islands));
  for (int i = 0; i < p.islands; ++i) {
    const std::string g = island_group(i);
    if (!f.has(g)) continue;
    island_snapshot s;
    s.island = i;
    s.generation = static_cast<int>(required_integer(g, "generation"));
    s.evaluated = static_cast<int>(required_integer(g, "evaluated"));
    s.failed = static_cast<int>(required_integer(g, "failed"));
    s.next_id = required_integer(g, "next_candidate_id");
    s.best_time_s = required_number(g, "best_time_s");
    s.best_speedup = f.number_attribute(g, "best_speedup").value_or(nan);  // older files: the start-up's baseline
    s.baseline_time_s = f.number_attribute(g, "baseline_time_s").value_or(nan);
    s.baseline_min_s = f.number_attribute(g, "baseline_min_s").value_or(inf);
    s.baseline_max_s = f.number_attribute(g, "baseline_max_s").value_or(0);
    s.wall_time_s = required_number(g, "wall_time_s");
    s.migrants_through = static_cast<int>(required_integer(g, "migrants_received_through"));
    const auto sent = f.flag_attribute(g, "sources_sent");
    if (!sent) throw error(path, "attribute 'sources_sent' of " + g + " is missing: not a resumable galapagos results file");
    s.sources_sent = *sent;
    s.unfinished = static_cast<int>(f.integer_attribute(g, "unfinished_rows").value_or(0));
    auto required_text = [&](const std::string& name) {
      const auto v = f.text(g + "/" + name);
      if (!v) throw error(path, g + "/" + name + " is missing: not a resumable galapagos results file");
      return *v;
    };
    s.rng_state = required_text("rng_state");
    s.population = required_text("population");
    s.strategy_state = f.text(g + "/strategy_state").value_or("");
    s.llm_state = f.text(g + "/llm_state").value_or("");                // absent: no models, or a file of an earlier galapagos
    s.llm_conversation = f.text(g + "/llm_conversation").value_or("");  // the same
    p.per_island[static_cast<std::size_t>(i)].snapshot = s;
  }

  // Every island's evaluated genomes, from /candidates: an island never evaluates one twice.
  const auto ids = f.integers("/candidates", "id");
  const auto island = f.integers("/candidates", "island");
  const auto params = f.strings("/candidates", "params");
  const auto status = f.strings("/candidates", "status");
  const auto median = f.numbers("/candidates", "time_median_s");
  const auto fitness = f.numbers("/candidates", "fitness");  // what the search minimised (time, energy or EDP)
  const auto speedup = f.numbers("/candidates", "speedup");
  const auto origin = f.strings("/candidates", "origin");
  const auto hash = f.strings("/candidates", "source_hash");
  const auto generation = f.integers("/candidates", "generation");
  const auto reason = f.strings("/candidates", "reason");
  // What a resumed island needs of a row: the best so far, and the rows of an unfinished generation.
  auto row_at = [&](std::size_t r) {
    store::candidate_row c;
    c.id = ids[r];
    c.island = static_cast<std::int32_t>(island[r]);
    c.generation = static_cast<std::int32_t>(generation[r]);
    c.params = params[r];
    c.status = status[r];
    c.reason = reason[r];
    c.time_median_s = median[r];
    c.fitness = fitness[r];  // the resumed islands compare later rows with it
    c.speedup = speedup[r];
    c.origin = origin[r];
    c.source_hash = hash[r];
    return c;
  };
  for (std::size_t r = 0; r < ids.size(); ++r) {
    if (island[r] < 0 || island[r] >= p.islands)
      throw error(path, "/candidates row " + std::to_string(r) + " names island " + std::to_string(island[r]) + " of " +
                            std::to_string(p.islands));
    auto& isl = p.per_island[static_cast<std::size_t>(island[r])];
    const int evaluated = isl.snapshot ? isl.snapshot->evaluated : 0;
    if (static_cast<int>(isl.seen.size()) < evaluated) {
      isl.seen.push_back(params[r]);
      isl.seen_sources.push_back(hash[r]);
    } else {
      eval::stored_status(status[r], path, "/candidates row " + std::to_string(r));  // refused here, not mid-search
      isl.carried.push_back(row_at(r));
    }
    if (origin[r] == "llm" && !p.sources.contains(hash[r])) {
      const auto text = f.source(hash[r]);
      if (!text)
        throw error(path, "/sources/" + hash[r] + " is missing: candidate " + std::to_string(ids[r]) + " was built from it");
      p.sources[hash[r]] = *text;
    }
    // The island's best as the islands judge it (island_driver::absorb).
    if (eval::stored_ok(status[r]) && std::isfinite(fitness[r])) {
      if (auto c = row_at(r); better_row(c, isl.best)) isl.best = std::move(c);
    }
  }
  for (int i = 0; i < p.islands; ++i) {
    const auto& isl = p.per_island[static_cast<std::size_t>(i)];
    const int evaluated = isl.snapshot ? isl.snapshot->evaluated : 0;
    const int unfinished = isl.snapshot ? isl.snapshot->unfinished : 0;
    const auto rows = isl.seen.size() + isl.carried.size();
    if (static_cast<int>(rows) != evaluated + unfinished)
      throw error(path, "the checkpoint of island " + std::to_string(i) + " does not match /candidates (" + std::to_string(rows) +
                            " rows, " + std::to_string(evaluated) + " evaluated" +
                            (unfinished ? " and " + std::to_string(unfinished) + " of an unfinished generation" : std::string()) +
                            ")");
  }
  // Migrants sent to each island: those it had not taken in are delivered again on resume.
  const auto gen = f.integers("/migrations", "generation");
  const auto from = f.integers("/migrations", "from_island");
  const auto to = f.integers("/migrations", "to_island");
  const auto mid = f.integers("/migrations", "candidate_id");
  const auto mparams = f.strings("/migrations", "params");
  const auto msource = f.strings("/migrations", "source_hash");
  for (std::size_t r = 0; r < gen.size(); ++r) {
    if (to[r] < 0 || to[r] >= p.islands) continue;
    p.per_island[static_cast<std::size_t>(to[r])].migrants.push_back(
        {static_cast<int>(from[r]), static_cast<int>(gen[r]), mid[r], mparams[r], msource[r]});
    if (!msource[r].empty() && !p.sources.contains(msource[r])) {  // a rewrite in flight: its text travels with the plan
      const auto text = f.source(msource[r]);
      if (!text) throw error(path, "/sources/" + msource[r] + " is missing: /migrations row " + std::to_string(r) + " names it");
      p.sources[msource[r]] = *text;
    }
  }
  if (f.has("/llm_calls")) {  // files of runs before the LLM proposer have none
    const auto caller = f.integers("/llm_calls", "island");
    const auto variation = f.integers("/llm_calls", "variation");
    const auto prompt_tokens = f.integers("/llm_calls", "prompt_tokens");
    const auto completion_tokens = f.integers("/llm_calls", "completion_tokens");
    const auto cost = f.numbers("/llm_calls", "cost");
    for (std::size_t r = 0; r < caller.size(); ++r) {
      if (caller[r] < 0 || caller[r] >= p.islands) continue;
      auto& isl = p.per_island[static_cast<std::size_t>(caller[r])];
      ++isl.llm_calls;
      isl.llm_variations = std::max(isl.llm_variations, static_cast<int>(variation[r]) + 1);
      isl.llm_tokens += prompt_tokens[r] + completion_tokens[r];
      if (std::isfinite(cost[r])) isl.llm_cost += cost[r];
    }
  }
  return p;
}

std::string to_json_text(const resume_plan& p) {
  json islands = json::array();
  for (const auto& i : p.per_island) {
    json m = json::array();
    for (const auto& x : i.migrants) m.push_back({x.from, x.generation, x.id, x.params, x.source_hash});
    islands.push_back({{"snapshot", i.snapshot ? to_json_text(*i.snapshot) : ""},
                       {"seen", i.seen},
                       {"seen_sources", i.seen_sources},
                       {"carried", i.carried},
                       {"migrants", m},
                       {"best", i.best ? json(*i.best) : json(nullptr)},
                       {"llm", {i.llm_calls, i.llm_variations, i.llm_tokens, i.llm_cost}}});
  }
  json kinds = json::object();
  for (const auto& [kind, c] : p.kind_configs)
    kinds[kind] = {
        {"config_text", c.config_text}, {"config_file", c.config_file}, {"budget", c.budget}, {"seed", std::to_string(c.seed)}};
  return json{{"path", p.path},
              {"finished", p.finished},
              {"config_text", p.config_text},
              {"config_file", p.config_file},
              {"budget", p.settings.budget},
              {"seed", std::to_string(p.settings.seed)},
              {"replay", p.settings.replay},
              {"replay_delay_s", p.settings.replay_delay_s},
              {"stop", p.settings.stop ? json{p.settings.stop->time_limit_s, p.settings.stop->target_roofline,
                                              p.settings.stop->stagnant_generations}
                                       : json(nullptr)},
              {"islands", p.islands},
              {"session", p.session},
              {"checkpoints", p.checkpoints},
              {"checkpoint_time_s", p.checkpoint_time_s},
              {"baseline_rows", p.baseline_rows},
              {"machines", p.machines},
              {"per_island", islands},
              {"sources", p.sources},
              {"island_kinds", p.island_kinds},
              {"kind_configs", kinds}}
      .dump();
}

resume_plan resume_plan_from_json(const std::string& text) {
  const json j = json::parse(text);
  resume_plan p;
  p.path = j.at("path");
  p.finished = j.at("finished");
  p.config_text = j.at("config_text");
  p.config_file = j.at("config_file");
  p.settings.budget = j.at("budget");
  p.settings.seed = std::stoull(j.at("seed").get<std::string>());
  p.settings.replay = j.at("replay");
  p.settings.replay_delay_s = j.at("replay_delay_s");
  if (const auto& r = j.at("stop"); !r.is_null())
    p.settings.stop = config::stop_rules{r.at(0).get<double>(), r.at(1).get<double>(), r.at(2).get<int>()};
  p.islands = j.at("islands");
  p.session = j.at("session");
  p.checkpoints = j.at("checkpoints");
  p.checkpoint_time_s = j.at("checkpoint_time_s");
  p.baseline_rows = j.at("baseline_rows");
  p.machines = j.at("machines").get<std::vector<store::machine_row>>();
  p.sources = j.at("sources").get<std::map<std::string, std::string>>();
  for (const auto& i : j.at("per_island")) {
    resume_plan::island isl;
    const std::string snap = i.at("snapshot");
    if (!snap.empty()) isl.snapshot = snapshot_from_json(snap);
    isl.seen = i.at("seen").get<std::vector<std::string>>();
    isl.seen_sources = i.at("seen_sources").get<std::vector<std::string>>();
    isl.carried = i.at("carried").get<std::vector<store::candidate_row>>();
    const auto& llm = i.at("llm");
    isl.llm_calls = llm[0];
    isl.llm_variations = llm[1];
    isl.llm_tokens = llm[2];
    isl.llm_cost = llm[3];
    for (const auto& m : i.at("migrants")) isl.migrants.push_back({m[0], m[1], m[2], m[3], m[4]});
    if (!i.at("best").is_null()) isl.best = i.at("best").get<store::candidate_row>();
    p.per_island.push_back(std::move(isl));
  }
  p.island_kinds = j.at("island_kinds").get<std::vector<std::string>>();
  for (const auto& [kind, c] : j.at("kind_configs").items())
    p.kind_configs[kind] = {c.at("config_text"), c.at("config_file"), c.at("budget"),
                            std::stoull(c.at("seed").get<std::string>())};
  return p;
}

}  // namespace galapagos::run
