#include "results_context.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <regex>

#include "eval/candidate_status.hpp"
#include "util/build_info.hpp"
#include "util/error.hpp"

namespace galapagos::cli {

namespace {

std::vector<int> version_numbers(const std::string& v) {
  std::vector<int> out;
  static const std::regex number("[0-9]+");
  for (auto it = std::sregex_iterator(v.begin(), v.end(), number); it != std::sregex_iterator() && out.size() < 3; ++it)
    out.push_back(std::atoi(it->str().c_str()));
  out.resize(3, 0);
  return out;
}

}  // namespace

store::results_reader open_results(const std::string& path) {
  if (!std::filesystem::exists(path)) throw error(path, "no such file");
  if (std::filesystem::is_directory(path)) throw error(path, "is a folder, not a results file");
  if (!store::results_reader::is_hdf5(path)) throw error(path, "not an HDF5 file, so not a galapagos results file");
  auto f = store::results_reader::open(path);
  const auto version = f.string_attribute("/", "galapagos_version");
  if (!version || !f.has("/candidates"))
    throw error(path, "not a galapagos results file (no root attribute galapagos_version or no /candidates table)");
  f.integers("/candidates", "id");  // every chunk of the table is read (and its checksum checked) once here
  if (version_numbers(*version) > version_numbers(build_info::version))
    throw error(path, "written by galapagos " + *version + ", newer than this galapagos " + build_info::version +
                          ": read it with galapagos " + *version + " or later");
  return f;
}

run_context read_run(const store::results_reader& f, std::string family, std::string backend) {
  run_context r;
  r.path = f.path();
  r.version = f.string_attribute("/", "galapagos_version").value_or("");
  const auto text = f.string_attribute("/", "config_toml");
  if (!text) throw error(r.path, "no root attribute config_toml: not a galapagos results file");
  const std::filesystem::path config_file = f.string_attribute("/", "config_file").value_or(r.path);
  r.config = config::parse_run_config(*text, config_file, r.path + " (its stored config)");
  if (family.empty()) family = f.string_attribute("/", "family").value_or(r.config.family);
  r.backend = backend.empty() ? f.string_attribute("/", "backend").value_or(r.config.backend) : backend;
  r.family = families::load_family(family, families::default_search_path(r.config.kernel_paths));
  r.fitness = f.string_attribute("/", "fitness_size").value_or("");
  const auto ids = f.integers("/candidates", "id");
  const auto islands = f.integers("/candidates", "island");
  const auto generations = f.integers("/candidates", "generation");
  const auto origins = f.strings("/candidates", "origin");
  const auto statuses = f.strings("/candidates", "status");
  const auto reasons = f.strings("/candidates", "reason");
  const auto params = f.strings("/candidates", "params");
  const auto hashes = f.strings("/candidates", "source_hash");
  const auto median = f.numbers("/candidates", "time_median_s");
  const auto min = f.numbers("/candidates", "time_min_s");
  const auto spread = f.numbers("/candidates", "time_spread_s");
  const auto reps = f.integers("/candidates", "repetitions");
  const auto rel = f.numbers("/candidates", "rel_error");
  const auto speedup = f.numbers("/candidates", "speedup");
  for (std::size_t i = 0; i < ids.size(); ++i)
    r.candidates.push_back({ids[i], static_cast<int>(islands[i]), static_cast<int>(generations[i]), origins[i], statuses[i],
                            reasons[i], params[i], hashes[i], median[i], min[i], spread[i], rel[i], speedup[i],
                            static_cast<int>(reps[i])});
  return r;
}

std::vector<candidate_record> successful(const run_context& r) {
  std::vector<candidate_record> ok;
  std::map<std::string, int> counts;
  for (const auto& c : r.candidates) {
    ++counts[c.status];
    if (eval::stored_ok(c.status)) ok.push_back(c);
  }
  if (ok.empty()) {
    std::string what;
    for (const auto& [status, n] : counts) what += (what.empty() ? "" : ", ") + status + " " + std::to_string(n);
    throw error(r.path, "no candidate succeeded (" + std::to_string(r.candidates.size()) + " candidates" +
                            (what.empty() ? "" : ": " + what) + "): nothing to export");
  }
  std::sort(ok.begin(), ok.end(), [](const auto& a, const auto& b) {
    return a.time_median_s < b.time_median_s || (a.time_median_s == b.time_median_s && a.id < b.id);
  });
  return ok;
}

std::optional<std::string> stored_source(const std::string& path, const std::string& hash) {
  return store::results_reader::open(path).source(hash);
}

std::optional<families::sizes> sizes_in(const families::family& f, const std::string& description) {
  families::sizes s;
  for (const auto& sym : f.symbols) {
    const std::regex one("(^|[ (])" + sym + "=(-?[0-9]+)");
    std::optional<std::int64_t> last;
    for (auto it = std::sregex_iterator(description.begin(), description.end(), one); it != std::sregex_iterator(); ++it)
      last = std::stoll((*it)[2].str());
    if (!last) return std::nullopt;
    s.push_back(*last);
  }
  return s;
}

std::vector<std::string> describe_accept_sizes(const families::family& f) {
  std::vector<std::string> out;
  for (const auto& a : f.accept_sizes) out.push_back(a.generator_spec.empty() ? f.describe_size(a.values) : a.generator_spec);
  return out;
}

}  // namespace galapagos::cli
