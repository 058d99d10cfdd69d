#include "simulate/strategy_config.hpp"

#include "config/search_tables.hpp"
#include "util/toml_reader.hpp"

namespace galapagos::simulate {

simulation_settings read_simulation_config(const std::filesystem::path& file, int islands) {
  const toml::table doc = util::parse_toml_file(file);
  config::search_settings search;
  config::read_search_tables(util::toml_section(doc, file.string(), ""), search);
  simulation_settings out;
  out.budget = search.budget;
  out.seed = search.seed;
  out.topology = search.migration.topology;
  out.degree = search.migration.degree;
  out.interval = search.migration.interval;
  out.count = search.migration.count;
  out.warm_start_files = search.warm_start;
  out.islands.clear();
  for (int i = 0; i < islands; ++i) {
    core::strategy_settings s = search.strategy;
    s.kind = search.strategy_of(i);
    out.islands.push_back(s);
  }
  return out;
}

}  // namespace galapagos::simulate
