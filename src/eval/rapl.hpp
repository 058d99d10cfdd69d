// The CPU packages' energy counters (Intel RAPL through the powercap interface,
// /sys/class/powercap/intel-rapl:N/energy_uj): what a search spent on the CPU side of a node.
// Often not readable (root only since CVE-2020-8694, or no RAPL in a container or VM): then the
// reading says why, and the ledger marks CPU energy unavailable with that reason.
#pragma once

#include <string>
#include <vector>

namespace galapagos::eval {

struct rapl_reading {
  double energy_j = 0;            // summed over the packages, since an arbitrary origin
  std::vector<double> package_j;  // each package's counter
  std::vector<double> range_j;    // each one's wrap-around range (max_energy_range_uj; 0: unknown)
  int packages = 0;               // 0: unavailable
  std::string unavailable;        // why nothing could be read; empty when packages > 0
};

// Reads every top-level package counter under `root` (the powercap folder).
rapl_reading read_rapl(const std::string& root = "/sys/class/powercap");

// Joules spent between two readings of the same packages; NaN when either is unavailable or
// they read different packages. Each package's counter that wrapped once is corrected by its range.
double rapl_energy_between(const rapl_reading& start, const rapl_reading& end);

}  // namespace galapagos::eval
