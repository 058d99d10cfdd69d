// spmv trusted generator: turns a problem spec into the CSR matrix A (row_ptr, col_idx, values).
// Loaded into the orchestrator (compiled like the reference); x is filled by galapagos itself.
//
// Problem specs (docs/spmv.md has the full grammar):
//   poisson7  n=N | nx=.. ny=.. nz=..     7-point Laplacian structure on an nx*ny*nz grid
//   poisson27 n=N | nx=.. ny=.. nz=..     27-point structure on the same grid
//   banded    n=N bw=B                     n x n, entries at |i-j| <= B
//   powerlaw  n=N [cols=M] [avg=8] [max=10000] [alpha=1.5] [seed=1]
//                                          Pareto-distributed row lengths (many short or empty
//                                          rows, a few with thousands of entries)
//   random    rows=R cols=C per_row=K [empty=0] [seed=1]
//                                          K distinct uniform columns per row, a fraction
//                                          `empty` of the rows empty (rectangular allowed)
//   mtx:PATH                               a Matrix Market file (kernels/include/glp_matrix_market.hpp)
//
// The STRUCTURE (row_ptr, col_idx) is a function of the spec alone, so glp_problem_sizes needs no
// seed; the VALUES are drawn from (seed, distribution) for generated matrices and are the file's
// values for mtx:. Rows are sorted by column, no duplicates; col_idx is int32 (ncols < 2^31).
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <list>
#include <memory>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "glp_kernel.h"
#include "glp_matrix_market.hpp"
#include "glp_parallel.hpp"

namespace {

// ------------------------------------------------------------------------------------------------
// Random numbers: counter-based (splitmix64), so every value is a pure function of its position.
// ------------------------------------------------------------------------------------------------
std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}
double unit(std::uint64_t h) { return (static_cast<double>(h >> 11) + 0.5) * 0x1.0p-53; }  // (0,1)

struct rng {  // sequential stream for the structure
  std::uint64_t state;
  explicit rng(std::uint64_t s) : state(mix(s ^ 0x6a09e667f3bcc909ull)) {}
  std::uint64_t next() { return mix(state++); }
  double uniform() { return unit(next()); }
  std::uint64_t below(std::uint64_t n) { return next() % n; }  // bias < n/2^64: irrelevant here
};

struct spec_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// ------------------------------------------------------------------------------------------------
// The structure of one matrix: CSR pattern plus how its values are made.
// ------------------------------------------------------------------------------------------------
enum class value_kind { stencil, random, file };

struct structure {
  std::int64_t nrows = 0, ncols = 0;
  std::vector<std::int64_t> row_ptr;
  std::vector<std::int32_t> col_idx;
  std::vector<double> file_values;  // mtx only
  value_kind values = value_kind::random;
  std::int64_t nnz() const { return static_cast<std::int64_t>(col_idx.size()); }
  std::size_t bytes() const { return row_ptr.size() * 8 + col_idx.size() * 4 + file_values.size() * 8; }
};

// ------------------------------------------------------------------------------------------------
// Spec parsing: "kind key=value key=value ...".
// ------------------------------------------------------------------------------------------------
struct parsed_spec {
  std::string text, kind;
  std::vector<std::pair<std::string, std::string>> keys;
  std::vector<bool> used;

  const std::string* find(const std::string& k) {
    for (std::size_t i = 0; i < keys.size(); ++i)
      if (keys[i].first == k) {
        used[i] = true;
        return &keys[i].second;
      }
    return nullptr;
  }
  [[noreturn]] void fail(const std::string& what) const { throw spec_error("problem '" + text + "': " + what); }

  std::int64_t integer(const std::string& k, std::int64_t lo, std::int64_t hi, const std::int64_t* dflt = nullptr) {
    const std::string* v = find(k);
    if (!v) {
      if (dflt) return *dflt;
      fail("missing " + k + "=<integer>");
    }
    std::int64_t x = 0;
    const char* b = v->c_str();
    char* e = nullptr;
    errno = 0;
    const long long r = std::strtoll(b, &e, 10);
    if (v->empty() || *e != '\0' || errno == ERANGE || !(b[0] == '-' || (b[0] >= '0' && b[0] <= '9')))
      fail(k + "=" + *v + " is not an integer");
    x = r;
    if (x < lo || x > hi) fail(k + "=" + *v + " out of range " + std::to_string(lo) + ".." + std::to_string(hi));
    return x;
  }
  double real(const std::string& k, double lo, double hi, double dflt) {
    const std::string* v = find(k);
    if (!v) return dflt;
    char* e = nullptr;
    const double x = std::strtod(v->c_str(), &e);
    if (v->empty() || *e != '\0' || !std::isfinite(x)) fail(k + "=" + *v + " is not a number");
    if (x < lo || x > hi) fail(k + "=" + *v + " out of range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
    return x;
  }
  void finish() const {
    for (std::size_t i = 0; i < keys.size(); ++i)
      if (!used[i]) fail("unknown key '" + keys[i].first + "' for '" + kind + "'");
  }
};

parsed_spec parse_spec(const std::string& text) {
  parsed_spec p;
  p.text = text;
  std::istringstream in(text);
  std::string word;
  if (!(in >> p.kind)) p.fail("empty problem spec (expected e.g. 'poisson7 n=128' or 'mtx:PATH')");
  while (in >> word) {
    const auto eq = word.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == word.size()) p.fail("'" + word + "' is not key=value");
    const std::string key = word.substr(0, eq);
    for (const auto& kv : p.keys)
      if (kv.first == key) p.fail("key '" + key + "' given twice");
    p.keys.emplace_back(key, word.substr(eq + 1));
  }
  p.used.assign(p.keys.size(), false);
  return p;
}

constexpr std::int64_t max_index = std::numeric_limits<std::int32_t>::max();  // col_idx is int32
constexpr std::int64_t max_nnz = std::int64_t{1} << 34;                       // 16 G entries: sanity

// Bytes this process can still allocate: /proc/meminfo's MemAvailable (else the physical
// memory), and no more than RLIMIT_AS leaves beside what the process has mapped already.
double memory_available() {
  double avail = static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGESIZE));
  std::ifstream meminfo("/proc/meminfo");
  for (std::string line; std::getline(meminfo, line);) {
    long long kb = 0;
    if (std::sscanf(line.c_str(), "MemAvailable: %lld kB", &kb) == 1) avail = 1024.0 * static_cast<double>(kb);
  }
  rlimit as{};
  if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY) {
    double mapped = 0;
    std::ifstream status("/proc/self/status");
    for (std::string line; std::getline(status, line);) {
      long long kb = 0;
      if (std::sscanf(line.c_str(), "VmSize: %lld kB", &kb) == 1) mapped = 1024.0 * static_cast<double>(kb);
    }
    avail = std::min(avail, static_cast<double>(as.rlim_cur) - mapped);
  }
  return avail;
}

// galapagos holds a problem's arguments about three times (the shared arena, its private copy of
// the inputs, the expected outputs) beside the structure cached here; `extra`: what building the
// structure needs on top (a Matrix Market file's entries while they are sorted). A problem that
// cannot fit is refused before anything is allocated, with a message instead of std::bad_alloc.
std::string memory_problem(std::int64_t nrows, std::int64_t ncols, std::int64_t nnz, double extra) {
  const double args = 8.0 * static_cast<double>(nrows + 1) + 12.0 * static_cast<double>(nnz) + 8.0 * static_cast<double>(ncols) +
                      8.0 * static_cast<double>(nrows);
  const double need = 3 * args + extra, avail = memory_available();
  if (need <= avail) return {};
  char buf[200];
  std::snprintf(
      buf, sizeof buf, "a %lld x %lld matrix with %lld entries needs about %.3g GB of memory, more than the %.3g GB available",
      static_cast<long long>(nrows), static_cast<long long>(ncols), static_cast<long long>(nnz), need / 1e9, avail / 1e9);
  return buf;
}

void check_dims(parsed_spec& p, std::int64_t nrows, std::int64_t ncols, std::int64_t nnz_bound) {
  if (nrows < 1 || ncols < 1) p.fail("the matrix would be empty");
  if (ncols > max_index) p.fail("ncols = " + std::to_string(ncols) + " exceeds the int32 column index range");
  if (nrows > max_index) p.fail("nrows = " + std::to_string(nrows) + " is more than 2^31-1 rows");
  if (nnz_bound > max_nnz) p.fail("too many nonzeros (" + std::to_string(nnz_bound) + ")");
  const std::string memory = memory_problem(nrows, ncols, nnz_bound, 0);
  if (!memory.empty()) p.fail(memory);
}

// ------------------------------------------------------------------------------------------------
// Generators of structure.
// ------------------------------------------------------------------------------------------------
structure make_poisson(parsed_spec& p, int points) {
  const std::int64_t lim = 1 << 20;
  const std::int64_t* none = nullptr;
  std::int64_t n = 0;
  const bool has_n = p.find("n") != nullptr;
  if (has_n) n = p.integer("n", 1, lim);
  const std::int64_t nx = has_n ? p.integer("nx", 1, lim, &n) : p.integer("nx", 1, lim, none);
  const std::int64_t ny = has_n ? p.integer("ny", 1, lim, &n) : p.integer("ny", 1, lim, none);
  const std::int64_t nz = has_n ? p.integer("nz", 1, lim, &n) : p.integer("nz", 1, lim, none);
  p.finish();
  const std::int64_t nrows = nx * ny * nz;
  check_dims(p, nrows, nrows, nrows * points);
  structure s;
  s.nrows = s.ncols = nrows;
  s.values = value_kind::stencil;
  s.row_ptr.resize(static_cast<std::size_t>(nrows) + 1);
  s.col_idx.reserve(static_cast<std::size_t>(nrows * points));
  s.row_ptr[0] = 0;
  const int r = 1;  // stencil radius
  for (std::int64_t k = 0; k < nz; ++k)
    for (std::int64_t j = 0; j < ny; ++j)
      for (std::int64_t i = 0; i < nx; ++i) {
        // neighbours in increasing linear index: z outer, then y, then x
        for (int dk = -r; dk <= r; ++dk)
          for (int dj = -r; dj <= r; ++dj)
            for (int di = -r; di <= r; ++di) {
              const int manhattan = std::abs(di) + std::abs(dj) + std::abs(dk);
              if (points == 7 && manhattan > 1) continue;
              const std::int64_t kk = k + dk, jj = j + dj, ii = i + di;
              if (kk < 0 || kk >= nz || jj < 0 || jj >= ny || ii < 0 || ii >= nx) continue;
              s.col_idx.push_back(static_cast<std::int32_t>((kk * ny + jj) * nx + ii));
            }
        s.row_ptr[static_cast<std::size_t>((k * ny + j) * nx + i) + 1] = static_cast<std::int64_t>(s.col_idx.size());
      }
  return s;
}

structure make_banded(parsed_spec& p) {
  const std::int64_t n = p.integer("n", 1, max_index);
  const std::int64_t bw = p.integer("bw", 0, max_index);
  p.finish();
  const std::int64_t b = std::min(bw, n - 1);
  check_dims(p, n, n, n * (2 * b + 1));
  structure s;
  s.nrows = s.ncols = n;
  s.values = value_kind::stencil;
  s.row_ptr.resize(static_cast<std::size_t>(n) + 1);
  s.col_idx.reserve(static_cast<std::size_t>(n * (2 * b + 1)));
  for (std::int64_t i = 0; i < n; ++i) {
    for (std::int64_t j = std::max<std::int64_t>(0, i - b); j <= std::min(n - 1, i + b); ++j)
      s.col_idx.push_back(static_cast<std::int32_t>(j));
    s.row_ptr[static_cast<std::size_t>(i) + 1] = static_cast<std::int64_t>(s.col_idx.size());
  }
  return s;
}

// `len` distinct columns of [0, ncols) for one row, sorted; `pick` proposes a column.
template <class Pick>
void distinct_columns(rng& g, std::int64_t len, std::int64_t ncols, Pick pick, std::vector<std::int32_t>& out) {
  const std::size_t start = out.size();
  if (len * 4 >= ncols) {  // dense row: selection sampling (Knuth's algorithm S), exact count
    std::int64_t need = len;
    for (std::int64_t c = 0; c < ncols && need > 0; ++c)
      if (static_cast<double>(ncols - c) * g.uniform() < static_cast<double>(need)) {
        out.push_back(static_cast<std::int32_t>(c));
        --need;
      }
    return;
  }
  // sparse row: propose, sort, drop duplicates, top up until the row has `len` columns
  std::int64_t have = 0;
  while (have < len) {
    for (std::int64_t t = have; t < len; ++t) out.push_back(static_cast<std::int32_t>(pick(g)));
    std::sort(out.begin() + static_cast<std::ptrdiff_t>(start), out.end());
    out.erase(std::unique(out.begin() + static_cast<std::ptrdiff_t>(start), out.end()), out.end());
    have = static_cast<std::int64_t>(out.size() - start);
  }
}

structure make_random(parsed_spec& p) {
  const std::int64_t rows = p.integer("rows", 1, max_index);
  const std::int64_t cols = p.integer("cols", 1, max_index);
  const std::int64_t per_row = p.integer("per_row", 0, max_index);
  const double empty = p.real("empty", 0.0, 1.0, 0.0);
  const std::int64_t one = 1;
  const std::int64_t seed = p.integer("seed", 0, std::numeric_limits<std::int64_t>::max(), &one);
  p.finish();
  const std::int64_t k = std::min(per_row, cols);
  check_dims(p, rows, cols, rows * k);
  structure s;
  s.nrows = rows;
  s.ncols = cols;
  s.values = value_kind::random;
  s.row_ptr.resize(static_cast<std::size_t>(rows) + 1);
  rng g(static_cast<std::uint64_t>(seed) * 2 + 1);
  auto pick = [cols](rng& r) { return static_cast<std::int64_t>(r.below(static_cast<std::uint64_t>(cols))); };
  for (std::int64_t i = 0; i < rows; ++i) {
    const bool is_empty = g.uniform() < empty;
    if (!is_empty) distinct_columns(g, k, cols, pick, s.col_idx);
    s.row_ptr[static_cast<std::size_t>(i) + 1] = static_cast<std::int64_t>(s.col_idx.size());
  }
  return s;
}

structure make_powerlaw(parsed_spec& p) {
  const std::int64_t n = p.integer("n", 1, max_index);
  const std::int64_t cols = p.integer("cols", 1, max_index, &n);
  const double avg = p.real("avg", 0.01, 1e6, 8.0);
  const std::int64_t dflt_max = std::min<std::int64_t>(cols, 10000);
  const std::int64_t max_len = std::min(cols, p.integer("max", 1, max_index, &dflt_max));
  const double alpha = p.real("alpha", 1.05, 10.0, 1.5);
  const std::int64_t one = 1;
  const std::int64_t seed = p.integer("seed", 0, std::numeric_limits<std::int64_t>::max(), &one);
  p.finish();
  if (avg > static_cast<double>(max_len)) p.fail("avg exceeds the longest row (max, or cols)");
  check_dims(p, n, cols, static_cast<std::int64_t>(avg * static_cast<double>(n)) + n);

  // Row lengths: L_i = min(max, floor(c*w_i + d_i)) with w_i Lomax (Pareto II) distributed,
  // P(w > t) = (1+t)^-alpha, and a fixed dither d_i in [0,1); c is chosen by bisection so that
  // the mean row length is avg. Many rows get 0-2 entries, a few get thousands.
  rng g(static_cast<std::uint64_t>(seed) * 2 + 1);
  std::vector<double> w(static_cast<std::size_t>(n)), d(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    w[static_cast<std::size_t>(i)] = std::pow(g.uniform(), -1.0 / alpha) - 1.0;
    d[static_cast<std::size_t>(i)] = g.uniform();
  }
  const double target = avg * static_cast<double>(n);
  auto total = [&](double c) {
    double t = 0;
    for (std::size_t i = 0; i < w.size(); ++i) t += std::min(static_cast<double>(max_len), std::floor(c * w[i] + d[i]));
    return t;
  };
  double lo = 0, hi = 1;
  while (total(hi) < target && hi < 1e12) hi *= 2;
  for (int it = 0; it < 60; ++it) {
    const double mid = 0.5 * (lo + hi);
    (total(mid) < target ? lo : hi) = mid;
  }
  const double c = hi;

  structure s;
  s.nrows = n;
  s.ncols = cols;
  s.values = value_kind::random;
  s.row_ptr.resize(static_cast<std::size_t>(n) + 1);
  s.col_idx.reserve(static_cast<std::size_t>(target * 1.01) + 16);
  // Columns: half near the diagonal (a window of cols/64), half skewed towards low indices
  // (hub columns, index ~ cols*u^3), as in graphs with a power-law degree distribution.
  const double window = std::max(1.0, static_cast<double>(cols) / 64.0);
  for (std::int64_t i = 0; i < n; ++i) {
    const auto len = static_cast<std::int64_t>(
        std::min(static_cast<double>(max_len), std::floor(c * w[static_cast<std::size_t>(i)] + d[static_cast<std::size_t>(i)])));
    const double centre = static_cast<double>(i) * static_cast<double>(cols) / static_cast<double>(n);
    auto pick = [&](rng& r) {
      double x;
      if (r.next() & 1)
        x = centre + (2 * r.uniform() - 1) * window;
      else
        x = static_cast<double>(cols) * std::pow(r.uniform(), 3.0);
      auto col = static_cast<std::int64_t>(x);
      return std::min(cols - 1, std::max<std::int64_t>(0, col));
    };
    distinct_columns(g, len, cols, pick, s.col_idx);
    s.row_ptr[static_cast<std::size_t>(i) + 1] = static_cast<std::int64_t>(s.col_idx.size());
  }
  return s;
}

structure make_mtx(const std::string& spec, const std::string& path) {
  if (path.empty()) throw spec_error("problem '" + spec + "': mtx: needs a file path, e.g. mtx:/data/matrix.mtx");
  // The size line first: sizes the file cannot hold, or memory cannot, are refused before reading.
  const glp::mm::header h = glp::mm::read_header(path);  // glp::mm::error carries "<file>: line <n>: <problem>"
  if (h.nrows > max_index) throw spec_error(path + ": " + std::to_string(h.nrows) + " rows: more than 2^31-1");
  struct stat st {};
  if (stat(path.c_str(), &st) == 0 && h.entries <= st.st_size / 4) {  // else read() says the file is too short
    const std::int64_t stored = h.entries * (h.symmetry_kind == glp::mm::symmetry::general ? 1 : 2);
    const std::string memory = memory_problem(h.nrows, h.ncols, stored, 48.0 * static_cast<double>(stored));
    if (!memory.empty()) throw spec_error(path + ": " + memory);
  }
  glp::mm::csr m = glp::mm::read(path);  // glp::mm::error carries "<file>: line <n>: <problem>"
  if (m.nrows < 1 || m.ncols < 1)
    throw spec_error(path + ": the matrix is " + std::to_string(m.nrows) + " x " + std::to_string(m.ncols) +
                     "; spmv needs at least one row and one column");
  if (m.nnz() < 1) throw spec_error(path + ": the matrix has no stored entries; spmv needs at least one");
  if (m.ncols > max_index)
    throw spec_error(path + ": " + std::to_string(m.ncols) + " columns exceed the int32 column index range of the spmv family");
  if (m.nrows > max_index) throw spec_error(path + ": " + std::to_string(m.nrows) + " rows: more than 2^31-1");
  structure s;
  s.nrows = m.nrows;
  s.ncols = m.ncols;
  s.values = value_kind::file;
  s.row_ptr = std::move(m.row_ptr);
  s.col_idx.resize(m.col_idx.size());
  for (std::size_t i = 0; i < m.col_idx.size(); ++i) s.col_idx[i] = static_cast<std::int32_t>(m.col_idx[i]);
  s.file_values = std::move(m.values);
  return s;
}

std::shared_ptr<const structure> build_any(const std::string& spec) {
  static const std::string prefix = "mtx:";
  const auto first = spec.find_first_not_of(" \t");
  if (first != std::string::npos && spec.compare(first, prefix.size(), prefix) == 0) {
    std::string path = spec.substr(first + prefix.size());
    while (!path.empty() && (path.back() == ' ' || path.back() == '\t')) path.pop_back();
    return std::make_shared<structure>(make_mtx(spec, path));
  }
  parsed_spec p = parse_spec(spec);
  if (p.kind == "poisson7") return std::make_shared<structure>(make_poisson(p, 7));
  if (p.kind == "poisson27") return std::make_shared<structure>(make_poisson(p, 27));
  if (p.kind == "banded") return std::make_shared<structure>(make_banded(p));
  if (p.kind == "powerlaw") return std::make_shared<structure>(make_powerlaw(p));
  if (p.kind == "random") return std::make_shared<structure>(make_random(p));
  p.fail("unknown matrix kind '" + p.kind + "' (poisson7, poisson27, banded, powerlaw, random, or mtx:PATH)");
}

std::shared_ptr<const structure> build(const std::string& spec) {
  auto s = build_any(spec);
  if (s->nnz() < 1)  // galapagos needs every argument non-empty
    throw spec_error("problem '" + spec + "': the matrix has no stored entries; spmv needs at least one");
  return s;
}

// ------------------------------------------------------------------------------------------------
// A small cache of structures, so that glp_problem_sizes and repeated glp_generate calls on the
// same spec (new seeds, same matrix) do not rebuild or re-read it. mtx: entries are keyed also by
// the file's size and modification time.
// ------------------------------------------------------------------------------------------------
std::mutex g_mutex;
std::string g_error;
std::list<std::pair<std::string, std::shared_ptr<const structure>>> g_cache;  // most recent first
constexpr std::size_t cache_budget = std::size_t{1} << 30;

std::string cache_key(const std::string& spec) {
  const auto first = spec.find_first_not_of(" \t");
  if (first != std::string::npos && spec.compare(first, 4, "mtx:") == 0) {
    std::string path = spec.substr(first + 4);
    while (!path.empty() && (path.back() == ' ' || path.back() == '\t')) path.pop_back();
    struct stat st {};
    if (stat(path.c_str(), &st) == 0)
      return spec + "\n" + std::to_string(st.st_size) + ":" + std::to_string(st.st_mtim.tv_sec) + "." +
             std::to_string(st.st_mtim.tv_nsec);
  }
  return spec;
}

std::shared_ptr<const structure> lookup(const std::string& spec) {  // g_mutex held
  const std::string key = cache_key(spec);
  for (auto it = g_cache.begin(); it != g_cache.end(); ++it)
    if (it->first == key) {
      g_cache.splice(g_cache.begin(), g_cache, it);
      return g_cache.front().second;
    }
  auto s = build(spec);
  g_cache.emplace_front(key, s);
  std::size_t total = 0;
  for (auto it = g_cache.begin(); it != g_cache.end();) {
    total += it->second->bytes();
    if (it != g_cache.begin() && total > cache_budget)
      it = g_cache.erase(it);
    else
      ++it;
  }
  return s;
}

// ------------------------------------------------------------------------------------------------
// Values.
//   distribution % 3 == 0: "natural": stencil and banded matrices are diagonally dominant
//       (off-diagonals -(0.5+u), diagonal = 1.05 * sum of |off-diagonals|, 1 for a lone diagonal);
//       powerlaw and random matrices get uniform values in [-1, 1].
//   distribution % 3 == 1: every value uniform in [-1, 1].
//   distribution % 3 == 2: signed values with log-uniform magnitudes in [1e-3, 1e3].
//   mtx: the file's values, whatever the distribution.
// ------------------------------------------------------------------------------------------------
// n elements from src to dst, in shares on every core.
template <class T>
void copy_parallel(T* dst, const T* src, std::size_t n) {
  glp::parallel_parts(
      glp::parts_for(static_cast<std::int64_t>(n), 1 << 18), static_cast<std::int64_t>(n),
      [&](int, std::int64_t a, std::int64_t b) { std::memcpy(dst + a, src + a, static_cast<std::size_t>(b - a) * sizeof(T)); });
}

// Every value is a function of its position alone, so rows are filled in shares on every core
// (a problem instance is made per candidate: at the Poisson-7 fitness size the serial fill took
// ~0.15 s of each evaluation).
void fill_values(const structure& s, std::uint64_t seed, int distribution, double* v) {
  const std::int64_t nnz = s.nnz();
  if (s.values == value_kind::file) {
    copy_parallel(v, s.file_values.data(), static_cast<std::size_t>(nnz));
    return;
  }
  const int kind = ((distribution % 3) + 3) % 3;
  const std::uint64_t base = mix(seed ^ 0x243f6a8885a308d3ull);
  auto h = [base](std::int64_t k) { return mix(base + static_cast<std::uint64_t>(k)); };
  if (kind == 1 || (kind == 0 && s.values == value_kind::random)) {
    glp::parallel_parts(glp::parts_for(nnz, 1 << 16), nnz, [&](int, std::int64_t k0, std::int64_t k1) {
      for (std::int64_t k = k0; k < k1; ++k) v[k] = 2.0 * unit(h(k)) - 1.0;
    });
    return;
  }
  if (kind == 2) {
    glp::parallel_parts(glp::parts_for(nnz, 1 << 16), nnz, [&](int, std::int64_t k0, std::int64_t k1) {
      for (std::int64_t k = k0; k < k1; ++k) {
        const std::uint64_t x = h(k);
        const double mag = std::pow(10.0, 6.0 * unit(x) - 3.0);
        v[k] = (mix(x) & 1) ? mag : -mag;
      }
    });
    return;
  }
  glp::parallel_parts(glp::parts_for(s.nrows, 1 << 12), s.nrows, [&](int, std::int64_t i0, std::int64_t i1) {
    for (std::int64_t i = i0; i < i1; ++i) {
      double off = 0;
      std::int64_t diag = -1;
      for (std::int64_t k = s.row_ptr[static_cast<std::size_t>(i)]; k < s.row_ptr[static_cast<std::size_t>(i) + 1]; ++k) {
        if (s.col_idx[static_cast<std::size_t>(k)] == i) {
          diag = k;
          continue;
        }
        v[k] = -(0.5 + unit(h(k)));
        off -= v[k];
      }
      if (diag >= 0) v[diag] = off > 0 ? 1.05 * off : 1.0;
    }
  });
}

}  // namespace

GLP_EXPORT const char* glp_generator_error(void) { return g_error.c_str(); }

GLP_EXPORT int glp_problem_sizes(const char* spec, int64_t* sizes) {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_error.clear();
  if (spec == nullptr || sizes == nullptr) {
    g_error = "glp_problem_sizes: null argument";
    return 1;
  }
  try {
    const auto s = lookup(spec);
    sizes[0] = s->nrows;
    sizes[1] = s->ncols;
    sizes[2] = s->nnz();
    return 0;
  } catch (const std::bad_alloc&) {
    g_error = std::string("problem '") + spec + "': out of memory building the matrix";
  } catch (const std::exception& e) {
    g_error = e.what();
  }
  return 2;
}

GLP_EXPORT int glp_generate(const char* spec, const glp_arg* args, int nargs, const int64_t* sizes, uint64_t seed,
                            int distribution) {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_error.clear();
  if (spec == nullptr || args == nullptr || sizes == nullptr) {
    g_error = "glp_generate: null argument";
    return 1;
  }
  try {
    const auto s = lookup(spec);
    if (sizes[0] != s->nrows || sizes[1] != s->ncols || sizes[2] != s->nnz()) {
      g_error = std::string("problem '") + spec + "': sizes passed to glp_generate do not match the matrix";
      return 3;
    }
    if (nargs != 5) {
      g_error = "glp_generate: expected 5 arguments (row_ptr, col_idx, values, x, y), got " + std::to_string(nargs);
      return 4;
    }
    const glp_arg &rp = args[0], &ci = args[1], &va = args[2];
    if (rp.dtype != GLP_INT64 || ci.dtype != GLP_INT32 || va.dtype != GLP_FLOAT64) {
      g_error = "glp_generate: argument dtypes must be int64 row_ptr, int32 col_idx, float64 values";
      return 5;
    }
    if (rp.count != s->nrows + 1 || ci.count != s->nnz() || va.count != s->nnz()) {
      g_error = "glp_generate: argument counts do not match nrows+1, nnz, nnz";
      return 6;
    }
    if (rp.data == nullptr || ci.data == nullptr || va.data == nullptr) {
      g_error = "glp_generate: null argument data";
      return 7;
    }
    copy_parallel(static_cast<std::int64_t*>(rp.data), s->row_ptr.data(), s->row_ptr.size());
    copy_parallel(static_cast<std::int32_t*>(ci.data), s->col_idx.data(), s->col_idx.size());
    fill_values(*s, seed, distribution, static_cast<double*>(va.data));
    return 0;
  } catch (const std::bad_alloc&) {
    g_error = std::string("problem '") + spec + "': out of memory building the matrix";
  } catch (const std::exception& e) {
    g_error = e.what();
  }
  return 2;
}
