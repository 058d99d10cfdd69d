// What a search minimises ([search] objective, docs/configuration.md): the time of one call (the
// default), the energy of one call, or their product, the energy-delay product. Energy is
// measured only where the hardware reports it (GPUs with NVML or ROCm SMI); the config refuses a
// non-time objective elsewhere.
#pragma once

#include <optional>
#include <string>

namespace galapagos::core {

enum class objective { time, energy, edp };

// "time", "energy", "edp", and back (nullopt for any other text).
const char* to_string(objective o);
std::optional<objective> parse_objective(const std::string& text);
// The unit of the fitness under `o`: "s", "J", "J*s".
const char* fitness_unit(objective o);
bool needs_energy(objective o);

// The fitness of a correct candidate under `o` (smaller is better): time_s, energy_j, or
// energy_j * time_s. +inf when a figure it needs is not a positive finite number (energy not
// measured: NaN), so such a candidate never wins.
double fitness_of(objective o, double time_s, double energy_j);

}  // namespace galapagos::core
