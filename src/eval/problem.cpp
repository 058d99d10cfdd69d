#include "eval/problem.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>
#include <utility>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "eval/arena.hpp"
#include "eval/family_process.hpp"
#include "util/error.hpp"
#include "util/hash.hpp"
#include "util/isa.hpp"

namespace galapagos::eval {

using families::dtype;
using families::intent;

namespace {

constexpr std::uint64_t poison64 = 0x7ff4deadbeefcafeull;  // a signalling NaN
constexpr std::uint32_t poison32 = 0x7fa5deadu;
constexpr std::int64_t poison_int = 0x5a5a5a5a5a5a5a5all;

enum class distribution { uniform, signed_uniform, heavy_tailed };

distribution distribution_named(const std::string& name) {
  if (name == "uniform") return distribution::uniform;
  if (name == "signed") return distribution::signed_uniform;
  return distribution::heavy_tailed;
}

using detail::inverse_cube_root;

// The per-element loops below stream whole arguments (15 M elements of stencil3d7 at `tune`, per
// timed run): OpenMP shares chunks of them among the cores, and each chunk is one call of a
// function built for several ISAs (util/isa.hpp), which the compiler vectorises for the CPU's
// widest (the outlined parallel region itself is built for the baseline only).
constexpr std::int64_t chunk_elements = 1 << 15;

template <class Chunk>
void for_chunks(std::int64_t n, Chunk chunk) {
  const std::int64_t chunks = (n + chunk_elements - 1) / chunk_elements;
#pragma omp parallel for schedule(static)
  for (std::int64_t c = 0; c < chunks; ++c) chunk(c * chunk_elements, std::min(n, (c + 1) * chunk_elements));
}

// Called from the ISA clones below: inlined always, so that it is built for each clone's ISA.
template <distribution D>
[[gnu::always_inline]] inline double draw(std::uint64_t h) {
  const double u = (static_cast<double>(h >> 11) + 0.5) * 0x1.0p-53;  // (0,1), never 0
  if constexpr (D == distribution::uniform) return u;
  if constexpr (D == distribution::signed_uniform) return 2.0 * u - 1.0;
  // heavy_tailed: Pareto tail (alpha 3) with a random sign
  const double mag = inverse_cube_root(u);
  return (util::mix64(h) & 1) ? mag : -mag;
}

// n bytes from src to dst with streaming stores where the ISA has them (dst need not be aligned).
[[gnu::always_inline]] inline void stream_bytes(std::byte* dst, const std::byte* src, std::size_t n) {
#if defined(__SSE2__)
  const std::size_t head = std::min(n, (16 - reinterpret_cast<std::uintptr_t>(dst) % 16) % 16);
  std::memcpy(dst, src, head);
  dst += head, src += head, n -= head;
  for (; n >= 16; n -= 16, dst += 16, src += 16)
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst), _mm_loadu_si128(reinterpret_cast<const __m128i*>(src)));
#endif
  std::memcpy(dst, src, n);
}

// Element i of a drawn input is a function of (base, i) alone, so the loop runs in parallel and
// vectorises; the type and the distribution are chosen once per argument, not per element.
// `also`, when not null, gets the same values (the arena: no second pass to copy them there).
// Cheap values are drawn into a block that stays in L1 and streamed from there to both places
// (nothing reads them before the run's flush; on the 2-core VM this halves a redraw); heavy-tailed
// ones cost more to compute than to store, and plain stores overlap with the computation.
template <class T, distribution D>
GALAPAGOS_ISA_CLONES void draw_range(T* out, T* copy, std::int64_t begin, std::int64_t end, std::uint64_t base) {
  auto value = [base](std::int64_t i) __attribute__((always_inline)) {
    const std::uint64_t h = util::mix64(base + static_cast<std::uint64_t>(i));
    if constexpr (std::is_floating_point_v<T>)
      return static_cast<T>(draw<D>(h));
    else
      return static_cast<T>(static_cast<std::int64_t>(h % 2001) - 1000);
  };
  if constexpr (D == distribution::heavy_tailed) {
    for (std::int64_t i = begin; i < end; ++i) {
      const T v = value(i);
      out[i] = v;
      if (copy) copy[i] = v;
    }
  } else {
    constexpr std::int64_t block = 1024;
    alignas(64) T values[block];
    for (std::int64_t b = begin; b < end; b += block) {
      const std::int64_t m = std::min(block, end - b);
      for (std::int64_t i = 0; i < m; ++i) values[i] = value(b + i);
      const auto bytes = static_cast<std::size_t>(m) * sizeof(T);
      stream_bytes(reinterpret_cast<std::byte*>(out + b), reinterpret_cast<const std::byte*>(values), bytes);
      if (copy) stream_bytes(reinterpret_cast<std::byte*>(copy + b), reinterpret_cast<const std::byte*>(values), bytes);
    }
#if defined(__SSE2__)
    _mm_sfence();
#endif
  }
}

template <class T, distribution D>
void draw_all(std::byte* base_ptr, std::byte* also, std::int64_t n, std::uint64_t base) {
  T* out = reinterpret_cast<T*>(base_ptr);
  T* copy = reinterpret_cast<T*>(also);
  for_chunks(n, [&](std::int64_t begin, std::int64_t end) { draw_range<T, D>(out, copy, begin, end, base); });
}

template <class T>
void draw_typed(std::byte* p, std::byte* also, std::int64_t n, std::uint64_t base, distribution d) {
  switch (d) {
    case distribution::uniform:
      return draw_all<T, distribution::uniform>(p, also, n, base);
    case distribution::signed_uniform:
      return draw_all<T, distribution::signed_uniform>(p, also, n, base);
    case distribution::heavy_tailed:
      return draw_all<T, distribution::heavy_tailed>(p, also, n, base);
  }
}

void draw_into(dtype t, std::byte* p, std::byte* also, std::int64_t n, std::uint64_t base, distribution d) {
  switch (t) {
    case dtype::float64:
      return draw_typed<double>(p, also, n, base, d);
    case dtype::float32:
      return draw_typed<float>(p, also, n, base, d);
    case dtype::int32:
      return draw_all<std::int32_t, distribution::uniform>(p, also, n, base);
    case dtype::int64:
      return draw_all<std::int64_t, distribution::uniform>(p, also, n, base);
  }
}

double value_at(dtype t, const std::byte* base, std::int64_t i) {
  switch (t) {
    case dtype::float64: {
      double v;
      std::memcpy(&v, base + i * 8, 8);
      return v;
    }
    case dtype::float32: {
      float v;
      std::memcpy(&v, base + i * 4, 4);
      return v;
    }
    case dtype::int32: {
      std::int32_t v;
      std::memcpy(&v, base + i * 4, 4);
      return static_cast<double>(v);
    }
    case dtype::int64: {
      std::int64_t v;
      std::memcpy(&v, base + i * 8, 8);
      return static_cast<double>(v);
    }
  }
  return 0;
}

bool is_poison(dtype t, const std::byte* base, std::int64_t i) {
  switch (t) {
    case dtype::float64:
    case dtype::int64: {
      std::uint64_t v;
      std::memcpy(&v, base + i * 8, 8);
      return t == dtype::float64 ? v == poison64 : static_cast<std::int64_t>(v) == poison_int;
    }
    case dtype::float32: {
      std::uint32_t v;
      std::memcpy(&v, base + i * 4, 4);
      return v == poison32;
    }
    case dtype::int32: {
      std::int32_t v;
      std::memcpy(&v, base + i * 4, 4);
      return v == static_cast<std::int32_t>(poison_int);
    }
  }
  return false;
}

[[gnu::always_inline]] inline bool is_poison_value(std::int64_t v) { return v == poison_int; }
[[gnu::always_inline]] inline bool is_poison_value(std::int32_t v) { return v == static_cast<std::int32_t>(poison_int); }

// The poison goes in with streaming stores where the ISA has them: nothing reads an output before
// the candidate's run, which starts on flushed caches anyway, and a streaming store does not read
// each line before writing it (a third of the time of a plain fill on the 2-core VM).
template <class W>
void fill_range(std::byte* base, std::int64_t begin, std::int64_t end, W pattern) {
  constexpr std::int64_t block = 4096 / sizeof(W);
  W values[block];
  std::fill(std::begin(values), std::end(values), pattern);
  for (std::int64_t b = begin; b < end; b += block)
    stream_bytes(base + b * static_cast<std::int64_t>(sizeof(W)), reinterpret_cast<const std::byte*>(values),
                 static_cast<std::size_t>(std::min(block, end - b)) * sizeof(W));
#if defined(__SSE2__)
  _mm_sfence();
#endif
}

template <class W>
void fill_pattern(std::byte* base, std::int64_t n, W pattern) {
  for_chunks(n, [&](std::int64_t begin, std::int64_t end) { fill_range(base, begin, end, pattern); });
}

void poison(dtype t, std::byte* base, std::int64_t n) {
  switch (t) {
    case dtype::float64:
      return fill_pattern(base, n, poison64);
    case dtype::int64:
      return fill_pattern(base, n, poison_int);
    case dtype::float32:
      return fill_pattern(base, n, poison32);
    case dtype::int32:
      return fill_pattern(base, n, static_cast<std::int32_t>(poison_int));
  }
}

// What a scan of an output finds: elements left poisoned, elements not finite, and (with
// `expected`, when every element is written and finite) the largest difference from the
// reference and the reference's scale.
struct output_scan {
  std::int64_t unwritten = 0, non_finite = 0;
  double err = 0, scale = 0;
};

// Elements left poisoned and elements not finite, from their bits alone: no branch per element,
// so the loop vectorises (the poison patterns are NaNs, counted as unwritten only).
template <class T>
[[gnu::always_inline]] inline output_scan count_elements(const std::byte* got, std::int64_t begin, std::int64_t end) {
  std::int64_t unwritten = 0, non_finite = 0;
  if constexpr (std::is_floating_point_v<T>) {
    using bits_t = std::conditional_t<sizeof(T) == 8, std::uint64_t, std::uint32_t>;
    constexpr bits_t exponent = sizeof(T) == 8 ? static_cast<bits_t>(0x7ff0000000000000ull) : static_cast<bits_t>(0x7f800000u);
    constexpr bits_t poisoned = sizeof(T) == 8 ? static_cast<bits_t>(poison64) : static_cast<bits_t>(poison32);
    for (std::int64_t i = begin; i < end; ++i) {
      bits_t b;
      std::memcpy(&b, got + i * static_cast<std::int64_t>(sizeof(T)), sizeof(T));
      const bool p = b == poisoned;
      unwritten += p;
      non_finite += !p && (b & exponent) == exponent;
    }
  } else {
    for (std::int64_t i = begin; i < end; ++i) {
      T o;
      std::memcpy(&o, got + i * static_cast<std::int64_t>(sizeof(T)), sizeof(T));
      unwritten += is_poison_value(o);
    }
  }
  return {unwritten, non_finite, 0, 0};
}

template <class T>
GALAPAGOS_ISA_CLONES output_scan count_range(const std::byte* got, std::int64_t begin, std::int64_t end) {
  return count_elements<T>(got, begin, end);
}

// Two running maxima over a range in `lanes` partial results each: the compiler vectorises the
// lanes without -ffast-math (a maximum does not depend on the order it is taken in), which it
// does not for one running maximum.
constexpr int lanes = 8;
struct two_maxima {
  double first[lanes] = {}, second[lanes] = {};
  [[gnu::always_inline]] void take(int lane, double a, double b) {
    first[lane] = a > first[lane] ? a : first[lane];
    second[lane] = b > second[lane] ? b : second[lane];
  }
  double max_first() const { return *std::max_element(first, first + lanes); }
  double max_second() const { return *std::max_element(second, second + lanes); }
};

// One element's difference from the reference and the reference's magnitude, into lane `lane`.
template <class T>
[[gnu::always_inline]] inline void compare_element(two_maxima& m, int lane, const std::byte* got, const std::byte* expected,
                                                   std::int64_t i) {
  T o, r;
  std::memcpy(&o, got + i * static_cast<std::int64_t>(sizeof(T)), sizeof(T));
  std::memcpy(&r, expected + i * static_cast<std::int64_t>(sizeof(T)), sizeof(T));
  const double rd = static_cast<double>(r);
  m.take(lane, std::abs(static_cast<double>(o) - rd), std::abs(rd));
}

// The counts of count_range and, when the range is all written and finite, the largest difference
// from the reference and the reference's scale (a range with a bad element fails the output
// anyway). The range is counted and compared in turn while it is in cache: the output is read
// from memory once.
template <class T>
GALAPAGOS_ISA_CLONES output_scan compare_range(const std::byte* got, const std::byte* expected, std::int64_t begin,
                                               std::int64_t end) {
  output_scan s = count_elements<T>(got, begin, end);
  if (s.unwritten > 0 || s.non_finite > 0) return s;
  two_maxima m;
  std::int64_t i = begin;
  for (; i + lanes <= end; i += lanes)
    for (int l = 0; l < lanes; ++l) compare_element<T>(m, l, got, expected, i + l);
  for (; i < end; ++i) compare_element<T>(m, 0, got, expected, i);
  s.err = m.max_first();
  s.scale = m.max_second();
  return s;
}

// For the determinism check: the largest difference between two outputs (NaN against NaN is
// none, NaN against a number an infinite one) and the largest finite magnitude of `scale_of`.
template <class T>
[[gnu::always_inline]] inline void difference_element(two_maxima& m, int lane, const std::byte* now, const std::byte* before,
                                                      const std::byte* scale_of, std::int64_t i) {
  T x, y, z;
  std::memcpy(&x, now + i * static_cast<std::int64_t>(sizeof(T)), sizeof(T));
  std::memcpy(&y, before + i * static_cast<std::int64_t>(sizeof(T)), sizeof(T));
  std::memcpy(&z, scale_of + i * static_cast<std::int64_t>(sizeof(T)), sizeof(T));
  const double a = static_cast<double>(x), b = static_cast<double>(y), ref = static_cast<double>(z);
  const bool nan_a = a != a, nan_b = b != b;
  const double d = (nan_a || nan_b) ? (nan_a == nan_b ? 0.0 : INFINITY) : std::abs(a - b);
  m.take(lane, d, std::abs(ref) <= std::numeric_limits<double>::max() ? std::abs(ref) : 0.0);
}

template <class T>
GALAPAGOS_ISA_CLONES two_maxima difference_range(const std::byte* now, const std::byte* before, const std::byte* scale_of,
                                                 std::int64_t begin, std::int64_t end) {
  two_maxima m;
  std::int64_t i = begin;
  for (; i + lanes <= end; i += lanes)
    for (int l = 0; l < lanes; ++l) difference_element<T>(m, l, now, before, scale_of, i + l);
  for (; i < end; ++i) difference_element<T>(m, 0, now, before, scale_of, i);
  return m;
}

template <class T>
std::pair<double, double> difference_typed(const std::byte* now, const std::byte* before, const std::byte* scale_of,
                                           std::int64_t n) {
  double diff = 0, scale = 0;
  const std::int64_t chunks = (n + chunk_elements - 1) / chunk_elements;
#pragma omp parallel for reduction(max : diff, scale) schedule(static)
  for (std::int64_t c = 0; c < chunks; ++c) {
    const two_maxima m = difference_range<T>(now, before, scale_of, c * chunk_elements, std::min(n, (c + 1) * chunk_elements));
    diff = std::max(diff, m.max_first());
    scale = std::max(scale, m.max_second());
  }
  return {diff, scale};
}

std::pair<double, double> output_difference(dtype t, const std::byte* now, const std::byte* before, const std::byte* scale_of,
                                            std::int64_t n) {
  switch (t) {
    case dtype::float64:
      return difference_typed<double>(now, before, scale_of, n);
    case dtype::float32:
      return difference_typed<float>(now, before, scale_of, n);
    case dtype::int32:
      return difference_typed<std::int32_t>(now, before, scale_of, n);
    case dtype::int64:
      return difference_typed<std::int64_t>(now, before, scale_of, n);
  }
  return {};
}

template <class T>
output_scan scan_typed(const std::byte* got, const std::byte* expected, std::int64_t n) {
  std::int64_t unwritten = 0, non_finite = 0;
  double err = 0, scale = 0;
  const std::int64_t chunks = (n + chunk_elements - 1) / chunk_elements;
#pragma omp parallel for reduction(+ : unwritten, non_finite) reduction(max : err, scale) schedule(static)
  for (std::int64_t c = 0; c < chunks; ++c) {
    const std::int64_t begin = c * chunk_elements, end = std::min(n, (c + 1) * chunk_elements);
    const output_scan s = expected ? compare_range<T>(got, expected, begin, end) : count_range<T>(got, begin, end);
    unwritten += s.unwritten;
    non_finite += s.non_finite;
    err = std::max(err, s.err);
    scale = std::max(scale, s.scale);
  }
  return {unwritten, non_finite, err, scale};
}

output_scan scan_output(dtype t, const std::byte* got, const std::byte* expected, std::int64_t n) {
  switch (t) {
    case dtype::float64:
      return scan_typed<double>(got, expected, n);
    case dtype::float32:
      return scan_typed<float>(got, expected, n);
    case dtype::int32:
      return scan_typed<std::int32_t>(got, expected, n);
    case dtype::int64:
      return scan_typed<std::int64_t>(got, expected, n);
  }
  return {};
}

// memcpy in parallel: one core does not saturate the memory bus.
void copy_bytes(std::byte* dst, const std::byte* src, std::size_t n) {
  constexpr std::size_t chunk = 1 << 20;
  const auto chunks = static_cast<std::int64_t>((n + chunk - 1) / chunk);
#pragma omp parallel for schedule(static)
  for (std::int64_t c = 0; c < chunks; ++c) {
    const std::size_t off = static_cast<std::size_t>(c) * chunk;
    std::memcpy(dst + off, src + off, std::min(chunk, n - off));
  }
}

}  // namespace

std::size_t problem::arena_bytes(const families::family& f, const families::sizes& s, std::size_t misalign) {
  std::size_t total = 0;
  for (const auto& a : f.args)
    total += arena::slot_bytes(static_cast<std::size_t>(f.element_count(a, s)) * families::dtype_bytes(a.type), misalign);
  return total;
}

problem::problem(const families::family& f, families::sizes s, arena& shared, family_process& family_code, std::string spec,
                 const generator_fns* gen, int region)
    : family_(f),
      sizes_(std::move(s)),
      arena_(shared),
      family_code_(family_code),
      spec_(std::move(spec)),
      generator_(gen),
      region_(region),
      bytes_(f.bytes(sizes_)),
      flops_(f.flops(sizes_)) {
  if (arena_bytes(f, sizes_, shared.misalign()) > shared.region_bytes() || region < 0 || region >= shared.regions())
    throw error(f.toml_file.string(), "size " + f.describe_size(sizes_) + " does not fit the shared arena");
  std::size_t offset = static_cast<std::size_t>(region) * shared.region_bytes();
  for (const auto& a : f.args) {
    slot sl{&a, f.element_count(a, sizes_), offset + shared.misalign(), shared_bytes(), shared_bytes(), shared_bytes()};
    if (sl.count < 0)
      throw error(f.toml_file.string(), "argument '" + a.name + "' has a negative size at " + f.describe_size(sizes_));
    const std::size_t nbytes = static_cast<std::size_t>(sl.count) * families::dtype_bytes(a.type);
    if (a.direction != intent::out) sl.input = shared_bytes(nbytes, region == 0);
    if (a.direction != intent::in) {
      sl.expected = shared_bytes(nbytes);
      // Faulted in now, with the arena and the inputs: a search pays that once, not per candidate.
      sl.snapshot = shared_bytes(nbytes, region == 0);
    }
    offset += arena::slot_bytes(nbytes, shared.misalign());
    slots_.push_back(std::move(sl));
  }
}

std::string problem::describe() const {
  return spec_.empty() ? family_.describe_size(sizes_) : spec_ + " (" + family_.describe_size(sizes_) + ")";
}

void problem::fill(std::uint64_t seed, int distribution) {
  reference_current_ = false;
  ++instance_;
  for (auto& sl : slots_) sl.in_arena = false;
  if (generator_ && generator_->generate) {
    family_process::request q;
    q.op = 0;
    q.target = this;
    q.seed = seed;
    q.distribution = distribution;
    const auto r = family_code_.call(q, family_code::generator, describe());  // in its process: a crash or hang is an error
    if (r.rc != 0) throw error(family_.generator_source.string(), "cannot generate '" + describe() + "': " + r.message);
  }
  draw_inputs(seed, distribution);
}

// Requests of the family's process: 0 generate, 1 reference, 2 check.
void problem::serve(const family_process::request& q, family_process::reply& r) {
  const auto* p = static_cast<const problem*>(q.target);
  switch (q.op) {
    case 0:
      p->generate_here(q.seed, q.distribution, r);
      break;
    case 1: {
      const auto args = p->reference_args();
      r.rc = reinterpret_cast<reference_fn>(q.function)(args.data(), static_cast<int>(args.size()), p->sizes_.data());
      break;
    }
    case 2:
      p->check_here(reinterpret_cast<check_fn>(q.function), q.seed, r);
      break;
    default:
      r.rc = -1;
  }
}

void problem::generate_here(std::uint64_t seed, int distribution, family_process::reply& r) const {
  std::vector<glp_arg> args;
  for (const auto& sl : slots_)
    args.push_back(glp_arg{sl.input.empty() ? nullptr : sl.input.data(), sl.count, static_cast<std::int32_t>(sl.spec->type),
                           static_cast<std::int32_t>(sl.spec->direction)});
  r.rc = generator_->generate(spec_.c_str(), args.data(), static_cast<int>(args.size()), sizes_.data(), seed, distribution);
  if (r.rc != 0) std::snprintf(r.message, sizeof r.message, "%s", generator_->error().c_str());
}

void problem::copy_instance(const problem& leader) {
  if (&leader.family_ != &family_ || leader.sizes_ != sizes_ || leader.slots_.size() != slots_.size())
    throw error(family_.toml_file.string(), "an input set of a timing batch must have the size of the timing problem");
  reference_current_ = false;
  ++instance_;
  for (std::size_t k = 0; k < slots_.size(); ++k) {
    auto& sl = slots_[k];
    sl.in_arena = false;
    if (!sl.input.empty()) copy_bytes(sl.input.data(), leader.slots_[k].input.data(), sl.input.size());
  }
}

void problem::redraw(std::uint64_t seed) {
  reference_current_ = false;
  draw_inputs(util::mix64(seed ^ 0x7265647261770000ull), static_cast<int>(seed % 1024));
}

void problem::draw_inputs(std::uint64_t seed, int distribution) {
  for (std::size_t k = 0; k < slots_.size(); ++k) {
    auto& sl = slots_[k];
    if (sl.input.empty() || sl.spec->generated) continue;
    const auto& dists = sl.spec->distributions;
    const std::string& dist = dists[static_cast<std::size_t>(distribution) % dists.size()];
    const std::uint64_t base = util::mix64(seed ^ util::mix64(k + 1));
    // The arena holds this problem's layout: the values go there in the same pass (the worker is
    // frozen while the orchestrator draws; stage() then has nothing left to copy).
    std::byte* also = arena_.staged_by(region_) == this ? arena_.data() + sl.offset : nullptr;
    draw_into(sl.spec->type, sl.input.data(), also, sl.count, base, distribution_named(dist));
    sl.in_arena = also != nullptr;
  }
}

std::vector<glp_arg> problem::reference_args() const {
  std::vector<glp_arg> args;
  for (const auto& sl : slots_)
    args.push_back(glp_arg{sl.spec->direction == intent::in ? sl.input.data() : sl.expected.data(), sl.count,
                           static_cast<std::int32_t>(sl.spec->type), static_cast<std::int32_t>(sl.spec->direction)});
  return args;
}

void problem::compute_reference(reference_fn ref) {
  for (auto& sl : slots_)
    if (sl.spec->direction == intent::inout && !sl.input.empty())
      std::memcpy(sl.expected.data(), sl.input.data(), sl.input.size());
  family_process::request q;
  q.op = 1;
  q.target = this;
  q.function = reinterpret_cast<const void*>(ref);
  const int rc = family_code_.call(q, family_code::reference, describe()).rc;  // in its process: a crash or hang is an error
  if (rc != 0) throw error(family_.reference_source.string(), "reference returned " + std::to_string(rc) + " at " + describe());
  reference_current_ = true;
}

void problem::stage() {
  if (arena_.staged_by(region_) != this)
    for (auto& sl : slots_) sl.in_arena = false;
  arena_.staged_by(region_, this);
  for (auto& sl : slots_) {
    std::byte* dst = arena_.data() + sl.offset;
    if (sl.input.empty()) {
      poison(sl.spec->type, dst, sl.count);
    } else if (!sl.in_arena) {
      copy_bytes(dst, sl.input.data(), sl.input.size());
      sl.in_arena = true;
    }
  }
}

namespace {

bool same_bytes(const std::byte* a, const std::byte* b, std::size_t n) {
  constexpr std::size_t chunk = 1 << 20;
  const auto chunks = static_cast<std::int64_t>((n + chunk - 1) / chunk);
  int differ = 0;
#pragma omp parallel for reduction(| : differ) schedule(static)
  for (std::int64_t c = 0; c < chunks; ++c) {
    const std::size_t off = static_cast<std::size_t>(c) * chunk;
    differ |= std::memcmp(a + off, b + off, std::min(chunk, n - off)) != 0;
  }
  return differ == 0;
}

}  // namespace

verdict problem::verify(judge how, check_fn checker, std::uint64_t check_seed) {
  verdict v;
  const bool against_reference = how == judge::reference;
  for (auto& sl : slots_) {
    const std::byte* got = arena_.data() + sl.offset;
    if (sl.spec->direction == intent::in) {
      if (!same_bytes(got, sl.input.data(), sl.input.size())) {
        v.status = candidate_status::input_modified;
        v.reason = "input '" + sl.spec->name + "' was modified at " + describe();
        return v;
      }
      sl.in_arena = arena_.staged_by(region_) == this;
      continue;
    }
    const dtype t = sl.spec->type;
    std::int64_t first_bad = -1;
    const output_scan scan = scan_output(t, got, against_reference ? sl.expected.data() : nullptr, sl.count);
    const std::int64_t unwritten = scan.unwritten, non_finite = scan.non_finite;
    const double err = scan.err, scale = scan.scale;
    if (unwritten > 0 || non_finite > 0) {
      for (std::int64_t i = 0; i < sl.count && first_bad < 0; ++i)
        if (is_poison(t, got, i) || !std::isfinite(value_at(t, got, i))) first_bad = i;
      v.status = candidate_status::wrong_result;
      v.reason = "output '" + sl.spec->name + "': " + std::to_string(unwritten) + " elements not written, " +
                 std::to_string(non_finite) + " NaN/Inf (first at index " + std::to_string(first_bad) + ") at " + describe();
      v.rel_error = std::numeric_limits<double>::infinity();
      return v;
    }
    const double rel = scale > 0 ? err / scale : err;
    v.rel_error = std::max(v.rel_error, rel);
    if (rel > family_.tolerance) {
      v.status = candidate_status::wrong_result;
      char buf[160];
      std::snprintf(buf, sizeof buf, "relative error %.3e > tolerance %.1e", rel, family_.tolerance);
      v.reason = "output '" + sl.spec->name + "': " + buf + " at " + describe();
      return v;
    }
  }
  if (how == judge::checker && checker) {
    family_process::request q;
    q.op = 2;
    q.target = this;
    q.function = reinterpret_cast<const void*>(checker);
    q.seed = check_seed;
    const auto r = family_code_.call(q, family_code::checker, describe());  // in its process: a crash or hang is an error
    if (r.rc != 0) throw error(family_.reference_source.string(), "the checker (glp_check) could not judge " + describe());
    const double rel = r.value;
    v.rel_error = rel;
    if (!(rel <= family_.tolerance)) {
      v.status = candidate_status::wrong_result;
      char buf[200];
      std::snprintf(buf, sizeof buf, "relative error %.3e > tolerance %.1e (the family's checker)", rel, family_.tolerance);
      v.reason = std::string("outputs: ") + buf + " at " + describe();
    }
  }
  return v;
}

void problem::check_here(check_fn checker, std::uint64_t seed, family_process::reply& r) const {
  std::vector<glp_arg> inputs, outputs;
  for (const auto& sl : slots_) {
    const auto type = static_cast<std::int32_t>(sl.spec->type), dir = static_cast<std::int32_t>(sl.spec->direction);
    inputs.push_back(glp_arg{sl.input.empty() ? nullptr : sl.input.data(), sl.count, type, dir});
    outputs.push_back(glp_arg{sl.spec->direction == intent::in ? nullptr : arena_.data() + sl.offset, sl.count, type, dir});
  }
  r.rc = checker(inputs.data(), outputs.data(), static_cast<int>(slots_.size()), sizes_.data(), seed, &r.value);
}

void problem::snapshot_outputs() {
  for (auto& sl : slots_)
    if (sl.spec->direction != intent::in) copy_bytes(sl.snapshot.data(), arena_.data() + sl.offset, sl.snapshot.size());
}

double problem::max_difference_ulps() const {
  double worst = 0;
  for (const auto& sl : slots_) {
    if (sl.spec->direction == intent::in) continue;
    const std::byte* now = arena_.data() + sl.offset;
    const std::byte* before = sl.snapshot.data();
    const std::byte* scale_of = reference_current_ ? sl.expected.data() : before;
    const auto [diff, scale] = output_difference(sl.spec->type, now, before, scale_of, sl.count);
    const double ulp =
        sl.spec->type == dtype::float32 ? std::numeric_limits<float>::epsilon() : std::numeric_limits<double>::epsilon();
    worst = std::max(worst, (scale > 0 ? diff / scale : diff) / ulp);
  }
  return worst;
}

std::uint32_t problem::instance_inputs() const {
  std::uint32_t bits = 0;
  for (std::size_t i = 0; i < slots_.size(); ++i)
    if (slots_[i].spec->generated && slots_[i].spec->direction == families::intent::in) bits |= 1u << i;
  return bits;
}

protocol::request problem::run_request() {
  for (auto& sl : slots_) sl.in_arena = false;
  protocol::request q{};
  q.kind = protocol::request_kind::run;
  q.nargs = static_cast<std::int32_t>(slots_.size());
  for (std::size_t i = 0; i < slots_.size(); ++i)
    q.args[i] = protocol::arg_slot{slots_[i].offset, slots_[i].count, static_cast<std::int32_t>(slots_[i].spec->type),
                                   static_cast<std::int32_t>(slots_[i].spec->direction)};
  q.nsizes = static_cast<std::int32_t>(sizes_.size());
  for (std::size_t i = 0; i < sizes_.size(); ++i) q.sizes[i] = sizes_[i];
  return q;
}

}  // namespace galapagos::eval
