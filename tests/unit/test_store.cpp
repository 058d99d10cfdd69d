// The results file: written through galapagos::store, read back with the plain HDF5 C API.
#include <hdf5.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include <gtest/gtest.h>

#include "store/results_file.hpp"
#include "util/error.hpp"

namespace fs = std::filesystem;
using namespace galapagos::store;

namespace {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();

// --- reading helpers (C API) -----------------------------------------------------------------

struct h5_id {
  hid_t id;
  herr_t (*close)(hid_t);
  h5_id(hid_t i, herr_t (*c)(hid_t)) : id(i), close(c) { EXPECT_GE(id, 0); }
  h5_id(h5_id&& o) noexcept : id(o.id), close(o.close) { o.id = H5I_INVALID_HID; }
  h5_id(const h5_id&) = delete;
  h5_id& operator=(const h5_id&) = delete;
  ~h5_id() {
    if (id >= 0) close(id);
  }
  operator hid_t() const { return id; }
};

h5_id open_file(const fs::path& path) { return {H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose}; }

h5_id vl_string_type() {
  h5_id t(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(t, H5T_VARIABLE);
  H5Tset_cset(t, H5T_CSET_UTF8);
  return t;
}

hsize_t row_count(hid_t file, const char* table) {
  h5_id ds(H5Dopen2(file, table, H5P_DEFAULT), H5Dclose);
  h5_id space(H5Dget_space(ds), H5Sclose);
  hsize_t n = 0;
  EXPECT_EQ(H5Sget_simple_extent_ndims(space), 1);
  H5Sget_simple_extent_dims(space, &n, nullptr);
  return n;
}

std::vector<std::string> field_names(hid_t file, const char* table) {
  h5_id ds(H5Dopen2(file, table, H5P_DEFAULT), H5Dclose);
  h5_id type(H5Dget_type(ds), H5Tclose);
  std::vector<std::string> names;
  for (int i = 0; i < H5Tget_nmembers(type); ++i) {
    char* name = H5Tget_member_name(type, static_cast<unsigned>(i));
    names.emplace_back(name);
    H5free_memory(name);
  }
  return names;
}

// One column of a compound table, read through a one-field compound memory type.
template <class T>
std::vector<T> read_column(hid_t file, const char* table, const char* field) {
  h5_id ds(H5Dopen2(file, table, H5P_DEFAULT), H5Dclose);
  h5_id space(H5Dget_space(ds), H5Sclose);
  const auto n = static_cast<std::size_t>(H5Sget_simple_extent_npoints(space));
  if constexpr (std::is_same_v<T, std::string>) {
    h5_id str = vl_string_type();
    h5_id mem(H5Tcreate(H5T_COMPOUND, sizeof(char*)), H5Tclose);
    H5Tinsert(mem, field, 0, str);
    std::vector<char*> raw(n);
    EXPECT_GE(H5Dread(ds, mem, H5S_ALL, H5S_ALL, H5P_DEFAULT, raw.data()), 0);
    std::vector<std::string> out(raw.begin(), raw.end());
    H5Dvlen_reclaim(mem, space, H5P_DEFAULT, raw.data());
    return out;
  } else {
    const hid_t native = std::is_same_v<T, double>         ? H5T_NATIVE_DOUBLE
                         : std::is_same_v<T, std::int64_t> ? H5T_NATIVE_INT64
                                                           : H5T_NATIVE_INT32;
    h5_id mem(H5Tcreate(H5T_COMPOUND, sizeof(T)), H5Tclose);
    H5Tinsert(mem, field, 0, native);
    std::vector<T> out(n);
    EXPECT_GE(H5Dread(ds, mem, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()), 0);
    return out;
  }
}

std::string string_attribute(hid_t file, const char* object, const char* name) {
  h5_id attr(H5Aopen_by_name(file, object, name, H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  h5_id type(H5Aget_type(attr), H5Tclose);
  EXPECT_EQ(H5Tis_variable_str(type), 1) << object << " " << name;
  EXPECT_EQ(H5Tget_cset(type), H5T_CSET_UTF8) << object << " " << name;
  h5_id space(H5Aget_space(attr), H5Sclose);
  EXPECT_EQ(H5Sget_simple_extent_type(space), H5S_SCALAR);
  h5_id str = vl_string_type();
  char* raw = nullptr;
  EXPECT_GE(H5Aread(attr, str, &raw), 0);
  std::string out = raw != nullptr ? raw : "<null>";
  H5free_memory(raw);
  return out;
}

double double_attribute(hid_t file, const char* object, const char* name) {
  h5_id attr(H5Aopen_by_name(file, object, name, H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  double value = 0;
  EXPECT_GE(H5Aread(attr, H5T_NATIVE_DOUBLE, &value), 0);
  return value;
}

std::string source_text(hid_t file, const std::string& hash) {
  h5_id ds(H5Dopen2(file, ("/sources/" + hash).c_str(), H5P_DEFAULT), H5Dclose);
  h5_id str = vl_string_type();
  char* raw = nullptr;
  EXPECT_GE(H5Dread(ds, str, H5S_ALL, H5S_ALL, H5P_DEFAULT, &raw), 0);
  std::string out = raw != nullptr ? raw : "<null>";
  H5free_memory(raw);
  return out;
}

ssize_t open_objects() { return H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL); }

// --- rows ------------------------------------------------------------------------------------

candidate_row candidate(std::int64_t id) {
  candidate_row r;
  r.id = id;
  r.island = static_cast<std::int32_t>(id % 4);
  r.generation = static_cast<std::int32_t>(id / 10);
  r.origin = id == 0 ? "random" : "offspring";
  const bool ok = id % 7 != 3;
  r.status = ok ? "ok" : "wrong_result";
  r.reason = ok ? "" : "max rel error 0.5 > 1e-9 at check " + std::to_string(id);
  r.params = "{\"TILE\": " + std::to_string(id) + "}";
  r.parents = "[]";
  r.source_hash = "h" + std::to_string(id);
  r.compile_time_s = 0.25;
  r.eval_time_s = 1.5;
  r.time_median_s = ok ? 1e-3 * static_cast<double>(id + 1) : nan;
  r.time_min_s = r.time_median_s;
  r.time_spread_s = ok ? 1e-6 : nan;
  r.repetitions = ok ? 9 : 0;
  r.rel_error = ok ? 1e-12 : 0.5;
  r.speedup = ok ? 2.0 : nan;
  r.roofline_fraction = ok ? 0.5 : nan;
  return r;
}

std::vector<candidate_row> candidates(std::int64_t first, std::int64_t count) {
  std::vector<candidate_row> rows;
  for (std::int64_t i = first; i < first + count; ++i) rows.push_back(candidate(i));
  return rows;
}

template <class Row, class Fill>
std::vector<Row> make_rows(int count, int first, Fill fill) {
  std::vector<Row> rows(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) fill(rows[static_cast<std::size_t>(i)], first + i);
  return rows;
}

// Appends `count` rows starting at index `first` to every table but /candidates.
void append_other_tables(results_file& f, int first, int count) {
  f.append(make_rows<baseline_row>(count, first, [](baseline_row& r, int i) {
    r.name = "baseline_" + std::to_string(i);
    r.status = "ok";
    r.time_median_s = 0.01 * i;
    r.repetitions = i;
  }));
  f.append(make_rows<population_row>(count, first, [](population_row& r, int i) {
    r.island = i % 3;
    r.rank = i;
    r.candidate_id = 1000 + i;
    r.fitness = i == 1 ? std::numeric_limits<double>::infinity() : 0.5 * i;
  }));
  f.append(make_rows<migration_row>(count, first, [](migration_row& r, int i) {
    r.from_island = i;
    r.to_island = i + 1;
    r.candidate_id = 10'000'000'000LL + i;  // needs 64 bits
    r.params = "{\"I\": " + std::to_string(i) + "}";
    if (i == 2) r.source_hash = "5f0c2a";  // a rewrite's migrant names its source; the template's none
  }));
  f.append(make_rows<generation_row>(count, first, [](generation_row& r, int i) {
    r.generation = i;
    r.evaluated = 2 * i;
    r.best_speedup = nan;
  }));
  f.append(make_rows<machine_row>(count, first, [](machine_row& r, int i) {
    r.island = i;
    r.host = "node" + std::to_string(i);
    r.cpu_model = "AMD EPYC 9654 96-Core Processor";
    r.llc_bytes = std::int64_t{384} << 20;
    r.bandwidth_gbs = 350.5;
  }));
}

class store_test : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() / ("galapagos_store_" + std::to_string(getpid()) + "_" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path file(const char* name = "results.h5") const { return dir_ / name; }

  fs::path dir_;
};

const attributes root_attrs = {
    {"galapagos_version", "0.1.0"},
    {"family", "stencil"},
    {"backend", "openmp"},
    {"config_toml", "[search]\nislands = 4\n# ünïcödé\n" + std::string(200'000, '#')},
};

TEST_F(store_test, round_trip) {
  {
    auto f = results_file::create(file(), root_attrs);
    EXPECT_EQ(f.path(), file().string());
    f.append(candidates(0, 3));
    f.append(std::vector<candidate_row>{});
    f.append(candidates(3, 300));  // crosses the 256-row chunk boundary
    append_other_tables(f, 0, 3);
    append_other_tables(f, 3, 300);
    f.add_source("h0", "__global__ void k() {}\n// ünïcödé\n");
    f.add_source("h1", "void h1();");
    f.add_source("h0", "a second text for the same hash is ignored");
    f.set_attributes("/winner", {{"candidate_id", "42"}, {"params", "{\"TILE\": 42}"}});
    f.set_attributes("/winner", {{"candidate_id", "43"}});  // overwrites
    f.set_attributes("/run/nested", {{"state", "finished"}});
    f.set_attribute("/winner", "speedup", 2.5);
    f.set_attribute("/winner", "speedup", 3.5);
    f.set_attribute("/winner", "roofline_fraction", nan);
    f.flush();
  }
  ASSERT_EQ(open_objects(), 0);

  h5_id h(open_file(file()));
  ASSERT_GE(h.id, 0);

  for (const char* table : {"/candidates", "/baselines", "/populations", "/migrations", "/generations", "/machine"})
    EXPECT_EQ(row_count(h, table), 303u) << table;

  const auto ids = read_column<std::int64_t>(h, "/candidates", "id");
  for (std::size_t i = 0; i < ids.size(); ++i) ASSERT_EQ(ids[i], static_cast<std::int64_t>(i));
  const auto status = read_column<std::string>(h, "/candidates", "status");
  const auto reason = read_column<std::string>(h, "/candidates", "reason");
  const auto speedup = read_column<double>(h, "/candidates", "speedup");
  const auto generation = read_column<std::int32_t>(h, "/candidates", "generation");
  for (std::size_t i : {0u, 3u, 10u, 255u, 256u, 257u, 302u}) {
    const candidate_row want = candidate(static_cast<std::int64_t>(i));
    EXPECT_EQ(status[i], want.status) << i;
    EXPECT_EQ(reason[i], want.reason) << i;
    EXPECT_EQ(generation[i], want.generation) << i;
    if (want.status == "ok")
      EXPECT_EQ(speedup[i], 2.0) << i;
    else
      EXPECT_TRUE(std::isnan(speedup[i])) << i;
  }
  EXPECT_EQ(status[3], "wrong_result");
  EXPECT_EQ(read_column<std::string>(h, "/candidates", "params")[257], "{\"TILE\": 257}");

  EXPECT_EQ(read_column<std::string>(h, "/baselines", "name")[302], "baseline_302");
  EXPECT_EQ(read_column<std::int32_t>(h, "/baselines", "repetitions")[7], 7);
  EXPECT_TRUE(std::isinf(read_column<double>(h, "/populations", "fitness")[1]));
  EXPECT_EQ(read_column<std::int64_t>(h, "/populations", "candidate_id")[300], 1300);
  EXPECT_EQ(read_column<std::int64_t>(h, "/migrations", "candidate_id")[5], 10'000'000'005LL);
  EXPECT_EQ(read_column<std::string>(h, "/migrations", "params")[4], "{\"I\": 4}");
  EXPECT_EQ(read_column<std::string>(h, "/migrations", "source_hash")[2], "5f0c2a");
  EXPECT_EQ(read_column<std::string>(h, "/migrations", "source_hash")[4], "");
  EXPECT_TRUE(std::isnan(read_column<double>(h, "/generations", "best_speedup")[0]));
  EXPECT_EQ(read_column<std::int32_t>(h, "/generations", "evaluated")[100], 200);
  EXPECT_EQ(read_column<std::string>(h, "/machine", "host")[299], "node299");
  EXPECT_EQ(read_column<std::int64_t>(h, "/machine", "llc_bytes")[0], 384 << 20);
  EXPECT_EQ(read_column<double>(h, "/machine", "bandwidth_gbs")[2], 350.5);

  for (const auto& [key, value] : root_attrs) EXPECT_EQ(string_attribute(h, "/", key.c_str()), std::get<std::string>(value));
  EXPECT_EQ(string_attribute(h, "/winner", "candidate_id"), "43");
  EXPECT_EQ(string_attribute(h, "/winner", "params"), "{\"TILE\": 42}");
  EXPECT_EQ(string_attribute(h, "/run/nested", "state"), "finished");
  EXPECT_EQ(double_attribute(h, "/winner", "speedup"), 3.5);
  EXPECT_TRUE(std::isnan(double_attribute(h, "/winner", "roofline_fraction")));
  EXPECT_NE(string_attribute(h, "/machine", "units").find("bandwidth_gbs"), std::string::npos);
  EXPECT_FALSE(string_attribute(h, "/candidates", "description").empty());

  EXPECT_EQ(source_text(h, "h0"), "__global__ void k() {}\n// ünïcödé\n");
  EXPECT_EQ(source_text(h, "h1"), "void h1();");
}

TEST_F(store_test, tables_exist_after_create_with_struct_field_names) {
  { auto f = results_file::create(file(), {}); }
  h5_id h(open_file(file()));
  using names = std::vector<std::string>;
  const std::vector<std::pair<const char*, names>> tables = {
      {"/candidates",
       {"id",
        "island",
        "generation",
        "origin",
        "status",
        "reason",
        "params",
        "parents",
        "source_hash",
        "compile_time_s",
        "setup_time_s",
        "eval_time_s",
        "time_median_s",
        "time_min_s",
        "time_spread_s",
        "repetitions",
        "rel_error",
        "speedup",
        "baseline_time_s",
        "roofline_fraction",
        "device_time_s",
        "energy_j",
        "power_w",
        "sm_clock_mhz",
        "throttled_runs",
        "fitness"}},
      {"/baselines",
       {"name", "status", "reason", "source_hash", "setup_time_s", "time_median_s", "time_min_s", "time_spread_s", "repetitions",
        "rel_error", "roofline_fraction", "energy_j", "power_w", "sm_clock_mhz", "throttled_runs", "island"}},
      {"/baseline_timings",
       {"session", "island", "generation", "name", "status", "time_median_s", "time_min_s", "time_spread_s", "repetitions",
        "wall_time_s"}},
      {"/populations", {"island", "generation", "rank", "candidate_id", "fitness"}},
      {"/migrations", {"generation", "from_island", "to_island", "candidate_id", "params", "fitness", "source_hash"}},
      {"/generations",
       {"island", "generation", "evaluated", "failed", "best_time_s", "best_speedup", "wall_time_s", "device_busy_s"}},
      {"/machine", {"island", "host", "cpu_model", "cores", "llc_bytes", "bandwidth_gbs", "peak_gflops", "peak_gflops_f32"}},
      {"/profiles", {"candidate_id", "island", "kernel", "launch", "metric", "unit", "value"}},
  };
  for (const auto& [table, want] : tables) {
    EXPECT_EQ(row_count(h, table), 0u) << table;
    EXPECT_EQ(field_names(h, table), want) << table;
    // units: a JSON object naming the unit of every field, in order.
    const std::string units = string_attribute(h, table, "units");
    std::size_t at = 0;
    for (const auto& field : want) {
      const std::size_t found = units.find("\"" + field + "\": \"", at);
      EXPECT_NE(found, std::string::npos) << table << " units lack " << field << ": " << units;
      if (found != std::string::npos) at = found;
    }
    EXPECT_EQ(units.front(), '{') << table;
    EXPECT_EQ(units.back(), '}') << table;
  }
  h5_id sources(H5Gopen2(h, "/sources", H5P_DEFAULT), H5Gclose);
  EXPECT_GE(sources.id, 0);
}

TEST_F(store_test, field_types_are_native_and_strings_variable_utf8) {
  { auto f = results_file::create(file(), {}); }
  h5_id h(open_file(file()));
  h5_id ds(H5Dopen2(h, "/candidates", H5P_DEFAULT), H5Dclose);
  h5_id type(H5Dget_type(ds), H5Tclose);
  auto member = [&](const char* name) {
    return h5_id(H5Tget_member_type(type, static_cast<unsigned>(H5Tget_member_index(type, name))), H5Tclose);
  };
  EXPECT_GT(H5Tequal(member("id"), H5T_NATIVE_INT64), 0);
  EXPECT_GT(H5Tequal(member("island"), H5T_NATIVE_INT32), 0);
  EXPECT_GT(H5Tequal(member("speedup"), H5T_NATIVE_DOUBLE), 0);
  h5_id status(member("status"));
  EXPECT_EQ(H5Tget_class(status), H5T_STRING);
  EXPECT_EQ(H5Tis_variable_str(status), 1);
  EXPECT_EQ(H5Tget_cset(status), H5T_CSET_UTF8);

  h5_id dcpl(H5Dget_create_plist(ds), H5Pclose);
  hsize_t chunk = 0;
  EXPECT_EQ(H5Pget_chunk(dcpl, 1, &chunk), 1);
  EXPECT_EQ(chunk, 256u);
  h5_id space(H5Dget_space(ds), H5Sclose);
  hsize_t dims = 0, max = 0;
  H5Sget_simple_extent_dims(space, &dims, &max);
  EXPECT_EQ(max, H5S_UNLIMITED);
}

TEST_F(store_test, create_in_missing_directory_throws_with_path) {
  const std::string path = (dir_ / "no" / "such" / "dir" / "results.h5").string();
  try {
    results_file::create(path, root_attrs);
    FAIL() << "create() did not throw";
  } catch (const galapagos::error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find(path), std::string::npos) << message;
    EXPECT_NE(message.find("cannot create file"), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
  EXPECT_EQ(open_objects(), 0);
}

TEST_F(store_test, invalid_requests_throw_with_path) {
  auto f = results_file::create(file(), {});
  EXPECT_THROW(f.add_source("", "x"), galapagos::error);
  EXPECT_THROW(f.add_source("a/b", "x"), galapagos::error);
  try {
    f.set_attributes("/candidates/x", {{"k", "v"}});  // a dataset cannot hold a group
    FAIL() << "set_attributes() did not throw";
  } catch (const galapagos::error& e) {
    EXPECT_NE(std::string(e.what()).find(file().string()), std::string::npos) << e.what();
  }
  f.append(candidates(0, 2));  // still usable afterwards
}

TEST_F(store_test, no_handle_leaks_and_moves_close_once) {
  { auto warm_up = results_file::create(file("warm.h5"), {}); }  // initialises HDF5 packages
  ASSERT_EQ(open_objects(), 0);
  auto ids = [] {
    std::vector<int64_t> n;
    for (H5I_type_t t : {H5I_DATATYPE, H5I_DATASPACE, H5I_GENPROP_LST, H5I_ATTR, H5I_GROUP, H5I_DATASET, H5I_FILE}) {
      hsize_t count = 0;
      H5Inmembers(t, &count);
      n.push_back(static_cast<int64_t>(count));
    }
    return n;
  };
  const auto before = ids();
  {
    auto a = results_file::create(file("a.h5"), root_attrs);
    auto b = results_file::create(file("b.h5"), {});
    EXPECT_EQ(H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_FILE), 2);
    b = std::move(a);  // closes b.h5
    EXPECT_EQ(H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_FILE), 1);
    results_file c(std::move(b));
    EXPECT_EQ(c.path(), file("a.h5").string());
    c.append(candidates(0, 5));
    append_other_tables(c, 0, 5);
    c.add_source("s", "text");
    c.set_attributes("/winner", {{"k", "v"}});
    c.set_attribute("/winner", "x", 1.0);
    c.flush();
    EXPECT_GT(open_objects(), 0);
  }
  EXPECT_EQ(open_objects(), 0);
  EXPECT_EQ(ids(), before);
  h5_id h(open_file(file("a.h5")));
  EXPECT_EQ(row_count(h, "/candidates"), 5u);
  EXPECT_EQ(row_count(h, "/machine"), 5u);
}

TEST_F(store_test, invalid_utf8_is_replaced) {
  {
    auto f = results_file::create(file(), {{"bad", "a\xff"}});
    candidate_row r = candidate(0);
    r.reason = "compiler said \xe2\x80 and \xc0\xaf: ok";
    f.append(std::vector<candidate_row>{r});
  }
  h5_id h(open_file(file()));
  EXPECT_EQ(read_column<std::string>(h, "/candidates", "reason")[0],
            "compiler said \xEF\xBF\xBD\xEF\xBF\xBD and \xEF\xBF\xBD\xEF\xBF\xBD: ok");
  EXPECT_EQ(read_column<std::string>(h, "/candidates", "status")[0], "ok");
  EXPECT_EQ(string_attribute(h, "/", "bad"), "a\xEF\xBF\xBD");
}

// Attributes are stored in the HDF5 type of their kind: texts as variable-length UTF-8, numbers as
// float64, integers as int64, flags as h5py's bool (an enum of int8, FALSE = 0, TRUE = 1), which
// h5py reads as numpy.bool_. The root holds schema_version.
TEST_F(store_test, attributes_are_stored_in_the_type_of_their_kind) {
  {
    auto f = results_file::create(file(), {{"family", "stencil"}, {"tolerance", 1e-3}, {"islands", 4}, {"finished", false}});
    f.set_attribute("/winner", "candidate_id", std::int64_t{1} << 40);
    f.set_attribute("/winner", "finished", true);
    f.set_attribute("/winner", "finished", false);  // replaced, still a flag
  }
  h5_id h(open_file(file()));
  auto type_of = [&](const char* object, const char* key) {
    h5_id attr(H5Aopen_by_name(h, object, key, H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
    return h5_id(H5Aget_type(attr), H5Tclose);
  };
  EXPECT_EQ(string_attribute(h, "/", "family"), "stencil");
  {
    h5_id t = type_of("/", "tolerance");
    EXPECT_TRUE(H5Tequal(t, H5T_IEEE_F64LE) > 0);
    EXPECT_EQ(double_attribute(h, "/", "tolerance"), 1e-3);
  }
  for (const auto& [object, key] : {std::pair{"/", "islands"}, {"/", "schema_version"}, {"/winner", "candidate_id"}}) {
    h5_id t = type_of(object, key);
    EXPECT_TRUE(H5Tequal(t, H5T_STD_I64LE) > 0) << object << " " << key;
  }
  std::int64_t version = 0, id = 0;
  {
    h5_id a(H5Aopen_by_name(h, "/", "schema_version", H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
    EXPECT_GE(H5Aread(a, H5T_NATIVE_INT64, &version), 0);
    h5_id b(H5Aopen_by_name(h, "/winner", "candidate_id", H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
    EXPECT_GE(H5Aread(b, H5T_NATIVE_INT64, &id), 0);
  }
  EXPECT_EQ(version, schema_version);
  EXPECT_EQ(id, std::int64_t{1} << 40);
  for (const auto& [object, key] : {std::pair{"/", "finished"}, {"/winner", "finished"}}) {
    h5_id t = type_of(object, key);
    ASSERT_EQ(H5Tget_class(t), H5T_ENUM) << object << " " << key;
    h5_id base(H5Tget_super(t), H5Tclose);
    EXPECT_TRUE(H5Tequal(base, H5T_NATIVE_INT8) > 0);
    ASSERT_EQ(H5Tget_nmembers(t), 2);
    for (unsigned m = 0; m < 2; ++m) {
      char* name = H5Tget_member_name(t, m);
      std::int8_t value = -1;
      EXPECT_GE(H5Tget_member_value(t, m, &value), 0);
      EXPECT_EQ(std::string(name), m == 0 ? "FALSE" : "TRUE");
      EXPECT_EQ(value, static_cast<std::int8_t>(m));
      H5free_memory(name);
    }
    std::int8_t stored = -1;
    h5_id a(H5Aopen_by_name(h, object, key, H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
    EXPECT_GE(H5Aread(a, t, &stored), 0);
    EXPECT_EQ(stored, 0) << object << " " << key;
  }
}

// A job killed after flush() leaves a file that opens and holds every flushed row.
TEST_F(store_test, flushed_rows_survive_a_killed_writer) {
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    try {
      auto f = results_file::create(file(), root_attrs);
      f.append(candidates(0, 300));
      f.add_source("h0", "text");
      f.flush();
      _exit(0);  // no destructor, no H5Fclose
    } catch (...) {
      _exit(1);
    }
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  h5_id h(open_file(file()));
  ASSERT_GE(h.id, 0);
  EXPECT_EQ(row_count(h, "/candidates"), 300u);
  EXPECT_EQ(read_column<std::string>(h, "/candidates", "params")[299], "{\"TILE\": 299}");
  EXPECT_EQ(source_text(h, "h0"), "text");
  EXPECT_EQ(string_attribute(h, "/", "family"), "stencil");
}

}  // namespace
