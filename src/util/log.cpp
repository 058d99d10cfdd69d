#include "util/log.hpp"

#include <spdlog/sinks/stdout_color_sinks.h>

namespace galapagos::util {

void setup_logging(int rank, verbosity v) {
  auto logger = spdlog::stderr_color_mt("galapagos");
  logger->set_pattern(rank >= 0 ? "[%H:%M:%S rank " + std::to_string(rank) + "] %^%l%$: %v"
                                : "[%H:%M:%S] %^%l%$: %v");
  switch (v) {
    case verbosity::quiet: logger->set_level(spdlog::level::warn); break;
    case verbosity::normal: logger->set_level(spdlog::level::info); break;
    case verbosity::verbose: logger->set_level(spdlog::level::debug); break;
  }
  spdlog::set_default_logger(logger);
}

}  // namespace galapagos::util
