// The ledger (run/ledger.hpp) and what it reads: RAPL counters through a powercap folder (summed
// over packages, a wrapped counter corrected, an unreadable one said so), and a results file's
// candidates, calls and winner turned into the figures of /ledger, each adding up to its parts.
#include <unistd.h>

#include <gtest/gtest.h>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "config/run_config.hpp"
#include "eval/rapl.hpp"
#include "run/ledger.hpp"
#include "store/results_file.hpp"

namespace fs = std::filesystem;
using namespace galapagos;

namespace {

class ledger_test : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() / ("galapagos_ledger_" + std::to_string(getpid()) + "_" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  void write(const fs::path& p, const std::string& text) {
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
  }
  fs::path dir_;
};

double number(const store::attributes& a, const std::string& k) { return std::get<double>(a.at(k)); }
std::int64_t integer(const store::attributes& a, const std::string& k) { return std::get<std::int64_t>(a.at(k)); }
std::string text(const store::attributes& a, const std::string& k) { return std::get<std::string>(a.at(k)); }

}  // namespace

TEST_F(ledger_test, rapl_sums_packages_and_corrects_a_wrap) {
  write(dir_ / "intel-rapl:0" / "energy_uj", "5000000\n");
  write(dir_ / "intel-rapl:0" / "max_energy_range_uj", "10000000\n");
  write(dir_ / "intel-rapl:0:0" / "energy_uj", "999999999\n");  // a sub-zone: part of package 0
  write(dir_ / "intel-rapl:1" / "energy_uj", "2000000\n");
  write(dir_ / "intel-rapl:1" / "max_energy_range_uj", "10000000\n");
  const auto start = eval::read_rapl(dir_.string());
  ASSERT_EQ(start.packages, 2) << start.unavailable;
  EXPECT_DOUBLE_EQ(start.energy_j, 7.0);
  write(dir_ / "intel-rapl:0" / "energy_uj", "9000000\n");  // +4 J
  write(dir_ / "intel-rapl:1" / "energy_uj", "1000000\n");  // wrapped: +9 J
  const auto end = eval::read_rapl(dir_.string());
  EXPECT_DOUBLE_EQ(end.energy_j, 10.0);
  EXPECT_NEAR(eval::rapl_energy_between(start, end), 13.0, 1e-9);
}

TEST_F(ledger_test, rapl_unreadable_says_why) {
  const auto none = eval::read_rapl((dir_ / "missing").string());
  EXPECT_EQ(none.packages, 0);
  EXPECT_NE(none.unavailable.find("missing"), std::string::npos) << none.unavailable;
  fs::create_directories(dir_ / "intel-rapl:0");  // no energy_uj in it
  const auto unreadable = eval::read_rapl(dir_.string());
  EXPECT_EQ(unreadable.packages, 0);
  EXPECT_NE(unreadable.unavailable.find("energy_uj not readable"), std::string::npos) << unreadable.unavailable;
  EXPECT_TRUE(std::isnan(eval::rapl_energy_between(none, unreadable)));
}

TEST(line_range, parses_first_last_or_refuses) {
  int a = -1, b = -1;
  EXPECT_TRUE(config::parse_line_range("", a, b));
  EXPECT_EQ(a, 0);
  EXPECT_TRUE(config::parse_line_range("12-30", a, b));
  EXPECT_EQ(a, 12);
  EXPECT_EQ(b, 30);
  for (const char* bad : {"30-12", "0-3", "12", "-3", "a-b", "3-", "1-2-3"})
    EXPECT_FALSE(config::parse_line_range(bad, a, b)) << bad;
}

TEST_F(ledger_test, figures_add_up_from_the_file) {
  const std::string path = (dir_ / "run.h5").string();
  {
    auto f = store::results_file::create(path, {{"islands", std::int64_t{2}}});
    std::vector<store::candidate_row> rows(4);
    const char* status[] = {"ok", "wrong_result", "ok", "ok"};
    const double median[] = {3e-3, NAN, 2e-3, 2.5e-3};
    for (int i = 0; i < 4; ++i) {
      rows[i].id = i;
      rows[i].island = i % 2;
      rows[i].status = status[i];
      rows[i].time_median_s = median[i];
      rows[i].eval_time_s = 2.0;
      rows[i].compile_time_s = 0.5;
      rows[i].device_time_s = 1.0;
      rows[i].power_w = NAN;
    }
    f.append(rows);
    f.append(std::vector<store::machine_row>{{0, "a", "cpu", 8, 0, 0, 0, 0}, {1, "b", "cpu", 4, 0, 0, 0, 0}});
    store::llm_call_row call;
    call.prompt_tokens = 100, call.completion_tokens = 40, call.cost = 0;
    f.append(std::vector<store::llm_call_row>{call});
    f.set_attributes("/sessions/0", {{"wall_s", 30.0}, {"cpu_energy_j", 100.0}});
    f.close();
  }
  run::ledger_inputs in;
  in.results = path;
  in.backend = "cpu";
  in.session = 1;  // the second session: the first read from the file
  in.session_wall_s = 10;
  in.session_cpu_energy_j = 20;
  in.winner = {{"strings", {{"status", "ok"}, {"fastest_baseline", "plain"}}},
               {"numbers", {{"time_median_s", 2e-3}, {"baseline_plain_median_s", 3e-3}, {"energy_j", nullptr}}}};
  const auto a = run::compute_ledger(in);
  EXPECT_DOUBLE_EQ(number(a, "wall_time_s"), 40);
  EXPECT_EQ(integer(a, "sessions"), 2);
  EXPECT_EQ(integer(a, "evaluations"), 4);
  EXPECT_EQ(integer(a, "accepted"), 3);
  EXPECT_DOUBLE_EQ(number(a, "accepted_share"), 0.75);
  EXPECT_DOUBLE_EQ(number(a, "evaluating_s"), 8);
  EXPECT_DOUBLE_EQ(number(a, "device_busy_s"), 4);
  EXPECT_DOUBLE_EQ(number(a, "device_hours"), 4.0 / 3600);
  // Per row: device time x the island's cores + the rest of the evaluation + the compile.
  EXPECT_DOUBLE_EQ(number(a, "core_hours"), (2 * (8 + 1 + 0.5) + 2 * (4 + 1 + 0.5)) / 3600);
  EXPECT_EQ(integer(a, "improvements"), 2);  // 3 ms, then 2 ms; 2.5 ms is not better
  EXPECT_DOUBLE_EQ(number(a, "evaluations_per_improvement"), 2);
  EXPECT_DOUBLE_EQ(number(a, "cpu_energy_j"), 120);
  EXPECT_DOUBLE_EQ(number(a, "energy_j"), 120);
  EXPECT_TRUE(std::isnan(number(a, "gpu_energy_j")));
  EXPECT_NE(text(a, "gpu_energy_j_note").find("CPU run"), std::string::npos);
  EXPECT_EQ(integer(a, "prompt_tokens"), 100);
  EXPECT_TRUE(std::isnan(number(a, "money")));  // a call, and no price configured
  EXPECT_NE(text(a, "money_note").find("price"), std::string::npos);
  EXPECT_NEAR(number(a, "saving_per_call_s"), 1e-3, 1e-15);
  EXPECT_NEAR(number(a, "break_even_calls"), 4 / 1e-3, 1e-6);
  EXPECT_TRUE(std::isnan(number(a, "saving_per_call_j")));
  EXPECT_TRUE(std::isnan(number(a, "break_even_calls_energy")));

  // A slower winner never pays off; an earlier session without RAPL makes CPU energy unavailable.
  in.winner["numbers"]["time_median_s"] = 4e-3;
  in.session_cpu_energy_j = NAN;
  in.cpu_energy_note = "RAPL unavailable: test";
  const auto b = run::compute_ledger(in);
  EXPECT_TRUE(std::isnan(number(b, "break_even_calls")));
  EXPECT_NE(text(b, "break_even_calls_note").find("never pays off"), std::string::npos);
  EXPECT_TRUE(std::isnan(number(b, "cpu_energy_j")));
  EXPECT_EQ(text(b, "cpu_energy_j_note"), "RAPL unavailable: test");
  EXPECT_TRUE(std::isnan(number(b, "energy_j")));
}
