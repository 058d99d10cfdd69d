// Kernel Tuner cache files (JSON): the unversioned caches of older Kernel Tuner releases and the
// schema versions 1.0.0, 1.0.1 and 1.1.0 (kernel_tuner/schema/cache/<version>/schema.json).
// A cache maps "v1,v2,..." (the values of tune_params_keys, in order, as Python's str() writes
// them) to an entry whose "time" is the objective in milliseconds or a failure marker.
#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "simulate/recorded_space.hpp"
#include "simulate/space_formats.hpp"
#include "util/error.hpp"

namespace galapagos::simulate {

using nlohmann::json;

namespace {

// A value as it appears in a cache key: Python's str() of the tune_params element.
std::string key_text(const json& v) { return detail::value_text(v); }

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string part;
  std::istringstream in(s);
  while (std::getline(in, part, sep)) out.push_back(part);
  if (!s.empty() && s.back() == sep) out.emplace_back();
  return out;
}

const std::set<std::string> failure_markers = {"InvalidConfig", "CompilationFailedConfig", "RuntimeFailedConfig"};

}  // namespace

const std::vector<std::string>& kernel_tuner_versions() {
  static const std::vector<std::string> v = {"1.0.0", "1.0.1", "1.1.0"};
  return v;
}

recorded_space read_kernel_tuner_cache(const std::filesystem::path& file) {
  const std::string p = file.string();
  const auto parsed = detail::parse_space_json(detail::read_space_bytes(file), p);
  if (detail::looks_like_t4(parsed.doc))
    throw error(p, "T4 results, not a Kernel Tuner cache (it has \"results\", no \"cache\")");
  return detail::kernel_tuner_cache_from(parsed.doc, p, parsed.closed_here);
}

recorded_space detail::kernel_tuner_cache_from(const json& doc, const std::string& p, bool closed_here) {
  if (!doc.is_object()) throw error(p, "not a Kernel Tuner cache: the document is not a JSON object");
  const auto fail = [&](const std::string& field, const std::string& problem) -> void { throw error(p, field + ": " + problem); };

  std::string version = "unversioned";
  if (doc.contains("schema_version")) {
    const auto& v = doc["schema_version"];
    const auto& known = kernel_tuner_versions();
    if (!v.is_string() || std::find(known.begin(), known.end(), v.get<std::string>()) == known.end())
      fail("schema_version", "unknown version " + v.dump() + " (galapagos reads 1.0.0, 1.0.1, 1.1.0 and unversioned caches)");
    version = v.get<std::string>();
  }
  const bool versioned = version != "unversioned";
  const auto fields = {"tune_params_keys", "tune_params", "cache"};
  if (std::none_of(fields.begin(), fields.end(), [&](const char* f) { return doc.contains(f); }))
    throw error(p,
                "neither a Kernel Tuner cache (it has no \"tune_params_keys\", \"tune_params\" or \"cache\") "
                "nor T4 results (no \"results\")");
  for (const char* field : fields)
    if (!doc.contains(field)) fail(field, "missing");
  if (doc.contains("objective") && !doc["objective"].is_string()) fail("objective", "must be a string");

  const auto& keys = doc["tune_params_keys"];
  if (!keys.is_array() || keys.empty()) fail("tune_params_keys", "must be a non-empty array of parameter names");
  std::vector<core::parameter> params;
  std::set<std::string> names;
  for (const auto& k : keys) {
    if (!k.is_string()) fail("tune_params_keys", "holds " + k.dump() + ", not a parameter name");
    if (!names.insert(k.get<std::string>()).second) fail("tune_params_keys", "names '" + k.get<std::string>() + "' twice");
    params.push_back({k.get<std::string>(), {}});
  }
  const auto& lists = doc["tune_params"];
  if (!lists.is_object()) fail("tune_params", "must be an object of value lists");
  for (const auto& [name, list] : lists.items())
    if (!names.contains(name)) fail("tune_params", "has a list for '" + name + "', which tune_params_keys does not name");
  for (auto& prm : params) {
    if (!lists.contains(prm.name)) fail("tune_params", "has no list for '" + prm.name + "' of tune_params_keys");
    const auto& list = lists[prm.name];
    if (!list.is_array() || list.empty()) fail("tune_params." + prm.name, "must be a non-empty array of values");
    std::set<std::string> seen;
    for (const auto& v : list) {
      const std::string t = key_text(v);
      if (t.empty() && !v.is_string()) fail("tune_params." + prm.name, "holds " + v.dump() + ", not a number or a string");
      if (!seen.insert(t).second) fail("tune_params." + prm.name, "lists the value " + v.dump() + " twice");
      prm.values.push_back(t);
    }
  }

  const auto& cache = doc["cache"];
  if (!cache.is_object()) fail("cache", "must be an object of entries");
  std::map<core::genome, recorded_point> points;
  for (const auto& [key, entry] : cache.items()) {
    const std::string where = "cache[\"" + key + "\"]";
    const auto parts = split(key, ',');
    if (parts.size() != params.size())
      fail(where,
           "the key has " + std::to_string(parts.size()) + " values, tune_params_keys names " + std::to_string(params.size()));
    if (!entry.is_object()) fail(where, "must be an object");
    core::genome g(params.size());
    for (std::size_t i = 0; i < params.size(); ++i) {
      const auto& vals = params[i].values;
      const auto it = std::find(vals.begin(), vals.end(), parts[i]);
      if (it == vals.end())
        fail(where, "value '" + parts[i] + "' of '" + params[i].name + "' is not in tune_params." + params[i].name);
      g[i] = static_cast<int>(it - vals.begin());
      if (entry.contains(params[i].name) && key_text(entry[params[i].name]) != parts[i])
        fail(where + "." + params[i].name, entry[params[i].name].dump() + " disagrees with the key's " + parts[i]);
    }
    if (!entry.contains("time")) fail(where + ".time", "missing");
    recorded_point pt;
    const auto& t = entry["time"];
    if (t.is_string()) {
      if (!failure_markers.contains(t.get<std::string>()))
        fail(where + ".time",
             "unknown failure marker " + t.dump() + " (InvalidConfig, CompilationFailedConfig, RuntimeFailedConfig)");
      pt.status = t.get<std::string>();
    } else if (t.is_number()) {
      const double ms = t.get<double>();
      // Old Kernel Tuner releases recorded failed points with a huge time.
      if (std::isfinite(ms) && ms > 0 && ms < 1e19) {
        pt.time_s = ms * 1e-3;
        pt.status = "ok";
      } else {
        pt.status = "failed";
      }
    } else if (t.is_null()) {  // NaN in the file (Python writes it for a float nan): no time measured
      pt.status = "failed";
    } else {
      fail(where + ".time", "must be a number of milliseconds or a failure marker");
    }
    // What measuring the point cost: its compile, verification and benchmark times (ms).
    double cost_ms = 0;
    bool any = false;
    for (const char* field : {"compile_time", "verification_time", "benchmark_time"}) {
      if (!entry.contains(field)) {
        if (versioned) fail(where + "." + field, "missing (required by cache schema " + version + ")");
        continue;
      }
      if (entry[field].is_null()) continue;  // NaN in the file: not known
      if (!entry[field].is_number()) fail(where + "." + field, "must be a number of milliseconds");
      cost_ms += entry[field].get<double>();
      any = true;
    }
    if (!any && entry.contains("times") && entry["times"].is_array())
      for (const auto& x : entry["times"])
        if (x.is_number()) cost_ms += x.get<double>();
    pt.cost_s = std::max(0.0, cost_ms) * 1e-3;
    if (!points.emplace(g, pt).second) fail(where, "the same point as another key");
  }
  if (points.empty()) fail("cache", "has no entries: nothing to replay");
  const std::string format =
      "Kernel Tuner cache " + version + (closed_here ? " (unfinished run, closed as Kernel Tuner closes it)" : "");
  return recorded_space(p, format, std::move(params), std::move(points));
}

}  // namespace galapagos::simulate
