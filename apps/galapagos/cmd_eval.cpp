#include <boost/program_options.hpp>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <limits>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "config/run_config.hpp"
#include "eval/evaluator.hpp"
#include "eval/family_process.hpp"
#include "eval/probe.hpp"
#include "families/family.hpp"
#include "options.hpp"
#include "util/error.hpp"
#include "util/json.hpp"
#include "util/report.hpp"

using galapagos::util::json_number;

namespace po = boost::program_options;

namespace galapagos::cli {

namespace {}  // namespace

int eval_command(const std::vector<std::string>& args) {
  po::options_description opts("galapagos eval --family NAME --backend cpu SOURCE");
  opts.add_options()("help,h", "this help")("family", po::value<std::string>(), "kernel family")(
      "backend", po::value<std::string>()->default_value("cpu"), "cpu, cuda or hip")(
      "param", po::value<std::vector<std::string>>()->composing(), "K=V, passed as -DGLP_K=V (repeatable)")(
      "json", "print one JSON object")("size", po::value<std::string>(), "fitness size name (default: tune)")(
      "problem", po::value<std::string>(), "a generator problem spec for the fitness problem (e.g. mtx:A.mtx)")(
      "config", po::value<std::string>(), "read [eval] settings from this run config")(
      "no-baselines", "do not measure the baselines (speedup is null)");
  po::variables_map vm;
  const int code = parse_command_line("eval", args, opts, "source", vm, [](const po::variables_map& given) {
    if (!given.count("family") || !given.count("source")) throw po::error("--family and a SOURCE file are required");
  });
  if (code >= 0) return code;

  eval::measurement m;
  std::vector<std::pair<std::string, eval::measurement>> baselines;
  std::string ceilings_text;  // the ceilings the floor used, and where each came from
  try {
    const std::string backend = vm["backend"].as<std::string>();
    eval::eval_settings settings;
    std::vector<std::filesystem::path> path;
    double reference_timeout_s = 0;  // automatic
    if (vm.count("config")) {
      const auto cfg = config::load_run_config(vm["config"].as<std::string>());
      settings = cfg.eval;
      reference_timeout_s = cfg.reference_timeout_s;
      path = cfg.kernel_paths;
    }
    if (vm.count("size")) settings.fitness_size = vm["size"].as<std::string>();
    if (vm.count("problem")) settings.fitness_problem = vm["problem"].as<std::string>();
    const auto fam = families::load_family(vm["family"].as<std::string>(), families::default_search_path(path));
    const auto& b = fam.backend(backend);
    const std::filesystem::path source = vm["source"].as<std::string>();
    if (!std::filesystem::is_regular_file(source)) throw error(source.string(), "source file not found");
    eval::candidate_source c = eval::candidate_from(b.tmpl);
    c.source = source;
    for (const auto& bl : b.baselines)  // one of the family's baselines: its own flags and libraries
      if (std::filesystem::equivalent(bl.source, source)) c = eval::baseline_from(bl);
    if (vm.count("param"))
      for (const auto& kv : vm["param"].as<std::vector<std::string>>()) {
        const auto eq = kv.find('=');
        if (eq == std::string::npos || eq == 0) throw error("--param " + kv, "expected K=V");
        const std::string name = kv.substr(0, eq);
        std::string known;
        bool found = false;
        for (const auto& p : b.params) {
          known += (known.empty() ? "" : ", ") + p.name;
          found = found || p.name == name;
        }
        if (!found)
          throw error("--param " + kv, "family " + fam.name + " (" + backend + ") has no parameter '" + name +
                                           "' (its parameters: " + known + ")");
        c.params[name] = kv.substr(eq + 1);
      }
    eval::set_reference_time_limit(settings.timeout_s, reference_timeout_s);
    const auto probe = eval::probe_machine();
    std::random_device rd;
    eval::evaluator ev(fam, backend, settings, probe.limits(), (std::uint64_t{rd()} << 32) ^ rd());
    if (!vm.count("no-baselines"))
      for (const auto& bl : b.baselines) baselines.emplace_back(bl.name, ev.evaluate(eval::baseline_from(bl)));
    m = ev.evaluate(c);
    ceilings_text = ev.describe_ceilings();
  } catch (const std::exception& e) {
    report::problem("galapagos eval: %s", e.what());
    return 2;
  }

  double fastest = std::numeric_limits<double>::infinity();
  for (const auto& [name, bm] : baselines)
    if (bm.status == eval::candidate_status::ok) fastest = std::min(fastest, bm.time_median_s);
  const double speedup =
      m.status == eval::candidate_status::ok && std::isfinite(fastest) ? fastest / m.time_median_s : std::nan("");
  if (vm.count("json")) {
    nlohmann::json j{{"status", eval::to_string(m.status)},
                     {"reason", m.reason},
                     {"time_median_s", json_number(m.time_median_s)},
                     {"time_min_s", json_number(m.time_min_s)},
                     {"time_spread_s", json_number(m.time_spread_s)},
                     {"repetitions", m.repetitions},
                     {"rel_error", json_number(m.rel_error)},
                     {"speedup", json_number(speedup)},
                     {"roofline_fraction", json_number(m.roofline_fraction())},
                     {"floor_s", json_number(m.floor_s)},
                     {"verified_runs", m.verified_runs},
                     {"compile_time_s", m.compile_time_s},
                     {"eval_time_s", m.eval_time_s},
                     {"setup_time_s", m.setup_time_s},
                     {"source_hash", m.source_hash},
                     {"device_time_s", m.device_time_s},
                     {"energy_j", json_number(m.energy_j)},
                     {"power_w", json_number(m.power_w)},
                     {"sm_clock_mhz", json_number(m.sm_clock_mhz)},
                     {"throttled_runs", m.throttled_runs},
                     {"ceilings", ceilings_text},
                     {"worker_clock_median_s", json_number(m.worker_clock_median_s)}};
    for (const auto& [name, bm] : baselines)
      j["baselines"][name] = {{"status", eval::to_string(bm.status)}, {"time_median_s", json_number(bm.time_median_s)}};
    report::line("%s", j.dump().c_str());
  } else {
    report::line("status: %s", eval::status_name(m.status));
    if (!m.reason.empty()) report::line("reason: %s", m.reason.c_str());
    if (m.status == eval::candidate_status::ok)
      report::line("time: median %.6e s, min %.6e s, IQR %.3e s over %d runs\nroofline fraction: %.2f\nrel error: %.3e",
                   m.time_median_s, m.time_min_s, m.time_spread_s, m.repetitions, m.roofline_fraction(), m.rel_error);
    if (std::isfinite(m.energy_j))
      report::line("energy: %.3e J per call at %.0f W; SM clock %.0f MHz; %d timed runs throttled", m.energy_j, m.power_w,
                   m.sm_clock_mhz, m.throttled_runs);
    if (std::isfinite(speedup)) report::line("speedup over the fastest baseline: %.2fx", speedup);
  }
  return m.status == eval::candidate_status::ok ? 0 : 1;
}

}  // namespace galapagos::cli
