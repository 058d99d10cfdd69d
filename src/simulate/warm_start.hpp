// Warm start (docs/strategies.md, "Warm start"): the points of earlier recordings — galapagos
// results files, Kernel Tuner caches, T4 results, plain or gzip-compressed — as individuals of
// the search space a run or a simulation explores, for core::strategy::warm_start.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "core/island.hpp"
#include "core/search_space.hpp"

namespace galapagos::simulate {

struct warm_start_source {
  std::string origin, format;  // the file, and what it was read as
  std::size_t recorded = 0;    // its points
  std::size_t mapped = 0;      // of them, distinct valid points of the space
};

struct warm_start_points {
  std::vector<core::individual> points;  // fitness: the time relative to its file's median (+inf: failed)
  std::vector<warm_start_source> sources;
  // "warm start: 190 of 192 points of gemm-cpu.h5 (galapagos results), ..." for the log.
  std::string summary() const;
};

// Reads each file and maps its points into `space`: parameters are matched by name, values by
// their text or, when both are numbers, by value. A parameter the file has and the space lacks
// is dropped (of the points that then coincide, the fastest is kept); a point with a value the
// space does not list, or outside its constraints, is left out. Each file's times are divided by
// its median time, so that recordings of faster and slower devices mix; a point in several files
// keeps its fastest relative time. Throws galapagos::error naming the file when it cannot be
// read, lacks one of the space's parameters, or none of its points lies in the space.
warm_start_points read_warm_start(const std::vector<std::filesystem::path>& files, const core::search_space& space);

}  // namespace galapagos::simulate
