#include "simulate/warm_start.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "simulate/recorded_space.hpp"
#include "simulate/space_formats.hpp"
#include "util/error.hpp"
#include "util/stats.hpp"

namespace galapagos::simulate {

namespace {

// The index of `text` among `values` (by text, else by numeric value); -1 when absent.
int index_of(const std::vector<std::string>& values, const std::string& text) {
  for (std::size_t i = 0; i < values.size(); ++i)
    if (values[i] == text) return static_cast<int>(i);
  double want = 0, have = 0;
  if (!detail::parse_number(text, want)) return -1;
  for (std::size_t i = 0; i < values.size(); ++i)
    if (detail::parse_number(values[i], have) && have == want) return static_cast<int>(i);
  return -1;
}

std::string names(const std::vector<core::parameter>& params) {
  std::string out;
  for (const auto& p : params) out += (out.empty() ? "" : ", ") + p.name;
  return out;
}

double median_time(const recorded_space& r) {
  std::vector<double> t;
  for (const auto& [g, pt] : r.points())
    if (std::isfinite(pt.time_s)) t.push_back(pt.time_s);
  if (t.empty()) return 1.0;
  std::sort(t.begin(), t.end());
  return util::quantile_of_sorted(t, 0.5);
}

// Records `rel` for g, keeping the fastest when g is there already.
void keep_fastest(std::map<core::genome, double>& points, const core::genome& g, double rel) {
  auto [it, fresh] = points.emplace(g, rel);
  if (!fresh) it->second = std::min(it->second, rel);
}

}  // namespace

std::string warm_start_points::summary() const {
  std::string out = "warm start:";
  for (std::size_t i = 0; i < sources.size(); ++i)
    out += (i ? ", " : " ") + std::to_string(sources[i].mapped) + " of " + std::to_string(sources[i].recorded) + " points of " +
           sources[i].origin + " (" + sources[i].format + ")";
  return out;
}

warm_start_points read_warm_start(const std::vector<std::filesystem::path>& files, const core::search_space& space) {
  warm_start_points out;
  std::map<core::genome, double> best;  // relative time per mapped point
  const auto& params = space.parameters();
  for (const auto& file : files) {
    const auto rec = read_recorded_space(file);
    const auto& theirs = rec.space().parameters();
    // Per parameter of the space: its position in the file's genomes.
    std::vector<std::size_t> column(params.size());
    for (std::size_t i = 0; i < params.size(); ++i) {
      const auto it =
          std::find_if(theirs.begin(), theirs.end(), [&](const core::parameter& p) { return p.name == params[i].name; });
      if (it == theirs.end())
        throw error(rec.origin(), "warm start: has no parameter '" + params[i].name + "' of the search space (it has " +
                                      names(theirs) + "; the space has " + names(params) + ")");
      column[i] = static_cast<std::size_t>(it - theirs.begin());
    }
    const double scale = median_time(rec);
    std::map<core::genome, double> mine;
    for (const auto& [g, pt] : rec.points()) {
      core::genome here(params.size());
      bool inside = true;
      for (std::size_t i = 0; i < params.size() && inside; ++i) {
        here[i] = index_of(params[i].values, theirs[column[i]].values[static_cast<std::size_t>(g[column[i]])]);
        inside = here[i] >= 0;
      }
      if (!inside || !space.is_valid(here)) continue;
      keep_fastest(mine, here, pt.time_s / scale);  // +inf stays +inf
    }
    if (mine.empty())
      throw error(rec.origin(), "warm start: none of its " + std::to_string(rec.size()) +
                                    " points lies in the search space (values or constraints differ)");
    out.sources.push_back({rec.origin(), rec.format(), rec.size(), mine.size()});
    for (const auto& [g, rel] : mine) keep_fastest(best, g, rel);
  }
  for (const auto& [g, rel] : best) out.points.push_back({g, rel, -1, 0});
  return out;
}

}  // namespace galapagos::simulate
