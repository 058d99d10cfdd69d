// A recorded search space: every point that was measured, with its time and what measuring it
// cost, so that strategies can be replayed against it without running kernels. Read from a
// galapagos results file of an exhaustive run, a Kernel Tuner cache file or T4 results (JSON).
//
// The points of the recording are the valid ones: restrictions are inferred from which points
// were recorded. A point recorded as failed (a compile error, a crash, Kernel Tuner's
// InvalidConfig, CompilationFailedConfig, RuntimeFailedConfig) is valid and costs an
// evaluation, with the fitness +inf.
#pragma once

#include <filesystem>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/search_space.hpp"

namespace galapagos::simulate {

struct recorded_point {
  double time_s = std::numeric_limits<double>::infinity();  // +inf = failed
  double cost_s = 0.0;                                      // what measuring it took: compile + evaluation time, seconds
  std::string status;                                       // "ok" or why it failed
};

class recorded_space {
 public:
  // `params` lists each parameter's values in their order (the local searches step between
  // neighbouring values); every point's genome indexes them.
  recorded_space(std::string origin, std::string format, std::vector<core::parameter> params,
                 std::map<core::genome, recorded_point> points);

  const core::search_space& space() const { return space_; }
  const std::string& origin() const { return origin_; }  // the file
  const std::string& format() const { return format_; }  // "galapagos results" or "Kernel Tuner cache <version>"
  const std::map<core::genome, recorded_point>& points() const { return *points_; }
  const recorded_point* find(const core::genome& g) const;
  std::size_t size() const { return points_->size(); }
  std::size_t failed() const;
  // The best recorded time and its point (+inf and an empty genome when every point failed).
  double optimum_s() const { return optimum_s_; }
  const core::genome& optimum() const { return optimum_; }

 private:
  std::string origin_, format_;
  std::shared_ptr<const std::map<core::genome, recorded_point>> points_;
  core::search_space space_;
  double optimum_s_ = std::numeric_limits<double>::infinity();
  core::genome optimum_;
};

// Throw galapagos::error "<file>: <field>: <problem>" for anything that cannot be read.
recorded_space read_galapagos_results(const std::filesystem::path& file);
// A Kernel Tuner cache: plain or gzip-compressed JSON; the cache of an interrupted run (left
// without its closing braces) is closed as Kernel Tuner closes it, and says so in format().
recorded_space read_kernel_tuner_cache(const std::filesystem::path& file);
// T4 results (JSON schema 1.0.0, plain or gzip-compressed), as `export` writes them for Kernel
// Tuner users: each parameter's values are those that occur; a configuration not listed is
// outside the space.
recorded_space read_t4_results(const std::filesystem::path& file);
// Any of the three, told apart by the file's first bytes (HDF5 signature or JSON) and the JSON's
// fields ("results": T4, else a Kernel Tuner cache).
recorded_space read_recorded_space(const std::filesystem::path& file);

// The Kernel Tuner cache schema versions read (besides unversioned caches).
const std::vector<std::string>& kernel_tuner_versions();

}  // namespace galapagos::simulate
