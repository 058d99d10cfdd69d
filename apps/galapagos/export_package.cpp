#include "export_package.hpp"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>
#include <regex>
#include <set>
#include <sstream>

#include "run/progress.hpp"
#include "util/error.hpp"

namespace galapagos::cli {

using nlohmann::json;
using run::format_seconds;

namespace {

// A value in [v - v/8, v + v/8], never v itself, at least 1.
std::int64_t nearby(std::int64_t v, std::mt19937_64& r) {
  const std::int64_t span = std::max<std::int64_t>(1, v / 8);
  std::int64_t d = 0;
  while (d == 0) d = std::uniform_int_distribution<std::int64_t>(-span, span)(r);
  return std::max<std::int64_t>(1, v + d);
}

std::string fixed(double v, const char* format) {
  char buf[64];
  if (!std::isfinite(v)) return "-";
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

// A number of evidence.json: null (not measured) reads as NaN.
double number(const json& j) { return j.is_null() ? NAN : j.get<double>(); }

// A parameter value as written in a #define and in the page.
std::string value_text(const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

}  // namespace

std::vector<families::problem_spec> held_out_problems(const families::family& f, std::uint64_t seed) {
  std::mt19937_64 r(seed);
  std::set<families::sizes> used;
  std::set<std::string> used_specs;
  for (const auto* list : {&f.accept_sizes, &f.fitness_sizes})
    for (const auto& p : *list) {
      if (p.generator_spec.empty())
        used.insert(p.values);
      else
        used_specs.insert(p.generator_spec);
    }
  std::vector<families::problem_spec> out;
  static const std::regex size_key("\\b(n|nx|ny|nz|rows)=([0-9]+)\\b");
  for (const auto& a : f.accept_sizes) {
    for (int attempt = 0; attempt < 100; ++attempt) {
      if (a.generator_spec.empty()) {
        families::sizes s = a.values;
        for (auto& v : s) v = nearby(v, r);
        if (used.insert(s).second) {
          out.push_back({"held-out", s, ""});
          break;
        }
      } else {
        if (a.generator_spec.rfind("mtx:", 0) == 0) break;
        std::string spec;
        std::size_t at = 0;
        for (auto it = std::sregex_iterator(a.generator_spec.begin(), a.generator_spec.end(), size_key);
             it != std::sregex_iterator(); ++it) {
          spec += a.generator_spec.substr(at, static_cast<std::size_t>(it->position()) - at);
          spec += (*it)[1].str() + "=" + std::to_string(nearby(std::stoll((*it)[2].str()), r));
          at = static_cast<std::size_t>(it->position() + it->length());
        }
        spec += a.generator_spec.substr(at);
        const std::string kind = spec.substr(0, spec.find(' '));
        if (kind == "random" || kind == "powerlaw") {  // a fresh matrix, not only a new size
          const std::string fresh = "seed=" + std::to_string(std::uniform_int_distribution<int>(2, 999999)(r));
          static const std::regex seed_key("\\bseed=[0-9]+");
          spec = std::regex_search(spec, seed_key) ? std::regex_replace(spec, seed_key, fresh) : spec + " " + fresh;
        }
        if (used_specs.insert(spec).second) {
          out.push_back({"held-out", {}, spec});
          break;
        }
      }
    }
  }
  return out;
}

std::string describe(const families::family& f, const families::problem_spec& p) {
  return p.generator_spec.empty() ? f.describe_size(p.values) : p.generator_spec;
}

std::string with_parameters(const std::string& text, const json& params, std::int64_t id, const std::string& run) {
  if (params.empty()) return text;
  std::string block = "// galapagos: the parameters of candidate " + std::to_string(id) + " of " + run + "\n";
  for (const auto& [k, v] : params.items()) block += "#define GLP_" + k + " " + value_text(v) + "\n";
  std::istringstream in(text);
  std::string line, head, rest;
  bool in_head = true;
  while (std::getline(in, line)) {
    if (in_head && line.rfind("//", 0) != 0) in_head = false;
    (in_head ? head : rest) += line + "\n";
  }
  if (!text.empty() && text.back() != '\n') rest.pop_back();
  return head + block + rest;
}

std::string shell_quote(const std::string& s) {
  if (!s.empty() &&
      s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+=/.,:@%") == std::string::npos)
    return s;
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

void write_file(const std::filesystem::path& p, const std::string& text, bool executable) {
  std::ofstream o(p, std::ios::binary);
  o << text;
  o.close();
  if (!o) throw error(p.string(), "cannot write");
  if (executable)
    std::filesystem::permissions(
        p, std::filesystem::perms::owner_exec | std::filesystem::perms::group_exec | std::filesystem::perms::others_exec,
        std::filesystem::perm_options::add);
}

std::string evidence_markdown(const json& evidence, const std::string& source_name, const std::string& template_path) {
  const json& search = evidence.at("search");
  const json& held = evidence.at("held_out");
  const bool passed = evidence.at("verdict") == "verified";
  const auto accept = search.at("accept_sizes").get<std::vector<std::string>>();
  const auto held_desc = held.at("problems").get<std::vector<std::string>>();
  const int seeds = search.at("seeds_per_size").get<int>(), held_seeds = held.at("seeds_per_problem").get<int>();
  const double t_median = number(search.at("time_median_s")), t_spread = number(search.at("time_spread_s"));
  const std::string status = held.at("status"), reason = held.at("reason");
  std::ostringstream md;
  md << "# " << (passed ? "Evidence" : "FLAGGED") << ": " << evidence.at("family").get<std::string>() << " on "
     << evidence.at("backend").get<std::string>() << ", candidate " << evidence.at("candidate_id").get<std::int64_t>() << "\n\n";
  if (!passed)
    md << "**Do not merge.** This candidate passed the search's checks but fails on problems the search never used:\n"
       << "`" << status << "`: " << reason << "\n\n";
  md << "From `" << evidence.at("results_file").get<std::string>() << "` (galapagos "
     << evidence.at("run_galapagos_version").get<std::string>() << "), island " << evidence.at("island").get<int>()
     << ", generation " << evidence.at("generation").get<int>() << ", origin " << evidence.at("origin").get<std::string>()
     << (evidence.at("is_winner").get<bool>() ? ", the run's winner" : "") << ".\n\n"
     << "## Parameters\n\n";
  for (const auto& [k, v] : evidence.at("params").items()) md << "- `" << k << "` = " << value_text(v) << "\n";
  md << "\n## In the search\n\n"
     << "- checked against the reference at " << accept.size() << " acceptance sizes x " << seeds
     << (seeds == 1 ? " seed: " : " seeds: ") <<
      [&] {
        std::string s;
        for (const auto& a : accept) s += (s.empty() ? "" : "; ") + a;
        return s;
      }()
     << "\n"
     << "- timed at " << search.at("fitness").get<std::string>() << " (" << search.at("method").get<std::string>() << ")\n"
     << "- error against the reference: " << fixed(number(search.at("rel_error")), "%.3e") << " (tolerance "
     << search.at("tolerance").get<double>() << ")\n"
     << "- time: median " << format_seconds(t_median) << ", min " << format_seconds(number(search.at("time_min_s"))) << ", IQR "
     << format_seconds(t_spread) << " (" << fixed(100 * t_spread / t_median, "%.1f") << "% of the median) over "
     << fixed(number(search.at("repetitions")), "%.0f") << " runs\n";
  // The run's winner has the final figures (timed side by side with each baseline); any other
  // candidate only the search's, against the baselines as timed at the start of the run.
  const char* measured = evidence.at("is_winner").get<bool>()
                             ? "; final interleaved comparison, timed side by side with the winner"
                             : " as timed at the start of the run; search-time figure";
  for (const auto& [name, s] : search.at("speedup_over").items())
    md << "- speedup over " << name << ": "
       << (s["speedup"].is_null() ? std::string("- (baseline failed)") : fixed(s["speedup"].get<double>(), "%.2fx"))
       << " (baseline " << (s["baseline_median_s"].is_null() ? "-" : format_seconds(s["baseline_median_s"].get<double>()))
       << measured << ")\n";
  if (const json outcome = search.value("outcome", json()); outcome.is_object() && !outcome.at("beat_baseline").get<bool>())
    md << "- **no candidate beat " << outcome.at("fastest_baseline").get<std::string>()
       << "**: in the run's final interleaved comparison the winner was not faster; keep the baseline\n";
  md << "\n## Held-out check (now)\n\n"
     << "- " << held_desc.size() << " problems the search never used x " << held_seeds << " fresh secret input seed"
     << (held_seeds == 1 ? "" : "s") << " each: ";
  for (std::size_t i = 0; i < held_desc.size(); ++i) md << (i ? "; " : "") << held_desc[i];
  md << "\n- result: **" << status << "**" << (reason.empty() ? "" : ": " + reason) << "\n"
     << "- error against the reference: " << fixed(number(held.at("rel_error")), "%.3e") << " over "
     << held.at("verified_runs").get<int>() << " verified runs\n";
  if (passed)
    md << "- time again at " << held.at("fitness").get<std::string>() << ": median "
       << format_seconds(number(held.at("time_median_s"))) << ", IQR " << format_seconds(number(held.at("time_spread_s")))
       << " over " << held.at("repetitions").get<int>() << " runs\n";
  md << "\n## Files\n\n"
     << "- `" << source_name << "`: the source, its parameters written in as #defines\n"
     << "- `" << source_name << ".diff`: against the family's template `" << template_path << "`\n"
     << "- `build.sh`: the exact build command and flags\n"
     << "- `reproduce.sh`: `galapagos eval` on the exported source with the run's config (`config.toml`)\n"
     << "- `evidence.json`: all of the above, for tools\n";
  return md.str();
}

}  // namespace galapagos::cli
