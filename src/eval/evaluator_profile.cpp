// Profiling a candidate under Nsight Compute (GPU backends): metrics for the report and the
// proposers, never for the fitness.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "eval/evaluator_impl.hpp"
#include "util/error.hpp"

namespace galapagos::eval {

using namespace detail;

namespace {

// What the report and the proposers read of a profiled elite: its kernels' time, achieved DRAM
// bandwidth, SM and memory throughput, achieved occupancy, registers per thread and local-memory
// traffic (register spills and local arrays).
const char* const profile_metrics =
    "gpu__time_duration.sum,dram__bytes.sum.per_second,dram__throughput.avg.pct_of_peak_sustained_elapsed,"
    "sm__throughput.avg.pct_of_peak_sustained_elapsed,gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed,"
    "sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,"
    "l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum,l1tex__t_bytes_pipe_lsu_mem_local_op_st.sum";

std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> out;
  std::string cur;
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char ch = line[i];
    if (quoted) {
      if (ch == '"' && i + 1 < line.size() && line[i + 1] == '"')
        cur += '"', ++i;
      else if (ch == '"')
        quoted = false;
      else
        cur += ch;
    } else if (ch == '"') {
      quoted = true;
    } else if (ch == ',') {
      out.push_back(std::move(cur));
      cur.clear();
    } else if (ch != '\r') {
      cur += ch;
    }
  }
  out.push_back(std::move(cur));
  return out;
}

// A number as the profiler prints it ("1,234.5"); NaN when it is not one.
double profiler_number(std::string text) {
  text.erase(std::remove(text.begin(), text.end(), ','), text.end());
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  return end && end != text.c_str() && *end == '\0' ? v : std::numeric_limits<double>::quiet_NaN();
}

std::string find_program(const std::string& name) {
  if (name.find('/') != std::string::npos) return access(name.c_str(), X_OK) == 0 ? name : "";
  std::string path = std::getenv("PATH") ? std::getenv("PATH") : "";
  path += ":/usr/local/cuda/bin";
  std::stringstream dirs(path);
  for (std::string dir; std::getline(dirs, dir, ':');)
    if (!dir.empty() && access((dir + "/" + name).c_str(), X_OK) == 0) return dir + "/" + name;
  return "";
}

}  // namespace

bool evaluator::can_profile() const {
  return toolchain_.gpu_vendor == "nvidia" && settings_.profile_elites > 0 && !find_program(settings_.profiler).empty();
}

std::vector<profile_metric> evaluator::profile(const candidate_source& c, std::string& why) {
  const std::string ncu = find_program(settings_.profiler);
  if (toolchain_.gpu_vendor != "nvidia" || ncu.empty()) {
    why = "no profiler '" + settings_.profiler + "' for the " + backend_ + " backend";
    return {};
  }
  std::string log = (settings_.scratch_dir / "galapagos-profile-XXXXXX").string();
  const int fd = mkstemp(log.data());
  if (fd < 0) {
    why = "cannot create a file for the profiler's report in " + settings_.scratch_dir.string();
    return {};
  }
  close(fd);
  struct remove_at_exit {
    std::string path;
    ~remove_at_exit() { std::remove(path.c_str()); }
  } cleanup{log};
  // The card's clocks stay as they are (--clock-control none): the metrics describe the same
  // conditions the timings were taken in.
  const std::vector<std::string> launcher = {
      ncu,   "--clock-control", "none",          "--profile-from-start", "off", "--target-processes", "all", "--csv", "--page",
      "raw", "--metrics",       profile_metrics, "--log-file",           log};
  measurement m;
  auto s = open(c, m, nullptr, launcher, true);
  if (!s) {
    why = "the candidate did not start under the profiler: " + to_string(m.status) + ": " + m.reason;
    return {};
  }
  problem& p = *timing_problem_;
  if (p.instance() == 0) p.fill(next_seed(), 0);  // the inputs of the last timing serve: nothing is verified here
  p.stage();
  protocol::request q = p.run_request();
  if (!request(*s, protocol::request_kind::stage, &q, m) || !request(*s, protocol::request_kind::flush, nullptr, m)) {
    why = "staging under the profiler failed: " + to_string(m.status) + ": " + m.reason;
    return {};
  }
  q.kind = protocol::request_kind::run;
  q.flags |= protocol::run_profiled | protocol::run_setup_first;  // setup runs outside the capture range
  const double replay_allowance = 50;                             // the profiler replays each kernel once per metric pass
  const auto r = s->worker->call(q, settings_.timeout_s * replay_allowance);
  if (!r.replied || r.reply.status != protocol::reply_status::ok) {
    why = "the profiled run failed: " + (r.replied ? std::string(r.reply.message) : to_string(r.status) + ": " + r.reason);
    return {};
  }
  if (!s->worker->finish(settings_.timeout_s * replay_allowance)) {
    why = "the profiler did not finish cleanly";
    return {};
  }
  std::ifstream in(log);
  std::vector<std::string> header, units;
  std::vector<profile_metric> out;
  int launch = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("\"ID\"", 0) == 0) {
      header = split_csv(line);
      continue;
    }
    if (header.empty() || line.empty() || line[0] != '"') continue;
    const auto cells = split_csv(line);
    if (cells.size() != header.size()) continue;
    if (cells[0].empty()) {  // the row of units under the header
      units = cells;
      continue;
    }
    std::string kernel;
    for (std::size_t i = 0; i < header.size(); ++i)
      if (header[i] == "Kernel Name") kernel = cells[i];
    for (std::size_t i = 0; i < header.size(); ++i) {
      // The raw page also lists the device's attributes and launch details: keep what was asked.
      if (("," + std::string(profile_metrics) + ",").find("," + header[i] + ",") == std::string::npos) continue;
      out.push_back({kernel, launch, header[i], i < units.size() ? units[i] : "", profiler_number(cells[i])});
    }
    ++launch;
  }
  if (out.empty()) why = "the profiler reported no kernel launch of the candidate";
  return out;
}

}  // namespace galapagos::eval
