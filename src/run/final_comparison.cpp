#include "run/final_comparison.hpp"

#include <cmath>
#include <cstdio>
#include <limits>

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

json final_comparison(setup& s, const store::candidate_row& best, const std::string& variant_text, const std::string& group,
                      int& code) {
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
  double fastest = inf;
  std::string fastest_name;
  json numbers = json::object();
  for (std::size_t i = 1; i < ms.size(); ++i) {
    numbers["baseline_" + b.baselines[i - 1].name + "_median_s"] = ms[i].time_median_s;
    if (ms[i].status == eval::candidate_status::ok && ms[i].time_median_s < fastest) {
      fastest = ms[i].time_median_s;
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
  const json strings = {{"params", best.params},
                        {"status", w.status},
                        {"reason", w.reason},
                        {"method", "interleaved A B A B, every run verified"},
                        {"fastest_baseline", fastest_name},
                        {"family", cfg.family},
                        {"backend", cfg.backend},
                        {"origin", best.origin},
                        {"source_hash", best.source_hash}};
  for (const auto& [key, value] :
       std::initializer_list<std::pair<const char*, double>>{{"time_median_s", w.time_median_s},
                                                             {"time_min_s", w.time_min_s},
                                                             {"time_spread_s", w.time_spread_s},
                                                             {"speedup", speedup},
                                                             {"beat_baseline", beat},
                                                             {"roofline_fraction", w.roofline_fraction},
                                                             {"rel_error", w.rel_error},
                                                             {"energy_j", w.energy_j},
                                                             {"power_w", w.power_w},
                                                             {"sm_clock_mhz", w.sm_clock_mhz}})
    numbers[key] = value;
  // Integers stay integers (JSON keeps the difference, and /winner stores them as int64).
  numbers["candidate_id"] = best.id;
  numbers["repetitions"] = w.repetitions;
  numbers["throttled_runs"] = w.throttled_runs;
  report::line("\n%swinner: candidate %lld %s", group.c_str(), static_cast<long long>(best.id), best.params.c_str());
  int failed = 0;
  if (m.status != eval::candidate_status::ok) {
    report::line("  the winner failed its final check: %s: %s", eval::status_name(m.status), m.reason.c_str());
    failed = 1;
  } else {
    report::line("  time %s (min %s, IQR %s, %d interleaved runs)", format_seconds(m.time_median_s).c_str(),
                 format_seconds(m.time_min_s).c_str(), format_seconds(m.time_spread_s).c_str(), m.repetitions);
    report::line("  speedup %.2fx over %s (%s), roofline fraction %.0f%%", speedup, fastest_name.c_str(),
                 format_seconds(fastest).c_str(), 100 * m.roofline_fraction());
    for (std::size_t i = 1; i < ms.size(); ++i)
      report::line("  baseline %s: %s, roofline fraction %.0f%%", b.baselines[i - 1].name.c_str(),
                   format_seconds(ms[i].time_median_s).c_str(), 100 * ms[i].roofline_fraction());
    if (beat == 0)
      report::line("  no candidate beat %s: the best one takes %.2fx its time; keep %s", fastest_name.c_str(), 1 / speedup,
                   fastest_name.c_str());
    for (std::size_t i = 0; i < ms.size(); ++i)
      if (std::isfinite(ms[i].energy_j))
        report::line("  energy %s: %.3g mJ per call at %.0f W, SM clock %.0f MHz, %d of %d timed runs throttled",
                     i == 0 ? "winner" : b.baselines[i - 1].name.c_str(), 1e3 * ms[i].energy_j, ms[i].power_w, ms[i].sm_clock_mhz,
                     ms[i].throttled_runs, static_cast<int>(ms[i].sm_clocks_mhz.size()));
  }
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
