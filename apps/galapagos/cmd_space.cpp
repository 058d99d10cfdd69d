// galapagos space FAMILY --backend B: the size of a family's parameter space, its constraints and
// a sample of valid points, to size a job before spending machine hours on it.
#include <algorithm>
#include <boost/program_options.hpp>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "config/run_config.hpp"
#include "core/rng.hpp"
#include "families/family.hpp"
#include "options.hpp"
#include "util/report.hpp"

namespace po = boost::program_options;

namespace galapagos::cli {

namespace {

// Spaces up to this many points are counted exactly; larger ones are estimated by sampling.
constexpr double exact_limit = 5e6;
constexpr int estimate_draws = 200000;

}  // namespace

int space_command(const std::vector<std::string>& args) {
  po::options_description opts("galapagos space FAMILY --backend B");
  opts.add_options()("help,h", "this help")("backend", po::value<std::string>()->default_value("cpu"), "cpu, cuda or hip")(
      "sample", po::value<int>()->default_value(5), "valid points to show")("seed", po::value<std::uint64_t>()->default_value(1),
                                                                            "seed of the sample")(
      "config", po::value<std::string>(), "search the families along this run config's kernel_paths too")(
      "json", "print one JSON object");
  po::variables_map vm;
  const int code = parse_command_line("space", args, opts, "family", vm, [](const po::variables_map& given) {
    if (!given.count("family")) throw po::error("a FAMILY is required (a folder kernels/<family>/ with a family.toml)");
    if (given["sample"].as<int>() < 0) throw po::error("--sample must be >= 0");
  });
  if (code >= 0) return code;
  try {
    const std::string backend = vm["backend"].as<std::string>();
    std::vector<std::filesystem::path> path;
    if (vm.count("config")) path = config::load_run_config(vm["config"].as<std::string>()).kernel_paths;
    const auto fam = families::load_family(vm["family"].as<std::string>(), families::default_search_path(path));
    const auto& b = fam.backend(backend);
    const auto space = fam.space(backend);
    const double product = space.cardinality();
    bool exact = product <= exact_limit;
    double valid = 0;
    core::rng r(vm["seed"].as<std::uint64_t>());
    if (exact) {
      valid = static_cast<double>(space.count_valid(static_cast<std::uint64_t>(exact_limit) + 1));
    } else {  // the share of valid points among uniform draws from the Cartesian product
      int hits = 0;
      core::genome g(space.parameters().size());
      for (int k = 0; k < estimate_draws; ++k) {
        for (std::size_t i = 0; i < g.size(); ++i) g[i] = r.below(static_cast<int>(space.parameters()[i].values.size()));
        hits += space.is_valid(g) ? 1 : 0;
      }
      valid = product * hits / estimate_draws;
    }
    // No more sample points than there are valid points (each line is one draw).
    const int requested = vm["sample"].as<int>();
    const int wanted = static_cast<int>(std::min<double>(requested, std::floor(valid)));
    std::vector<std::string> sample;
    if (valid > 0)
      for (int k = 0; k < wanted; ++k)
        if (const auto g = space.sample(r, 100000)) sample.push_back(space.to_json(*g));

    if (vm.count("json")) {
      nlohmann::json j{
          {"family", fam.name},    {"backend", backend},   {"family_file", fam.toml_file.string()}, {"cartesian_points", product},
          {"valid_points", valid}, {"valid_exact", exact}, {"template", b.tmpl.source.string()}};
      for (const auto& p : space.parameters()) j["parameters"][p.name] = p.values;
      j["constraints"] = nlohmann::json::array();
      for (const auto& c : b.constraints) j["constraints"].push_back(c->text());
      j["sample"] = nlohmann::json::array();
      j["sample_requested"] = requested;
      for (const auto& s : sample) j["sample"].push_back(nlohmann::json::parse(s));
      j["baselines"] = nlohmann::json::array();
      for (const auto& bl : b.baselines) j["baselines"].push_back(bl.name);
      report::line("%s", j.dump().c_str());
      return valid > 0 ? 0 : 1;
    }
    report::line("%s on %s (%s)\ntemplate: %s\n\nparameters (%zu):", fam.name.c_str(), backend.c_str(), fam.toml_file.c_str(),
                 b.tmpl.source.c_str(), space.parameters().size());
    for (const auto& p : space.parameters()) {
      std::string values;
      for (const auto& v : p.values) values += (values.empty() ? "" : ", ") + v;
      report::line("  %-12s %2zu values: %s", p.name.c_str(), p.values.size(), values.c_str());
    }
    report::line("\nconstraints (%zu):", b.constraints.size());
    for (const auto& c : b.constraints) report::line("  %s", c->text().c_str());
    if (b.constraints.empty()) report::line("  (none)");
    report::line("\nspace: %.0f points in the Cartesian product, %s%.0f valid (%.1f%%)", product, exact ? "" : "about ", valid,
                 product > 0 ? 100 * valid / product : 0.0);
    if (!exact) report::line("  (estimated from %d uniform draws: the space is too large to count)", estimate_draws);
    std::string names;
    for (const auto& baseline : b.baselines) names += (names.empty() ? "" : ", ") + baseline.name;
    report::line("baselines: %s", b.baselines.empty() ? "(none)" : names.c_str());
    if (valid <= 0) {
      report::line("\nno point satisfies the constraints: a search of this space cannot start");
      return 1;
    }
    report::line("\nsample of %zu valid points (seed %llu):", sample.size(),
                 static_cast<unsigned long long>(vm["seed"].as<std::uint64_t>()));
    for (const auto& s : sample) report::line("  %s", s.c_str());
    if (wanted < requested) report::line("  (--sample %d capped at the %d valid points)", requested, wanted);
    report::line(
        "\na search evaluates at most islands x [search] budget points (a genome is never evaluated twice "
        "on an island)");
  } catch (const std::exception& e) {
    report::problem("galapagos space: %s", e.what());
    return 2;
  }
  return 0;
}

}  // namespace galapagos::cli
