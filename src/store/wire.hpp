// How a results_reader and its reading process talk (results_reader.cpp): values encoded as
// bytes (integers and doubles as they are in memory, strings and vectors with their length
// first, optionals with a flag), sent in frames of an 8-byte length and the bytes.
#pragma once

#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <optional>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "store/attribute_value.hpp"

namespace galapagos::store::wire {

inline void put(std::string& out, std::uint64_t v) { out.append(reinterpret_cast<const char*>(&v), sizeof v); }
inline void put(std::string& out, std::int64_t v) { put(out, static_cast<std::uint64_t>(v)); }
inline void put(std::string& out, double v) { out.append(reinterpret_cast<const char*>(&v), sizeof v); }
inline void put(std::string& out, bool v) { out.push_back(v ? 1 : 0); }
inline void put(std::string& out, const std::string& v) {
  put(out, static_cast<std::uint64_t>(v.size()));
  out.append(v);
}
// An attribute's value: the index of its kind, then the value.
inline void put(std::string& out, const attribute_value& v) {
  out.push_back(static_cast<char>(v.index()));
  std::visit([&](const auto& x) { put(out, x); }, v);
}
template <class T>
void put(std::string& out, const std::optional<T>& v) {
  put(out, v.has_value());
  if (v) put(out, *v);
}
template <class T>
void put(std::string& out, const std::vector<T>& v) {
  put(out, static_cast<std::uint64_t>(v.size()));
  for (const auto& x : v) put(out, x);
}

struct decoder {
  const std::string& in;
  std::size_t at = 1;
  void bytes(void* to, std::size_t n) {
    if (at + n > in.size()) throw std::length_error("short answer");
    std::memcpy(to, in.data() + at, n);
    at += n;
  }
  void get(std::uint64_t& v) { bytes(&v, sizeof v); }
  void get(std::int64_t& v) { bytes(&v, sizeof v); }
  void get(double& v) { bytes(&v, sizeof v); }
  void get(bool& v) {
    char c = 0;
    bytes(&c, 1);
    v = c != 0;
  }
  void get(std::string& v) {
    std::uint64_t n = 0;
    get(n);
    if (n > in.size() - at) throw std::length_error("short answer");
    v.assign(in.data() + at, n);
    at += n;
  }
  void get(attribute_value& v) {
    static const attribute_value kinds[] = {std::string(), 0.0, std::int64_t{0}, false};  // in the variant's order
    static_assert(std::size(kinds) == std::variant_size_v<attribute_value>);
    char kind = 0;
    bytes(&kind, 1);
    if (kind < 0 || static_cast<std::size_t>(kind) >= std::size(kinds)) throw std::length_error("unknown kind of attribute");
    v = kinds[static_cast<std::size_t>(kind)];
    std::visit([&](auto& x) { get(x); }, v);
  }
  template <class T>
  void get(std::optional<T>& v) {
    bool has = false;
    get(has);
    if (!has) return v.reset();
    T x{};
    get(x);
    v = std::move(x);
  }
  template <class T>
  void get(std::vector<T>& v) {
    std::uint64_t n = 0;
    get(n);
    if (n > in.size()) throw std::length_error("short answer");
    v.resize(n);
    for (auto& x : v) get(x);
  }
};

// Frames between the two processes: an 8-byte length, then the bytes.
inline bool write_frame(int fd, const std::string& payload) {
  std::string out;
  put(out, static_cast<std::uint64_t>(payload.size()));
  out += payload;
  for (std::size_t done = 0; done < out.size();) {
    const ssize_t n = send(fd, out.data() + done, out.size() - done, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

// Reads exactly n bytes; false at end of file or past the deadline (timed_out set).
inline bool read_exact(int fd, char* to, std::size_t n, std::chrono::steady_clock::time_point deadline, bool& timed_out) {
  while (n > 0) {
    const double left = std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) return timed_out = true, false;
    pollfd p{fd, POLLIN, 0};
    const int ready = poll(&p, 1, static_cast<int>(std::min(left * 1000 + 1, 60000.0)));
    if (ready < 0 && errno != EINTR) return false;
    if (ready <= 0) continue;
    const ssize_t got = recv(fd, to, n, 0);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    to += got;
    n -= static_cast<std::size_t>(got);
  }
  return true;
}

inline bool read_frame(int fd, std::string& payload, std::chrono::steady_clock::time_point deadline, bool& timed_out) {
  std::uint64_t n = 0;
  if (!read_exact(fd, reinterpret_cast<char*>(&n), sizeof n, deadline, timed_out)) return false;
  payload.resize(n);
  return read_exact(fd, payload.data(), n, deadline, timed_out);
}

}  // namespace galapagos::store::wire
