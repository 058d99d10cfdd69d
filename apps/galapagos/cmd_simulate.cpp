// galapagos simulate: strategies replayed against a recorded space (a galapagos results file of
// an exhaustive run, a Kernel Tuner cache, plain, gzip-compressed or unfinished, or a T4 results
// file), without compiling or running anything.
#include <algorithm>
#include <boost/program_options.hpp>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "commands.hpp"
#include "options.hpp"
#include "run/progress.hpp"
#include "simulate/recorded_space.hpp"
#include "simulate/simulation.hpp"
#include "simulate/strategy_config.hpp"
#include "simulate/warm_start.hpp"
#include "util/error.hpp"
#include "util/json.hpp"
#include "util/report.hpp"
#include "util/stats.hpp"

using galapagos::util::json_number;

namespace po = boost::program_options;
using nlohmann::json;

namespace galapagos::cli {

namespace {

std::vector<std::string> split_list(const std::string& text, const std::string& option) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string item;
  while (std::getline(in, item, ','))
    if (!item.empty()) out.push_back(item);
  if (out.empty()) throw error(option + " " + text, "expected a comma-separated list");
  return out;
}

double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return util::quantile_of_sorted(v, q);
}

std::string seconds(double s) { return std::isfinite(s) ? run::format_seconds(s) : "failed"; }

}  // namespace

int simulate_command(const std::vector<std::string>& args) {
  po::options_description opts(
      "galapagos simulate SPACE (a galapagos results file, a Kernel Tuner cache (.json, .json.gz, unfinished) or a T4 results "
      "file)");
  opts.add_options()("help,h", "this help")(
      "strategy", po::value<std::string>(),
      "KIND[,KIND...]: forest, hybrid, ga, random, exhaustive, annealing (cycled over the islands)")(
      "islands", po::value<int>()->default_value(1), "in-process islands")(
      "budget", po::value<int>(), "evaluations per island (default: the config's, else 100)")(
      "budget-s", po::value<double>(), "recorded compile + evaluation seconds per island")(
      "seed", po::value<std::uint64_t>(), "first seed (default: the config's, else 1)")(
      "seeds", po::value<int>()->default_value(1), "independent runs, seeds SEED, SEED+1, ...")(
      "config", po::value<std::string>(), "read [search], [strategy] and [migration] from this config")(
      "at", po::value<std::string>(), "N[,N...]: report the fraction of the optimum after N evaluations")(
      "warm-start", po::value<std::string>(),
      "FILE[,FILE...]: recordings of related searches (results, Kernel Tuner caches, T4) that guide the forest")(
      "json", "print one JSON object");
  po::variables_map vm;
  const int code = parse_command_line("simulate", args, opts, "space", vm, [](const po::variables_map& given) {
    if (!given.count("space")) throw po::error("a SPACE file is required");
  });
  if (code >= 0) return code;

  try {
    const int islands = vm["islands"].as<int>();
    if (islands < 1 || islands > 4096) throw error("--islands", "must be between 1 and 4096");
    const int seeds = vm["seeds"].as<int>();
    if (seeds < 1) throw error("--seeds", "must be at least 1");
    simulate::simulation_settings settings;
    bool budget_from_config = false;
    if (vm.count("config")) {
      settings = simulate::read_simulation_config(vm["config"].as<std::string>(), islands);
      budget_from_config = true;
    } else {
      settings.islands.assign(static_cast<std::size_t>(islands), core::strategy_settings{});
      settings.budget = 100;
    }
    if (vm.count("strategy")) {
      const auto kinds = split_list(vm["strategy"].as<std::string>(), "--strategy");
      for (std::size_t i = 0; i < settings.islands.size(); ++i) settings.islands[i].kind = kinds[i % kinds.size()];
      for (const auto& s : settings.islands) try {
          core::validate(s);
        } catch (const std::invalid_argument& e) {
          throw error("--strategy", e.what());
        }
    }
    if (vm.count("budget")) settings.budget = vm["budget"].as<int>();
    if (vm.count("budget-s")) {
      settings.budget_s = vm["budget-s"].as<double>();
      if (!(settings.budget_s > 0)) throw error("--budget-s", "must be > 0");
      if (!vm.count("budget") && !budget_from_config) settings.budget = 0;
    }
    if (vm.count("budget") && settings.budget < 1) throw error("--budget", "must be at least 1");
    if (vm.count("seed")) settings.seed = vm["seed"].as<std::uint64_t>();
    std::vector<std::size_t> at;
    if (vm.count("at"))
      for (const auto& t : split_list(vm["at"].as<std::string>(), "--at")) {
        char* end = nullptr;
        const long v = std::strtol(t.c_str(), &end, 10);
        if (*end || v < 1) throw error("--at " + t, "expected a positive number of evaluations");
        at.push_back(static_cast<std::size_t>(v));
      }

    const auto space = simulate::read_recorded_space(vm["space"].as<std::string>());
    const double opt = space.optimum_s();
    if (!std::isfinite(opt)) throw error(space.origin(), "every recorded point failed: there is no optimum to find");
    if (vm.count("warm-start")) {
      settings.warm_start_files.clear();
      for (const auto& f : split_list(vm["warm-start"].as<std::string>(), "--warm-start")) settings.warm_start_files.push_back(f);
    }
    std::string warm_summary;
    if (!settings.warm_start_files.empty()) {
      const auto warm = simulate::read_warm_start(settings.warm_start_files, space.space());
      settings.warm_start = warm.points;
      warm_summary = warm.summary();
    }

    std::vector<std::string> kinds;
    for (const auto& s : settings.islands) kinds.push_back(s.kind);
    std::string kind_text;
    for (std::size_t i = 0; i < kinds.size(); ++i) {
      if (i) kind_text += ',';
      kind_text += kinds[i];
    }
    if (!vm.count("json")) {
      report::line("space: %s (%s): %zu points, %zu failed; optimum %s %s", space.origin().c_str(), space.format().c_str(),
                   space.size(), space.failed(), seconds(opt).c_str(), space.space().to_json(space.optimum()).c_str());
      report::line("islands: %d (%s); budget per island: %d evaluations%s", islands, kind_text.c_str(), settings.budget,
                   settings.budget_s > 0 ? (", " + seconds(settings.budget_s) + " recorded").c_str() : "");
      if (!warm_summary.empty()) report::line("%s", warm_summary.c_str());
    }
    json runs = json::array();
    std::vector<std::vector<double>> fractions_at(at.size());
    std::vector<double> finals;
    const std::uint64_t first = settings.seed;
    for (int k = 0; k < seeds; ++k) {
      settings.seed = first + static_cast<std::uint64_t>(k);
      const auto r = simulate::simulate(space, settings);
      const double fraction = r.fraction_at(r.best_after.size(), opt);
      finals.push_back(fraction);
      json run = {{"seed", settings.seed},
                  {"evaluations", r.evaluations.size()},
                  {"best_s", json_number(r.best_s())},
                  {"fraction", fraction},
                  {"found_at", r.found_at()},
                  {"spent_s", r.spent_s}};
      for (const auto& e : r.evaluations)
        if (e.time_s == r.best_s()) {
          run["best"] = json::parse(space.space().to_json(e.g));
          break;
        }
      json a = json::object();
      for (std::size_t i = 0; i < at.size(); ++i) {
        const double f = r.fraction_at(at[i], opt);
        a[std::to_string(at[i])] = f;
        fractions_at[i].push_back(f);
      }
      run["at"] = a;
      runs.push_back(run);
      if (!vm.count("json"))
        report::line(
            "seed %llu: best %s after %zu evaluations (%.4f of the optimum), first reached at evaluation %zu; %.1f s charged",
            static_cast<unsigned long long>(settings.seed), seconds(r.best_s()).c_str(), r.evaluations.size(), fraction,
            r.found_at(), r.spent_s.empty() ? 0.0 : *std::max_element(r.spent_s.begin(), r.spent_s.end()));
    }
    if (vm.count("json")) {
      json summary = json::object();
      for (std::size_t i = 0; i < at.size(); ++i) {
        const auto& v = fractions_at[i];
        double mean = 0;
        for (const double x : v) mean += x / static_cast<double>(v.size());
        summary[std::to_string(at[i])] = {
            {"median", quantile(v, 0.5)}, {"q1", quantile(v, 0.25)}, {"q3", quantile(v, 0.75)}, {"mean", mean}};
      }
      const json out = {{"space", space.origin()},
                        {"format", space.format()},
                        {"points", space.size()},
                        {"failed", space.failed()},
                        {"optimum_s", opt},
                        {"optimum", json::parse(space.space().to_json(space.optimum()))},
                        {"strategies", kinds},
                        {"islands", islands},
                        {"budget", settings.budget},
                        {"budget_s", settings.budget_s},
                        {"warm_start", warm_summary},
                        {"runs", runs},
                        {"at", summary}};
      report::line("%s", out.dump().c_str());
      return 0;
    }
    report::line("fraction of the optimum (optimum / best found), median [q1, q3] over %d seed(s): %.4f [%.4f, %.4f]", seeds,
                 quantile(finals, 0.5), quantile(finals, 0.25), quantile(finals, 0.75));
    for (std::size_t i = 0; i < at.size(); ++i)
      report::line("  after %5zu evaluations: %.4f [%.4f, %.4f]", at[i], quantile(fractions_at[i], 0.5),
                   quantile(fractions_at[i], 0.25), quantile(fractions_at[i], 0.75));
    return 0;
  } catch (const std::exception& e) {
    report::problem("galapagos simulate: %s", e.what());
    return 2;
  }
}

}  // namespace galapagos::cli
