// T4 results files (the open autotuning results schema, version 1.0.0): one result per
// measured configuration, as `tools/export_tuner_formats.py --t4` and Kernel Tuner write them.
// The objective is the measurement named by the first of a result's "objectives" ("time" when
// none are named); a result whose "invalidity" is not "correct" is a failed evaluation.
#include <cmath>
#include <map>
#include <set>

#include "simulate/recorded_space.hpp"
#include "simulate/space_formats.hpp"
#include "util/error.hpp"

namespace galapagos::simulate {

using nlohmann::json;

namespace {

// Seconds per unit, for a measurement's "unit" and the metadata's "timeunit"; 0 when unknown.
double seconds_per(const std::string& unit) {
  static const std::map<std::string, double> units = {
      {"s", 1.0},   {"sec", 1.0},           {"second", 1.0},        {"seconds", 1.0},
      {"ms", 1e-3}, {"millisecond", 1e-3},  {"milliseconds", 1e-3}, {"miliseconds", 1e-3},
      {"us", 1e-6}, {"microseconds", 1e-6}, {"ns", 1e-9},           {"nanoseconds", 1e-9}};
  const auto it = units.find(unit);
  return it == units.end() ? 0.0 : it->second;
}

}  // namespace

recorded_space read_t4_results(const std::filesystem::path& file) {
  const std::string p = file.string();
  const auto parsed = detail::parse_space_json(detail::read_space_bytes(file), p);
  if (!detail::looks_like_t4(parsed.doc))
    throw error(p, "expected T4 results (an object with \"results\"), found no \"results\"");
  return detail::t4_results_from(parsed.doc, p);
}

recorded_space detail::t4_results_from(const json& doc, const std::string& p) {
  const auto fail = [&](const std::string& field, const std::string& problem) -> void {
    throw error(p, "T4 results: " + field + ": " + problem);
  };
  if (doc.contains("schema_version") && doc["schema_version"] != "1.0.0")
    fail("schema_version", "unknown version " + doc["schema_version"].dump() + " (galapagos reads T4 1.0.0)");
  const auto& results = doc["results"];
  if (!results.is_array() || results.empty()) fail("results", "must be a non-empty array of results");
  double file_unit = 1.0;  // the times' unit
  if (doc.contains("metadata") && doc["metadata"].is_object() && doc["metadata"].contains("timeunit")) {
    const auto& u = doc["metadata"]["timeunit"];
    file_unit = u.is_string() ? seconds_per(u.get<std::string>()) : 0.0;
    if (file_unit == 0) fail("metadata.timeunit", "unknown unit " + u.dump() + " (seconds, milliseconds, microseconds)");
  }

  // Each result's values as text, and every parameter's distinct values.
  std::vector<std::map<std::string, std::string>> rows;
  std::map<std::string, std::set<std::string>> values;
  std::vector<recorded_point> measured;
  for (std::size_t r = 0; r < results.size(); ++r) {
    const std::string where = "results[" + std::to_string(r) + "]";
    const auto& res = results[r];
    if (!res.is_object()) fail(where, "must be an object");
    if (!res.contains("configuration") || !res["configuration"].is_object() || res["configuration"].empty())
      fail(where + ".configuration", "missing or not an object of parameter values");
    std::map<std::string, std::string> row;
    for (const auto& [name, v] : res["configuration"].items()) {
      const std::string t = value_text(v);
      if (t.empty() && !v.is_string()) fail(where + ".configuration." + name, "holds " + v.dump() + ", not a number or a string");
      row[name] = t;
    }
    if (!rows.empty() && (row.size() != rows.front().size() || !std::equal(row.begin(), row.end(), rows.front().begin(),
                                                                           [](auto& a, auto& b) { return a.first == b.first; })))
      fail(where + ".configuration", "names other parameters than results[0]");
    if (!res.contains("invalidity") || !res["invalidity"].is_string()) fail(where + ".invalidity", "missing or not a string");
    std::string objective = "time";
    if (res.contains("objectives")) {
      if (!res["objectives"].is_array() || res["objectives"].empty() || !res["objectives"][0].is_string())
        fail(where + ".objectives", "must be a non-empty array of measurement names");
      objective = res["objectives"][0].get<std::string>();
    }
    recorded_point pt;
    pt.status = res["invalidity"].get<std::string>();
    if (pt.status == "correct") {
      if (!res.contains("measurements") || !res["measurements"].is_array())
        fail(where + ".measurements", "missing or not an array");
      const json* m = nullptr;
      for (const auto& x : res["measurements"])
        if (x.is_object() && x.contains("name") && x["name"] == objective) m = &x;
      if (!m) fail(where + ".measurements", "has no measurement named '" + objective + "' (the objective)");
      const auto& v = (*m)["value"];
      double unit = file_unit;
      if (m->contains("unit")) {
        unit = (*m)["unit"].is_string() ? seconds_per((*m)["unit"].get<std::string>()) : 0.0;
        if (unit == 0) fail(where + ".measurements." + objective + ".unit", "unknown time unit " + (*m)["unit"].dump());
      }
      if (v.is_number() && std::isfinite(v.get<double>()) && v.get<double>() > 0) {
        pt.time_s = v.get<double>() * unit;
        pt.status = "ok";
      } else if (v.is_string() || v.is_null()) {  // "NaN", NaN and the like: a failure without a named cause
        pt.status = "no_value";
      } else {
        fail(where + ".measurements." + objective + ".value", "must be a positive number, got " + v.dump());
      }
    }
    // What measuring it cost: compilation, runtimes and validation, in the file's unit.
    double cost = 0;
    if (res.contains("times") && res["times"].is_object()) {
      const auto& t = res["times"];
      for (const char* field : {"compilation_time", "validation", "framework"})
        if (t.contains(field) && t[field].is_number()) cost += t[field].get<double>();
      if (t.contains("runtimes") && t["runtimes"].is_array())
        for (const auto& x : t["runtimes"])
          if (x.is_number()) cost += x.get<double>();
    }
    pt.cost_s = std::isfinite(cost) ? std::max(0.0, cost * file_unit) : 0.0;
    for (const auto& [k, v] : row) values[k].insert(v);
    rows.push_back(std::move(row));
    measured.push_back(pt);
  }
  std::vector<core::parameter> params;
  for (const auto& [name, vs] : values) {
    core::parameter prm{name, {vs.begin(), vs.end()}};
    sort_values(prm.values);
    params.push_back(std::move(prm));
  }
  const core::search_space lookup(params, nullptr);
  std::map<core::genome, recorded_point> points;
  for (std::size_t r = 0; r < rows.size(); ++r) points.emplace(*lookup.from_values(rows[r]), measured[r]);  // the first wins
  const std::string version = doc.contains("schema_version") ? doc["schema_version"].get<std::string>() : "unversioned";
  return recorded_space(p, "T4 results " + version, std::move(params), std::move(points));
}

}  // namespace galapagos::simulate
