#include "family_check.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <random>
#include <set>
#include <tuple>

#include "asan_check.hpp"
#include "core/rng.hpp"
#include "eval/evaluator.hpp"
#include "eval/probe.hpp"
#include "util/error.hpp"
#include "util/hash.hpp"
#include "util/report.hpp"

namespace galapagos::cli {

namespace {

struct point {
  std::vector<std::string> extremes;  // what this point stands for: {"UNROLL=8", "SIMD=0"}
  std::map<std::string, std::string> params;
  std::string label() const {
    std::string out;
    for (const auto& e : extremes) out += (out.empty() ? "" : "/") + e;
    return out;
  }
  bool stands_for(const std::string& param) const {
    return std::any_of(extremes.begin(), extremes.end(), [&](const std::string& e) { return e.rfind(param + "=", 0) == 0; });
  }
};

// The index of a parameter's smallest and largest value: by number when every value is one,
// else the first and the last listed.
std::pair<std::size_t, std::size_t> extreme_indexes(const core::parameter& p) {
  std::vector<double> v;
  for (const auto& text : p.values) {
    char* end = nullptr;
    const double x = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0') return {0, p.values.size() - 1};
    v.push_back(x);
  }
  return {static_cast<std::size_t>(std::min_element(v.begin(), v.end()) - v.begin()),
          static_cast<std::size_t>(std::max_element(v.begin(), v.end()) - v.begin())};
}

// Every parameter at its smallest and its largest value, the others as in the first valid point
// (or in the first valid point that has that value, when a constraint needs other values).
std::vector<point> extreme_points(const core::search_space& space, std::vector<std::string>& unreachable) {
  std::optional<core::genome> base;
  space.enumerate([&](const core::genome& g) {
    base = g;
    return false;
  });
  if (!base) throw error("family check", "the parameter space has no valid point");
  std::vector<point> out;
  const auto& params = space.parameters();
  for (std::size_t i = 0; i < params.size(); ++i) {
    const auto [lo, hi] = extreme_indexes(params[i]);
    for (const std::size_t v : {lo, hi}) {
      core::genome g = *base;
      g[i] = static_cast<int>(v);
      if (!space.is_valid(g)) {
        std::optional<core::genome> found;
        space.enumerate([&](const core::genome& h) {
          if (h[i] == static_cast<int>(v)) found = h;
          return !found;
        });
        if (!found) {
          unreachable.push_back(params[i].name + "=" + params[i].values[v]);
          continue;
        }
        g = *found;
      }
      const std::string extreme = params[i].name + "=" + params[i].values[v];
      const auto values = space.values(g);
      const auto same = std::find_if(out.begin(), out.end(), [&](const point& q) { return q.params == values; });
      if (same == out.end())
        out.push_back({{extreme}, values});
      else if (std::find(same->extremes.begin(), same->extremes.end(), extreme) == same->extremes.end())
        same->extremes.push_back(extreme);
    }
  }
  return out;
}

// A pair of values of two parameters: (i, value of i, j, value of j), i < j.
using value_pair = std::tuple<std::size_t, int, std::size_t, int>;

std::vector<value_pair> pairs_of(const core::genome& g) {
  std::vector<value_pair> out;
  for (std::size_t i = 0; i < g.size(); ++i)
    for (std::size_t j = i + 1; j < g.size(); ++j) out.emplace_back(i, g[i], j, g[j]);
  return out;
}

// Points that, with `have` (the extremes), hold every pair of values of two parameters that a
// valid point can hold: a fault needs two parameters at once more often than one at an end of its
// range (stencil3d7's rows at once with streaming stores). Greedy: of many valid points drawn
// from a fixed seed, the one that holds the most pairs not yet held, until none holds a new one.
// `missing` gets how many pairs no point holds (a constraint may exclude them).
std::vector<point> pair_points(const core::search_space& space, const std::vector<point>& have, std::size_t& missing) {
  const auto& params = space.parameters();
  std::set<value_pair> open;
  for (std::size_t i = 0; i < params.size(); ++i)
    for (std::size_t j = i + 1; j < params.size(); ++j)
      for (int a = 0; a < static_cast<int>(params[i].values.size()); ++a)
        for (int b = 0; b < static_cast<int>(params[j].values.size()); ++b) open.emplace(i, a, j, b);
  for (const auto& p : have)
    if (const auto g = space.from_values(p.params))
      for (const auto& pr : pairs_of(*g)) open.erase(pr);
  std::vector<point> out;
  core::rng r(0x70616972);  // "pair": the same points on every run
  constexpr int draws = 200, most = 200;
  while (!open.empty() && static_cast<int>(out.size()) < most) {
    std::optional<core::genome> best;
    std::size_t best_new = 0;
    for (int d = 0; d < draws; ++d) {
      const auto g = space.sample(r, 1000);
      if (!g) break;
      std::size_t n = 0;
      for (const auto& pr : pairs_of(*g)) n += open.count(pr);
      if (n > best_new) best = g, best_new = n;
    }
    if (!best) break;
    for (const auto& pr : pairs_of(*best)) open.erase(pr);
    out.push_back({{"pairs #" + std::to_string(out.size() + 1)}, space.values(*best)});
  }
  missing = open.size();
  return out;
}

// "TILE_X=32 UNROLL=4 ...": a point in full, to build it again by hand.
std::string spelled_out(const point& p) {
  std::string out;
  for (const auto& [k, v] : p.params) out += (out.empty() ? "" : " ") + k + "=" + v;
  return out;
}

std::string file_hash(const std::filesystem::path& file) { return util::sha256().add(util::read_file(file.string())).hex(); }

class checklist {
 public:
  void result(const std::string& check, bool ok, const std::string& detail) {
    report::line("%s %s: %s", ok ? "ok  " : "FAIL", check.c_str(), detail.c_str());
    failed_ += ok ? 0 : 1;
  }
  void note(const std::string& check, const std::string& detail) { report::line("note %s: %s", check.c_str(), detail.c_str()); }
  int failed() const { return failed_; }

 private:
  int failed_ = 0;
};

// The evaluator a search uses, on the smallest fitness size, timing only a few runs.
eval::eval_settings check_settings(const families::family& f, int threads, std::size_t misalign) {
  eval::eval_settings s;
  s.threads = threads;
  s.checks.misalign_bytes = misalign;
  s.timing.min_repetitions = 3;
  s.timing.max_repetitions = 3;
  s.timing.time_cap_s = 0.5;
  s.compile_jobs = 0;
  double smallest = -1;
  for (const auto& p : f.fitness_sizes) {
    if (p.values.empty()) continue;  // a generator spec: its size is known only when generated
    const double bytes = f.bytes(p.values);
    if (smallest < 0 || bytes < smallest) smallest = bytes, s.fitness_size = p.name;
  }
  return s;
}

std::string describe(const eval::measurement& m) {
  return std::string(eval::status_name(m.status)) + (m.reason.empty() ? "" : ": " + m.reason);
}

}  // namespace

int check_family(const std::string& name, const std::vector<std::filesystem::path>& first_dirs, const std::string& backend) {
  const auto fam = families::load_family(name, families::default_search_path(first_dirs));
  if (backend != "cpu") throw error(fam.toml_file.string(), "family check runs the cpu backend only (got '" + backend + "')");
  const auto& b = fam.backend(backend);
  const auto space = fam.space(backend);
  std::vector<std::string> unreachable;
  const auto points = extreme_points(space, unreachable);
  std::size_t pairs_missing = 0;
  const auto paired = pair_points(space, points, pairs_missing);
  report::line(
      "family %s (%s), backend %s: %zu parameter(s), %zu extreme point(s), %zu more for every pair of values, %zu "
      "acceptance sizes",
      fam.name.c_str(), fam.toml_file.c_str(), backend.c_str(), b.params.size(), points.size(), paired.size(),
      fam.accept_sizes.size());
  checklist checks;
  for (const auto& u : unreachable) checks.result("extremes", false, u + " is in no valid point (a constraint excludes it)");

  const auto limits = eval::probe_machine().limits();
  std::random_device rd;
  const auto secret = (std::uint64_t{rd()} << 32) ^ rd();
  struct run_kind {
    const char* check;
    int threads;
    std::size_t misalign;
  };
  std::vector<eval::build_request> requests;  // the points as the evaluator builds them
  for (const run_kind& k :
       {run_kind{"extremes (1 thread)", 1, 0}, run_kind{"extremes (3 threads)", 3, 0}, run_kind{"misaligned pointers", 3, 8}}) {
    eval::evaluator ev(fam, backend, check_settings(fam, k.threads, k.misalign), limits, secret);
    if (requests.empty()) {
      std::string failed, unavailable;
      std::size_t correct = 0;
      for (const auto& bl : b.baselines) {
        const auto m = ev.evaluate(eval::baseline_from(bl));
        if (m.status == eval::candidate_status::ok)
          ++correct;
        else if (eval::unavailable_here(bl, m))
          unavailable += "; " + bl.name + " unavailable on this node (optional: " + eval::to_string(m.status) + ")";
        else
          failed += (failed.empty() ? "" : "; ") + bl.name + ": " + describe(m);
      }
      checks.result("baselines", failed.empty(),
                    failed.empty() ? std::to_string(correct) + " correct at every acceptance size" + unavailable : failed);
      for (const auto& p : points) requests.push_back(ev.build_request_for(eval::candidate_from(b.tmpl, p.params)));
    }
    std::string failed;
    for (const auto& p : points) {
      const auto m = ev.evaluate(eval::candidate_from(b.tmpl, p.params));
      if (m.status != eval::candidate_status::ok) failed += (failed.empty() ? "" : "; ") + p.label() + ": " + describe(m);
    }
    const std::string where = std::to_string(fam.accept_sizes.size()) + " acceptance sizes, timed at " + ev.fitness_description();
    checks.result(k.check, failed.empty(),
                  failed.empty() ? std::to_string(points.size()) + " points correct at " + where +
                                       (k.misalign ? ", every argument 8 bytes past a page boundary" : "")
                                 : failed);
    // Every pair of values of two parameters, once, with several threads.
    if (k.threads == 3 && k.misalign == 0 && b.params.size() >= 2) {
      std::string bad;
      for (const auto& p : paired) {
        const auto m = ev.evaluate(eval::candidate_from(b.tmpl, p.params));
        if (m.status != eval::candidate_status::ok)
          bad += (bad.empty() ? "" : "; ") + p.label() + " (" + spelled_out(p) + "): " + describe(m);
      }
      const std::string held = pairs_missing ? " (" + std::to_string(pairs_missing) + " pairs in no valid point drawn)" : "";
      checks.result("pairs (3 threads)", bad.empty(),
                    bad.empty() ? std::to_string(paired.size()) + " more points, with the extremes every pair of values" + held +
                                      ", correct at " + where
                                : bad);
    }
    // Whether each parameter changes what is built: its two extremes, the rest equal.
    if (k.threads == 1)
      for (const auto& param : b.params) {
        std::vector<std::size_t> at;
        for (std::size_t i = 0; i < points.size(); ++i)
          if (points[i].stands_for(param.name)) at.push_back(i);
        if (at.size() < 2) continue;
        auto others = [&](std::size_t i) {
          auto v = points[i].params;
          v.erase(param.name);
          return v;
        };
        const std::string check = "parameter " + param.name;
        if (others(at[0]) != others(at[1])) {
          checks.note(check, "its extremes need different values of other parameters: not compared");
          continue;
        }
        const auto x = ev.compiler().build(requests[at[0]]), y = ev.compiler().build(requests[at[1]]);
        if (!x.ok || !y.ok) continue;  // the extremes check above says why
        const std::string pair = param.name + "=" + points[at[0]].params.at(param.name) + " and " + param.name + "=" +
                                 points[at[1]].params.at(param.name);
        if (file_hash(x.shared_object) == file_hash(y.shared_object))
          checks.note(check, "the binary is the same at " + pair + ": the template does not use GLP_" + param.name +
                                 " (or the compiler folds it away)");
        else
          checks.result(check, true, "changes the binary (" + pair + ")");
      }
  }

  // AddressSanitizer, in a temporary folder of its own.
  const auto scratch = std::filesystem::temp_directory_path() / ("galapagos-family-check-" + std::to_string(getpid()));
  std::filesystem::create_directories(scratch);
  try {
    const std::string compiler = requests.empty() || requests[0].compiler.empty() ? "g++" : requests[0].compiler;
    if (!fam.generator_source.empty())
      checks.note("asan", "skipped: the family's inputs come from its [generator]");
    else if (!compiler_has_asan(compiler, scratch))
      checks.note("asan", "skipped: " + compiler + " does not build with -fsanitize=address here");
    else {
      std::string failed;
      for (std::size_t i = 0; i < points.size(); ++i) {
        const std::string problem = asan_run(fam, requests[i], scratch);
        if (!problem.empty()) failed += (failed.empty() ? "" : "; ") + points[i].label() + ": " + problem;
      }
      checks.result("asan", failed.empty(),
                    failed.empty() ? std::to_string(points.size()) +
                                         " points clean at every acceptance size (exactly-sized allocations, 3 threads)"
                                   : failed);
    }
  } catch (...) {
    std::error_code ignored;
    std::filesystem::remove_all(scratch, ignored);
    throw;
  }
  std::error_code ignored;
  std::filesystem::remove_all(scratch, ignored);
  report::line("%s: %s", fam.name.c_str(), checks.failed() ? "a check FAILED" : "every check passed");
  return checks.failed() ? 1 : 0;
}

}  // namespace galapagos::cli
