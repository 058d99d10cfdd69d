// The JSON recorded spaces users have besides galapagos results: Kernel Tuner caches compressed
// with gzip, caches an interrupted Kernel Tuner run left without their closing braces (closed as
// Kernel Tuner closes them), and T4 results files. Small hand-made files of each kind, good and
// bad; a bad one fails with one message naming the file and what was expected.
#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "simulate/recorded_space.hpp"
#include "util/error.hpp"

using namespace galapagos;

namespace {

std::filesystem::path path_of(const std::string& name) {
  return std::filesystem::temp_directory_path() / ("galapagos_test_formats_" + name);
}

std::filesystem::path write_file(const std::string& name, const std::string& text) {
  const auto p = path_of(name);
  std::ofstream(p, std::ios::binary) << text;
  return p;
}

std::filesystem::path write_gzip(const std::string& name, const std::string& text) {
  const auto p = path_of(name);
  gzFile f = gzopen(p.c_str(), "wb");
  gzwrite(f, text.data(), static_cast<unsigned>(text.size()));
  gzclose(f);
  return p;
}

std::string read_error(const std::filesystem::path& p) {
  try {
    simulate::read_recorded_space(p);
  } catch (const error& e) {
    return e.what();
  }
  return "no error";
}

// A Kernel Tuner cache as Kernel Tuner writes it: the header, then one entry a line, each ending
// in a comma while the run goes on; closing "}\n}" written at the end of the run.
const std::string cache_head =
    "{\n\"schema_version\": \"1.0.0\",\n\"device_name\": \"d\",\n\"kernel_name\": \"k\",\n"
    "\"problem_size\": [1],\n\"tune_params_keys\": [\"bx\", \"tile\"],\n"
    "\"tune_params\": {\"bx\": [32, 64], \"tile\": [1, 2]},\n\"objective\": \"time\",\n\"cache\": {";
std::string entry(const std::string& key, const std::string& time) {
  return "\n\"" + key + "\": {\"time\": " + time +
         ", \"compile_time\": 900, \"verification_time\": 0, \"benchmark_time\": 100, \"strategy_time\": 0, "
         "\"framework_time\": 0, \"timestamp\": \"t\"}";
}
const std::string entries = entry("32,1", "2.0") + "," + entry("64,1", "1.0") + "," + entry("64,2", "\"RuntimeFailedConfig\"");
const std::string finished = cache_head + entries + "}\n}";

}  // namespace

TEST(RecordedFormats, GzipCompressedCacheReadsAsThePlainOne) {
  const auto plain = simulate::read_recorded_space(write_file("plain.json", finished));
  const auto gz = simulate::read_recorded_space(write_gzip("cache.json.gz", finished));
  EXPECT_EQ(gz.size(), 3u);
  EXPECT_EQ(gz.size(), plain.size());
  EXPECT_EQ(gz.failed(), 1u);
  EXPECT_DOUBLE_EQ(gz.optimum_s(), 1e-3);
  EXPECT_EQ(gz.optimum(), plain.optimum());
  EXPECT_DOUBLE_EQ(gz.find({0, 0})->cost_s, 1.0);
  EXPECT_EQ(gz.format(), "Kernel Tuner cache 1.0.0");
  EXPECT_EQ(simulate::read_kernel_tuner_cache(path_of("cache.json.gz")).size(), 3u);

  // A gzip stream cut short names the file and says so.
  std::ifstream in(path_of("cache.json.gz"), std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto cut = write_file("cut.json.gz", bytes.substr(0, bytes.size() / 2));
  const auto message = read_error(cut);
  EXPECT_NE(message.find(cut.string() + ": gzip-compressed, but its stream is damaged or cut short"), std::string::npos)
      << message;
}

TEST(RecordedFormats, PythonNonFiniteWordsReadAsNoValue) {
  // Python's json module writes a float nan or inf as NaN, Infinity, -Infinity (not JSON): a time
  // of NaN is a point without a time (failed), an observer's metric or a cost of NaN is ignored,
  // and the words inside strings stay as they are.
  std::string with_nan = cache_head + entry("32,1", "2.0") + "," + entry("64,1", "1.0") + "," + entry("64,2", "NaN") + "," +
                         entry("32,2", "3.0") + "}\n}";
  const std::string metric = "\"timestamp\": \"t\"";
  with_nan.replace(with_nan.rfind(metric), metric.size(), metric + ", \"GFLOP/s\": Infinity, \"note\": \"NaN -Infinity\"");
  const std::string cost = "\"verification_time\": 0";
  with_nan.replace(with_nan.find(cost), cost.size(), "\"verification_time\": -Infinity");
  const std::string device = "\"device_name\": \"d\"";
  with_nan.replace(with_nan.find(device), device.size(), "\"device_name\": \"NaN\\\"Infinity\"");
  const auto space = simulate::read_recorded_space(write_file("nan.json", with_nan));
  EXPECT_EQ(space.size(), 4u);
  EXPECT_EQ(space.failed(), 1u);
  EXPECT_FALSE(std::isfinite(space.find({1, 1})->time_s));
  EXPECT_DOUBLE_EQ(space.optimum_s(), 1e-3);
  EXPECT_DOUBLE_EQ(space.find({0, 0})->cost_s, 1.0);  // compile 900 + benchmark 100 ms, the NaN cost left out
  EXPECT_EQ(simulate::read_recorded_space(write_gzip("nan.json.gz", with_nan)).size(), 4u);
  // A word like them that is no number is still an error naming the file.
  const auto bad = read_error(write_file("nanx.json", cache_head + entry("32,1", "NaNx") + "}\n}"));
  EXPECT_NE(bad.find("nanx.json"), std::string::npos) << bad;
}

TEST(RecordedFormats, UnfinishedCacheIsClosedAsKernelTunerClosesIt) {
  // An interrupted run: every entry ends with a comma, the closing braces are missing.
  const auto open = simulate::read_recorded_space(write_file("open.json", cache_head + entries + ",\n"));
  EXPECT_EQ(open.size(), 3u);
  EXPECT_DOUBLE_EQ(open.optimum_s(), 1e-3);
  EXPECT_NE(open.format().find("unfinished run"), std::string::npos) << open.format();
  // Gzip-compressed as well.
  EXPECT_EQ(simulate::read_recorded_space(write_gzip("open.json.gz", cache_head + entries + ",")).size(), 3u);
  // Stopped while writing its last entry: the entries before it are read.
  const std::string partial = cache_head + entry("32,1", "2.0") + "," + entry("64,1", "1.0") + ",\n\"64,2\": {\"time\": 0.";
  const auto cut = simulate::read_recorded_space(write_file("partial.json", partial));
  EXPECT_EQ(cut.size(), 2u);
  EXPECT_DOUBLE_EQ(cut.optimum_s(), 1e-3);
  // The same on one line (a cache rewritten without its line breaks), cut inside an entry's list
  // of times: the entries before it are read.
  std::string one_line = cache_head + entry("32,1", "2.0") + "," + entry("64,1", "1.0") + ",";
  one_line.erase(std::remove(one_line.begin(), one_line.end(), '\n'), one_line.end());
  one_line += "\"64,2\": {\"time\": 3.0, \"times\": [3.0, 3.1, 2.";
  const auto cut_line = simulate::read_recorded_space(write_file("partial_line.json", one_line));
  EXPECT_EQ(cut_line.size(), 2u);
  EXPECT_DOUBLE_EQ(cut_line.optimum_s(), 1e-3);
  // Stopped before its first entry: nothing to replay, said as such.
  const auto empty = read_error(write_file("empty_open.json", cache_head));
  EXPECT_NE(empty.find("empty_open.json: cache: has no entries"), std::string::npos) << empty;
  // A finished cache is not marked.
  EXPECT_EQ(simulate::read_recorded_space(write_file("finished.json", finished)).format(), "Kernel Tuner cache 1.0.0");
}

TEST(RecordedFormats, MissingFileOrFolderIsSaidAsSuch) {
  const auto missing = path_of("no_such_space.json");
  std::filesystem::remove(missing);
  EXPECT_EQ(read_error(missing), missing.string() + ": no such file");
  const auto folder = path_of("a_folder");
  std::filesystem::create_directories(folder);
  const auto message = read_error(folder);
  EXPECT_EQ(message.rfind(folder.string() + ": a folder, not a recorded space", 0), 0u) << message;
}

TEST(RecordedFormats, NotJsonNamesTheFileAndTheFormatsExpected) {
  const auto p = write_file("text.json", "block_size_x,time\n32,1.0\n");
  const auto message = read_error(p);
  EXPECT_NE(message.find(p.string() + ": not a JSON document (expected a Kernel Tuner cache"), std::string::npos) << message;
  EXPECT_NE(message.find("T4 results"), std::string::npos) << message;
  // A JSON document that no closing makes whole.
  const auto broken = read_error(write_file("broken.json", "{\"cache\": {\"1\": [}\n}"));
  EXPECT_NE(broken.find("not a JSON document"), std::string::npos) << broken;
}

namespace {

// T4 results as `export` writes them for Kernel Tuner users (times in seconds).
std::string t4_result(const std::string& config, const std::string& invalidity, const std::string& value,
                      const std::string& unit = "s") {
  return R"({"timestamp":"t","configuration":)" + config + R"(,"objectives":["time"],)" +
         R"("times":{"compilation_time":0.9,"runtimes":[0.05],"framework":0,"search_algorithm":0,"validation":0.05},)" +
         R"("invalidity":")" + invalidity + R"(","correctness":1,"measurements":[{"name":"time","value":)" + value +
         R"(,"unit":")" + unit + R"("}]})";
}

std::string t4_doc(const std::string& results, const std::string& version = "1.0.0") {
  return R"({"schema_version":")" + version + R"(","results":[)" + results +
         R"(],"metadata":{"timeunit":"seconds","tool":"galapagos"}})";
}

}  // namespace

TEST(RecordedFormats, T4ResultsAreARecordedSpace) {
  const std::string results = t4_result(R"({"bx":128,"unroll":1})", "correct", "0.002") + "," +
                              t4_result(R"({"bx":32,"unroll":1})", "correct", "3.0", "ms") + "," +
                              t4_result(R"({"bx":64,"unroll":2})", "compile", "\"NaN\"") + "," +
                              t4_result(R"({"bx":32,"unroll":1})", "correct", "9.0", "ms");  // measured again: the first wins
  const auto p = write_file("t4.json", t4_doc(results));
  const auto space = simulate::read_recorded_space(p);
  EXPECT_EQ(space.format(), "T4 results 1.0.0");
  EXPECT_EQ(space.size(), 3u);
  EXPECT_EQ(space.failed(), 1u);
  EXPECT_DOUBLE_EQ(space.optimum_s(), 0.002);
  EXPECT_EQ(space.space().to_json(space.optimum()), R"({"bx":128,"unroll":1})");
  // Values in numeric order, so that neighbouring values are neighbours for the local searches.
  EXPECT_EQ(space.space().parameters()[0].values, (std::vector<std::string>{"32", "64", "128"}));
  const auto first = space.find({0, 0});
  ASSERT_NE(first, nullptr);
  EXPECT_DOUBLE_EQ(first->time_s, 3e-3);
  EXPECT_DOUBLE_EQ(first->cost_s, 1.0);          // compilation + runtimes + validation
  EXPECT_FALSE(space.space().is_valid({1, 0}));  // not measured: outside the space
  EXPECT_FALSE(std::isfinite(space.find({1, 1})->time_s));
  EXPECT_EQ(simulate::read_t4_results(write_gzip("t4.json.gz", t4_doc(results))).size(), 3u);
  // Read as a Kernel Tuner cache, it says what it is.
  try {
    simulate::read_kernel_tuner_cache(p);
    ADD_FAILURE() << "a T4 file read as a Kernel Tuner cache";
  } catch (const error& e) {
    EXPECT_NE(std::string(e.what()).find("T4 results, not a Kernel Tuner cache"), std::string::npos) << e.what();
  }
}

TEST(RecordedFormats, BadT4ResultsNameTheField) {
  const auto bad = [](const std::string& name, const std::string& text) { return read_error(write_file(name, text)); };
  const std::string ok = t4_result(R"({"bx":32})", "correct", "0.001");
  EXPECT_NE(bad("v.json", t4_doc(ok, "7.0")).find("v.json: T4 results: schema_version: unknown version \"7.0\""),
            std::string::npos);
  EXPECT_NE(bad("none.json", R"({"schema_version":"1.0.0","results":[]})").find("results: must be a non-empty array"),
            std::string::npos);
  EXPECT_NE(bad("nocfg.json", t4_doc(R"({"invalidity":"correct"})")).find("results[0].configuration: missing"),
            std::string::npos);
  EXPECT_NE(bad("mixed.json", t4_doc(ok + "," + t4_result(R"({"tx":32})", "correct", "0.001")))
                .find("results[1].configuration: names other parameters than results[0]"),
            std::string::npos);
  EXPECT_NE(bad("unit.json", t4_doc(t4_result(R"({"bx":32})", "correct", "1", "fortnights")))
                .find("results[0].measurements.time.unit: unknown time unit \"fortnights\""),
            std::string::npos);
  EXPECT_NE(bad("neg.json", t4_doc(t4_result(R"({"bx":32})", "correct", "-1"))).find("must be a positive number"),
            std::string::npos);
  const std::string no_time =
      R"({"configuration":{"bx":32},"invalidity":"correct","measurements":[{"name":"energy","value":1}]})";
  EXPECT_NE(bad("notime.json", t4_doc(no_time)).find("has no measurement named 'time'"), std::string::npos);
  EXPECT_NE(bad("noinv.json", t4_doc(R"({"configuration":{"bx":32}})")).find("results[0].invalidity: missing"),
            std::string::npos);
  const std::string timeunit = R"({"results":[)" + ok + R"(],"metadata":{"timeunit":"jiffies"}})";
  EXPECT_NE(bad("tu.json", timeunit).find("metadata.timeunit: unknown unit \"jiffies\""), std::string::npos);
}
