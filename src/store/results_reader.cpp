#include "store/results_reader.hpp"

#include <hdf5.h>

#include <cstdio>
#include <filesystem>
#include <utility>

#include "store/hdf5_handle.hpp"
#include "util/error.hpp"

namespace galapagos::store {

namespace {

using id_handle = detail::handle;
using detail::hdf5_message;

std::string format_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

herr_t reclaim(hid_t type, hid_t space, void* buffer) {
#if H5_VERSION_GE(1, 12, 0)
  return H5Treclaim(type, space, H5P_DEFAULT, buffer);
#else
  return H5Dvlen_reclaim(type, space, H5P_DEFAULT, buffer);
#endif
}

}  // namespace

struct results_reader::impl {
  std::string path;
  hid_t file = H5I_INVALID_HID;
  ~impl() {
    if (file >= 0) H5Fclose(file);
  }

  [[noreturn]] void fail(const std::string& what) const {
    throw galapagos::error(path, "cannot " + what + " (" + hdf5_message() + ")");
  }

  // A dataset whose stored bytes cannot be read back (a chunk failing its Fletcher-32 checksum,
  // or a filter or storage error): the file is damaged, and nothing of the dataset is believed.
  [[noreturn]] void damaged(const std::string& dataset) const {
    const bool checksum = detail::hdf5_checksum_failed();
    throw galapagos::error(path, "damaged dataset " + dataset + (checksum ? " (checksum mismatch)" : " (unreadable)") + ": " +
                                     hdf5_message() + "; the file cannot be read (restore it from a copy)");
  }

  id_handle open_dataset(const std::string& table) const {
    if (H5Lexists(file, table.c_str(), H5P_DEFAULT) <= 0)
      throw galapagos::error(path, "no table " + table + " (not a galapagos results file, or from another version)");
    id_handle ds(H5Dopen2(file, table.c_str(), H5P_DEFAULT), H5Dclose);
    if (!ds.valid()) fail("open table " + table);
    return ds;
  }

  // Reads one field of every row into `buffer` (one element of `mem_member` per row).
  template <class T>
  std::vector<T> column(const std::string& table, const std::string& field, hid_t mem_member, H5T_class_t want) const {
    const id_handle ds = open_dataset(table);
    const id_handle file_type(H5Dget_type(ds.get()), H5Tclose);
    if (!file_type.valid() || H5Tget_class(file_type.get()) != H5T_COMPOUND)
      throw galapagos::error(path, table + " is not a table of records");
    const int index = H5Tget_member_index(file_type.get(), field.c_str());
    if (index < 0) throw galapagos::error(path, table + " has no field '" + field + "' (written by another galapagos version?)");
    const H5T_class_t got = H5Tget_member_class(file_type.get(), static_cast<unsigned>(index));
    const bool compatible = got == want || (want == H5T_FLOAT && got == H5T_INTEGER);
    if (!compatible) throw galapagos::error(path, table + " field '" + field + "' has an unexpected type");
    const id_handle space(H5Dget_space(ds.get()), H5Sclose);
    hsize_t n = 0;
    if (!space.valid() || H5Sget_simple_extent_ndims(space.get()) != 1 || H5Sget_simple_extent_dims(space.get(), &n, nullptr) < 0)
      throw galapagos::error(path, table + " is not a 1-D table");
    std::vector<T> out(static_cast<std::size_t>(n));
    if (n == 0) return out;
    const id_handle mem(H5Tcreate(H5T_COMPOUND, sizeof(T)), H5Tclose);
    if (!mem.valid() || H5Tinsert(mem.get(), field.c_str(), 0, mem_member) < 0) fail("read " + table + " field " + field);
    if (H5Dread(ds.get(), mem.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()) < 0) damaged(table);
    return out;
  }

  id_handle string_type() const {
    id_handle t(H5Tcopy(H5T_C_S1), H5Tclose);
    H5Tset_size(t.get(), H5T_VARIABLE);
    H5Tset_cset(t.get(), H5T_CSET_UTF8);
    return t;
  }

  std::optional<id_handle> attribute(const std::string& object, const std::string& key) const {
    if (object != "/" && H5Lexists(file, object.c_str(), H5P_DEFAULT) <= 0) return std::nullopt;
    const htri_t exists = H5Aexists_by_name(file, object.c_str(), key.c_str(), H5P_DEFAULT);
    if (exists < 0) fail("read attribute '" + key + "' of " + object);
    if (exists == 0) return std::nullopt;
    id_handle a(H5Aopen_by_name(file, object.c_str(), key.c_str(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
    if (!a.valid()) fail("read attribute '" + key + "' of " + object);
    return a;
  }
};

results_reader::results_reader(std::unique_ptr<impl> p) : impl_(std::move(p)) {}
results_reader::results_reader(results_reader&&) noexcept = default;
results_reader& results_reader::operator=(results_reader&&) noexcept = default;
results_reader::~results_reader() = default;

results_reader results_reader::open(const std::string& path) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw galapagos::error(path, "no such file");
  if (!std::filesystem::is_regular_file(path, ec)) throw galapagos::error(path, "not a regular file");
  auto p = std::make_unique<impl>();
  p->path = path;
  const id_handle fapl(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
#if (H5_VERS_MAJOR == 1 && H5_VERS_MINOR == 10 && H5_VERS_RELEASE >= 7) || H5_VERSION_GE(1, 12, 1)
  // Read-only: no lock, so a reader never stands in the way of anything else.
  H5Pset_file_locking(fapl.get(), false, true);
#endif
  p->file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, fapl.get());
  if (p->file < 0) throw galapagos::error(path, "not a readable HDF5 file (truncated or corrupt?): " + hdf5_message());
  return results_reader(std::move(p));
}

const std::string& results_reader::path() const { return impl_->path; }

bool results_reader::has(const std::string& object) const {
  if (object == "/") return true;
  // Every parent must exist before H5Lexists may be asked about the child.
  // A negative answer is an error reading the group's links: a damaged file, not a missing object.
  auto exists = [&](const std::string& name) {
    const htri_t e = H5Lexists(impl_->file, name.c_str(), H5P_DEFAULT);
    if (e < 0)
      throw galapagos::error(impl_->path, "damaged file: cannot look up " + name + " (" + hdf5_message() +
                                              "); the file cannot be read (restore it from a copy)");
    return e > 0;
  };
  std::size_t pos = 0;
  while ((pos = object.find('/', pos + 1)) != std::string::npos)
    if (!exists(object.substr(0, pos))) return false;
  return exists(object);
}

std::optional<std::string> results_reader::string_attribute(const std::string& object, const std::string& key) const {
  if (!has(object)) return std::nullopt;
  auto a = impl_->attribute(object, key);
  if (!a) return std::nullopt;
  const id_handle type(H5Aget_type(a->get()), H5Tclose);
  const std::string what = "read attribute '" + key + "' of " + object;
  switch (H5Tget_class(type.get())) {
    case H5T_STRING: {
      if (H5Tis_variable_str(type.get()) > 0) {
        const id_handle mem = impl_->string_type();
        char* text = nullptr;
        if (H5Aread(a->get(), mem.get(), &text) < 0) impl_->fail(what);
        std::string out = text ? text : "";
        H5free_memory(text);
        return out;
      }
      const std::size_t n = H5Tget_size(type.get());
      std::string out(n, '\0');
      if (H5Aread(a->get(), type.get(), out.data()) < 0) impl_->fail(what);
      out.resize(out.find('\0') == std::string::npos ? n : out.find('\0'));
      return out;
    }
    case H5T_FLOAT:
    case H5T_INTEGER: {
      double v = 0;
      if (H5Aread(a->get(), H5T_NATIVE_DOUBLE, &v) < 0) impl_->fail(what);
      return format_number(v);
    }
    default:
      throw galapagos::error(impl_->path, "attribute '" + key + "' of " + object + " is neither a string nor a number");
  }
}

std::optional<double> results_reader::number_attribute(const std::string& object, const std::string& key) const {
  if (!has(object)) return std::nullopt;
  auto a = impl_->attribute(object, key);
  if (!a) return std::nullopt;
  const id_handle type(H5Aget_type(a->get()), H5Tclose);
  const H5T_class_t c = H5Tget_class(type.get());
  if (c != H5T_FLOAT && c != H5T_INTEGER)
    throw galapagos::error(impl_->path, "attribute '" + key + "' of " + object + " is not a number");
  double v = 0;
  if (H5Aread(a->get(), H5T_NATIVE_DOUBLE, &v) < 0) impl_->fail("read attribute '" + key + "' of " + object);
  return v;
}

std::optional<std::string> results_reader::text(const std::string& dataset) const {
  if (!has(dataset)) return std::nullopt;
  const id_handle ds(H5Dopen2(impl_->file, dataset.c_str(), H5P_DEFAULT), H5Dclose);
  if (!ds.valid()) impl_->fail("open dataset " + dataset);
  const id_handle space(H5Dget_space(ds.get()), H5Sclose);
  hsize_t n = 0;
  if (!space.valid() || H5Sget_simple_extent_ndims(space.get()) != 1 || H5Sget_simple_extent_dims(space.get(), &n, nullptr) < 0)
    throw galapagos::error(impl_->path, dataset + " is not a 1-D text");
  std::string out(static_cast<std::size_t>(n), '\0');
  if (n > 0 && H5Dread(ds.get(), H5T_NATIVE_UINT8, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()) < 0) impl_->damaged(dataset);
  return out;
}

std::optional<std::string> results_reader::source(const std::string& hash) const {
  const std::string name = "/sources/" + hash;
  if (hash.empty() || hash.find('/') != std::string::npos || !has(name)) return std::nullopt;
  const id_handle ds(H5Dopen2(impl_->file, name.c_str(), H5P_DEFAULT), H5Dclose);
  if (!ds.valid()) impl_->fail("open dataset " + name);
  const id_handle mem = impl_->string_type();
  char* text = nullptr;
  if (H5Dread(ds.get(), mem.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, &text) < 0) impl_->damaged(name);
  if (!text) throw galapagos::error(impl_->path, name + " cannot be read as a text");
  std::string out = text;
  H5free_memory(text);
  return out;
}

std::size_t results_reader::rows(const std::string& table) const {
  const id_handle ds = impl_->open_dataset(table);
  const id_handle space(H5Dget_space(ds.get()), H5Sclose);
  hsize_t n = 0;
  if (!space.valid() || H5Sget_simple_extent_ndims(space.get()) != 1 || H5Sget_simple_extent_dims(space.get(), &n, nullptr) < 0)
    throw galapagos::error(impl_->path, table + " is not a 1-D table");
  return static_cast<std::size_t>(n);
}

std::vector<std::int64_t> results_reader::integers(const std::string& table, const std::string& field) const {
  return impl_->column<std::int64_t>(table, field, H5T_NATIVE_INT64, H5T_INTEGER);
}

std::vector<double> results_reader::numbers(const std::string& table, const std::string& field) const {
  return impl_->column<double>(table, field, H5T_NATIVE_DOUBLE, H5T_FLOAT);
}

std::vector<std::string> results_reader::strings(const std::string& table, const std::string& field) const {
  const id_handle mem = impl_->string_type();
  std::vector<char*> raw = impl_->column<char*>(table, field, mem.get(), H5T_STRING);
  std::vector<std::string> out;
  out.reserve(raw.size());
  for (char* s : raw) out.emplace_back(s ? s : "");
  if (!raw.empty()) {
    const hsize_t n = raw.size();
    const id_handle space(H5Screate_simple(1, &n, nullptr), H5Sclose);
    const id_handle compound(H5Tcreate(H5T_COMPOUND, sizeof(char*)), H5Tclose);
    H5Tinsert(compound.get(), field.c_str(), 0, mem.get());
    reclaim(compound.get(), space.get(), raw.data());
  }
  return out;
}

}  // namespace galapagos::store
