// The progress display: plain lines for logs, one line redrawn in place on a terminal, --quiet
// and --verbose, and the time-left estimate.
#include <gtest/gtest.h>

#include <unistd.h>
#include <cmath>
#include <cstdio>
#include <string>

#include "run/progress.hpp"

using namespace galapagos::run;

namespace {

generation_status status(int gen, int evaluated, int failed, double best_s, double wall_s) {
  generation_status s;
  s.island = 1;
  s.generation = gen;
  s.evaluated = evaluated;
  s.failed = failed;
  s.budget = 40;
  s.best_time_s = best_s;
  s.best_speedup = std::isfinite(best_s) ? 2e-3 / best_s : std::nan("");
  s.baseline = "openmp_plain";
  s.wall_s = wall_s;
  return s;
}

// Everything a display wrote to a temporary file (the console's output, at level v).
template <class F>
std::string written(verbosity v, bool live, F body) {
  std::FILE* f = std::tmpfile();
  galapagos::report::configure(v, f, f);
  {
    progress_display d(v, live);
    body(d);
  }
  galapagos::report::configure(verbosity::normal);
  std::rewind(f);
  std::string out;
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) out.append(buf, n);
  std::fclose(f);
  return out;
}

}  // namespace

TEST(progress, time_left_is_the_rest_of_the_budget_at_the_pace_so_far) {
  EXPECT_DOUBLE_EQ(progress_display::seconds_left(status(2, 10, 0, 1e-3, 20.0)), 60.0);
  EXPECT_DOUBLE_EQ(progress_display::seconds_left(status(9, 40, 0, 1e-3, 80.0)), 0.0);
  EXPECT_TRUE(std::isnan(progress_display::seconds_left(status(0, 0, 0, INFINITY, 0.0))));
  EXPECT_EQ(format_duration(59.6), "1m00s");
  EXPECT_EQ(format_duration(3725), "1h02m");
  EXPECT_EQ(format_duration(std::nan("")), "-");
}

TEST(progress, plain_line_keeps_the_log_format_and_adds_budget_and_time_left) {
  const std::string line = progress_display::plain_line(status(3, 10, 2, 1e-3, 20.0));
  EXPECT_EQ(line,
            "island 1 gen 3: evaluated 10 (failed 2) | best 1.000 ms | search-time 2.00x over openmp_plain | 25% of budget, "
            "1m00s left");
  EXPECT_NE(progress_display::plain_line(status(1, 3, 3, INFINITY, 1.0)).find("best - |"), std::string::npos);
}

TEST(progress, batch_logs_get_one_plain_line_per_generation_and_the_failures) {
  const std::string out = written(verbosity::normal, false, [](progress_display& d) {
    d.candidate(1, 7, "compile_error", "error: x was not declared", NAN, "{}");
    d.candidate(1, 8, "ok", "", 1e-3, R"({"T":4})");  // correct candidates only when verbose
    d.generation(status(1, 8, 1, 1e-3, 4.0));
    d.generation(status(2, 16, 1, 1e-3, 8.0));
  });
  EXPECT_EQ(out, "island 1: candidate 7 compile_error: error: x was not declared\n" +
                     progress_display::plain_line(status(1, 8, 1, 1e-3, 4.0)) + "\n" +
                     progress_display::plain_line(status(2, 16, 1, 1e-3, 8.0)) + "\n");
  EXPECT_EQ(out.find('\r'), std::string::npos);
}

// Every other line of the console goes above a status line, on stdout and stderr alike, and
// each level shows what it promises.
TEST(progress, the_console_prints_each_level_and_keeps_the_status_line_at_the_bottom) {
  std::FILE* f = std::tmpfile();
  auto text = [&] {
    std::fflush(f);
    std::rewind(f);
    std::string out;
    char buf[4096];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) out.append(buf, n);
    std::rewind(f);
    if (ftruncate(fileno(f), 0) != 0) ADD_FAILURE() << "cannot empty the temporary file";
    return out;
  };
  namespace report = galapagos::report;
  for (auto v : {verbosity::quiet, verbosity::normal, verbosity::verbose}) {
    report::configure(v, f, f);
    report::line("winner %d", 7);
    report::progress("gen %s", "2");
    report::detail("candidate %.1f", 1.5);
    report::problem("galapagos: %s", "bad");
    const std::string want = std::string("winner 7\n") + (v != verbosity::quiet ? "gen 2\n" : "") +
                             (v == verbosity::verbose ? "candidate 1.5\n" : "") + "galapagos: bad\n";
    EXPECT_EQ(text(), want) << "level " << static_cast<int>(v);
  }
  report::configure(verbosity::normal, f, f);
  report::status("gen 1");
  report::line("results: %s", "x.h5");
  report::status("gen 2");
  report::end_status();
  report::end_status();  // nothing more: the line is ended once
  EXPECT_EQ(text(), "\r\033[Kgen 1\r\033[Kresults: x.h5\n\r\033[Kgen 1\r\033[Kgen 2\n");
  report::configure(verbosity::normal);
  std::fclose(f);
}

TEST(progress, a_terminal_gets_one_line_redrawn_in_place) {
  const std::string out = written(verbosity::normal, true, [](progress_display& d) {
    d.generation(status(1, 8, 0, 2e-3, 4.0));
    d.candidate(1, 9, "crash", "signal 11", NAN, "{}");  // printed above the live line
    d.generation(status(2, 16, 1, 1e-3, 8.0));
  });
  const std::string first = progress_display::live_line(status(1, 8, 0, 2e-3, 4.0));
  const std::string second = progress_display::live_line(status(2, 16, 1, 1e-3, 8.0));
  EXPECT_EQ(out,
            "\r\033[K" + first + "\r\033[Kisland 1: candidate 9 crash: signal 11\n\r\033[K" + first + "\r\033[K" + second + "\n");
  EXPECT_NE(second.find("evaluated 16/40, failed 1"), std::string::npos);
  EXPECT_NE(second.find("best 1.000 ms (search-time 2.00x)"), std::string::npos);
  EXPECT_NE(second.find("| ETA 12s"), std::string::npos);
  EXPECT_LT(second.size(), 80u);  // fits a default terminal
}

TEST(progress, quiet_prints_nothing_and_verbose_prints_every_candidate_without_redrawing) {
  EXPECT_EQ(written(verbosity::quiet, true,
                    [](progress_display& d) {
                      d.candidate(0, 1, "crash", "signal 11", NAN, "{}");
                      d.generation(status(1, 8, 1, 1e-3, 4.0));
                    }),
            "");
  progress_display live_but_verbose(verbosity::verbose, true);
  EXPECT_FALSE(live_but_verbose.live());
  const std::string out = written(verbosity::verbose, true, [](progress_display& d) {
    d.candidate(0, 1, "ok", "", 1.5e-3, R"({"T":4})");
    d.generation(status(1, 8, 0, 1.5e-3, 4.0));
  });
  EXPECT_EQ(out,
            "island 0: candidate 1 ok: 1.500 ms {\"T\":4}\n" + progress_display::plain_line(status(1, 8, 0, 1.5e-3, 4.0)) + "\n");
}
