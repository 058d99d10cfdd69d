// galapagos watch FILE [--interval S] [--once]: a live summary of a run's results file while the
// run writes it. The run publishes FILE whole at every checkpoint (store/publish.hpp), so each
// refresh opens the latest complete copy read-only in a reading process of its own
// (store::results_reader) and asks the lock only whether it is held (F_GETLK): the writer is
// never waited for nor slowed. It ends with the run (when its lock is let go): finished, stopped
// (a stop rule, a signal, the job's end) or gone without either.
#include <unistd.h>

#include <algorithm>
#include <boost/program_options.hpp>
#include <chrono>
#include <cmath>
#include <ctime>
#include <filesystem>
#include <optional>
#include <thread>

#include "commands.hpp"
#include "eval/candidate_status.hpp"
#include "options.hpp"
#include "run/progress.hpp"
#include "store/results_reader.hpp"
#include "store/results_target.hpp"
#include "util/error.hpp"
#include "util/report.hpp"

namespace po = boost::program_options;

namespace galapagos::cli {

namespace {

// What one refresh read from the file.
struct run_state {
  std::int64_t islands = 0, budget = 0, evaluated = 0, failed = 0;
  std::vector<std::int64_t> generations;  // per island (0: none completed yet)
  double best_time_s = NAN, best_speedup = NAN, best_roofline = NAN;
  std::string baseline, started_utc, ended_utc, stop_reason;
  bool finished = false;
  double winner_time_s = NAN, winner_speedup = NAN;
};

// Seconds since the epoch of an ISO 8601 UTC stamp ("2026-12-02T14:03:53Z"); nullopt when it is not one.
std::optional<double> epoch_s(const std::string& utc) {
  std::tm t{};
  const char* end = strptime(utc.c_str(), "%Y-%m-%dT%H:%M:%S", &t);
  if (!end) return std::nullopt;
  return static_cast<double>(timegm(&t));
}

template <class T>
std::vector<T> field_or_empty(const store::results_reader& f,
                              std::vector<T> (store::results_reader::*get)(const std::string&, const std::string&) const,
                              const std::string& field) {
  try {
    return (f.*get)("/candidates", field);
  } catch (const std::exception&) {  // an older file without the column: the figure is left out
    return {};
  }
}

run_state read_state(const std::string& path) {
  const auto f = store::results_reader::open(path);
  run_state s;
  if (!f.has("/candidates") || !f.attribute("/", "galapagos_version"))
    throw galapagos::error(path, "not a galapagos results file (no root attribute galapagos_version or no /candidates table)");
  s.islands = f.integer_attribute("/", "islands").value_or(1);
  s.finished = f.flag_attribute("/", "finished").value_or(false);
  if (f.has("/checkpoint")) s.budget = f.integer_attribute("/checkpoint", "budget").value_or(0);
  for (std::int64_t i = 0; i < s.islands; ++i) {
    const std::string group = "/checkpoint/island_" + std::to_string(i);
    s.generations.push_back(f.has(group) ? f.integer_attribute(group, "generation").value_or(0) : 0);
  }
  const auto status = f.strings("/candidates", "status");
  const auto time = f.numbers("/candidates", "time_median_s");
  const auto speedup = field_or_empty(f, &store::results_reader::numbers, "speedup");
  const auto roofline = field_or_empty(f, &store::results_reader::numbers, "roofline_fraction");
  s.evaluated = static_cast<std::int64_t>(status.size());
  for (std::size_t i = 0; i < status.size(); ++i) {
    if (!eval::stored_ok(status[i])) {
      ++s.failed;
      continue;
    }
    if (i < time.size() && std::isfinite(time[i]) && !(time[i] >= s.best_time_s)) {
      s.best_time_s = time[i];
      s.best_speedup = i < speedup.size() ? speedup[i] : NAN;
      s.best_roofline = i < roofline.size() ? roofline[i] : NAN;
    }
  }
  int last = -1;
  while (f.has("/sessions/" + std::to_string(last + 1))) ++last;
  if (last >= 0) {
    const std::string session = "/sessions/" + std::to_string(last);
    s.started_utc = f.string_attribute(session, "started_utc").value_or("");
    s.ended_utc = f.string_attribute(session, "ended_utc").value_or("");
    s.stop_reason = f.string_attribute(session, "stop_reason").value_or("");
    s.baseline = f.string_attribute(session, "fastest_baseline").value_or("");
  }
  if (s.finished && f.has("/winner")) {
    s.winner_time_s = f.number_attribute("/winner", "time_median_s").value_or(NAN);
    s.winner_speedup = f.number_attribute("/winner", "speedup").value_or(NAN);
    s.baseline = f.string_attribute("/winner", "fastest_baseline").value_or(s.baseline);
  }
  return s;
}

std::string summary(const std::string& path, const run_state& s) {
  std::string gens;
  const auto [lo, hi] = std::minmax_element(s.generations.begin(), s.generations.end());
  if (s.generations.size() <= 8) {
    for (auto g : s.generations) gens += (gens.empty() ? "" : ", ") + std::to_string(g);
    gens = "[" + gens + "]";
  } else {
    gens = std::to_string(*lo) + "-" + std::to_string(*hi) + " over " + std::to_string(s.generations.size()) + " islands";
  }
  std::string text = path + ": generations " + gens + ", evaluated " + std::to_string(s.evaluated);
  if (s.budget > 0) text.append("/").append(std::to_string(s.budget * s.islands));
  text.append(" (").append(std::to_string(s.failed)).append(" failed)");
  if (std::isfinite(s.best_time_s)) {
    text += ", best " + run::format_seconds(s.best_time_s);
    char buf[96];
    if (std::isfinite(s.best_speedup)) {
      std::snprintf(buf, sizeof buf, " %.2fx over %s", s.best_speedup,
                    s.baseline.empty() ? "the fastest baseline" : s.baseline.c_str());
      text += buf;
    }
    if (std::isfinite(s.best_roofline)) {
      std::snprintf(buf, sizeof buf, ", roofline %.0f%%", 100 * s.best_roofline);
      text += buf;
    }
  } else {
    text += ", no correct candidate yet";
  }
  const auto start = epoch_s(s.started_utc);
  const auto end = s.ended_utc.empty() ? std::optional<double>(static_cast<double>(std::time(nullptr))) : epoch_s(s.ended_utc);
  if (start && end) text += ", elapsed " + run::format_duration(*end - *start);
  return text;
}

}  // namespace

int watch_command(const std::vector<std::string>& args) {
  po::options_description opts("galapagos watch FILE");
  opts.add_options()("help,h", "this help")("interval", po::value<double>()->default_value(5), "seconds between refreshes")(
      "once", "print one summary and exit");
  po::variables_map vm;
  const int code = parse_command_line("watch", args, opts, "file", vm, [](const po::variables_map& given) {
    if (!given.count("file")) throw po::error("a results FILE is required (the --out of a running or finished run)");
    const double s = given["interval"].as<double>();
    if (!(s >= 0.1 && s <= 3600)) throw po::error("--interval must be between 0.1 and 3600 seconds");
  });
  if (code >= 0) return code;
  const std::string path = vm["file"].as<std::string>();
  const auto interval = std::chrono::duration<double>(vm["interval"].as<double>());
  const bool terminal = isatty(STDOUT_FILENO) == 1;
  const auto show = [&](const std::string& text) {
    if (terminal)
      report::status(text);
    else
      report::line("%s", text.c_str());
  };
  for (;;) {
    // The lock first: a writer gone before the file is read has published its last copy.
    const bool writing = store::results_writer_active(path);
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) {
      if (!writing || vm.count("once")) {
        if (terminal) report::end_status();
        report::problem("galapagos watch: %s: no such file%s", path.c_str(),
                        writing ? " yet (its run is starting)" : " (and no run writes it)");
        return 2;
      }
      show(path + ": waiting for the run's first checkpoint");
      std::this_thread::sleep_for(interval);
      continue;
    }
    run_state s;
    try {
      s = read_state(path);
    } catch (const std::exception& e) {
      if (terminal) report::end_status();
      report::problem("galapagos watch: %s", e.what());
      return 2;
    }
    show(summary(path, s));
    if (vm.count("once")) {
      if (terminal) report::end_status();
      return 0;
    }
    // Ended only once no run holds the lock: a file still marked finished by an earlier run that
    // `run --force` or `resume --budget` is taking up again keeps being watched.
    if (!writing) {
      if (terminal) report::end_status();
      if (s.finished) {
        char buf[160] = "no correct candidate";
        if (std::isfinite(s.winner_time_s))
          std::snprintf(buf, sizeof buf, "winner %s, %.2fx over %s (final interleaved comparison)",
                        run::format_seconds(s.winner_time_s).c_str(), s.winner_speedup, s.baseline.c_str());
        report::line("finished: %s", buf);
        return 0;
      }
      if (!s.stop_reason.empty()) {
        report::line("stopped (%s): continue with galapagos resume %s", s.stop_reason.c_str(), path.c_str());
        return 0;
      }
      report::line("ended without finishing: no galapagos writes %s any more (killed?); galapagos resume %s continues it",
                   path.c_str(), path.c_str());
      return 1;
    }
    std::this_thread::sleep_for(interval);
  }
}

}  // namespace galapagos::cli
