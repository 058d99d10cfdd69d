#include "simulate/recorded_space.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>

#include "simulate/space_formats.hpp"
#include "store/results_reader.hpp"
#include "util/error.hpp"
#include "util/params_json.hpp"
#include "util/unreadable.hpp"

namespace galapagos::simulate {

namespace {

double finite_or_zero(double v) { return std::isfinite(v) ? v : 0.0; }

// The recorded points in order: the space's listed valid points.
std::vector<core::genome> genomes(const std::map<core::genome, recorded_point>& points) {
  std::vector<core::genome> out;
  out.reserve(points.size());
  for (const auto& [g, pt] : points) out.push_back(g);
  return out;
}

}  // namespace

recorded_space::recorded_space(std::string origin, std::string format, std::vector<core::parameter> params,
                               std::map<core::genome, recorded_point> points)
    : origin_(std::move(origin)),
      format_(std::move(format)),
      points_(std::make_shared<const std::map<core::genome, recorded_point>>(std::move(points))),
      space_(
          std::move(params), [p = points_](const core::genome& g) { return p->contains(g); }, genomes(*points_)) {
  for (const auto& [g, pt] : *points_)
    if (pt.time_s < optimum_s_) {
      optimum_s_ = pt.time_s;
      optimum_ = g;
    }
}

const recorded_point* recorded_space::find(const core::genome& g) const {
  const auto it = points_->find(g);
  return it == points_->end() ? nullptr : &it->second;
}

std::size_t recorded_space::failed() const {
  return static_cast<std::size_t>(
      std::count_if(points_->begin(), points_->end(), [](const auto& kv) { return !std::isfinite(kv.second.time_s); }));
}

recorded_space read_galapagos_results(const std::filesystem::path& file) {
  const std::string p = file.string();
  const auto f = store::results_reader::open(p);
  if (!f.string_attribute("/", "galapagos_version"))
    throw error(p, "not a galapagos results file (no galapagos_version attribute)");
  const auto params = f.strings("/candidates", "params");
  const auto status = f.strings("/candidates", "status");
  const auto origin = f.strings("/candidates", "origin");
  const auto median = f.numbers("/candidates", "time_median_s");
  const auto compile = f.numbers("/candidates", "compile_time_s");
  const auto eval_time = f.numbers("/candidates", "eval_time_s");
  // Each candidate's values as text, and every parameter's distinct values.
  std::vector<std::map<std::string, std::string>> rows;
  std::map<std::string, std::set<std::string>> values;
  for (std::size_t r = 0; r < params.size(); ++r) {
    if (status[r] == "not_recorded" || origin[r] == "winner_recheck") continue;
    auto decoded = util::params_from_json(params[r]);
    if (!decoded) throw error(p, "/candidates row " + std::to_string(r) + ": params is not a JSON object of strings and numbers");
    auto row = std::move(*decoded);
    if (!rows.empty() && row.size() != rows.front().size())
      throw error(p, "/candidates row " + std::to_string(r) + ": params names other parameters than row 0 (a mixed recording)");
    for (const auto& [k, v] : row) values[k].insert(v);
    rows.push_back(std::move(row));
  }
  if (rows.empty()) throw error(p, "/candidates: no measured candidates to replay");
  std::vector<core::parameter> space;
  for (const auto& [name, vs] : values) {
    core::parameter prm{name, {vs.begin(), vs.end()}};
    detail::sort_values(prm.values);
    space.push_back(std::move(prm));
  }
  const core::search_space lookup(space, nullptr);
  std::map<core::genome, recorded_point> points;
  std::size_t row = 0;
  for (std::size_t r = 0; r < params.size(); ++r) {
    if (status[r] == "not_recorded" || origin[r] == "winner_recheck") continue;
    const auto g = lookup.from_values(rows[row++]);
    if (!g)
      throw error(p, "/candidates row " + std::to_string(r) + ": params names other parameters than row 0 (a mixed recording)");
    recorded_point pt;
    pt.status = status[r];
    pt.time_s = status[r] == "ok" && std::isfinite(median[r]) ? median[r] : std::numeric_limits<double>::infinity();
    // eval_time_s is the wall time of evaluator::evaluate, the build included.
    pt.cost_s = std::isfinite(eval_time[r]) ? eval_time[r] : finite_or_zero(compile[r]);
    points.emplace(*g, pt);  // the first measurement of a point wins, as in replay
  }
  return recorded_space(p, "galapagos results", std::move(space), std::move(points));
}

recorded_space read_recorded_space(const std::filesystem::path& file) {
  std::ifstream in = util::open_for_reading(file, detail::recorded_space_kinds);
  char head[8] = {};
  in.read(head, sizeof head);
  static const char hdf5[8] = {'\x89', 'H', 'D', 'F', '\r', '\n', '\x1a', '\n'};
  if (in.gcount() == 8 && std::equal(head, head + 8, hdf5)) return read_galapagos_results(file);
  // JSON, plain or gzip-compressed: a T4 results file has "results", a Kernel Tuner cache "cache".
  const auto parsed = detail::parse_space_json(detail::read_space_bytes(file), file.string());
  if (detail::looks_like_t4(parsed.doc)) return detail::t4_results_from(parsed.doc, file.string());
  return detail::kernel_tuner_cache_from(parsed.doc, file.string(), parsed.closed_here);
}

}  // namespace galapagos::simulate
