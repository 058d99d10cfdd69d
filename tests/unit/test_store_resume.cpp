// What resuming a run needs from the store and the checkpoint: appending to a results file that
// was closed, reading it back field by field, texts rewritten in place without growing the file,
// publication over the target, island snapshots and genomes through their parameter values.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "core/island.hpp"
#include "core/search_space.hpp"
#include "run/checkpoint.hpp"
#include "run/records.hpp"
#include "run/setup.hpp"
#include "store/publish.hpp"
#include "store/results_file.hpp"
#include "store/results_reader.hpp"
#include "util/error.hpp"

namespace fs = std::filesystem;
using namespace galapagos;

namespace {

fs::path scratch(const std::string& name) {
  const auto dir = fs::temp_directory_path() / ("galapagos_store_resume_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir / name;
}

store::candidate_row candidate(std::int64_t id, const std::string& params) {
  store::candidate_row r;
  r.id = id;
  r.island = static_cast<std::int32_t>(id % 2);
  r.status = id % 3 ? "ok" : "crash";
  r.params = params;
  r.time_median_s = 1e-3 * static_cast<double>(id);
  return r;
}

std::string expect_error(const std::function<void()>& f) {
  try {
    f();
  } catch (const galapagos::error& e) {
    return e.what();
  }
  ADD_FAILURE() << "no galapagos::error";
  return "";
}

}  // namespace

TEST(StoreResume, AppendsAfterReopeningAndReadsFieldsBack) {
  const auto path = scratch("reopen.h5").string();
  {
    auto f = store::results_file::create(path, {{"galapagos_version", "9.9"}});
    f.append(std::vector<store::candidate_row>{candidate(1, R"({"A":1})"), candidate(2, R"({"A":"x y"})")});
    f.set_attribute("/checkpoint", "generation", 3);
    f.close();
  }
  {
    auto f = store::results_file::open(path);
    f.append(std::vector<store::candidate_row>{candidate(3, R"({"A":3})")});
    f.set_attributes("/", {{"finished", true}});
  }
  const auto r = store::results_reader::open(path);
  EXPECT_EQ(r.rows("/candidates"), 3u);
  EXPECT_EQ(r.integers("/candidates", "id"), (std::vector<std::int64_t>{1, 2, 3}));
  EXPECT_EQ(r.integers("/candidates", "island"), (std::vector<std::int64_t>{1, 0, 1}));
  EXPECT_EQ(r.strings("/candidates", "params")[1], R"({"A":"x y"})");
  EXPECT_EQ(r.strings("/candidates", "status"), (std::vector<std::string>{"ok", "ok", "crash"}));
  EXPECT_DOUBLE_EQ(r.numbers("/candidates", "time_median_s")[2], 3e-3);
  EXPECT_EQ(r.string_attribute("/", "galapagos_version"), "9.9");
  EXPECT_EQ(r.string_attribute("/", "finished"), "true");
  EXPECT_EQ(r.number_attribute("/checkpoint", "generation"), 3.0);
  EXPECT_FALSE(r.number_attribute("/checkpoint", "absent").has_value());
  EXPECT_FALSE(r.string_attribute("/no/such/group", "x").has_value());
  EXPECT_TRUE(r.has("/checkpoint"));
  EXPECT_FALSE(r.has("/checkpoint/island_0/rng_state"));
  EXPECT_NE(expect_error([&] { r.integers("/candidates", "no_such_field"); }).find("has no field 'no_such_field'"),
            std::string::npos);
  EXPECT_NE(expect_error([&] { r.rows("/no_table"); }).find("no table /no_table"), std::string::npos);
}

// Attributes are stored in the type of their kind, and read back as any kind whichever form the
// file holds them in: schema 1 wrote root attributes and a few others as texts, group counters
// as doubles.
TEST(StoreResume, AttributesReadBackTypedAndFromTheirOldForms) {
  const auto path = scratch("typed.h5").string();
  {
    auto f = store::results_file::create(path, {{"family", "stencil"}, {"tolerance", 1e-3}, {"islands", 4}, {"finished", false}});
    f.set_attributes("/checkpoint", {{"seed", std::int64_t{9007199254740993}},  // 2^53 + 1: no double holds it
                                     {"budget", 12.0},
                                     {"sources_sent", true}});
    // Schema 1's forms of the same values.
    f.set_attributes("/old", {{"finished", "true"},
                              {"islands", "4"},
                              {"tolerance", "0.001"},
                              {"seed", "9007199254740993"},
                              {"sources_sent", 1.0},
                              {"generation", 3.0},
                              {"big", "1e+06"},
                              {"word", "abc"},
                              {"half", 2.5}});
  }
  const auto r = store::results_reader::open(path);
  EXPECT_EQ(r.attribute("/", "family"), store::attribute_value(std::string("stencil")));
  EXPECT_EQ(r.attribute("/", "tolerance"), store::attribute_value(1e-3));
  EXPECT_EQ(r.attribute("/", "islands"), store::attribute_value(std::int64_t{4}));
  EXPECT_EQ(r.attribute("/", "finished"), store::attribute_value(false));
  EXPECT_EQ(r.attribute("/", "schema_version"), store::attribute_value(store::schema_version));
  EXPECT_EQ(r.attribute("/checkpoint", "sources_sent"), store::attribute_value(true));
  EXPECT_EQ(r.integer_attribute("/checkpoint", "seed"), 9007199254740993);
  EXPECT_EQ(r.string_attribute("/checkpoint", "seed"), "9007199254740993");
  EXPECT_EQ(r.string_attribute("/", "finished"), "false");
  EXPECT_EQ(r.integer_attribute("/checkpoint", "budget"), 12);

  EXPECT_EQ(r.flag_attribute("/old", "finished"), true);
  EXPECT_EQ(r.integer_attribute("/old", "islands"), 4);
  EXPECT_EQ(r.number_attribute("/old", "islands"), 4.0);
  EXPECT_EQ(r.number_attribute("/old", "tolerance"), 1e-3);
  EXPECT_EQ(r.integer_attribute("/old", "seed"), 9007199254740993);
  EXPECT_EQ(r.flag_attribute("/old", "sources_sent"), true);
  EXPECT_EQ(r.integer_attribute("/old", "generation"), 3);
  EXPECT_EQ(r.integer_attribute("/old", "big"), 1000000);
  EXPECT_FALSE(r.flag_attribute("/old", "absent").has_value());

  const std::string where = path + ": attribute 'word' of /old is not a number (text 'abc')";
  EXPECT_EQ(expect_error([&] { r.number_attribute("/old", "word"); }), where);
  EXPECT_NE(expect_error([&] { r.integer_attribute("/old", "half"); }).find("'half' of /old is not an integer (number 2.5)"),
            std::string::npos);
  EXPECT_NE(expect_error([&] { r.flag_attribute("/old", "islands"); }).find("'islands' of /old is not a flag"),
            std::string::npos);
}

TEST(StoreResume, TextsAreRewrittenInPlaceWithoutGrowingTheFile) {
  const auto path = scratch("texts.h5").string();
  std::string last;
  {
    auto f = store::results_file::create(path, {});
    for (int i = 0; i < 400; ++i) {
      last = std::string(6000 + (i % 7) * 50, static_cast<char>('a' + i % 26));
      f.set_text("/checkpoint/island_0/rng_state", last);
      f.set_text("/checkpoint/island_1/population", std::to_string(i));
      if (i == 10) f.flush();
    }
  }
  const auto r = store::results_reader::open(path);
  EXPECT_EQ(r.text("/checkpoint/island_0/rng_state"), last);
  EXPECT_EQ(r.text("/checkpoint/island_1/population"), "399");
  EXPECT_FALSE(r.text("/checkpoint/island_2/population").has_value());
  // 400 rewrites of about 6 kB: variable-length strings would leave 2.4 MB of old copies.
  EXPECT_LT(fs::file_size(path), 200000u);
}

TEST(StoreResume, PublishReplacesTheTargetWhole) {
  const auto working = scratch("pub.h5.partial"), target = scratch("pub.h5");
  {
    std::ofstream(target) << "an older results file";
    auto f = store::results_file::create(working.string(), {{"galapagos_version", "1"}});
    f.append(std::vector<store::candidate_row>{candidate(7, "{}")});
    f.flush();
    store::publish_copy(working, target);
    EXPECT_FALSE(fs::exists(store::temporary_path(target)));
    EXPECT_EQ(store::results_reader::open(target.string()).rows("/candidates"), 1u);
    f.append(std::vector<store::candidate_row>{candidate(8, "{}")});
    f.close();
  }
  EXPECT_EQ(store::results_reader::open(target.string()).rows("/candidates"), 1u);  // the last publication
  store::publish_move(working, target);
  EXPECT_FALSE(fs::exists(working));
  EXPECT_EQ(store::results_reader::open(target.string()).rows("/candidates"), 2u);
}

TEST(StoreResume, ReaderNamesTheFileAndTheProblem) {
  const auto missing = scratch("missing.h5").string();
  EXPECT_EQ(expect_error([&] { store::results_reader::open(missing); }), missing + ": no such file");
  const auto text = scratch("text.h5");
  std::ofstream(text) << "hello";
  EXPECT_NE(expect_error([&] { store::results_reader::open(text.string()); }).find(text.string() + ": not a readable HDF5 file"),
            std::string::npos);
}

TEST(CheckpointState, SnapshotAndPopulationRoundTrip) {
  const core::search_space space({{"TILE", {"0", "64", "128"}}, {"MODE", {"fast", "safe"}}, {"ALPHA", {"0.5", "1e-3"}}}, nullptr);
  EXPECT_EQ(run::genome_from_params(space, R"({"TILE":128,"MODE":"safe","ALPHA":0.001})"), (core::genome{2, 1, 1}));
  EXPECT_EQ(run::genome_from_params(space, space.to_json({1, 0, 0})), (core::genome{1, 0, 0}));
  EXPECT_FALSE(run::genome_from_params(space, R"({"TILE":32,"MODE":"safe","ALPHA":0.5})").has_value());
  EXPECT_FALSE(run::genome_from_params(space, R"({"TILE":64})").has_value());
  EXPECT_FALSE(run::genome_from_params(space, "not json").has_value());

  const std::vector<core::individual> population = {{{2, 1, 0}, 1.5e-3, 7},
                                                    {{0, 0, 1}, std::numeric_limits<double>::infinity(), 9}};
  core::island isl(space, {}, 1);
  isl.restore(0, population, core::rng(5).state(), std::vector<core::genome>{});
  const auto template_only = [](const std::string&) { return 0; };
  const auto back = run::population_from_json(isl, run::population_json(isl, {}), template_only, "f.h5");
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0].g, population[0].g);
  EXPECT_EQ(back[0].fitness, 1.5e-3);
  EXPECT_EQ(back[1].id, 9);
  EXPECT_TRUE(std::isinf(back[1].fitness));

  run::island_snapshot s;
  s.island = 3;
  s.generation = 12;
  s.evaluated = 40;
  s.failed = 5;
  s.next_id = 40;
  s.best_time_s = std::numeric_limits<double>::infinity();
  s.wall_time_s = 81.25;
  s.migrants_through = 10;
  s.sources_sent = true;
  s.rng_state = core::rng(5).state();
  s.population = run::population_json(isl, {});
  s.llm_conversation = R"({"proposer":{"feedback":"Your last proposal was accepted.","rng":"1 2"},"parent_rng":"3 4"})";
  const auto t = run::snapshot_from_json(run::to_json_text(s));
  EXPECT_EQ(t.island, 3);
  EXPECT_EQ(t.generation, 12);
  EXPECT_EQ(t.failed, 5);
  EXPECT_TRUE(std::isinf(t.best_time_s));
  EXPECT_EQ(t.migrants_through, 10);
  EXPECT_TRUE(t.sources_sent);
  EXPECT_EQ(t.rng_state, s.rng_state);
  EXPECT_EQ(t.population, s.population);
  EXPECT_EQ(t.llm_conversation, s.llm_conversation);
}

// A resumed island keeps the ceilings its run started with when it runs on the same kind of
// node (CPU model, cores, cache), and measures again on any other.
TEST(CheckpointState, KeepsTheRecordedProbeOnlyOnTheSameKindOfNode) {
  const auto path = scratch("machines.h5").string();
  {
    auto f = store::results_file::create(path, {{"galapagos_version", "9.9"}});
    f.append(std::vector<store::machine_row>{{0, "node1", "AMD EPYC 9B45", 2, 32 << 20, 41.5, 88.0, 170.0},
                                             {1, "", "AMD EPYC 9B45", 2, 32 << 20, 38.0, 0.0, 150.0}});
  }
  const auto rows = run::read_machines(store::results_reader::open(path));
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].host, "node1");
  EXPECT_EQ(rows[1].island, 1);
  EXPECT_DOUBLE_EQ(rows[0].bandwidth_gbs, 41.5);
  EXPECT_DOUBLE_EQ(rows[1].peak_gflops_f32, 150.0);
  const auto again = nlohmann::json(rows).get<std::vector<store::machine_row>>();  // as a resume plan carries them
  ASSERT_EQ(again.size(), 2u);
  EXPECT_EQ(again[0].cpu_model, "AMD EPYC 9B45");
  EXPECT_EQ(again[0].llc_bytes, 32 << 20);

  eval::machine_probe here;
  here.cpu_model = "AMD EPYC 9B45";
  here.cores = 2;
  here.llc_bytes = 32u << 20;
  const auto kept = run::kept_probe(rows, 0, here);
  ASSERT_TRUE(kept.has_value());
  EXPECT_DOUBLE_EQ(kept->bandwidth_gbs, 41.5);
  EXPECT_DOUBLE_EQ(kept->peak_gflops, 88.0);
  EXPECT_DOUBLE_EQ(kept->peak_gflops_f32, 170.0);
  EXPECT_FALSE(run::kept_probe(rows, 1, here).has_value()) << "a row without a float64 peak is no probe to keep";
  EXPECT_FALSE(run::kept_probe(rows, 2, here).has_value()) << "no row for the island";
  EXPECT_FALSE(run::kept_probe({}, 0, here).has_value());
  auto other = here;
  other.cores = 4;
  EXPECT_FALSE(run::kept_probe(rows, 0, other).has_value()) << "more cores: other ceilings";
  other = here;
  other.cpu_model = "Intel Xeon Platinum 8480+";
  EXPECT_FALSE(run::kept_probe(rows, 0, other).has_value()) << "another processor";
  other = here;
  other.llc_bytes = 64u << 20;
  EXPECT_FALSE(run::kept_probe(rows, 0, other).has_value()) << "another cache";
}
