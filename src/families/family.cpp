#include "families/family.hpp"

#include <algorithm>

#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <set>
#include <sstream>

#include "util/error.hpp"
#include "util/install_layout.hpp"
#include "util/toml_reader.hpp"

namespace galapagos::families {

using util::toml_section;

std::size_t dtype_bytes(dtype t) {
  switch (t) {
    case dtype::float64:
    case dtype::int64:
      return 8;
    case dtype::float32:
    case dtype::int32:
      return 4;
  }
  return 8;
}

std::string dtype_name(dtype t) {
  switch (t) {
    case dtype::float64:
      return "float64";
    case dtype::float32:
      return "float32";
    case dtype::int32:
      return "int32";
    case dtype::int64:
      return "int64";
  }
  return "?";
}

namespace {

dtype parse_dtype(const toml_section& s, const std::string& key) {
  const std::string v = s.str(key);
  if (v == "float64") return dtype::float64;
  if (v == "float32") return dtype::float32;
  if (v == "int32") return dtype::int32;
  if (v == "int64") return dtype::int64;
  s.fail(key, "unknown dtype '" + v + "' (float64, float32, int32, int64)");
}

intent parse_intent(const toml_section& s) {
  const std::string v = s.str("intent");
  if (v == "in") return intent::in;
  if (v == "out") return intent::out;
  if (v == "inout") return intent::inout;
  s.fail("intent", "must be in, out or inout");
}

std::filesystem::path existing_file(const family& f, const toml_section& s, const std::string& key) {
  auto p = f.dir / s.str(key);
  if (!std::filesystem::is_regular_file(p)) s.fail(key, "file not found: " + p.string());
  return p;
}

bool is_number(const std::string& text) {
  char* end = nullptr;
  std::strtod(text.c_str(), &end);
  return !text.empty() && end != text.c_str() && *end == '\0';
}

std::string short_number(double v) {
  std::ostringstream os;
  os.precision(4);
  os << v;
  return os.str();
}

problem_spec parse_size(const family& f, const toml_section& s, const std::string& name) {
  problem_spec p{name, {}, {}};
  if (s.has("problem")) {
    s.allow_only({"problem"});
    if (f.generator_source.empty()) s.fail("problem", "problem specs need a [generator] in the family");
    p.generator_spec = s.str("problem");
    return p;
  }
  sizes& out = p.values;
  for (const auto& sym : f.symbols) {
    if (!s.has(sym)) s.fail(sym, "size symbol missing");
    auto v = s.integer(sym);
    if (v < 1) s.fail(sym, "must be >= 1");
    out.push_back(v);
  }
  for (const auto& [k, v] : s.table()) {
    bool known = false;
    for (const auto& sym : f.symbols) known = known || sym == k.str();
    if (!known) s.fail(std::string(k.str()), "not a size symbol of this family");
  }
  return p;
}

source_spec parse_source(const family& f, const toml_section& s, const std::string& key,
                         const std::vector<std::string>& default_flags) {
  source_spec spec;
  spec.name = s.str("name", "");
  spec.source = existing_file(f, s, key);
  spec.flags = s.has("flags") ? s.strings("flags") : default_flags;
  spec.libs = s.strings("libs");
  return spec;
}

backend_spec parse_backend(const family& f, const toml_section& s, const std::string& name) {
  s.allow_only({"template", "flags", "libs", "constraints", "params", "baselines"});
  backend_spec b;
  b.name = name;
  b.tmpl = parse_source(f, s, "template", {});
  b.tmpl.name = "template";
  std::set<std::string> names;
  for (const auto& p : s.array_of_tables("params")) {
    p.allow_only({"name", "values"});
    core::parameter param{p.str("name"), p.scalars_as_text("values")};
    if (param.values.empty()) p.fail("values", "a parameter needs at least one value");
    if (!names.insert(param.name).second) p.fail("name", "duplicate parameter '" + param.name + "'");
    b.params.push_back(std::move(param));
  }
  if (b.params.empty()) s.fail("params", "the parameter space is empty (add [[" + name + ".params]])");
  std::vector<std::string> pnames;
  for (const auto& p : b.params) pnames.push_back(p.name);
  for (const auto& c : s.strings("constraints"))
    b.constraints.push_back(std::make_shared<expression>(c, pnames, f.toml_file.string() + ": " + name + ".constraints"));
  for (const auto& bs : s.array_of_tables("baselines")) {
    bs.allow_only({"name", "source", "flags", "libs", "optional"});
    auto spec = parse_source(f, bs, "source", b.tmpl.flags);
    if (spec.name.empty()) bs.fail("name", "missing");
    spec.optional = bs.boolean("optional", false);
    b.baselines.push_back(std::move(spec));
  }
  if (std::none_of(b.baselines.begin(), b.baselines.end(), [](const source_spec& x) { return !x.optional; }))
    s.fail("baselines", "at least one baseline that is not optional is needed to report a speedup");
  // A constraint sees every parameter as a number: a textual value of a parameter it names would
  // read as NaN and fail every comparison, which empties the space without saying why.
  std::set<std::string> constrained;
  for (const auto& c : b.constraints)
    for (const auto& v : c->variables_used()) constrained.insert(v);
  const auto tables = s.array_of_tables("params");
  for (std::size_t i = 0; i < b.params.size(); ++i) {
    if (!constrained.count(b.params[i].name)) continue;
    for (const auto& v : b.params[i].values)
      if (!is_number(v))
        tables[i].fail("values", "parameter '" + b.params[i].name +
                                     "' is named in a constraint, so its values must be numbers, but '" + v + "' is not");
  }
  return b;
}

// Every shape and cost expression at every named size that has values (the sizes of a problem
// spec are known only when the generator resolves it): finite, not negative, and all arguments
// together within the machine's memory.
void check_named_sizes(const family& f) {
  const std::string file = f.toml_file.string();
  const double memory = static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGESIZE));
  std::vector<const problem_spec*> named;
  for (const auto& p : f.fitness_sizes) named.push_back(&p);
  for (const auto& p : f.accept_sizes) named.push_back(&p);
  for (const problem_spec* p : named) {
    if (!p->generator_spec.empty()) continue;
    const std::string at = "size '" + p->name + "' (" + f.describe_size(p->values) + ")";
    const std::vector<double> values(p->values.begin(), p->values.end());
    const auto check = [&](const std::string& what, const expression& e) {
      const double v = e.evaluate(values);
      std::string problem;
      if (std::isnan(v))
        problem = "is not a number (0/0?)";
      else if (std::isinf(v))
        problem = std::string("is ") + (v > 0 ? "" : "-") + "infinite (a division by zero?)";
      else if (v < 0)
        problem = "is negative (" + short_number(v) + ")";
      if (!problem.empty()) throw error(file, what + " '" + e.text() + "' " + problem + " at " + at);
      return v;
    };
    double total_bytes = 0;
    for (const auto& a : f.args) {
      const double n = check("shape of argument '" + a.name + "'", *a.shape);
      if (n > 0x1p53)
        throw error(file, "shape of argument '" + a.name + "' '" + a.shape->text() + "' is " + short_number(n) + " elements at " +
                              at + ": too large to count exactly");
      total_bytes += n * static_cast<double>(dtype_bytes(a.type));
    }
    if (memory > 0 && total_bytes > memory)
      throw error(file, "the arguments need " + short_number(total_bytes / 1e9) + " GB at " + at + ", more than this machine's " +
                            short_number(memory / 1e9) + " GB of memory");
    check("cost.bytes", *f.cost_bytes);
    check("cost.flops", *f.cost_flops);
  }
}

}  // namespace

family load_family_file(const std::filesystem::path& toml_file) {
  family f;
  f.toml_file = toml_file;
  f.dir = toml_file.parent_path();
  const std::string file = toml_file.string();
  const toml::table root = util::parse_toml_file(toml_file);
  toml_section s(root, file, "");
  s.allow_only(
      {"name", "description", "symbols", "tolerance", "args", "sizes", "cost", "reference", "generator", "cpu", "cuda", "hip"});
  f.name = s.str("name");
  f.description = s.str("description", "");
  f.symbols = s.strings("symbols");
  if (f.symbols.empty()) s.fail("symbols", "at least one size symbol is needed");
  f.tolerance = s.num("tolerance");
  if (!(f.tolerance > 0)) s.fail("tolerance", "must be > 0");

  for (const auto& a : s.array_of_tables("args")) {
    a.allow_only({"name", "dtype", "shape", "intent", "distributions", "generated"});
    arg_spec spec;
    spec.name = a.str("name");
    spec.generated = a.boolean("generated", false);
    spec.type = parse_dtype(a, "dtype");
    spec.direction = parse_intent(a);
    spec.shape = std::make_shared<expression>(a.str("shape"), f.symbols, file + ": args." + spec.name + ".shape");
    spec.distributions = a.strings("distributions");
    if (spec.distributions.empty()) spec.distributions = {"uniform", "signed", "heavy_tailed"};
    for (const auto& d : spec.distributions)
      if (d != "uniform" && d != "signed" && d != "heavy_tailed")
        a.fail("distributions", "unknown distribution '" + d + "' (uniform, signed, heavy_tailed)");
    f.args.push_back(std::move(spec));
  }
  if (f.args.empty()) s.fail("args", "a family needs at least one argument");
  bool has_output = false;
  for (const auto& a : f.args) has_output = has_output || a.direction != intent::in;
  if (!has_output) s.fail("args", "a family needs at least one out or inout argument");

  if (auto gen = s.sub("generator")) {
    gen->allow_only({"source"});
    f.generator_source = existing_file(f, *gen, "source");
  }
  for (const auto& a : f.args)
    if (a.generated && f.generator_source.empty())
      s.fail("args", "argument '" + a.name + "' is generated = true but the family has no [generator]");

  auto sz = s.sub("sizes");
  if (!sz) s.fail("sizes", "missing [sizes] table");
  for (const auto& [k, v] : sz->table()) {
    const std::string key(k.str());
    if (key == "accept") continue;
    auto t = sz->sub(key);
    f.fitness_sizes.push_back(parse_size(f, *t, key));
  }
  for (const auto& a : sz->array_of_tables("accept")) f.accept_sizes.push_back(parse_size(f, a, "accept"));
  if (f.accept_sizes.empty()) sz->fail("accept", "at least one acceptance size is needed");
  f.fitness_size("tune");  // required

  auto cost = s.sub("cost");
  if (!cost) s.fail("cost", "missing [cost] table (bytes and flops)");
  cost->allow_only({"bytes", "flops"});
  f.cost_bytes = std::make_shared<expression>(cost->str("bytes"), f.symbols, file + ": cost.bytes");
  f.cost_flops = std::make_shared<expression>(cost->str("flops"), f.symbols, file + ": cost.flops");

  auto ref = s.sub("reference");
  if (!ref) s.fail("reference", "missing [reference] table");
  ref->allow_only({"source"});
  f.reference_source = existing_file(f, *ref, "source");

  for (const char* b : {"cpu", "cuda", "hip"})
    if (auto bs = s.sub(b)) f.backends.emplace(b, parse_backend(f, *bs, b));
  if (f.backends.empty()) s.fail("cpu", "no backend table ([cpu], [cuda] or [hip])");
  check_named_sizes(f);
  for (const auto& n : f.fitness_sizes)
    for (const auto& a : f.args)
      if (n.generator_spec.empty() && f.element_count(a, n.values) < 1)
        s.fail("sizes", "argument '" + a.name + "' is empty at size '" + n.name + "'");
  return f;
}

const backend_spec& family::backend(const std::string& b) const {
  auto it = backends.find(b);
  if (it == backends.end()) throw error(toml_file.string(), "family '" + name + "' has no backend '" + b + "'");
  return it->second;
}

dtype family::compute_type() const {
  for (const auto& a : args)
    if (a.direction != intent::in) return a.type;
  return args.front().type;
}

const problem_spec& family::fitness_size(const std::string& n) const {
  for (const auto& s : fitness_sizes)
    if (s.name == n) return s;
  throw error(toml_file.string(), "no size named '" + n + "' in [sizes]");
}

namespace {
std::vector<double> as_doubles(const sizes& s) { return {s.begin(), s.end()}; }
}  // namespace

std::int64_t family::element_count(const arg_spec& a, const sizes& s) const {
  return static_cast<std::int64_t>(std::llround(a.shape->evaluate(as_doubles(s))));
}
double family::bytes(const sizes& s) const { return cost_bytes->evaluate(as_doubles(s)); }
double family::flops(const sizes& s) const { return cost_flops->evaluate(as_doubles(s)); }

std::string family::describe_size(const sizes& s) const {
  std::ostringstream os;
  for (std::size_t i = 0; i < symbols.size(); ++i) os << (i ? " " : "") << symbols[i] << "=" << s[i];
  return os.str();
}

namespace {

// The constraints as a predicate over genomes. A constraint names a few parameters; its verdict
// for each combination of their values is kept in a table, filled as points are asked about, so
// that a search that draws millions of points (rejection sampling where few points are valid:
// about one in 540 for the gemm CUDA space) parses each combination once instead of evaluating
// muParser every time (which was a quarter of that search's wall time). Same verdicts, same
// order of questions: a strategy proposes exactly what it did without the tables.
class constraint_check {
 public:
  constraint_check(const std::vector<core::parameter>& params, const std::vector<std::shared_ptr<expression>>& constraints)
      : values_(params.size()) {
    numbers_.reserve(params.size());
    for (const auto& p : params) {
      std::vector<double> v;
      for (const auto& text : p.values) v.push_back(parameter_number(text));
      numbers_.push_back(std::move(v));
    }
    for (const auto& c : constraints) {
      one o;
      o.e = c;
      std::size_t combinations = 1;
      for (const auto& name : c->variables_used())
        for (std::size_t i = 0; i < params.size(); ++i)
          if (params[i].name == name) {
            o.vars.push_back(i);
            o.strides.push_back(combinations);
            combinations = std::min(combinations * params[i].values.size(), max_table + 1);
          }
      if (combinations <= max_table) o.verdicts.assign(combinations, unknown);
      checks_.push_back(std::move(o));
    }
  }

  bool operator()(const core::genome& g) {
    bool filled = false;
    for (auto& c : checks_) {
      if (c.verdicts.empty()) {
        fill(g, filled);
        if (c.e->evaluate(values_) == 0.0) return false;
        continue;
      }
      std::size_t at = 0;
      for (std::size_t k = 0; k < c.vars.size(); ++k) at += static_cast<std::size_t>(g[c.vars[k]]) * c.strides[k];
      if (c.verdicts[at] == unknown) {
        fill(g, filled);
        c.verdicts[at] = c.e->evaluate(values_) != 0.0;
      }
      if (!c.verdicts[at]) return false;
    }
    return true;
  }

 private:
  static constexpr std::int8_t unknown = -1;
  static constexpr std::size_t max_table = std::size_t{1} << 20;  // combinations kept per constraint
  struct one {
    std::shared_ptr<expression> e;
    std::vector<std::size_t> vars, strides;  // the parameters it names; their strides in the table
    std::vector<std::int8_t> verdicts;       // per combination: unknown, 0 or 1; empty: too many to keep
  };
  void fill(const core::genome& g, bool& filled) {
    if (filled) return;
    for (std::size_t i = 0; i < g.size(); ++i) values_[i] = numbers_[i][static_cast<std::size_t>(g[i])];
    filled = true;
  }
  std::vector<std::vector<double>> numbers_;  // per parameter, its values as numbers
  std::vector<one> checks_;
  std::vector<double> values_;
};

}  // namespace

double parameter_number(const std::string& text) {
  char* end = nullptr;
  const double x = std::strtod(text.c_str(), &end);
  return end == text.c_str() || *end != '\0' ? std::nan("") : x;
}

bool satisfies_constraints(const backend_spec& b, const core::genome& g) {
  std::vector<double> v(g.size());
  for (std::size_t i = 0; i < g.size(); ++i) v[i] = parameter_number(b.params[i].values[static_cast<std::size_t>(g[i])]);
  for (const auto& c : b.constraints)
    if (c->evaluate(v) == 0.0) return false;
  return true;
}

core::search_space family::space(const std::string& backend_name) const {
  const auto& b = backend(backend_name);
  auto check = std::make_shared<constraint_check>(b.params, b.constraints);
  return core::search_space(b.params, [check](const core::genome& g) { return (*check)(g); });
}

family load_family(const std::string& name, const std::vector<std::filesystem::path>& search_path) {
  std::string tried;
  for (const auto& dir : search_path) {
    auto file = dir / name / "family.toml";
    if (std::filesystem::is_regular_file(file)) {
      family f = load_family_file(file);
      if (f.name != name) throw error(file.string(), "name = '" + f.name + "' does not match its folder '" + name + "'");
      return f;
    }
    tried += (tried.empty() ? "" : ", ") + dir.string();
  }
  throw error("family '" + name + "'", "unknown family (searched: " + tried + ")");
}

std::vector<std::filesystem::path> default_search_path(std::vector<std::filesystem::path> first) {
  std::vector<std::filesystem::path> out = std::move(first);
  // GALAPAGOS_KERNEL_PATH, and GALAPAGOS_KERNELS (its older name) after it.
  for (const char* name : {"GALAPAGOS_KERNEL_PATH", "GALAPAGOS_KERNELS"})
    if (const char* env = std::getenv(name)) {
      std::stringstream ss(env);
      std::string part;
      while (std::getline(ss, part, ':'))
        if (!part.empty()) out.emplace_back(part);
    }
  out.push_back(util::kernels_dir());
  return out;
}

}  // namespace galapagos::families
