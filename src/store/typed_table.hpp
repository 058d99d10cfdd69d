// The typed-table layer of the results file: a table is described once, as a list of (field
// name, struct member, unit) triples (table_def<Row>, the schema, in results_file.cpp); the
// compound type, the packing of rows into C records, the record layout and the table's `units`
// attribute are generic over that list.
// Strings are stored as UTF-8: invalid bytes are replaced by U+FFFD.
#pragma once

#include <hdf5.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <deque>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "store/hdf5_handle.hpp"

namespace galapagos::store::detail {

inline constexpr hsize_t chunk_rows = 256;  // rows per chunk of an extendible table

// Throws galapagos::error "<path>: cannot <what> (<HDF5's message>)".
[[noreturn]] void fail(const std::string& path, const std::string& what);

// Returns `status` (an hid_t or herr_t) or throws when HDF5 reported a failure.
template <class T>
T check(T status, const std::string& path, const std::string& what) {
  if (status < 0) fail(path, what);
  return status;
}

// The string itself when valid UTF-8, else a copy with U+FFFD for each invalid byte, kept in
// `scratch` until the write is done.
const char* utf8_c_str(const std::string& s, std::deque<std::string>& scratch);
bool valid_utf8(std::string_view s);
std::string sanitize_utf8(std::string_view s);

// --- table descriptions --------------------------------------------------------------------

template <class Row>
using member = std::variant<std::int32_t Row::*, std::int64_t Row::*, double Row::*, std::string Row::*>;

// Units a column may have (docs/hdf5-schema.md, "Table attributes"): "s", "J", "W", "MHz", "GB/s",
// "GFLOP/s", "byte", "count", "1" (a dimensionless ratio), "money" (the unit of the LLM prices),
// "" (texts, ids, indices, codes), "[column]": each row's unit is in that column, or "[/attribute]":
// the unit is the file's root attribute of that name (the candidates' fitness: /fitness_unit).
template <class Row>
struct field {
  const char* name;  // exactly the struct member's name
  member<Row> ptr;
  const char* unit = nullptr;  // every field names one: table<Row> refuses to compile otherwise
};

template <class Row>
struct table_def;

// Number of members of an aggregate of scalars and strings, so that a member added to a row
// struct without adding it to its table_def fails to compile.
struct any_value {
  template <class T>
  operator T() const;
};
template <class T, class... A>
consteval std::size_t member_count() {
  if constexpr (requires { T{A{}..., any_value{}}; })
    return member_count<T, A..., any_value>();
  else
    return sizeof...(A);
}

template <class M>
struct member_type;
template <class Row, class T>
struct member_type<T Row::*> {
  using type = T;
};

// The C type a member is stored as in a packed record.
template <class T>
using c_type = std::conditional_t<std::is_same_v<T, std::string>, const char*, T>;

template <class T>
hid_t native_type(hid_t string_type) {
  if constexpr (std::is_same_v<T, std::int32_t>)
    return H5T_NATIVE_INT32;
  else if constexpr (std::is_same_v<T, std::int64_t>)
    return H5T_NATIVE_INT64;
  else if constexpr (std::is_same_v<T, double>)
    return H5T_NATIVE_DOUBLE;
  else
    return string_type;
}

template <class Row>
consteval bool every_field_has_unit() {
  for (const auto& f : table_def<Row>::fields)
    if (f.unit == nullptr) return false;
  return true;
}

// The table's `units` attribute: a JSON object {"column": "unit"} over every field, in order.
template <class Row>
std::string units_json() {
  std::string out = "{";
  for (const auto& f : table_def<Row>::fields) {
    if (out.size() > 1) out += ", ";
    ((out += '"') += f.name) += "\": \"";
    (out += f.unit) += '"';
  }
  return out + "}";
}

// One extendible compound dataset plus the in-memory record layout of its rows: the members
// in declaration order at their natural alignment, like a C struct.
template <class Row>
struct table {
  std::array<std::size_t, table_def<Row>::fields.size()> offsets{};
  std::size_t record_size = 0;
  handle mem_type;
  handle dataset;
  hsize_t size = 0;  // rows written

  table() {
    static_assert(table_def<Row>::fields.size() == member_count<Row>(),
                  "table_def must list every member of the row, in declaration order");
    static_assert(every_field_has_unit<Row>(), "every field of a table_def must name its unit ({name, &R::member, unit})");
    for (std::size_t f = 0; f < offsets.size(); ++f) {
      std::visit(
          [&](auto ptr) {
            using C = c_type<typename member_type<decltype(ptr)>::type>;
            record_size = (record_size + alignof(C) - 1) / alignof(C) * alignof(C);
            offsets[f] = record_size;
            record_size += sizeof(C);
          },
          table_def<Row>::fields[f].ptr);
    }
    record_size = (record_size + 7) / 8 * 8;  // every member is at most 8 bytes
  }

  // Packs rows into C records; strings point into `rows` or into `scratch`.
  std::vector<unsigned char> pack(const std::vector<Row>& rows, std::deque<std::string>& scratch) const {
    std::vector<unsigned char> buffer(rows.size() * record_size);
    for (std::size_t r = 0; r < rows.size(); ++r) {
      unsigned char* record = buffer.data() + r * record_size;
      for (std::size_t f = 0; f < offsets.size(); ++f) {
        std::visit(
            [&](auto ptr) {
              const auto& value = rows[r].*ptr;
              c_type<std::remove_cvref_t<decltype(value)>> stored;
              if constexpr (std::is_same_v<decltype(stored), const char*>)
                stored = utf8_c_str(value, scratch);
              else
                stored = value;
              std::memcpy(record + offsets[f], &stored, sizeof stored);
            },
            table_def<Row>::fields[f].ptr);
      }
    }
    return buffer;
  }
};

}  // namespace galapagos::store::detail
