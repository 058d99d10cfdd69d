// HDF5 C API implementation of the results file: the schema (each table's fields, table_def<Row>)
// over the generic typed-table layer (store/typed_table.hpp), and the file's operations.
#include "store/results_file.hpp"

#include <hdf5.h>

#include <array>
#include <cstddef>
#include <cstring>
#include <deque>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>

#include "store/hdf5_handle.hpp"
#include "store/typed_table.hpp"
#include "util/error.hpp"

namespace galapagos::store {
namespace detail {

template <>
struct table_def<candidate_row> {
  using R = candidate_row;
  static constexpr const char* name = "candidates";
  static constexpr const char* description =
      "One row per evaluated candidate (every island, every generation, failures included); NaN: not measured.";
  static constexpr auto fields = std::to_array<field<R>>({
      {"id", &R::id, ""},
      {"island", &R::island, ""},
      {"generation", &R::generation, ""},
      {"origin", &R::origin, ""},
      {"status", &R::status, ""},
      {"reason", &R::reason, ""},
      {"params", &R::params, ""},
      {"parents", &R::parents, ""},
      {"source_hash", &R::source_hash, ""},
      {"compile_time_s", &R::compile_time_s, "s"},
      {"setup_time_s", &R::setup_time_s, "s"},
      {"eval_time_s", &R::eval_time_s, "s"},
      {"time_median_s", &R::time_median_s, "s"},
      {"time_min_s", &R::time_min_s, "s"},
      {"time_spread_s", &R::time_spread_s, "s"},
      {"repetitions", &R::repetitions, "count"},
      {"rel_error", &R::rel_error, "1"},
      {"speedup", &R::speedup, "1"},
      {"baseline_time_s", &R::baseline_time_s, "s"},
      {"roofline_fraction", &R::roofline_fraction, "1"},
      {"device_time_s", &R::device_time_s, "s"},
      {"energy_j", &R::energy_j, "J"},
      {"power_w", &R::power_w, "W"},
      {"sm_clock_mhz", &R::sm_clock_mhz, "MHz"},
      {"throttled_runs", &R::throttled_runs, "count"},
      {"fitness", &R::fitness, "[/fitness_unit]"},
  });
};

template <>
struct table_def<baseline_row> {
  using R = baseline_row;
  static constexpr const char* name = "baselines";
  static constexpr const char* description = "One row per baseline implementation measured; NaN: not measured.";
  static constexpr auto fields = std::to_array<field<R>>({
      {"name", &R::name, ""},
      {"status", &R::status, ""},
      {"reason", &R::reason, ""},
      {"source_hash", &R::source_hash, ""},
      {"setup_time_s", &R::setup_time_s, "s"},
      {"time_median_s", &R::time_median_s, "s"},
      {"time_min_s", &R::time_min_s, "s"},
      {"time_spread_s", &R::time_spread_s, "s"},
      {"repetitions", &R::repetitions, "count"},
      {"rel_error", &R::rel_error, "1"},
      {"roofline_fraction", &R::roofline_fraction, "1"},
      {"energy_j", &R::energy_j, "J"},
      {"power_w", &R::power_w, "W"},
      {"sm_clock_mhz", &R::sm_clock_mhz, "MHz"},
      {"throttled_runs", &R::throttled_runs, "count"},
      {"island", &R::island, ""},
  });
};

template <>
struct table_def<baseline_timing_row> {
  using R = baseline_timing_row;
  static constexpr const char* name = "baseline_timings";
  static constexpr const char* description =
      "The fastest baseline re-timed by every island at the start of every generation, with the candidates' method: the "
      "search-time speedups of that generation's candidates divide by it. time_spread_s: interquartile range; "
      "wall_time_s: the island's search time when it was timed; NaN: not measured.";
  static constexpr auto fields = std::to_array<field<R>>({
      {"session", &R::session, ""},
      {"island", &R::island, ""},
      {"generation", &R::generation, ""},
      {"name", &R::name, ""},
      {"status", &R::status, ""},
      {"time_median_s", &R::time_median_s, "s"},
      {"time_min_s", &R::time_min_s, "s"},
      {"time_spread_s", &R::time_spread_s, "s"},
      {"repetitions", &R::repetitions, "count"},
      {"wall_time_s", &R::wall_time_s, "s"},
  });
};

template <>
struct table_def<population_row> {
  using R = population_row;
  static constexpr const char* name = "populations";
  static constexpr const char* description =
      "One row per member of an island's population after each generation; fitness: its time (lower is better; inf = "
      "failed).";
  static constexpr auto fields = std::to_array<field<R>>({
      {"island", &R::island, ""},
      {"generation", &R::generation, ""},
      {"rank", &R::rank, ""},
      {"candidate_id", &R::candidate_id, ""},
      {"fitness", &R::fitness, "s"},
  });
};

template <>
struct table_def<migration_row> {
  using R = migration_row;
  static constexpr const char* name = "migrations";
  static constexpr const char* description =
      "One row per individual sent from one island to another; fitness: its time on the sending island (inf = failed).";
  static constexpr auto fields = std::to_array<field<R>>({
      {"generation", &R::generation, ""},
      {"from_island", &R::from_island, ""},
      {"to_island", &R::to_island, ""},
      {"candidate_id", &R::candidate_id, ""},
      {"params", &R::params, ""},
      {"fitness", &R::fitness, "s"},
      {"source_hash", &R::source_hash, ""},
  });
};

template <>
struct table_def<generation_row> {
  using R = generation_row;
  static constexpr const char* name = "generations";
  static constexpr const char* description =
      "One progress row per island and generation; wall_time_s and device_busy_s count from the island's start of search.";
  static constexpr auto fields = std::to_array<field<R>>({
      {"island", &R::island, ""},
      {"generation", &R::generation, ""},
      {"evaluated", &R::evaluated, "count"},
      {"failed", &R::failed, "count"},
      {"best_time_s", &R::best_time_s, "s"},
      {"best_speedup", &R::best_speedup, "1"},
      {"wall_time_s", &R::wall_time_s, "s"},
      {"device_busy_s", &R::device_busy_s, "s"},
  });
};

template <>
struct table_def<orchestration_row> {
  using R = orchestration_row;
  static constexpr const char* name = "orchestration";
  static constexpr const char* description =
      "Where each island's search time went, one row per island and session: evaluating, waiting for the model, "
      "and galapagos' own orchestration (MPI, migration, HDF5, search logic).";
  static constexpr auto fields = std::to_array<field<R>>({
      {"session", &R::session, ""},
      {"island", &R::island, ""},
      {"search_s", &R::search_s, "s"},
      {"evaluating_s", &R::evaluating_s, "s"},
      {"model_s", &R::model_s, "s"},
      {"orchestration_s", &R::orchestration_s, "s"},
      {"mpi_s", &R::mpi_s, "s"},
      {"migration_s", &R::migration_s, "s"},
      {"hdf5_s", &R::hdf5_s, "s"},
      {"logic_s", &R::logic_s, "s"},
  });
};

template <>
struct table_def<profile_row> {
  using R = profile_row;
  static constexpr const char* name = "profiles";
  static constexpr const char* description =
      "Profiler metrics (Nsight Compute) of each island's elites: one row per kernel launch and metric.";
  static constexpr auto fields = std::to_array<field<R>>({
      {"candidate_id", &R::candidate_id, ""},
      {"island", &R::island, ""},
      {"kernel", &R::kernel, ""},
      {"launch", &R::launch, ""},
      {"metric", &R::metric, ""},
      {"unit", &R::unit, ""},
      {"value", &R::value, "[unit]"},
  });
};

template <>
struct table_def<llm_call_row> {
  using R = llm_call_row;
  static constexpr const char* name = "llm_calls";
  static constexpr const char* description =
      "One row per request of the LLM proposer to a language model: prompt, answer, tokens, cost and what became of "
      "the candidate it proposed. API keys are never stored.";
  static constexpr auto fields = std::to_array<field<R>>({
      {"id", &R::id, ""},
      {"island", &R::island, ""},
      {"generation", &R::generation, ""},
      {"variation", &R::variation, ""},
      {"turn", &R::turn, ""},
      {"tool", &R::tool, ""},
      {"model", &R::model, ""},
      {"status", &R::status, ""},
      {"reason", &R::reason, ""},
      {"http_status", &R::http_status, ""},
      {"attempts", &R::attempts, "count"},
      {"prompt_tokens", &R::prompt_tokens, "count"},
      {"completion_tokens", &R::completion_tokens, "count"},
      {"cost", &R::cost, "money"},
      {"latency_s", &R::latency_s, "s"},
      {"edits_applied", &R::edits_applied, "count"},
      {"edits_failed", &R::edits_failed, "count"},
      {"outcome", &R::outcome, ""},
      {"candidate_id", &R::candidate_id, ""},
      {"prompt", &R::prompt, ""},
      {"response", &R::response, ""},
  });
};

template <>
struct table_def<machine_row> {
  using R = machine_row;
  static constexpr const char* name = "machine";
  static constexpr const char* description = "One row per island: the hardware probe of the node it ran on.";
  static constexpr auto fields = std::to_array<field<R>>({
      {"island", &R::island, ""},
      {"host", &R::host, ""},
      {"cpu_model", &R::cpu_model, ""},
      {"cores", &R::cores, "count"},
      {"llc_bytes", &R::llc_bytes, "byte"},
      {"bandwidth_gbs", &R::bandwidth_gbs, "GB/s"},
      {"peak_gflops", &R::peak_gflops, "GFLOP/s"},
      {"peak_gflops_f32", &R::peak_gflops_f32, "GFLOP/s"},
  });
};

template <>
struct table_def<recheck_row> {
  using R = recheck_row;
  static constexpr const char* name = "rechecks";
  static constexpr const char* description =
      "One row per `galapagos recheck`: the winner rebuilt, verified and timed interleaved with the baselines again on "
      "the machine named, and the verdict.";
  static constexpr auto fields = std::to_array<field<R>>({
      {"utc", &R::utc, ""},
      {"host", &R::host, ""},
      {"cpu_model", &R::cpu_model, ""},
      {"gpu", &R::gpu, ""},
      {"driver", &R::driver, ""},
      {"compiler", &R::compiler, ""},
      {"galapagos_version", &R::galapagos_version, ""},
      {"git_revision", &R::git_revision, ""},
      {"changes", &R::changes, ""},
      {"candidate_id", &R::candidate_id, ""},
      {"status", &R::status, ""},
      {"reason", &R::reason, ""},
      {"time_median_s", &R::time_median_s, "s"},
      {"time_p50_s", &R::time_p50_s, "s"},
      {"time_p99_s", &R::time_p99_s, "s"},
      {"time_spread_s", &R::time_spread_s, "s"},
      {"repetitions", &R::repetitions, "count"},
      {"fastest_baseline", &R::fastest_baseline, ""},
      {"baseline_median_s", &R::baseline_median_s, "s"},
      {"speedup", &R::speedup, "1"},
      {"recorded_speedup", &R::recorded_speedup, "1"},
      {"sm_clock_mhz", &R::sm_clock_mhz, "MHz"},
      {"energy_j", &R::energy_j, "J"},
      {"throttled_runs", &R::throttled_runs, "count"},
      {"verdict", &R::verdict, ""},
  });
};

}  // namespace detail

using detail::check;
using detail::handle;

struct results_file::impl {
  std::string path;
  handle file;
  handle string_type;  // variable-length UTF-8 C string
  handle flag_type;    // h5py's bool: an enum of int8, FALSE = 0, TRUE = 1
  handle sources;      // the /sources group
  std::tuple<detail::table<candidate_row>, detail::table<baseline_row>, detail::table<baseline_timing_row>,
             detail::table<population_row>, detail::table<migration_row>, detail::table<generation_row>,
             detail::table<machine_row>, detail::table<profile_row>, detail::table<llm_call_row>,
             detail::table<orchestration_row>, detail::table<recheck_row>>
      tables;

  // Wraps a new identifier, throwing when it is invalid.
  handle own(hid_t id, handle::closer close, const std::string& what) const { return handle(check(id, path, what), close); }

  handle file_access() const {
    handle fapl = own(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, "create file access properties");
    // Earliest formats that can hold the data: readable by HDF5 1.8/1.10 and h5py 3.7.
    check(H5Pset_libver_bounds(fapl.get(), H5F_LIBVER_EARLIEST, H5F_LIBVER_V110), path, "set library version bounds");
#if (H5_VERS_MAJOR == 1 && H5_VERS_MINOR == 10 && H5_VERS_RELEASE >= 7) || H5_VERSION_GE(1, 12, 1)
    // Lock the file, but keep working on file systems without locking (some Lustre, NFS).
    check(H5Pset_file_locking(fapl.get(), true, true), path, "set file locking");
#endif
    return fapl;
  }

  void make_string_type() {
    string_type = own(H5Tcopy(H5T_C_S1), H5Tclose, "create string type");
    check(H5Tset_size(string_type.get(), H5T_VARIABLE), path, "create string type");
    check(H5Tset_cset(string_type.get(), H5T_CSET_UTF8), path, "create string type");
    flag_type = own(H5Tenum_create(H5T_NATIVE_INT8), H5Tclose, "create flag type");
    for (const auto& [name, value] : {std::pair<const char*, std::int8_t>{"FALSE", 0}, {"TRUE", 1}})
      check(H5Tenum_insert(flag_type.get(), name, &value), path, "create flag type");
  }

  void create_file() {
    handle fapl = file_access();
    file = own(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl.get()), H5Fclose, "create file");
    make_string_type();
    sources = own(H5Gcreate2(file.get(), "/sources", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose, "create group /sources");
    std::apply([&](auto&... t) { (create_table(t), ...); }, tables);
  }

  // Opens a file this build wrote, to append to it; a table added since it was written is created.
  void open_file() {
    handle fapl = file_access();
    file = own(H5Fopen(path.c_str(), H5F_ACC_RDWR, fapl.get()), H5Fclose, "open file");
    make_string_type();
    sources = own(H5Gopen2(file.get(), "/sources", H5P_DEFAULT), H5Gclose, "open group /sources");
    std::apply([&](auto&... t) { (open_table(t), ...); }, tables);
  }

  template <class Row>
  void open_table(detail::table<Row>& t) {
    const std::string name = std::string("/") + detail::table_def<Row>::name;
    const std::string what = "open dataset " + name;
    if (H5Lexists(file.get(), name.c_str(), H5P_DEFAULT) == 0) {  // a table newer than the file (e.g. /llm_calls)
      create_table(t);
      return;
    }
    t.mem_type = make_mem_type(t, what);
    t.dataset = own(H5Dopen2(file.get(), name.c_str(), H5P_DEFAULT), H5Dclose, what);
    handle space = own(H5Dget_space(t.dataset.get()), H5Sclose, what);
    hsize_t n = 0;
    check(H5Sget_simple_extent_dims(space.get(), &n, nullptr), path, what);
    t.size = n;
  }

  // The in-memory compound type of a table's rows (strings as variable-length UTF-8).
  template <class Row>
  handle make_mem_type(const detail::table<Row>& t, const std::string& what) const {
    using def = detail::table_def<Row>;
    handle mem = own(H5Tcreate(H5T_COMPOUND, t.record_size), H5Tclose, what);
    for (std::size_t f = 0; f < def::fields.size(); ++f) {
      const hid_t member_type = std::visit(
          [&](auto ptr) {
            using T = typename detail::member_type<decltype(ptr)>::type;
            return detail::native_type<T>(string_type.get());
          },
          def::fields[f].ptr);
      check(H5Tinsert(mem.get(), def::fields[f].name, t.offsets[f], member_type), path, what);
    }
    return mem;
  }

  template <class Row>
  void create_table(detail::table<Row>& t) {
    using def = detail::table_def<Row>;
    const std::string name = std::string("/") + def::name;
    const std::string what = "create dataset " + name;

    t.mem_type = make_mem_type(t, what);
    handle file_type = own(H5Tcopy(t.mem_type.get()), H5Tclose, what);
    check(H5Tpack(file_type.get()), path, what);

    const hsize_t initial = 0, max = H5S_UNLIMITED;
    handle space = own(H5Screate_simple(1, &initial, &max), H5Sclose, what);
    handle dcpl = own(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, what);
    check(H5Pset_chunk(dcpl.get(), 1, &detail::chunk_rows), path, what);
    // Every chunk carries a Fletcher-32 checksum: a damaged chunk fails to read instead of
    // handing back garbage (variable-length strings pointing anywhere).
    check(H5Pset_fletcher32(dcpl.get()), path, what);
    t.dataset = own(H5Dcreate2(file.get(), name.c_str(), file_type.get(), space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT),
                    H5Dclose, what);
    write_string_attribute(t.dataset.get(), name, "description", def::description);
    write_string_attribute(t.dataset.get(), name, "units", detail::units_json<Row>());
  }

  template <class Row>
  void append(const std::vector<Row>& rows) {
    auto& t = std::get<detail::table<Row>>(tables);
    if (rows.empty()) return;
    const std::string what = std::string("append to /") + detail::table_def<Row>::name;
    std::deque<std::string> scratch;
    const std::vector<unsigned char> buffer = t.pack(rows, scratch);

    const hsize_t start = t.size, count = rows.size(), new_size = t.size + count;
    check(H5Dset_extent(t.dataset.get(), &new_size), path, what);
    t.size = new_size;
    handle file_space = own(H5Dget_space(t.dataset.get()), H5Sclose, what);
    check(H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, &start, nullptr, &count, nullptr), path, what);
    handle mem_space = own(H5Screate_simple(1, &count, nullptr), H5Sclose, what);
    check(H5Dwrite(t.dataset.get(), t.mem_type.get(), mem_space.get(), file_space.get(), H5P_DEFAULT, buffer.data()), path, what);
  }

  // Writes (or replaces) attribute `key` of the object `obj` (named `obj_name` in messages).
  void write_attribute(hid_t obj, const std::string& obj_name, const std::string& key, hid_t type, const void* value) const {
    const std::string what = "write attribute '" + key + "' of " + obj_name;
    if (check(H5Aexists(obj, key.c_str()), path, what) > 0) check(H5Adelete(obj, key.c_str()), path, what);
    handle space = own(H5Screate(H5S_SCALAR), H5Sclose, what);
    handle attr = own(H5Acreate2(obj, key.c_str(), type, space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose, what);
    check(H5Awrite(attr.get(), type, value), path, what);
  }

  void write_string_attribute(hid_t obj, const std::string& obj_name, const std::string& key, const std::string& value) const {
    std::deque<std::string> scratch;
    const char* text = detail::utf8_c_str(value, scratch);
    write_attribute(obj, obj_name, key, string_type.get(), &text);
  }

  // Texts as variable-length UTF-8, numbers as float64, integers as int64, flags as h5py's bool.
  void write_attribute(hid_t obj, const std::string& obj_name, const std::string& key, const attribute_value& value) const {
    if (const auto* text = std::get_if<std::string>(&value)) return write_string_attribute(obj, obj_name, key, *text);
    if (const auto* number = std::get_if<double>(&value)) return write_attribute(obj, obj_name, key, H5T_IEEE_F64LE, number);
    if (const auto* integer = std::get_if<std::int64_t>(&value))
      return write_attribute(obj, obj_name, key, H5T_STD_I64LE, integer);
    const std::int8_t flag = std::get<bool>(value) ? 1 : 0;
    write_attribute(obj, obj_name, key, flag_type.get(), &flag);
  }

  // Opens a group, creating it and any missing parents.
  handle open_group(const std::string& name) const {
    const std::string group = name.empty() ? "/" : name;
    if (hid_t id = H5Gopen2(file.get(), group.c_str(), H5P_DEFAULT); id >= 0) return handle(id, H5Gclose);
    const std::string what = "create group " + group;
    handle lcpl = own(H5Pcreate(H5P_LINK_CREATE), H5Pclose, what);
    check(H5Pset_create_intermediate_group(lcpl.get(), 1), path, what);
    return own(H5Gcreate2(file.get(), group.c_str(), lcpl.get(), H5P_DEFAULT, H5P_DEFAULT), H5Gclose, what);
  }

  void add_source(const std::string& hash, const std::string& text) {
    if (hash.empty() || hash == "." || hash.find('/') != std::string::npos)
      throw galapagos::error(path, "invalid source hash '" + hash + "'");
    const std::string name = "/sources/" + hash;
    const std::string what = "write dataset " + name;
    if (check(H5Lexists(sources.get(), hash.c_str(), H5P_DEFAULT), path, what) > 0) return;
    std::deque<std::string> scratch;
    const char* data = detail::utf8_c_str(text, scratch);
    handle space = own(H5Screate(H5S_SCALAR), H5Sclose, what);
    handle dataset =
        own(H5Dcreate2(sources.get(), hash.c_str(), string_type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
            H5Dclose, what);
    check(H5Dwrite(dataset.get(), string_type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, &data), path, what);
  }
};

results_file::results_file(std::unique_ptr<impl> p) : impl_(std::move(p)) {}
results_file::results_file(results_file&&) noexcept = default;
results_file& results_file::operator=(results_file&&) noexcept = default;
results_file::~results_file() = default;

results_file results_file::create(const std::string& path, const attributes& root_attrs) {
  // Failures become exceptions; HDF5 must not print its error stack to stderr.
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  auto p = std::make_unique<impl>();
  p->path = path;
  p->create_file();
  handle root = p->open_group("/");
  for (const auto& [key, value] : root_attrs) p->write_attribute(root.get(), "/", key, value);
  p->write_attribute(root.get(), "/", "schema_version", schema_version);
  return results_file(std::move(p));
}

results_file results_file::open(const std::string& path) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  auto p = std::make_unique<impl>();
  p->path = path;
  p->open_file();
  return results_file(std::move(p));
}

void results_file::close() {
  if (!impl_) return;
  flush();
  impl_.reset();
}

void results_file::append(const std::vector<candidate_row>& rows) { impl_->append(rows); }
void results_file::append(const std::vector<baseline_row>& rows) { impl_->append(rows); }
void results_file::append(const std::vector<population_row>& rows) { impl_->append(rows); }
void results_file::append(const std::vector<migration_row>& rows) { impl_->append(rows); }
void results_file::append(const std::vector<generation_row>& rows) { impl_->append(rows); }
void results_file::append(const std::vector<machine_row>& rows) { impl_->append(rows); }
void results_file::append(const std::vector<recheck_row>& rows) { impl_->append(rows); }
void results_file::append(const std::vector<orchestration_row>& rows) { impl_->append(rows); }
void results_file::append(const std::vector<baseline_timing_row>& rows) { impl_->append(rows); }
void results_file::append(const std::vector<profile_row>& rows) { impl_->append(rows); }
void results_file::append(const std::vector<llm_call_row>& rows) { impl_->append(rows); }

void results_file::add_source(const std::string& hash, const std::string& text) { impl_->add_source(hash, text); }

void results_file::set_attributes(const std::string& group, const attributes& attrs) {
  handle g = impl_->open_group(group);
  for (const auto& [key, value] : attrs) impl_->write_attribute(g.get(), group, key, value);
}

void results_file::set_attribute(const std::string& group, const std::string& key, const attribute_value& value) {
  handle g = impl_->open_group(group);
  impl_->write_attribute(g.get(), group, key, value);
}

void results_file::set_text(const std::string& dataset, const std::string& text) {
  const auto slash = dataset.rfind('/');
  if (slash == std::string::npos || slash + 1 == dataset.size())
    throw galapagos::error(impl_->path, "invalid dataset name '" + dataset + "'");
  const std::string leaf = dataset.substr(slash + 1), what = "write dataset " + dataset;
  handle g = impl_->open_group(dataset.substr(0, slash));
  const hsize_t n = text.size();
  handle ds;
  if (check(H5Lexists(g.get(), leaf.c_str(), H5P_DEFAULT), impl_->path, what) > 0) {
    ds = impl_->own(H5Dopen2(g.get(), leaf.c_str(), H5P_DEFAULT), H5Dclose, what);
    check(H5Dset_extent(ds.get(), &n), impl_->path, what);
  } else {
    const hsize_t max = H5S_UNLIMITED, chunk = 8192;
    handle space = impl_->own(H5Screate_simple(1, &n, &max), H5Sclose, what);
    handle dcpl = impl_->own(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, what);
    check(H5Pset_chunk(dcpl.get(), 1, &chunk), impl_->path, what);
    check(H5Pset_fletcher32(dcpl.get()), impl_->path, what);
    ds = impl_->own(H5Dcreate2(g.get(), leaf.c_str(), H5T_STD_U8LE, space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT), H5Dclose,
                    what);
  }
  if (n == 0) return;
  handle mem = impl_->own(H5Screate_simple(1, &n, nullptr), H5Sclose, what);
  check(H5Dwrite(ds.get(), H5T_NATIVE_UINT8, mem.get(), H5S_ALL, H5P_DEFAULT, text.data()), impl_->path, what);
}

void results_file::flush() { check(H5Fflush(impl_->file.get(), H5F_SCOPE_GLOBAL), impl_->path, "flush file"); }

const std::string& results_file::path() const { return impl_->path; }

}  // namespace galapagos::store
