// Read-only access to a results file (schema: docs/hdf5-schema.md), for `galapagos resume` and
// replay. The file is untrusted: opening it starts a reading process that reads it whole once
// and then answers every query, so that a damaged file is an error naming it, never a crash of
// galapagos. Tables are read one named field at a time, so a file whose tables carry more fields
// than this build knows still reads, and a missing field is an error that names it.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "store/attribute_value.hpp"

namespace galapagos::store {

class results_reader {
 public:
  // Opens `path` read-only. Throws galapagos::error "<path>: ..." when the file is missing or is
  // not a readable HDF5 file (truncated, corrupt).
  static results_reader open(const std::string& path);
  // Whether `path` starts like an HDF5 file (its signature), without reading anything else.
  static bool is_hdf5(const std::string& path);
  results_reader(results_reader&&) noexcept;
  results_reader& operator=(results_reader&&) noexcept;
  ~results_reader();

  const std::string& path() const;
  // Whether a group or dataset exists at `object` (an absolute path such as "/checkpoint").
  bool has(const std::string& object) const;
  // Attribute `key` of the group or dataset `object`, as stored: a text, a number (float), an
  // integer or a flag (h5py's bool). nullopt when absent; throws when unreadable or of another
  // type (an array, another enum).
  std::optional<attribute_value> attribute(const std::string& object, const std::string& key) const;
  // The same, read as one kind whichever form the file holds it in (attribute_value.hpp: an old
  // file's "true" or "4" reads as a flag or an integer). Texts: anything, formatted. nullopt
  // when absent; throws galapagos::error naming the file and the attribute when the value is not
  // of that kind.
  std::optional<std::string> string_attribute(const std::string& object, const std::string& key) const;
  std::optional<double> number_attribute(const std::string& object, const std::string& key) const;
  std::optional<std::int64_t> integer_attribute(const std::string& object, const std::string& key) const;
  std::optional<bool> flag_attribute(const std::string& object, const std::string& key) const;
  // A text written by results_file::set_text; nullopt when there is no such dataset.
  std::optional<std::string> text(const std::string& dataset) const;
  // The source text stored under /sources/<hash>; nullopt when there is none.
  std::optional<std::string> source(const std::string& hash) const;

  // Rows of a 1-D compound table, and one field of every row. Throws naming the table and the
  // field when either is missing or has another type class.
  std::size_t rows(const std::string& table) const;
  std::vector<std::int64_t> integers(const std::string& table, const std::string& field) const;
  std::vector<double> numbers(const std::string& table, const std::string& field) const;
  std::vector<std::string> strings(const std::string& table, const std::string& field) const;

 private:
  // Every query above runs in a reading process of this reader's own (results_reader.cpp says
  // why): started by open(), asked by ask(), answered by the *_here functions there.
  void start_server();
  std::string answer(const std::string& request) const;
  template <class T>
  T ask(char what, const std::string& a, const std::string& b = {}) const;
  bool has_here(const std::string& object) const;
  std::optional<attribute_value> attribute_here(const std::string& object, const std::string& key) const;
  std::optional<std::string> text_here(const std::string& dataset) const;
  std::optional<std::string> source_here(const std::string& hash) const;
  std::size_t rows_here(const std::string& table) const;
  std::vector<std::int64_t> integers_here(const std::string& table, const std::string& field) const;
  std::vector<double> numbers_here(const std::string& table, const std::string& field) const;
  std::vector<std::string> strings_here(const std::string& table, const std::string& field) const;
  struct impl;
  explicit results_reader(std::unique_ptr<impl> p);
  std::unique_ptr<impl> impl_;
};

}  // namespace galapagos::store
