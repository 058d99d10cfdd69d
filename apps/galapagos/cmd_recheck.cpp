// galapagos recheck FILE: is the run's winner still correct and still faster, here and now? The
// stored winner and the family's baselines are rebuilt with this machine's compiler, verified
// against the reference and timed interleaved (run::final_comparison, as at the end of the run);
// the machine, driver, compiler and versions are shown beside what the file recorded; the result
// is appended to the file's /rechecks table (under the file's lock, published whole like a
// resumed run's). Exit 0: still faster; 3: no longer faster; 4: no longer correct; 2: usage, a
// file that cannot be used, or a machine that cannot build or run the family.
#include <sys/utsname.h>

#include <algorithm>
#include <boost/program_options.hpp>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "commands.hpp"
#include "eval/builder.hpp"
#include "eval/candidate_status.hpp"
#include "eval/toolchain.hpp"
#include "options.hpp"
#include "results_context.hpp"
#include "run/final_comparison.hpp"
#include "run/progress.hpp"
#include "run/setup.hpp"
#include "store/publish.hpp"
#include "store/results_file.hpp"
#include "store/results_target.hpp"
#include "util/build_info.hpp"
#include "util/error.hpp"
#include "util/hash.hpp"
#include "util/report.hpp"
#include "util/utc.hpp"

namespace po = boost::program_options;
using nlohmann::json;

namespace galapagos::cli {

namespace {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();

// The first line of a compiler's identity ("g++ (Debian 12.2.0-14) 12.2.0"), without its licence.
std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

double number_of(const json& w, const std::string& key) {
  const auto& n = w.at("numbers");
  return n.contains(key) && n[key].is_number() ? n[key].get<double>() : nan;
}

}  // namespace

int recheck_command(const std::vector<std::string>& args) {
  po::options_description opts("galapagos recheck FILE");
  opts.add_options()("help,h", "this help")("rounds", po::value<int>(),
                                            "interleaved rounds (default: the run's [eval] final_rounds)")(
      "tolerance", po::value<double>(), "verify at this relative tolerance instead of the family's")(
      "baseline-flags", po::value<std::string>(),
      "extra compile flags for every baseline, after the family's (what a compiler or library change does)");
  po::variables_map vm;
  const int usage = parse_command_line("recheck", args, opts, "file", vm, [](const po::variables_map& given) {
    if (!given.count("file")) throw po::error("a results FILE is required (the HDF5 file of a finished run)");
    if (given.count("rounds") && given["rounds"].as<int>() < 1) throw po::error("--rounds must be >= 1");
    if (given.count("tolerance") && !(given["tolerance"].as<double>() >= 0)) throw po::error("--tolerance must be >= 0");
  });
  if (usage >= 0) return usage;
  const std::string file = vm["file"].as<std::string>();
  std::string verdict;
  int code = 2;
  try {
    // One writer per file: taken before anything is read, held until the row is published.
    store::results_lock lock(file, "recheck");
    run_context run;
    std::int64_t winner_id = -1;
    json recorded = json::object();
    std::string recorded_host, recorded_cpu;
    {
      const auto f = open_results(file);
      run = read_run(f);
      const auto id = f.integer_attribute("/winner", "candidate_id");
      if (!id) throw error(file, "no /winner: the run has not finished (galapagos resume it first)");
      winner_id = *id;
      for (const char* k : {"speedup", "beat_baseline", "time_median_s"})
        recorded[k] = f.number_attribute("/winner", k).value_or(nan);
      recorded["fastest_baseline"] = f.string_attribute("/winner", "fastest_baseline").value_or("");
      for (const char* k : {"compiler", "galapagos_version", "git_revision"})
        recorded[k] = f.string_attribute("/", k).value_or("not recorded");
      // The GPU and driver of the run's first session (written since the ledger).
      for (const char* k : {"gpu", "driver"}) recorded[k] = f.string_attribute("/sessions/0", k).value_or("not recorded");
      if (f.has("/machine") && f.rows("/machine") > 0) {
        recorded_host = f.strings("/machine", "host").front();
        recorded_cpu = f.strings("/machine", "cpu_model").front();
      }
    }
    const auto it = std::find_if(run.candidates.begin(), run.candidates.end(), [&](const auto& c) { return c.id == winner_id; });
    if (it == run.candidates.end())
      throw error(file, "/winner names candidate " + std::to_string(winner_id) + ", not in /candidates");
    const candidate_record& c = *it;

    // The run's setup on this machine, with what the command line changes.
    auto s = std::make_unique<run::setup>();
    s->config = run.config;
    s->family = run.family;
    json changes = json::object();
    if (vm.count("tolerance")) {
      s->family.tolerance = vm["tolerance"].as<double>();
      changes["tolerance"] = s->family.tolerance;
    }
    auto& backend = s->family.backends.at(run.backend);
    if (vm.count("baseline-flags")) {
      std::istringstream words(vm["baseline-flags"].as<std::string>());
      for (std::string w; words >> w;)
        for (auto& b : backend.baselines) b.flags.push_back(w);
      changes["baseline_flags"] = vm["baseline-flags"].as<std::string>();
    }
    // A family found along $GALAPAGOS_KERNEL_PATH may not be the one the run searched.
    if (const char* kp = std::getenv("GALAPAGOS_KERNEL_PATH"); kp && *kp) changes["kernel_path"] = kp;
    if (vm.count("rounds")) s->config.final_rounds = vm["rounds"].as<int>();
    s->space = std::make_unique<core::search_space>(s->family.space(run.backend));
    s->lock = std::make_unique<eval::node_lock>(s->config.node_lock);
    {
      eval::node_lock_guard hold(*s->lock);
      s->probe = eval::probe_machine();
    }
    std::random_device rd;
    eval::eval_settings settings = s->config.eval;
    settings.compile_jobs = 0;
    s->evaluator = std::make_unique<eval::evaluator>(s->family, run.backend, settings, s->probe.limits(),
                                                     (std::uint64_t{rd()} << 32) ^ rd());
    // An LLM-made winner is its stored source; a genome's is the template with its parameters.
    std::string variant;
    if (const auto stored = stored_source(file, c.source_hash);
        stored && *stored != util::read_file(backend.tmpl.source.string()))
      variant = *stored;
    store::candidate_row best;
    best.id = c.id, best.params = c.params, best.origin = c.origin, best.source_hash = c.source_hash, best.speedup = c.speedup;
    report::line("recheck: candidate %lld of %s (%s on %s) on %s, %d interleaved rounds", static_cast<long long>(c.id),
                 file.c_str(), run.family.name.c_str(), run.backend.c_str(), s->probe.host.c_str(), s->config.final_rounds);
    int failed = 0;
    const json w = run::final_comparison(*s, best, variant, "recheck ", run::search_noise{}, failed);

    // The verdict, and what changed on the machine.
    const bool correct = eval::stored_ok(w.at("strings").at("status").get<std::string>());
    const double speedup = number_of(w, "speedup");
    verdict = !correct ? "no_longer_correct" : speedup > 1 ? "still_faster" : "no_longer_faster";
    code = !correct ? 4 : speedup > 1 ? 0 : 3;
    const bool gpu = run.backend != "cpu";
    const auto gpus = gpu ? eval::node_gpus() : eval::gpu_info{};
    utsname u{};
    uname(&u);
    store::recheck_row row;
    row.utc = util::utc_now();
    row.host = s->probe.host;
    row.cpu_model = s->probe.cpu_model;
    row.gpu = gpu ? gpus.name : "";
    row.driver = gpu ? eval::nvidia_driver_version() : std::string("kernel ") + u.release;
    row.compiler = first_line(s->evaluator->compiler().compiler_identity());
    row.galapagos_version = build_info::version;
    row.git_revision = build_info::git_revision;
    row.changes = changes.dump();
    row.candidate_id = c.id;
    row.status = w.at("strings").at("status").get<std::string>();
    row.reason = w.at("strings").at("reason").get<std::string>();
    row.time_median_s = number_of(w, "time_median_s");
    row.time_p50_s = number_of(w, "time_p50_s");
    row.time_p99_s = number_of(w, "time_p99_s");
    row.time_spread_s = number_of(w, "time_spread_s");
    row.repetitions = static_cast<std::int32_t>(w.at("numbers").value("repetitions", 0));
    row.fastest_baseline = w.at("strings").at("fastest_baseline").get<std::string>();
    row.baseline_median_s = number_of(w, "baseline_" + row.fastest_baseline + "_median_s");
    row.speedup = speedup;
    row.recorded_speedup = recorded["speedup"].get<double>();
    row.sm_clock_mhz = number_of(w, "sm_clock_mhz");
    row.energy_j = number_of(w, "energy_j");
    row.throttled_runs = static_cast<std::int32_t>(w.at("numbers").value("throttled_runs", 0));
    row.verdict = verdict;

    auto side = [](const char* what, const std::string& then, const std::string& now) {
      report::line("  %-18s %-40s %s%s", what, then.empty() ? "-" : then.c_str(), now.empty() ? "-" : now.c_str(),
                   then == now ? "" : "   (changed)");
    };
    report::line("\n  %-18s %-40s %s", "", "recorded", "now");
    side("host", recorded_host, row.host);
    side("cpu", recorded_cpu, row.cpu_model);
    if (gpu) side("gpu", recorded["gpu"].get<std::string>(), row.gpu);
    if (gpu) side("driver", recorded["driver"].get<std::string>(), row.driver);
    side("compiler", first_line(recorded["compiler"].get<std::string>()), row.compiler);
    side("galapagos", recorded["galapagos_version"].get<std::string>(), row.galapagos_version);
    char then[256], now[256];
    std::snprintf(then, sizeof then, "%.2fx over %s", row.recorded_speedup,
                  recorded["fastest_baseline"].get<std::string>().c_str());
    std::snprintf(now, sizeof now, "%.2fx over %s", speedup, row.fastest_baseline.c_str());
    side("speedup", then, correct ? now : "failed: " + row.status);
    if (!changes.empty()) report::line("  changed for this recheck: %s", changes.dump().c_str());
    report::line("verdict: %s (exit %d)",
                 verdict == "still_faster"       ? "still faster"
                 : verdict == "no_longer_faster" ? "no longer faster"
                                                 : "no longer correct",
                 code);

    // Appended to /rechecks, published whole (store/publish.hpp).
    const auto working = store::working_path(file);
    store::copy_file(file, working);
    {
      auto out = store::results_file::open(working.string());
      out.append(std::vector<store::recheck_row>{row});
      out.close();
    }
    store::publish_move(working, file);
    report::line("recorded in %s /rechecks", file.c_str());
  } catch (const std::exception& e) {
    report::problem("galapagos recheck: %s", e.what());
    return 2;
  }
  return code;
}

}  // namespace galapagos::cli
