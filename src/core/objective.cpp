#include "core/objective.hpp"

#include <cmath>
#include <limits>

namespace galapagos::core {

const char* to_string(objective o) {
  switch (o) {
    case objective::energy:
      return "energy";
    case objective::edp:
      return "edp";
    case objective::time:
      break;
  }
  return "time";
}

std::optional<objective> parse_objective(const std::string& text) {
  for (const objective o : {objective::time, objective::energy, objective::edp})
    if (text == to_string(o)) return o;
  return std::nullopt;
}

const char* fitness_unit(objective o) { return o == objective::time ? "s" : o == objective::energy ? "J" : "J*s"; }

bool needs_energy(objective o) { return o != objective::time; }

double fitness_of(objective o, double time_s, double energy_j) {
  const auto usable = [](double v) { return std::isfinite(v) && v > 0; };
  const double inf = std::numeric_limits<double>::infinity();
  if (!usable(time_s)) return inf;
  if (o == objective::time) return time_s;
  if (!usable(energy_j)) return inf;
  return o == objective::energy ? energy_j : energy_j * time_s;
}

}  // namespace galapagos::core
