// glp_matrix_market.hpp: a header-only, dependency-free Matrix Market reader producing CSR.
//
// Used by the spmv family's trusted generator (kernels/spmv/generator.cpp) and by galapagos'
// own C++. Standard library only, C++17.
//
// What it reads (https://math.nist.gov/MatrixMarket/formats.html):
//   %%MatrixMarket matrix coordinate <field> <symmetry>
//   % any number of comment lines (and blank lines)
//   <nrows> <ncols> <entries>
//   <i> <j> [<value>]            one stored entry per line, 1-based indices, <entries> lines
//
//   field     real | integer | pattern      (complex is rejected: this reader is real-only)
//   symmetry  general | symmetric | skew-symmetric   (hermitian is rejected)
//   format    coordinate only                (array, i.e. dense, is rejected)
//   Banner keywords are case-insensitive. Comment lines ('%' first) and blank lines are allowed
//   anywhere after the banner. Fields are separated by spaces or tabs; '\r' line ends are fine.
//
// Conventions (each one deliberate; tests/unit/test_matrix_market.cpp pins them down):
//   * pattern entries have the value 1.0.
//   * symmetric: a stored off-diagonal entry (i,j) also produces (j,i) with the same value;
//     skew-symmetric: (j,i) gets the negated value. Only the lower triangle (i >= j) may be
//     stored in these files, as the format prescribes: an entry above the diagonal is an error
//     (mirroring it silently would double any matrix written with both triangles).
//     A diagonal entry in a skew-symmetric file is an error (its diagonal is zero by definition).
//     pattern skew-symmetric is rejected (not a valid combination).
//   * duplicates (the same (i,j) stored more than once) are SUMMED by default, as sparse() in
//     Matlab and scipy do; pattern duplicates collapse into one entry of value 1.0.
//     options::duplicates = duplicate_policy::reject turns them into an error instead.
//     After symmetric expansion the mirrored entries are counted like stored ones, so nnz() of
//     the result is the number of distinct positions.
//   * explicit zeros are kept as stored entries (the structure is what the file says).
//   * real values: decimal or exponent notation, Fortran 'D'/'d' exponents accepted, a leading
//     '+' accepted; NaN and infinities are rejected. integer values: an optional sign and
//     digits only, within int64 (stored as double, exact up to 2^53).
//   * the result is CSR with every row sorted by column, indices 0-based, row_ptr of nrows+1
//     int64 offsets. More than options::max_rows rows (default 2^31-1) is an error, and so are
//     more declared entries than the file could hold (4 bytes each), so that a corrupt size
//     line cannot make the reader allocate terabytes.
//
// Every error is a glp::mm::error whose what() is one line:
//   "<file>: line <n>: <problem>"       (or "<file>: <problem>" when no line applies)
// e.g. "a.mtx: line 12: row index 5001 out of range 1..5000".
#ifndef GLP_MATRIX_MARKET_HPP
#define GLP_MATRIX_MARKET_HPP

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <istream>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

namespace glp {
namespace mm {

enum class field { real, integer, pattern };
enum class symmetry { general, symmetric, skew_symmetric };
enum class duplicate_policy { sum, reject };

inline const char* to_string(field f) {
  switch (f) {
    case field::real: return "real";
    case field::integer: return "integer";
    case field::pattern: return "pattern";
  }
  return "?";
}

inline const char* to_string(symmetry s) {
  switch (s) {
    case symmetry::general: return "general";
    case symmetry::symmetric: return "symmetric";
    case symmetry::skew_symmetric: return "skew-symmetric";
  }
  return "?";
}

// One-line error naming the file and, where it applies, the line.
class error : public std::runtime_error {
 public:
  error(std::string file, std::int64_t line, const std::string& problem)
      : std::runtime_error(file + (line > 0 ? ": line " + std::to_string(line) : std::string()) + ": " + problem),
        file_(std::move(file)),
        line_(line),
        problem_(problem) {}
  const std::string& file() const noexcept { return file_; }
  std::int64_t line() const noexcept { return line_; }  // 0 when no line applies
  const std::string& problem() const noexcept { return problem_; }

 private:
  std::string file_;
  std::int64_t line_;
  std::string problem_;
};

struct header {
  field value_field = field::real;
  symmetry symmetry_kind = symmetry::general;
  std::int64_t nrows = 0;
  std::int64_t ncols = 0;
  std::int64_t entries = 0;  // stored entries declared on the size line
};

struct options {
  duplicate_policy duplicates = duplicate_policy::sum;
  // CSR needs nrows+1 offsets whatever the entries, so a size line declaring 10^12 rows would
  // exhaust memory before any entry is read: more rows than this are an error. The default is
  // above every matrix of the SuiteSparse collection.
  std::int64_t max_rows = (std::int64_t{1} << 31) - 1;
  // The input's size in bytes when known (read(path) sets it): a size line declaring more entries
  // than input_bytes / 4 is an error before anything is allocated, since an entry line takes at
  // least 4 bytes ("i j\n"). -1: unknown.
  std::int64_t input_bytes = -1;
};

// CSR, 0-based, rows sorted by column, no duplicate positions.
struct csr {
  std::int64_t nrows = 0;
  std::int64_t ncols = 0;
  std::vector<std::int64_t> row_ptr;  // nrows+1
  std::vector<std::int64_t> col_idx;  // nnz
  std::vector<double> values;         // nnz
  header info;                        // what the file declared
  std::int64_t nnz() const { return static_cast<std::int64_t>(col_idx.size()); }
};

namespace detail {

inline bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

inline std::vector<std::string_view> split(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && is_space(s[i])) ++i;
    if (i >= s.size()) break;
    std::size_t j = i;
    while (j < s.size() && !is_space(s[j])) ++j;
    out.push_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

inline std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

inline bool blank(std::string_view s) {
  for (char c : s)
    if (!is_space(c)) return false;
  return true;
}

// Shortened copy of a token for messages (a binary file must not produce a megabyte line).
inline std::string quote(std::string_view s) {
  std::string out;
  for (char c : s.substr(0, 40)) out += (static_cast<unsigned char>(c) < 32 || static_cast<unsigned char>(c) > 126) ? '?' : c;
  if (s.size() > 40) out += "...";
  return "'" + out + "'";
}

// A non-negative decimal integer (an optional leading '+'); false if not one or out of int64.
inline bool parse_int(std::string_view s, std::int64_t& v) {
  if (!s.empty() && s[0] == '+') s.remove_prefix(1);
  if (s.empty() || s[0] == '-' || s[0] == '+') return false;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

inline bool parse_signed_int(std::string_view s, std::int64_t& v) {
  bool neg = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    neg = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s.empty() || s[0] == '+' || s[0] == '-') return false;
  std::uint64_t u = 0;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), u);
  if (r.ec != std::errc() || r.ptr != s.data() + s.size()) return false;
  const std::uint64_t lim = neg ? std::uint64_t{1} << 63 : (std::uint64_t{1} << 63) - 1;
  if (u > lim) return false;
  v = neg ? static_cast<std::int64_t>(0 - u) : static_cast<std::int64_t>(u);
  return true;
}

// A finite real: decimal or exponent notation, optional sign, Fortran D exponents accepted.
inline bool parse_real(std::string_view s, double& v) {
  if (s.empty() || s.size() > 400) return false;
  char buf[401];
  std::size_t n = 0;
  std::size_t start = 0;
  if (s[0] == '+') start = 1;
  for (std::size_t i = start; i < s.size(); ++i) {
    const char c = s[i];
    const bool ok = (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E' ||
                    c == 'd' || c == 'D';
    if (!ok) return false;  // also rules out nan, inf, hex floats
    buf[n++] = (c == 'd' || c == 'D') ? 'e' : c;
  }
  if (n == 0) return false;
  buf[n] = '\0';
  const auto r = std::from_chars(buf, buf + n, v);
  if (r.ptr != buf + n) return false;
  if (r.ec == std::errc::result_out_of_range) {
    // from_chars leaves v unchanged on range errors: fall back to strtod for the IEEE result
    // (underflow to a subnormal or zero is fine; overflow is not finite and is rejected).
    errno = 0;
    char* end = nullptr;
    v = std::strtod(buf, &end);
    if (end != buf + n) return false;
  } else if (r.ec != std::errc()) {
    return false;
  }
  return std::isfinite(v);
}

struct line_reader {
  std::istream& in;
  std::string text;
  std::int64_t number = 0;
  bool next() {
    if (!std::getline(in, text)) return false;
    ++number;
    return true;
  }
};

// Reads the banner and the size line through `rd`; `size_line` receives the size line's number.
inline header read_header(line_reader& rd, const std::string& name, std::int64_t& size_line) {
  if (!rd.next()) throw error(name, 0, "empty file (expected a '%%MatrixMarket matrix coordinate ...' banner)");
  const auto tok = split(rd.text);
  if (tok.empty() || lower(tok[0]) != "%%matrixmarket")
    throw error(name, rd.number, "bad banner: the first line must start with '%%MatrixMarket', found " +
                                     (tok.empty() ? std::string("an empty line") : quote(tok[0])));
  if (tok.size() != 5)
    throw error(name, rd.number, "bad banner: expected '%%MatrixMarket matrix coordinate <field> <symmetry>' (5 words), found " +
                                     std::to_string(tok.size()) + " words");
  const std::string object = lower(tok[1]), format = lower(tok[2]);
  const std::string fld = lower(tok[3]), sym = lower(tok[4]);
  if (object != "matrix")
    throw error(name, rd.number, "unsupported object " + quote(tok[1]) + ": only 'matrix' is supported");
  if (format == "array")
    throw error(name, rd.number, "unsupported format 'array' (dense): only 'coordinate' (sparse) is supported");
  if (format != "coordinate")
    throw error(name, rd.number, "bad banner: unknown format " + quote(tok[2]) + " (expected 'coordinate')");
  header h;
  if (fld == "real") h.value_field = field::real;
  else if (fld == "integer") h.value_field = field::integer;
  else if (fld == "pattern") h.value_field = field::pattern;
  else if (fld == "complex")
    throw error(name, rd.number, "unsupported field 'complex': only real, integer and pattern are supported");
  else
    throw error(name, rd.number, "bad banner: unknown field " + quote(tok[3]) + " (expected real, integer or pattern)");
  if (sym == "general") h.symmetry_kind = symmetry::general;
  else if (sym == "symmetric") h.symmetry_kind = symmetry::symmetric;
  else if (sym == "skew-symmetric") h.symmetry_kind = symmetry::skew_symmetric;
  else if (sym == "hermitian")
    throw error(name, rd.number, "unsupported symmetry 'hermitian': only general, symmetric and skew-symmetric are supported");
  else
    throw error(name, rd.number, "bad banner: unknown symmetry " + quote(tok[4]) +
                                     " (expected general, symmetric or skew-symmetric)");
  if (h.value_field == field::pattern && h.symmetry_kind == symmetry::skew_symmetric)
    throw error(name, rd.number, "unsupported combination 'pattern skew-symmetric' (a skew-symmetric matrix needs values)");

  // Size line: the first line that is neither a comment nor blank.
  for (;;) {
    if (!rd.next()) throw error(name, rd.number, "file ends before the size line '<rows> <columns> <entries>'");
    const auto first = split(rd.text);
    if (first.empty() || first[0].front() == '%') continue;
    break;
  }
  const auto sz = split(rd.text);
  if (sz.size() != 3)
    throw error(name, rd.number, "wrong size line: expected '<rows> <columns> <entries>' (3 integers), found " +
                                     std::to_string(sz.size()) + " fields");
  if (!parse_int(sz[0], h.nrows) || !parse_int(sz[1], h.ncols) || !parse_int(sz[2], h.entries))
    throw error(name, rd.number, "wrong size line: " + quote(rd.text) + " is not three non-negative integers");
  constexpr std::int64_t max_dim = std::int64_t{1} << 62;
  if (h.nrows > max_dim || h.ncols > max_dim)
    throw error(name, rd.number, "wrong size line: dimensions too large");
  if (h.symmetry_kind != symmetry::general && h.nrows != h.ncols)
    throw error(name, rd.number, std::string("wrong size line: a ") + to_string(h.symmetry_kind) + " matrix must be square, found " +
                                     std::to_string(h.nrows) + " x " + std::to_string(h.ncols));
  size_line = rd.number;
  return h;
}

}  // namespace detail

// Reads the banner and the size line from a stream; `name` is used in the messages.
inline header read_header(std::istream& in, const std::string& name) {
  detail::line_reader rd{in, {}, 0};
  std::int64_t size_line = 0;
  return detail::read_header(rd, name, size_line);
}

// Reads a whole coordinate file from a stream; `name` is used in the messages.
inline csr read(std::istream& in, const std::string& name, const options& opt = {}) {
  detail::line_reader rd{in, {}, 0};
  std::int64_t size_line = 0;
  const header h = detail::read_header(rd, name, size_line);
  if (h.nrows > opt.max_rows)
    throw error(name, size_line, "wrong size line: " + std::to_string(h.nrows) + " rows exceed the reader's limit of " +
                                     std::to_string(opt.max_rows) + " (options::max_rows)");
  if (opt.input_bytes >= 0 && h.entries > opt.input_bytes / 4)
    throw error(name, size_line, "wrong size line: " + std::to_string(h.entries) + " entries declared, but the file holds only " +
                                     std::to_string(opt.input_bytes) + " bytes (an entry line takes at least 4)");
  const bool pattern = h.value_field == field::pattern;
  const bool expand = h.symmetry_kind != symmetry::general;
  const bool skew = h.symmetry_kind == symmetry::skew_symmetric;
  const std::size_t want = pattern ? 2 : 3;

  struct triplet {
    std::int64_t r, c;
    double v;
    std::int64_t line;
  };
  std::vector<triplet> t;
  std::int64_t seen = 0;
  try {
    // Reserve from the header, but never trust a huge declared count beyond a modest cap.
    t.reserve(static_cast<std::size_t>(std::min<std::int64_t>(h.entries, std::int64_t{1} << 22)) * (expand ? 2 : 1));
    while (rd.next()) {
      const auto tok = detail::split(rd.text);
      if (tok.empty() || tok[0].front() == '%') continue;  // blank line or comment
      if (seen == h.entries)
        throw error(name, rd.number, "more entries than the " + std::to_string(h.entries) + " declared on the size line (line " +
                                         std::to_string(size_line) + ")");
      if (tok.size() != want)
        throw error(name, rd.number, "expected " + std::to_string(want) + " fields ('<row> <column>" + (pattern ? "" : " <value>") +
                                         "' for a " + to_string(h.value_field) + " matrix), found " + std::to_string(tok.size()));
      std::int64_t i = 0, j = 0;
      if (!detail::parse_signed_int(tok[0], i))
        throw error(name, rd.number, "row index " + detail::quote(tok[0]) + " is not an integer");
      if (!detail::parse_signed_int(tok[1], j))
        throw error(name, rd.number, "column index " + detail::quote(tok[1]) + " is not an integer");
      if (i < 1 || i > h.nrows)
        throw error(name, rd.number, "row index " + std::to_string(i) + " out of range 1.." + std::to_string(h.nrows));
      if (j < 1 || j > h.ncols)
        throw error(name, rd.number, "column index " + std::to_string(j) + " out of range 1.." + std::to_string(h.ncols));
      double v = 1.0;
      if (h.value_field == field::real) {
        if (!detail::parse_real(tok[2], v))
          throw error(name, rd.number, "value " + detail::quote(tok[2]) + " is not a finite real number");
      } else if (h.value_field == field::integer) {
        std::int64_t iv = 0;
        if (!detail::parse_signed_int(tok[2], iv))
          throw error(name, rd.number, "value " + detail::quote(tok[2]) + " is not an integer (the field is 'integer')");
        v = static_cast<double>(iv);
      }
      if (expand && j > i)
        throw error(name, rd.number, "entry (" + std::to_string(i) + "," + std::to_string(j) + ") is above the diagonal; a " +
                                         to_string(h.symmetry_kind) + " file stores only the lower triangle (row >= column)");
      if (skew && i == j)
        throw error(name, rd.number, "diagonal entry (" + std::to_string(i) + "," + std::to_string(j) +
                                         ") in a skew-symmetric file (its diagonal is zero by definition)");
      t.push_back({i - 1, j - 1, v, rd.number});
      if (expand && i != j) t.push_back({j - 1, i - 1, skew ? -v : v, rd.number});
      ++seen;
    }
    if (in.bad()) throw error(name, rd.number, "read error");
    if (seen < h.entries)
      throw error(name, rd.number, "file ends after " + std::to_string(seen) + " entries, but the size line (line " +
                                       std::to_string(size_line) + ") declares " + std::to_string(h.entries));

    // Counting sort by row (stable: keeps the file order within a row), then a stable sort of
    // each row by column, merging duplicates.
    csr out;
    out.info = h;
    out.nrows = h.nrows;
    out.ncols = h.ncols;
    const auto nr = static_cast<std::size_t>(h.nrows);
    std::vector<std::int64_t> start(nr + 1, 0);
    for (const auto& e : t) ++start[static_cast<std::size_t>(e.r) + 1];
    for (std::size_t r = 0; r < nr; ++r) start[r + 1] += start[r];
    std::vector<triplet> by_row(t.size());
    {
      std::vector<std::int64_t> pos(start.begin(), start.end() - 1);
      for (const auto& e : t) by_row[static_cast<std::size_t>(pos[static_cast<std::size_t>(e.r)]++)] = e;
    }
    std::vector<triplet>().swap(t);
    out.row_ptr.assign(nr + 1, 0);
    out.col_idx.reserve(by_row.size());
    out.values.reserve(by_row.size());
    for (std::size_t r = 0; r < nr; ++r) {
      const auto b = by_row.begin() + start[r];
      const auto e = by_row.begin() + start[r + 1];
      std::stable_sort(b, e, [](const triplet& x, const triplet& y) { return x.c < y.c; });
      for (auto it = b; it != e; ++it) {
        if (it != b && it->c == (it - 1)->c) {
          if (opt.duplicates == duplicate_policy::reject) {
            // the first occurrence in file order of this position
            auto first = it - 1;
            while (first != b && (first - 1)->c == it->c) --first;
            // name it as stored: a mirrored copy (above the diagonal) has its indices swapped
            const bool mirrored = expand && static_cast<std::int64_t>(r) < it->c;
            const std::int64_t si = mirrored ? it->c + 1 : static_cast<std::int64_t>(r) + 1;
            const std::int64_t sj = mirrored ? static_cast<std::int64_t>(r) + 1 : it->c + 1;
            throw error(name, it->line, "duplicate entry (" + std::to_string(si) + "," + std::to_string(sj) +
                                            "), also stored on line " + std::to_string(first->line));
          }
          if (!pattern) out.values.back() += it->v;
          continue;
        }
        out.col_idx.push_back(it->c);
        out.values.push_back(it->v);
      }
      out.row_ptr[r + 1] = static_cast<std::int64_t>(out.col_idx.size());
    }
    return out;
  } catch (const std::bad_alloc&) {
    throw error(name, rd.number, "out of memory reading a " + std::to_string(h.nrows) + " x " + std::to_string(h.ncols) +
                                     " matrix with " + std::to_string(h.entries) + " declared entries");
  } catch (const std::length_error&) {
    throw error(name, rd.number, "matrix too large: " + std::to_string(h.nrows) + " x " + std::to_string(h.ncols) + " with " +
                                     std::to_string(h.entries) + " declared entries");
  }
}

// Reads a whole coordinate file; errors name `path`.
inline csr read(const std::string& path, const options& opt = {}) {
  std::ifstream in(path, std::ios::in | std::ios::binary);
  if (!in) throw error(path, 0, "cannot open the file for reading");
  options sized = opt;
  if (in.seekg(0, std::ios::end)) {
    sized.input_bytes = static_cast<std::int64_t>(in.tellg());
    in.seekg(0, std::ios::beg);
  }
  in.clear();
  return read(in, path, sized);
}

// Reads only the banner and the size line of a file.
inline header read_header(const std::string& path) {
  std::ifstream in(path, std::ios::in | std::ios::binary);
  if (!in) throw error(path, 0, "cannot open the file for reading");
  return read_header(in, path);
}

}  // namespace mm
}  // namespace glp

#endif  // GLP_MATRIX_MARKET_HPP
