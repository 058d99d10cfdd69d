#include "store/results_reader.hpp"

#include <hdf5.h>

#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <stdexcept>
#include <utility>

#include "store/hdf5_handle.hpp"
#include "store/wire.hpp"
#include "util/error.hpp"
#include "util/hash.hpp"
#include "util/isolated.hpp"

namespace galapagos::store {

namespace {

using id_handle = detail::handle;
using detail::hdf5_message;
using wire::decoder;
using wire::put;
using wire::read_frame;
using wire::write_frame;

herr_t reclaim(hid_t type, hid_t space, void* buffer) {
#if H5_VERSION_GE(1, 12, 0)
  return H5Treclaim(type, space, H5P_DEFAULT, buffer);
#else
  return H5Dvlen_reclaim(type, space, H5P_DEFAULT, buffer);
#endif
}

id_handle read_only_access() {
  id_handle fapl(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
#if (H5_VERS_MAJOR == 1 && H5_VERS_MINOR == 10 && H5_VERS_RELEASE >= 7) || H5_VERSION_GE(1, 12, 1)
  // Read-only: no lock, so a reader never stands in the way of anything else.
  H5Pset_file_locking(fapl.get(), false, true);
#endif
  return fapl;
}

// Reads every attribute and every dataset of a file whole, in its native types. What is read
// first is a message (one line, "damaged ...") for the first object that does not read.
struct whole_file_reader {
  hid_t file;
  std::string problem;

  bool attributes(hid_t object, const std::string& name) {
    const herr_t r = H5Aiterate2(
        object, H5_INDEX_NAME, H5_ITER_NATIVE, nullptr,
        [](hid_t loc, const char* key, const H5A_info_t*, void*) -> herr_t {
          const id_handle a(H5Aopen(loc, key, H5P_DEFAULT), H5Aclose);
          const id_handle type(a.valid() ? H5Aget_type(a.get()) : H5I_INVALID_HID, H5Tclose);
          const id_handle mem(type.valid() ? H5Tget_native_type(type.get(), H5T_DIR_DEFAULT) : H5I_INVALID_HID, H5Tclose);
          const id_handle space(a.valid() ? H5Aget_space(a.get()) : H5I_INVALID_HID, H5Sclose);
          const hssize_t n = space.valid() ? H5Sget_simple_extent_npoints(space.get()) : -1;
          if (!mem.valid() || n < 0) return -1;
          std::vector<unsigned char> buf(static_cast<std::size_t>(n) * H5Tget_size(mem.get()) + 1);
          if (H5Aread(a.get(), mem.get(), buf.data()) < 0) return -1;
          reclaim(mem.get(), space.get(), buf.data());
          return 0;
        },
        nullptr);
    if (r < 0) problem = "damaged file: cannot read the attributes of " + name + " (" + hdf5_message() + ")";
    return r >= 0;
  }

  bool dataset(hid_t ds, const std::string& name) {
    const id_handle type(H5Dget_type(ds), H5Tclose);
    const id_handle mem(type.valid() ? H5Tget_native_type(type.get(), H5T_DIR_DEFAULT) : H5I_INVALID_HID, H5Tclose);
    const id_handle space(H5Dget_space(ds), H5Sclose);
    const hssize_t n = space.valid() ? H5Sget_simple_extent_npoints(space.get()) : -1;
    if (!mem.valid() || n < 0) {
      problem = "damaged file: cannot read the type or extent of " + name + " (" + hdf5_message() + ")";
      return false;
    }
    const std::size_t bytes = static_cast<std::size_t>(n) * H5Tget_size(mem.get());
    if (bytes > (std::size_t{1} << 34)) {
      problem = "damaged file: dataset " + name + " claims " + std::to_string(bytes) + " bytes";
      return false;
    }
    std::vector<unsigned char> buf(bytes + 1);
    if (n > 0 && H5Dread(ds, mem.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, buf.data()) < 0) {
      const bool checksum = detail::hdf5_checksum_failed();
      problem = "damaged dataset " + name + (checksum ? " (checksum mismatch)" : " (unreadable)") + ": " + hdf5_message();
      return false;
    }
    if (n > 0) reclaim(mem.get(), space.get(), buf.data());
    return true;
  }

  bool everything() {
    if (!attributes(file, "/")) return false;
    const herr_t r = H5Lvisit(
        file, H5_INDEX_NAME, H5_ITER_NATIVE,
        [](hid_t group, const char* name, const H5L_info_t*, void* data) -> herr_t {
          auto* self = static_cast<whole_file_reader*>(data);
          const std::string path = std::string("/") + name;
          const id_handle object(H5Oopen(group, name, H5P_DEFAULT), H5Oclose);
          if (!object.valid()) {
            self->problem = "damaged file: cannot open " + path + " (" + hdf5_message() + ")";
            return -1;
          }
          if (!self->attributes(object.get(), path)) return -1;
          if (H5Iget_type(object.get()) == H5I_DATASET && !self->dataset(object.get(), path)) return -1;
          return 0;
        },
        this);
    if (r < 0 && problem.empty()) problem = "damaged file: cannot list its objects (" + hdf5_message() + ")";
    return r >= 0;
  }
};

}  // namespace

struct results_reader::impl {
  std::string path;
  hid_t file = H5I_INVALID_HID;  // open in the reading process only
  pid_t server = -1;             // the reading process (this process's side)
  int socket = -1;
  std::mutex mutex;  // one query at a time
  ~impl() {
    if (server > 0) {
      kill(server, SIGKILL);
      while (waitpid(server, nullptr, 0) < 0 && errno == EINTR) {
      }
    }
    if (socket >= 0) close(socket);
    if (file >= 0) H5Fclose(file);
  }

  [[noreturn]] void fail(const std::string& what) const {
    throw galapagos::error(path, "cannot " + what + " (" + hdf5_message() + ")");
  }

  // A dataset whose stored bytes cannot be read back (a chunk failing its Fletcher-32 checksum,
  // or a filter or storage error): the file is damaged, and nothing of the dataset is believed.
  [[noreturn]] void damaged(const std::string& dataset) const {
    const bool checksum = detail::hdf5_checksum_failed();
    throw galapagos::damaged_file(path, "damaged dataset " + dataset + (checksum ? " (checksum mismatch)" : " (unreadable)") +
                                            ": " + hdf5_message() + "; the file cannot be read (restore it from a copy)");
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

bool results_reader::is_hdf5(const std::string& path) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  return H5Fis_hdf5(path.c_str()) > 0;
}

results_reader results_reader::open(const std::string& path) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw galapagos::error(path, "no such file");
  if (!std::filesystem::is_regular_file(path, ec)) throw galapagos::error(path, "not a regular file");
  auto p = std::make_unique<impl>();
  p->path = path;
  results_reader r(std::move(p));
  r.start_server();
  return r;
}

const std::string& results_reader::path() const { return impl_->path; }

bool results_reader::has_here(const std::string& object) const {
  if (object == "/") return true;
  // Every parent must exist before H5Lexists may be asked about the child.
  // A negative answer is an error reading the group's links: a damaged file, not a missing object.
  auto exists = [&](const std::string& name) {
    const htri_t e = H5Lexists(impl_->file, name.c_str(), H5P_DEFAULT);
    if (e < 0)
      throw galapagos::damaged_file(impl_->path, "damaged file: cannot look up " + name + " (" + hdf5_message() +
                                                     "); the file cannot be read (restore it from a copy)");
    return e > 0;
  };
  std::size_t pos = 0;
  while ((pos = object.find('/', pos + 1)) != std::string::npos)
    if (!exists(object.substr(0, pos))) return false;
  return exists(object);
}

std::optional<attribute_value> results_reader::attribute_here(const std::string& object, const std::string& key) const {
  if (!has_here(object)) return std::nullopt;
  auto a = impl_->attribute(object, key);
  if (!a) return std::nullopt;
  const id_handle type(H5Aget_type(a->get()), H5Tclose);
  const id_handle space(H5Aget_space(a->get()), H5Sclose);
  const std::string what = "read attribute '" + key + "' of " + object;
  if (!type.valid() || !space.valid()) impl_->fail(what);
  const H5T_class_t kind = H5Tget_class(type.get());
  if (H5Sget_simple_extent_npoints(space.get()) != 1)
    throw galapagos::error(impl_->path, "attribute '" + key + "' of " + object + " is not a single value");
  switch (kind) {
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
    case H5T_FLOAT: {
      double v = 0;
      if (H5Aread(a->get(), H5T_NATIVE_DOUBLE, &v) < 0) impl_->fail(what);
      return v;
    }
    case H5T_INTEGER: {
      std::int64_t v = 0;
      if (H5Aread(a->get(), H5T_NATIVE_INT64, &v) < 0) impl_->fail(what);
      return v;
    }
    case H5T_ENUM: {
      // A flag is h5py's bool: an enum of an integer with the members FALSE and TRUE.
      const id_handle mem(H5Tget_native_type(type.get(), H5T_DIR_DEFAULT), H5Tclose);
      unsigned char value[16] = {};
      char name[8] = {};
      if (mem.valid() && H5Tget_size(mem.get()) <= sizeof value && H5Tget_nmembers(type.get()) == 2 &&
          H5Aread(a->get(), mem.get(), value) >= 0 && H5Tenum_nameof(mem.get(), value, name, sizeof name) >= 0) {
        if (std::strcmp(name, "TRUE") == 0) return true;
        if (std::strcmp(name, "FALSE") == 0) return false;
      }
      throw galapagos::error(impl_->path, "attribute '" + key + "' of " + object + " is an enumeration but not a flag");
    }
    default:
      throw galapagos::error(impl_->path, "attribute '" + key + "' of " + object + " is neither a text, a number nor a flag");
  }
}

std::optional<std::string> results_reader::text_here(const std::string& dataset) const {
  if (!has_here(dataset)) return std::nullopt;
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

std::optional<std::string> results_reader::source_here(const std::string& hash) const {
  const std::string name = "/sources/" + hash;
  if (hash.empty() || hash.find('/') != std::string::npos || !has_here(name)) return std::nullopt;
  const id_handle ds(H5Dopen2(impl_->file, name.c_str(), H5P_DEFAULT), H5Dclose);
  if (!ds.valid()) impl_->fail("open dataset " + name);
  const id_handle mem = impl_->string_type();
  char* text = nullptr;
  if (H5Dread(ds.get(), mem.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, &text) < 0) impl_->damaged(name);
  if (!text) throw galapagos::error(impl_->path, name + " cannot be read as a text");
  std::string out = text;
  H5free_memory(text);
  // Sources are stored under the hash of their text: a text that does not match its name was
  // damaged on disk (no checksum covers a scalar dataset), and must not be built or reviewed.
  if (util::hash_text(out) != hash)
    throw galapagos::damaged_file(
        impl_->path,
        "damaged dataset " + name + ": its text does not match its hash; the file cannot be read (restore it from a copy)");
  return out;
}

std::size_t results_reader::rows_here(const std::string& table) const {
  const id_handle ds = impl_->open_dataset(table);
  const id_handle space(H5Dget_space(ds.get()), H5Sclose);
  hsize_t n = 0;
  if (!space.valid() || H5Sget_simple_extent_ndims(space.get()) != 1 || H5Sget_simple_extent_dims(space.get(), &n, nullptr) < 0)
    throw galapagos::error(impl_->path, table + " is not a 1-D table");
  return static_cast<std::size_t>(n);
}

std::vector<std::int64_t> results_reader::integers_here(const std::string& table, const std::string& field) const {
  return impl_->column<std::int64_t>(table, field, H5T_NATIVE_INT64, H5T_INTEGER);
}

std::vector<double> results_reader::numbers_here(const std::string& table, const std::string& field) const {
  return impl_->column<double>(table, field, H5T_NATIVE_DOUBLE, H5T_FLOAT);
}

std::vector<std::string> results_reader::strings_here(const std::string& table, const std::string& field) const {
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

// ------------------------------------------------------------------------------------------------
// Every query runs in a reading process of its own (start_server) and its answer comes back
// encoded: libhdf5 can crash on a damaged file (a flipped bit in a global heap or an object
// header, which no dataset checksum covers), and where it crashes depends on the process's
// memory layout, so no earlier check can promise that a later read in this process is safe. An
// answer is "V" and the value, or "D" and a galapagos::damaged_file's message, "E" and a
// galapagos::error's, or "X" and another exception's.

namespace {

const std::string damaged_tail = "; the file cannot be read (restore it from a copy)";
constexpr double query_limit_s = 300;

// What a query asks, as sent to the reading process.
enum class query : char {
  has = 'h',
  attribute = 'a',
  text = 't',
  source = 'c',
  rows = 'r',
  integers = 'i',
  numbers = 'f',
  strings = 'w'
};

}  // namespace

// The reading process: opens the file, reads it whole once (the first answer says whether it
// read), then answers queries until this process closes its end. Forked, never exec'd: it
// runs the *_here functions on its own copy of this reader.
void results_reader::start_server() {
  int fds[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
    throw galapagos::error(impl_->path, std::string("cannot start its reader: socketpair: ") + std::strerror(errno));
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    throw galapagos::error(impl_->path, std::string("cannot start its reader: fork: ") + std::strerror(errno));
  }
  if (pid == 0) {
    close(fds[0]);
    util::quiet_child(parent);
    const int sock = fds[1];
    // No descriptor of the caller's but the socket: a lock file's descriptor held here would
    // keep its lock after the caller let it go.
    if (sock > 3) close_range(3, static_cast<unsigned>(sock - 1), 0);
    close_range(static_cast<unsigned>(sock + 1), ~0u, 0);
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    const id_handle fapl = read_only_access();
    impl_->file = H5Fopen(impl_->path.c_str(), H5F_ACC_RDONLY, fapl.get());
    std::string first = "V";
    if (impl_->file < 0) {
      first = "E" + impl_->path + ": not a readable HDF5 file (truncated or corrupt?): " + hdf5_message();
    } else {
      whole_file_reader whole{impl_->file, {}};
      if (!whole.everything()) first = "D" + impl_->path + ": " + whole.problem + damaged_tail;
    }
    if (!write_frame(sock, first) || first[0] != 'V') _exit(0);
    for (std::string q;;) {
      bool timed_out = false;
      if (!read_frame(sock, q, std::chrono::steady_clock::time_point::max(), timed_out) || q.empty()) _exit(0);
      std::string out;
      try {
        decoder d{q};
        std::string a, b;
        d.get(a);
        d.get(b);
        out.push_back('V');
        switch (static_cast<query>(q[0])) {
          case query::has:
            put(out, has_here(a));
            break;
          case query::attribute:
            put(out, attribute_here(a, b));
            break;
          case query::text:
            put(out, text_here(a));
            break;
          case query::source:
            put(out, source_here(a));
            break;
          case query::rows:
            put(out, static_cast<std::uint64_t>(rows_here(a)));
            break;
          case query::integers:
            put(out, integers_here(a, b));
            break;
          case query::numbers:
            put(out, numbers_here(a, b));
            break;
          case query::strings:
            put(out, strings_here(a, b));
            break;
          default:
            throw std::invalid_argument("unknown query");
        }
      } catch (const galapagos::damaged_file& e) {
        out.assign(1, 'D').append(e.what());
      } catch (const galapagos::error& e) {
        out.assign(1, 'E').append(e.what());
      } catch (const std::exception& e) {
        out.assign(1, 'X').append(e.what());
      }
      if (!write_frame(sock, out)) _exit(0);
    }
  }
  close(fds[1]);
  impl_->server = pid;
  impl_->socket = fds[0];
  const std::string first = answer("");  // the whole-file read
  if (first[0] == 'D') throw galapagos::damaged_file(first.substr(1));
  if (first[0] == 'E') throw galapagos::error(first.substr(1));
}

std::string results_reader::answer(const std::string& request) const {
  std::lock_guard<std::mutex> hold(impl_->mutex);
  const std::string& path = impl_->path;
  bool timed_out = false;
  std::string reply;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                               std::chrono::duration<double>(query_limit_s));
  const bool sent = impl_->server > 0 && (request.empty() || write_frame(impl_->socket, request));
  if (!sent || !read_frame(impl_->socket, reply, deadline, timed_out) || reply.empty()) {
    // The reading process is gone: killed at the time limit, or dead of what the file did to it.
    int status = 0;
    if (impl_->server > 0) {
      if (timed_out) kill(impl_->server, SIGKILL);
      while (waitpid(impl_->server, &status, 0) < 0 && errno == EINTR) {
      }
      impl_->server = -1;
    }
    if (timed_out) throw galapagos::damaged_file(path, "damaged file: reading it did not finish within 300 s" + damaged_tail);
    if (WIFSIGNALED(status))
      throw galapagos::damaged_file(path, "damaged file: reading it crashed the HDF5 library with " +
                                              util::signal_description(WTERMSIG(status)) + damaged_tail);
    throw galapagos::error(path, "cannot be read: its reading process ended");
  }
  return reply;
}

template <class T>
T results_reader::ask(char what, const std::string& a, const std::string& b) const {
  std::string request(1, what);
  put(request, a);
  put(request, b);
  const std::string m = answer(request);
  const std::string& path = impl_->path;
  if (m[0] == 'D') throw galapagos::damaged_file(m.substr(1));
  if (m[0] == 'E') throw galapagos::error(m.substr(1));
  if (m[0] == 'X') throw galapagos::damaged_file(path, "damaged file: reading it failed (" + m.substr(1) + ")" + damaged_tail);
  T value{};
  decoder d{m};
  try {
    d.get(value);
  } catch (const std::length_error&) {
    throw galapagos::error(path, "cannot be read: the reading process's answer is incomplete");
  }
  return value;
}

bool results_reader::has(const std::string& object) const { return ask<bool>('h', object); }
std::optional<attribute_value> results_reader::attribute(const std::string& object, const std::string& key) const {
  return ask<std::optional<attribute_value>>('a', object, key);
}

namespace {

// Attribute `key` of `object` read as one kind by `as` (attribute_value.hpp), whichever form the
// file holds it in; a value of another kind is an error naming the file and the attribute.
template <class T, class As>
std::optional<T> read_as(const results_reader& f, const std::string& object, const std::string& key, As as, const char* kind) {
  const auto v = f.attribute(object, key);
  if (!v) return std::nullopt;
  if (auto x = as(*v)) return x;
  throw galapagos::error(f.path(), "attribute '" + key + "' of " + object + " is not " + kind + " (" + describe(*v) + ")");
}

}  // namespace

std::optional<std::string> results_reader::string_attribute(const std::string& object, const std::string& key) const {
  const auto v = attribute(object, key);
  return v ? std::optional<std::string>(as_text(*v)) : std::nullopt;
}
std::optional<double> results_reader::number_attribute(const std::string& object, const std::string& key) const {
  return read_as<double>(*this, object, key, as_number, "a number");
}
std::optional<std::int64_t> results_reader::integer_attribute(const std::string& object, const std::string& key) const {
  return read_as<std::int64_t>(*this, object, key, as_integer, "an integer");
}
std::optional<bool> results_reader::flag_attribute(const std::string& object, const std::string& key) const {
  return read_as<bool>(*this, object, key, as_flag, "a flag (true or false)");
}
std::optional<std::string> results_reader::text(const std::string& dataset) const {
  return ask<std::optional<std::string>>('t', dataset);
}
std::optional<std::string> results_reader::source(const std::string& hash) const {
  return ask<std::optional<std::string>>('c', hash);
}
std::size_t results_reader::rows(const std::string& table) const {
  return static_cast<std::size_t>(ask<std::uint64_t>('r', table));
}
std::vector<std::int64_t> results_reader::integers(const std::string& table, const std::string& field) const {
  return ask<std::vector<std::int64_t>>('i', table, field);
}
std::vector<double> results_reader::numbers(const std::string& table, const std::string& field) const {
  return ask<std::vector<double>>('f', table, field);
}
std::vector<std::string> results_reader::strings(const std::string& table, const std::string& field) const {
  return ask<std::vector<std::string>>('w', table, field);
}

}  // namespace galapagos::store
