#include "run/ledger.hpp"

#include <cmath>
#include <limits>
#include <map>
#include <vector>

#include "eval/candidate_status.hpp"
#include "eval/toolchain.hpp"
#include "run/progress.hpp"
#include "store/results_reader.hpp"
#include "util/error.hpp"
#include "util/report.hpp"

namespace galapagos::run {

namespace {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();

double number_in(const nlohmann::json& w, const std::string& key) {
  if (w.is_null() || !w.contains("numbers") || !w["numbers"].contains(key) || !w["numbers"][key].is_number()) return nan;
  return w["numbers"][key].get<double>();
}

std::string string_in(const nlohmann::json& w, const std::string& key) {
  if (w.is_null() || !w.contains("strings") || !w["strings"].contains(key)) return "";
  return w["strings"][key].get<std::string>();
}

// A figure and, when it is not available, why.
void put(store::attributes& a, const std::string& key, double value, const std::string& why_not) {
  a[key] = std::isfinite(value) ? value : nan;
  if (!std::isfinite(value)) a[key + "_note"] = why_not;
}

}  // namespace

store::attributes compute_ledger(const ledger_inputs& in) {
  const auto f = store::results_reader::open(in.results);
  store::attributes a;
  // Wall time over every session: the earlier ones from their attributes.
  double wall_s = in.session_wall_s, cpu_j = in.session_cpu_energy_j;
  std::string cpu_note = in.cpu_energy_note;
  for (int k = 0; k < in.session; ++k) {
    const std::string g = "/sessions/" + std::to_string(k);
    wall_s += f.number_attribute(g, "wall_s").value_or(0);
    const auto e = f.number_attribute(g, "cpu_energy_j");
    if (e && std::isfinite(*e))
      cpu_j += *e;
    else
      cpu_note = "not measured in session " + std::to_string(k) + ": " +
                 f.string_attribute(g, "cpu_energy_j_note").value_or("a galapagos without the ledger ran it");
  }
  if (!cpu_note.empty() && cpu_note.rfind("not measured in session", 0) == 0) cpu_j = nan;
  a["wall_time_s"] = wall_s;
  a["sessions"] = static_cast<std::int64_t>(in.session + 1);
  const std::int64_t islands = f.integer_attribute("/", "islands").value_or(1);
  a["islands"] = islands;

  // What the candidates cost, in the order rank 0 recorded them.
  const auto status = f.strings("/candidates", "status");
  const auto island = f.integers("/candidates", "island");
  const auto eval_s = f.numbers("/candidates", "eval_time_s");
  const auto compile_s = f.numbers("/candidates", "compile_time_s");
  const auto device_s = f.numbers("/candidates", "device_time_s");
  const auto power_w = f.numbers("/candidates", "power_w");
  const auto median_s = f.numbers("/candidates", "time_median_s");
  std::map<std::int64_t, double> cores;  // per island, from /machine
  if (f.has("/machine")) {
    const auto mi = f.integers("/machine", "island");
    const auto mc = f.integers("/machine", "cores");
    for (std::size_t i = 0; i < mi.size(); ++i) cores[mi[i]] = static_cast<double>(mc[i]);
  }
  const bool cpu = in.backend == "cpu";
  double evaluating = 0, compiling = 0, held = 0, core_s = 0, gpu_j = 0, best = std::numeric_limits<double>::infinity();
  std::int64_t accepted = 0, improvements = 0, powered = 0;
  for (std::size_t i = 0; i < status.size(); ++i) {
    evaluating += eval_s[i];
    compiling += compile_s[i];
    held += device_s[i];
    // A CPU island holds every core of its node while it measures; a GPU island one host core.
    const double c = cpu && cores.count(island[i]) ? std::max(1.0, cores[island[i]]) : 1.0;
    core_s += (cpu ? device_s[i] * c + std::max(0.0, eval_s[i] - device_s[i]) : eval_s[i]) + compile_s[i];
    if (std::isfinite(power_w[i])) gpu_j += power_w[i] * device_s[i], ++powered;
    if (!eval::stored_ok(status[i])) continue;
    ++accepted;
    if (std::isfinite(median_s[i]) && median_s[i] < best) best = median_s[i], ++improvements;
  }
  const auto evaluations = static_cast<std::int64_t>(status.size());
  a["evaluations"] = evaluations;
  a["accepted"] = accepted;
  put(a, "accepted_share", evaluations ? static_cast<double>(accepted) / static_cast<double>(evaluations) : nan,
      "no candidate was evaluated");
  a["evaluating_s"] = evaluating;
  a["compiling_s"] = compiling;
  a["device_busy_s"] = held;
  a["device_hours"] = held / 3600;
  a["device"] = std::string(cpu ? "cpu" : "gpu");
  a["core_hours"] = core_s / 3600;
  a["improvements"] = improvements;
  put(a, "evaluations_per_improvement", improvements ? static_cast<double>(evaluations) / static_cast<double>(improvements) : nan,
      "no correct candidate");
  put(a, "device_hours_per_improvement", improvements ? held / 3600 / static_cast<double>(improvements) : nan,
      "no correct candidate");

  // Energy: the GPU's from NVML or ROCm SMI (mean board power while a candidate held it, times how long), the
  // CPU packages' from RAPL.
  put(a, "gpu_energy_j", cpu ? nan : (powered ? gpu_j : nan),
      cpu ? "not applicable: a CPU run"
          : "the GPU's monitoring library (NVML, ROCm SMI) gave no power reading for any candidate");
  put(a, "cpu_energy_j", cpu_j, cpu_note.empty() ? "not measured" : cpu_note);
  const double energy = (std::isfinite(cpu_j) ? cpu_j : 0) + (!cpu && powered ? gpu_j : 0);
  const bool some_energy = std::isfinite(cpu_j) || (!cpu && powered);
  put(a, "energy_j", some_energy ? energy : nan, "neither RAPL nor the GPU's monitoring library (NVML, ROCm SMI) could be read");

  // The model's tokens and money.
  std::int64_t prompt = 0, completion = 0, calls = 0;
  double money = 0;
  if (f.has("/llm_calls")) {
    const auto p = f.integers("/llm_calls", "prompt_tokens");
    const auto c = f.integers("/llm_calls", "completion_tokens");
    const auto m = f.numbers("/llm_calls", "cost");
    calls = static_cast<std::int64_t>(p.size());
    try {  // the model's tool calls are rows too, not requests (files before them have no `tool`)
      for (const auto& tool : f.strings("/llm_calls", "tool"))
        if (!tool.empty()) --calls;
    } catch (const std::exception&) {
    }
    for (std::size_t i = 0; i < p.size(); ++i) prompt += p[i], completion += c[i], money += m[i];
  }
  a["llm_calls"] = calls;
  a["prompt_tokens"] = prompt;
  a["completion_tokens"] = completion;
  put(a, "money", calls == 0 || in.prices_configured ? money : nan,
      "no price per token configured ([[llm.models]] price_prompt_per_mtok, price_completion_per_mtok)");

  // What the winner saves per call against the fastest baseline, and when the search pays off.
  const std::string fastest = string_in(in.winner, "fastest_baseline");
  const double w_s = number_in(in.winner, "time_median_s"), b_s = number_in(in.winner, "baseline_" + fastest + "_median_s");
  const double w_j = number_in(in.winner, "energy_j"), b_j = number_in(in.winner, "baseline_" + fastest + "_energy_j");
  const bool correct = !in.winner.is_null() && eval::stored_ok(string_in(in.winner, "status"));
  a["fastest_baseline"] = fastest;
  const std::string no_winner = in.winner.is_null() ? "no winner" : !correct ? "the winner failed its final check" : "";
  const double save_s = no_winner.empty() ? b_s - w_s : nan;
  put(a, "saving_per_call_s", save_s, no_winner.empty() ? "no baseline was measured" : no_winner);
  const double save_j = no_winner.empty() ? b_j - w_j : nan;
  put(a, "saving_per_call_j", save_j,
      !no_winner.empty() ? no_winner
      : cpu              ? "no energy per call on CPUs (RAPL cannot tell one call's energy apart)"
                         : "the GPU's monitoring library (NVML, ROCm SMI) gave no energy per call");
  put(a, "break_even_calls", std::isfinite(save_s) && save_s > 0 ? held / save_s : nan,
      std::isfinite(save_s)               ? "the winner is not faster than " + fastest + ": the search never pays off in time"
      : a.count("saving_per_call_s_note") ? std::get<std::string>(a["saving_per_call_s_note"])
                                          : "");
  put(a, "break_even_calls_energy", std::isfinite(save_j) && save_j > 0 && some_energy ? energy / save_j : nan,
      !some_energy            ? "the search's energy is unavailable"
      : std::isfinite(save_j) ? "the winner uses no less energy per call than " + fastest
                              : std::get<std::string>(a["saving_per_call_j_note"]));
  return a;
}

void print_ledger(const store::attributes& a) {
  auto num = [&](const char* k) { return store::as_number(a.at(k)).value_or(nan); };
  auto note = [&](const std::string& k) {
    const auto it = a.find(k + "_note");
    return it == a.end() ? std::string() : store::as_text(it->second);
  };
  auto figure = [&](const std::string& k, const char* fmt, double scale) {
    char buf[128];
    const double v = num(k.c_str());
    if (!std::isfinite(v)) return "unavailable (" + note(k) + ")";
    std::snprintf(buf, sizeof buf, fmt, scale * v);
    return std::string(buf);
  };
  report::line(
      "ledger: %lld evaluations in %s wall time (%lld sessions, %lld islands), %s evaluating",
      static_cast<long long>(store::as_integer(a.at("evaluations")).value_or(0)), format_seconds(num("wall_time_s")).c_str(),
      static_cast<long long>(store::as_integer(a.at("sessions")).value_or(1)),
      static_cast<long long>(store::as_integer(a.at("islands")).value_or(1)), format_seconds(num("evaluating_s")).c_str());
  report::line(
      "  %.4f %s-hours, %.4f core-hours; accepted %s; %lld improvements of the best, %s evaluations and %s "
      "device-hours each",
      num("device_hours"), store::as_text(a.at("device")).c_str(), num("core_hours"),
      figure("accepted_share", "%.0f%%", 100).c_str(),
      static_cast<long long>(store::as_integer(a.at("improvements")).value_or(0)),
      figure("evaluations_per_improvement", "%.1f", 1).c_str(), figure("device_hours_per_improvement", "%.5f", 1).c_str());
  report::line("  energy: GPU %s, CPU %s", figure("gpu_energy_j", "%.1f J", 1).c_str(),
               figure("cpu_energy_j", "%.1f J", 1).c_str());
  report::line("  model: %lld calls, %lld prompt + %lld completion tokens, money %s",
               static_cast<long long>(store::as_integer(a.at("llm_calls")).value_or(0)),
               static_cast<long long>(store::as_integer(a.at("prompt_tokens")).value_or(0)),
               static_cast<long long>(store::as_integer(a.at("completion_tokens")).value_or(0)),
               figure("money", "%.4f", 1).c_str());
  report::line("  winner saves %s and %s per call against %s; break-even after %s calls (time), %s calls (energy)",
               std::isfinite(num("saving_per_call_s")) ? format_seconds(num("saving_per_call_s")).c_str()
                                                       : ("unavailable (" + note("saving_per_call_s") + ")").c_str(),
               figure("saving_per_call_j", "%.3g J", 1).c_str(), store::as_text(a.at("fastest_baseline")).c_str(),
               figure("break_even_calls", "%.0f", 1).c_str(), figure("break_even_calls_energy", "%.0f", 1).c_str());
}

void session_meter::close(store::results_file& f, const std::string& session_group, double wall) {
  wall_s = wall;
  const auto end = eval::read_rapl();
  cpu_energy_j = eval::rapl_energy_between(start_, end);
  cpu_energy_note = std::isfinite(cpu_energy_j)   ? ""
                    : !start_.unavailable.empty() ? "RAPL unavailable: " + start_.unavailable
                    : !end.unavailable.empty()    ? "RAPL unavailable: " + end.unavailable
                                                  : "RAPL packages changed during the session";
  f.set_attribute(session_group, "wall_s", wall_s);
  f.set_attribute(session_group, "cpu_energy_j", std::isfinite(cpu_energy_j) ? cpu_energy_j : nan);
  if (!cpu_energy_note.empty()) f.set_attribute(session_group, "cpu_energy_j_note", cpu_energy_note);
  // The GPU and its driver, for `galapagos recheck` to show beside its own (none on CPU nodes).
  if (const auto g = eval::node_gpus(); g.count > 0)
    f.set_attributes(session_group, {{"gpu", g.name}, {"driver", eval::nvidia_driver_version()}});
}

void write_ledger(store::results_file& f, const config::run_config& cfg, int session, const session_meter& meter,
                  const nlohmann::json& winner) {
  ledger_inputs in;
  in.results = cfg.out.string();
  in.backend = cfg.backend;
  in.session = session;
  in.session_wall_s = meter.wall_s;
  in.session_cpu_energy_j = meter.cpu_energy_j;
  in.cpu_energy_note = meter.cpu_energy_note;
  for (const auto& m : cfg.llm.models)
    if (m.endpoint.price_prompt_per_mtok > 0 || m.endpoint.price_completion_per_mtok > 0) in.prices_configured = true;
  in.winner = winner;
  try {
    const auto ledger = compute_ledger(in);
    f.set_attributes("/ledger", ledger);
    print_ledger(ledger);
  } catch (const std::exception& e) {
    report::problem("ledger not computed: %s", e.what());
  }
}

}  // namespace galapagos::run
