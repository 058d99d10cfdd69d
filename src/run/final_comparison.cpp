#include "run/final_comparison.hpp"

#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

#include "propose/llm/variant.hpp"
#include "run/progress.hpp"
#include "run/records.hpp"
#include "util/error.hpp"
#include "util/report.hpp"

namespace galapagos::run {

using nlohmann::json;

namespace {
constexpr double inf = std::numeric_limits<double>::infinity();
constexpr double nan = std::numeric_limits<double>::quiet_NaN();
}  // namespace

std::string describe_percentiles(const eval::measurement& m) {
  std::string out = "p50 " + format_seconds(m.time_p50_s);
  if (std::isfinite(m.time_p99_s))
    out += ", p99 " + format_seconds(m.time_p99_s);
  else
    out += ", p99 needs " + std::to_string(eval::p99_min_runs) + " runs";
  return out;
}

std::string describe_clock(const eval::measurement& m) {
  if (!std::isfinite(m.sm_clock_mhz)) return "";
  char buf[128];
  std::snprintf(buf, sizeof buf, "; SM clock %.0f MHz, %d of %zu runs throttled", m.sm_clock_mhz, m.throttled_runs,
                m.sm_clocks_mhz.size());
  return buf;
}

std::string describe_rounds_fraction(const eval::measurement& m) {
  if (!std::isfinite(m.rounds_roofline_fraction)) return "";
  char buf[64];
  std::snprintf(buf, sizeof buf, ", %.0f%% side by side", 100 * m.rounds_roofline_fraction);
  return buf;
}

std::string describe_noise(const search_noise& n, double winner_s, double winner_iqr_s, const std::string& baseline,
                           double baseline_s, double baseline_iqr_s) {
  std::vector<std::string> parts;
  char buf[256];
  if (n.baseline_max_s > 0 && std::isfinite(n.baseline_min_s) && n.baseline_max_s > drift_limit * n.baseline_min_s) {
    std::snprintf(buf, sizeof buf, "%s timed between %s and %s during the search (%.2fx)", n.baseline.c_str(),
                  format_seconds(n.baseline_min_s).c_str(), format_seconds(n.baseline_max_s).c_str(),
                  n.baseline_max_s / n.baseline_min_s);
    parts.push_back(buf);
  }
  auto disagree = [&](double lo, double hi, const char* what, const char* unit) {
    if (hi > 0 && std::isfinite(lo) && lo > 0 && hi > probe_limit * lo) {
      std::snprintf(buf, sizeof buf, "the islands' %s probes between %.3g and %.3g %s (%.2fx)", what, lo, hi, unit, hi / lo);
      parts.push_back(buf);
    }
  };
  disagree(n.bandwidth_min_gbs, n.bandwidth_max_gbs, "bandwidth", "GB/s");
  disagree(n.peak_min_gflops, n.peak_max_gflops, "arithmetic", "GFLOP/s");
  if (std::isfinite(winner_s) && std::isfinite(baseline_s) && std::isfinite(winner_iqr_s) && std::isfinite(baseline_iqr_s)) {
    const double w_lo = winner_s - winner_iqr_s / 2, w_hi = winner_s + winner_iqr_s / 2;
    const double b_lo = baseline_s - baseline_iqr_s / 2, b_hi = baseline_s + baseline_iqr_s / 2;
    if (w_lo <= b_hi && b_lo <= w_hi) {
      std::snprintf(buf, sizeof buf, "the winner's interquartile range (%s to %s) overlaps %s's (%s to %s)",
                    format_seconds(w_lo).c_str(), format_seconds(w_hi).c_str(), baseline.c_str(), format_seconds(b_lo).c_str(),
                    format_seconds(b_hi).c_str());
      parts.push_back(buf);
    }
  }
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : "; ") + p;
  return out.empty() ? out : "the node's measurements moved during the run: " + out + "; the speedup is uncertain by as much";
}

json final_comparison(setup& s, const store::candidate_row& best, const std::string& variant_text, const std::string& group,
                      const search_noise& noise, int& code) {
  const auto& cfg = s.config;
  const auto& b = s.family.backend(cfg.backend);
  // An LLM-made winner is its own source with its own declared parameters.
  const auto variant =
      variant_text.empty()
          ? nullptr
          : propose::variant_space(*s.space, propose::parse_declared_params(variant_text, s.space->parameters()).params);
  const core::search_space& space = variant ? *variant : *s.space;
  const auto genome = genome_from_params(space, best.params);
  if (!genome) throw error(cfg.out.string(), "the winner " + best.params + " is not in the family's parameter space");
  std::vector<eval::candidate_source> sources = {eval::candidate_from(b.tmpl, space.values(*genome))};
  sources[0].text = variant_text;
  for (const auto& bl : b.baselines) sources.push_back(eval::baseline_from(bl));
  std::vector<eval::measurement> ms;
  {
    eval::node_lock_guard hold(*s.lock);
    ms = s.measurer().evaluate_interleaved(sources, cfg.final_rounds);
  }
  double fastest = inf, fastest_iqr = nan;
  std::string fastest_name;
  json numbers = json::object();
  for (std::size_t i = 1; i < ms.size(); ++i) {
    const std::string key = "baseline_" + b.baselines[i - 1].name;
    numbers[key + "_median_s"] = ms[i].time_median_s;
    numbers[key + "_p50_s"] = ms[i].time_p50_s;
    numbers[key + "_p99_s"] = ms[i].time_p99_s;
    numbers[key + "_energy_j"] = ms[i].energy_j;
    numbers[key + "_sm_clock_mhz"] = ms[i].sm_clock_mhz;
    numbers[key + "_throttled_runs"] = ms[i].throttled_runs;
    numbers[key + "_roofline_fraction_rounds"] = ms[i].rounds_roofline_fraction;
    if (ms[i].status == eval::candidate_status::ok && ms[i].time_median_s < fastest) {
      fastest = ms[i].time_median_s;
      fastest_iqr = ms[i].time_spread_s;
      fastest_name = b.baselines[i - 1].name;
    }
  }
  const auto& m = ms[0];
  // The winner's figures as every row that records a measurement holds them.
  store::candidate_row w;
  record_measurement(m, w);
  const double speedup = m.status == eval::candidate_status::ok ? fastest / w.time_median_s : nan;
  // Whether the winner beat the fastest baseline in the final interleaved comparison: 1, 0, or
  // NaN when there is nothing to compare (the winner failed, or no baseline measured).
  const double beat = std::isfinite(speedup) ? (speedup > 1 ? 1.0 : 0.0) : nan;
  const bool ok = m.status == eval::candidate_status::ok;
  const std::string moved =
      describe_noise(noise, ok ? m.time_median_s : nan, ok ? m.time_spread_s : nan, fastest_name, fastest, fastest_iqr);
  const double drift =
      noise.baseline_max_s > 0 && std::isfinite(noise.baseline_min_s) ? noise.baseline_max_s / noise.baseline_min_s : nan;
  const json strings = {{"params", best.params},
                        {"status", w.status},
                        {"reason", w.reason},
                        {"method", "interleaved, each round starting with the next (A B, B A, ...), every run verified"},
                        {"fastest_baseline", fastest_name},
                        {"family", cfg.family},
                        {"backend", cfg.backend},
                        {"origin", best.origin},
                        {"source_hash", best.source_hash},
                        {"noise", moved},
                        {"ceilings", s.evaluator->describe_ceilings()},
                        {"ceiling_rounds", m.rounds_ceiling}};
  for (const auto& [key, value] :
       std::initializer_list<std::pair<const char*, double>>{{"time_median_s", w.time_median_s},
                                                             {"time_min_s", w.time_min_s},
                                                             {"time_spread_s", w.time_spread_s},
                                                             {"time_p50_s", m.time_p50_s},
                                                             {"time_p99_s", m.time_p99_s},
                                                             {"speedup", speedup},
                                                             {"search_speedup", best.speedup},
                                                             {"baseline_drift", drift},
                                                             {"beat_baseline", beat},
                                                             {"roofline_fraction", w.roofline_fraction},
                                                             {"roofline_fraction_rounds", m.rounds_roofline_fraction},
                                                             {"rel_error", w.rel_error},
                                                             {"energy_j", w.energy_j},
                                                             {"power_w", w.power_w},
                                                             {"sm_clock_mhz", w.sm_clock_mhz}})
    numbers[key] = value;
  // Integers stay integers (JSON keeps the difference, and /winner stores them as int64).
  numbers["candidate_id"] = best.id;
  numbers["repetitions"] = w.repetitions;
  numbers["throttled_runs"] = w.throttled_runs;
  numbers["timing_sets"] = s.evaluator->timing_sets();
  // The headline first: which candidate, how much faster than the fastest baseline, and by which
  // objective it was chosen; its parameters and the details below it.
  int failed = 0;
  if (m.status != eval::candidate_status::ok) {
    report::line("\n%swinner: candidate %lld failed its final check: %s: %s", group.c_str(), static_cast<long long>(best.id),
                 eval::status_name(m.status), m.reason.c_str());
    report::line("  parameters %s", best.params.c_str());
    failed = 1;
  } else {
    report::line("\n%swinner: candidate %lld, %.2fx over %s, %s per call (search objective: %s)", group.c_str(),
                 static_cast<long long>(best.id), speedup, fastest_name.c_str(), format_seconds(m.time_median_s).c_str(),
                 core::to_string(cfg.objective));
    report::line("  parameters %s", best.params.c_str());
    report::line("  time %s (min %s, IQR %s, %s, %d interleaved runs)%s", format_seconds(m.time_median_s).c_str(),
                 format_seconds(m.time_min_s).c_str(), format_seconds(m.time_spread_s).c_str(), describe_percentiles(m).c_str(),
                 m.repetitions, describe_clock(m).c_str());
    report::line("  speedup %.2fx over %s (%s), final interleaved; search-time %.2fx; roofline fraction %.0f%%%s", speedup,
                 fastest_name.c_str(), format_seconds(fastest).c_str(), best.speedup, 100 * m.roofline_fraction(),
                 describe_rounds_fraction(m).c_str());
    for (std::size_t i = 1; i < ms.size(); ++i)
      report::line("  baseline %s: %s (%s), roofline fraction %.0f%%%s%s", b.baselines[i - 1].name.c_str(),
                   format_seconds(ms[i].time_median_s).c_str(), describe_percentiles(ms[i]).c_str(),
                   100 * ms[i].roofline_fraction(), describe_rounds_fraction(ms[i]).c_str(), describe_clock(ms[i]).c_str());
    report::line("  roofline fractions: of the cost model's floor at %s", s.evaluator->describe_ceilings().c_str());
    if (!m.rounds_ceiling.empty())
      report::line("  side by side: of the floor at the ceiling measured in the same rounds, %s", m.rounds_ceiling.c_str());
    if (beat == 0)
      report::line("  no candidate beat %s: the best one takes %.2fx its time; keep %s", fastest_name.c_str(), 1 / speedup,
                   fastest_name.c_str());
    for (std::size_t i = 0; i < ms.size(); ++i)
      if (std::isfinite(ms[i].energy_j))
        report::line("  energy %s: %.3g mJ per call at %.0f W, SM clock %.0f MHz, %d of %d timed runs throttled",
                     i == 0 ? "winner" : b.baselines[i - 1].name.c_str(), 1e3 * ms[i].energy_j, ms[i].power_w, ms[i].sm_clock_mhz,
                     ms[i].throttled_runs, static_cast<int>(ms[i].sm_clocks_mhz.size()));
  }
  if (!moved.empty()) report::line("  warning: %s", moved.c_str());
  code = std::max(code, failed);
  // JSON has no NaN: numbers that are not measured travel as null and are written as NaN.
  for (auto& [key, value] : numbers.items())
    if (value.is_number() && !std::isfinite(value.get<double>())) value = nullptr;
  return {{"strings", strings}, {"numbers", numbers}, {"code", failed}};
}

void write_winner(store::results_file& f, const std::string& group, const json& w) {
  store::attributes attrs;
  for (const auto& [key, value] : w.at("strings").items()) attrs[key] = value.get<std::string>();
  for (const auto& [key, value] : w.at("numbers").items()) {
    if (value.is_number_integer())
      attrs[key] = value.get<std::int64_t>();
    else
      attrs[key] = value.is_null() ? nan : value.get<double>();
  }
  f.set_attributes(group, attrs);
}

}  // namespace galapagos::run
