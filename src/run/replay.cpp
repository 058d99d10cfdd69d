#include "run/replay.hpp"

#include <chrono>
#include <cmath>
#include <nlohmann/json.hpp>
#include <thread>

#include "run/records.hpp"
#include "store/results_reader.hpp"
#include "util/error.hpp"
#include "util/hash.hpp"
#include "util/params_json.hpp"

namespace galapagos::run {

using nlohmann::json;

namespace {

// One text for a set of parameter values, whether they come from a candidate (strings) or from
// a recorded `params` object.
std::string canonical(const std::map<std::string, std::string>& params) { return util::canonical_params(params); }

std::string canonical(const std::string& params_json) {
  const auto values = util::params_from_json(params_json);
  return values ? util::canonical_params(*values) : params_json;  // no match for a malformed one
}

std::string source_hash(const eval::candidate_source& c) {
  return util::hash_text(c.text.empty() ? util::read_file(c.source.string()) : c.text);
}

double floor_from(double roofline_fraction, double median_s) {
  return std::isfinite(roofline_fraction) && std::isfinite(median_s) ? roofline_fraction * median_s : 0.0;
}

// What every recorded timing table holds alike (/candidates, /baselines, /baseline_timings): each
// row's status and its timed runs' median, minimum, interquartile range and count, as the
// measurement the row records. Unknown statuses are refused naming the table and row.
std::vector<eval::measurement> recorded_timings(const store::results_reader& f, const std::string& table,
                                                const std::string& file) {
  const auto status = f.strings(table, "status");
  const auto median = f.numbers(table, "time_median_s");
  const auto min = f.numbers(table, "time_min_s");
  const auto spread = f.numbers(table, "time_spread_s");
  const auto reps = f.integers(table, "repetitions");
  std::vector<eval::measurement> out(status.size());
  for (std::size_t r = 0; r < out.size(); ++r) {
    auto& m = out[r];
    m.status = eval::stored_status(status[r], file, table + " row " + std::to_string(r));
    m.time_median_s = median[r];
    m.time_min_s = min[r];
    m.time_spread_s = spread[r];
    m.repetitions = m.verified_runs = static_cast<int>(reps[r]);
  }
  return out;
}

}  // namespace

replay_source::replay_source(const std::filesystem::path& recording, double delay_s) : path_(recording), delay_s_(delay_s) {
  const auto f = store::results_reader::open(recording.string());
  const std::string p = recording.string();
  if (!f.string_attribute("/", "galapagos_version")) throw error(p, "not a galapagos results file: nothing to replay");
  fitness_ = f.string_attribute("/", "fitness_size").value_or("");
  compiler_ = f.string_attribute("/", "compiler").value_or("");

  const auto params = f.strings("/candidates", "params");
  const auto hash = f.strings("/candidates", "source_hash");
  const auto reason = f.strings("/candidates", "reason");
  const auto compile = f.numbers("/candidates", "compile_time_s");
  const auto setup = f.numbers("/candidates", "setup_time_s");
  const auto eval_time = f.numbers("/candidates", "eval_time_s");
  const auto rel = f.numbers("/candidates", "rel_error");
  const auto roof = f.numbers("/candidates", "roofline_fraction");
  auto measured = recorded_timings(f, "/candidates", p);
  for (std::size_t r = 0; r < params.size(); ++r) {
    auto& m = measured[r];
    if (m.status == eval::candidate_status::not_recorded) continue;  // a replay of a replay serves only what was measured
    m.reason = reason[r];
    m.source_hash = hash[r];
    m.compile_time_s = compile[r];
    m.setup_time_s = setup[r];
    m.eval_time_s = eval_time[r];
    m.rel_error = rel[r];
    m.floor_s = floor_from(roof[r], m.time_median_s);
    candidates_.emplace(hash[r] + " " + canonical(params[r]), m);  // the first row wins
  }
  const auto bname = f.strings("/baselines", "name");
  const auto bhash = f.strings("/baselines", "source_hash");
  const auto breason = f.strings("/baselines", "reason");
  const auto brel = f.numbers("/baselines", "rel_error");
  const auto broof = f.numbers("/baselines", "roofline_fraction");
  auto bmeasured = recorded_timings(f, "/baselines", p);
  for (std::size_t r = 0; r < bname.size(); ++r) {
    auto& m = bmeasured[r];
    m.reason = breason[r];
    m.source_hash = bhash[r];
    m.rel_error = brel[r];
    m.floor_s = floor_from(broof[r], m.time_median_s);
    baselines_.emplace(bhash[r], m);
    baseline_names_.emplace(bhash[r], bname[r]);
  }
  if (f.has("/baseline_timings")) {  // recordings made since baselines are re-timed every generation
    const auto island = f.integers("/baseline_timings", "island");
    const auto generation = f.integers("/baseline_timings", "generation");
    const auto name = f.strings("/baseline_timings", "name");
    const auto timed = recorded_timings(f, "/baseline_timings", p);
    for (std::size_t r = 0; r < island.size(); ++r) {
      eval::measurement m = timed[r];
      for (const auto& [h, n] : baseline_names_)  // the baseline's own row: its source, error and floor
        if (n == name[r]) {
          const auto& b = baselines_.at(h);
          m.reason = b.reason;
          m.source_hash = b.source_hash;
          m.rel_error = b.rel_error;
          m.floor_s = b.floor_s;
        }
      baseline_timings_[{static_cast<int>(island[r]), static_cast<int>(generation[r])}] = m;  // a later session's wins
    }
  }
  if (const auto wp = f.string_attribute("/winner", "params")) {
    const auto wc = f.string_attribute("/winner", "candidate_id").value_or("");
    std::string whash;
    for (std::size_t r = 0; r < params.size(); ++r)
      if (canonical(params[r]) == canonical(*wp)) {
        whash = hash[r];
        break;
      }
    winner_key_ = whash + " " + canonical(*wp);
    winner_.status = eval::stored_status(f.string_attribute("/winner", "status").value_or("ok"), p, "/winner");
    winner_.reason = f.string_attribute("/winner", "reason").value_or("");
    winner_.source_hash = whash;
    winner_.time_median_s = f.number_attribute("/winner", "time_median_s").value_or(NAN);
    winner_.time_min_s = f.number_attribute("/winner", "time_min_s").value_or(NAN);
    winner_.time_spread_s = f.number_attribute("/winner", "time_spread_s").value_or(NAN);
    winner_.repetitions = static_cast<int>(f.number_attribute("/winner", "repetitions").value_or(0));
    winner_.verified_runs = winner_.repetitions;
    winner_.rel_error = f.number_attribute("/winner", "rel_error").value_or(NAN);
    winner_.floor_s = floor_from(f.number_attribute("/winner", "roofline_fraction").value_or(NAN), winner_.time_median_s);
    winner_.rounds_roofline_fraction = f.number_attribute("/winner", "roofline_fraction_rounds").value_or(NAN);
    winner_.rounds_ceiling = f.string_attribute("/winner", "ceiling_rounds").value_or("");
    for (const auto& [h, name] : baseline_names_) {
      if (const auto v = f.number_attribute("/winner", "baseline_" + name + "_median_s")) winner_baselines_s_[name] = *v;
      if (const auto v = f.number_attribute("/winner", "baseline_" + name + "_roofline_fraction_rounds"))
        winner_baselines_rounds_[name] = *v;
    }
  }
  machines_ = read_machines(f);
  if (machines_.empty()) throw error(p, "the recording has no /machine rows: not a complete galapagos results file");
}

eval::measurement replay_source::lookup(const eval::candidate_source& c) const {
  const std::string hash = source_hash(c);
  if (const auto it = candidates_.find(hash + " " + canonical(c.params)); it != candidates_.end()) return it->second;
  if (c.params.empty())
    if (const auto it = baselines_.find(hash); it != baselines_.end()) return it->second;
  eval::measurement m;
  m.status = eval::candidate_status::not_recorded;
  m.reason = "not in the recording " + path_.string();
  m.source_hash = hash;
  m.time_median_s = m.time_min_s = m.time_spread_s = m.rel_error = NAN;
  return m;
}

eval::measurement replay_source::evaluate(const eval::candidate_source& c) {
  if (delay_s_ > 0) std::this_thread::sleep_for(std::chrono::duration<double>(delay_s_));
  return lookup(c);
}

std::vector<eval::measurement> replay_source::evaluate_interleaved(const std::vector<eval::candidate_source>& cs, int rounds) {
  std::vector<eval::measurement> out;
  const bool same_winner =
      !cs.empty() && !winner_key_.empty() && source_hash(cs[0]) + " " + canonical(cs[0].params) == winner_key_;
  for (std::size_t i = 0; i < cs.size(); ++i) {
    eval::measurement m = lookup(cs[i]);
    if (same_winner && i == 0) m = winner_;
    if (same_winner && i > 0 && cs[i].params.empty()) {
      const auto name = baseline_names_.find(m.source_hash);
      if (name != baseline_names_.end())
        if (const auto t = winner_baselines_s_.find(name->second); t != winner_baselines_s_.end()) {
          m.time_median_s = t->second;  // the floor stays: it is the cost model's, not a time
          m.repetitions = rounds;
          if (const auto r = winner_baselines_rounds_.find(name->second); r != winner_baselines_rounds_.end()) {
            m.rounds_roofline_fraction = r->second;
            m.rounds_ceiling = winner_.rounds_ceiling;
          }
        }
    }
    out.push_back(m);
  }
  if (delay_s_ > 0) std::this_thread::sleep_for(std::chrono::duration<double>(delay_s_));
  return out;
}

eval::measurement replay_source::retime_baseline(const eval::candidate_source& c, int island, int generation) {
  if (delay_s_ > 0) std::this_thread::sleep_for(std::chrono::duration<double>(delay_s_));
  const auto it = baseline_timings_.find({island, generation});
  return it != baseline_timings_.end() ? it->second : lookup(c);
}

store::machine_row replay_source::machine(int island) const {
  for (const auto& m : machines_)
    if (m.island == island) return m;
  return machines_.front();
}

}  // namespace galapagos::run
