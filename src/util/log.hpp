// One logger for the whole program (spdlog). Under MPI every line carries the rank.
#pragma once

#include <spdlog/spdlog.h>

#include "util/verbosity.hpp"

namespace galapagos::util {

// Sets up the default logger: "[rank N] message" to stderr; quiet shows warnings and errors only.
void setup_logging(int rank, verbosity v);

}  // namespace galapagos::util
