// A kernel family, read at run time from kernels/<name>/family.toml (docs/writing-a-family.md):
// argument specs, named problem sizes, tolerance, cost model, and per backend the template,
// its tunable parameters, constraints and baselines. Adding a family needs no rebuild.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/search_space.hpp"
#include "families/expression.hpp"

namespace galapagos::families {

enum class dtype { float64, float32, int32, int64 };
enum class intent { in, out, inout };

std::size_t dtype_bytes(dtype t);
std::string dtype_name(dtype t);

struct arg_spec {
  std::string name;
  bool generated = false;  // filled by the family's generator, never redrawn
  dtype type = dtype::float64;
  intent direction = intent::in;
  std::shared_ptr<expression> shape;       // element count over the size symbols
  std::vector<std::string> distributions;  // uniform, signed, heavy_tailed
};

using sizes = std::vector<std::int64_t>;  // one value per size symbol, in symbols order

// A problem to run: symbol values, or a spec string the family's generator turns into sizes
// and inputs (e.g. "poisson7 n=128", "mtx:/data/A.mtx").
struct problem_spec {
  std::string name;
  sizes values;                // empty when generator_spec decides them
  std::string generator_spec;  // empty: values are given
};

struct source_spec {  // a template or a baseline: a source file and how to build it
  std::string name;
  std::filesystem::path source;
  std::vector<std::string> flags;
  std::vector<std::string> libs;
  // A baseline through a vendor library a node may lack (hipSPARSE): where it does not build or
  // load, the run reports it unavailable and goes on with the others.
  bool optional = false;
};

struct backend_spec {
  std::string name;
  source_spec tmpl;
  std::vector<core::parameter> params;
  std::vector<std::shared_ptr<expression>> constraints;  // over the parameter names
  std::vector<source_spec> baselines;
};

class family {
 public:
  std::string name;
  std::string description;
  std::filesystem::path dir;
  std::filesystem::path toml_file;
  std::vector<std::string> symbols;
  double tolerance = 0;
  std::vector<arg_spec> args;
  std::vector<problem_spec> fitness_sizes;  // "tune", "small", ...
  std::vector<problem_spec> accept_sizes;
  std::filesystem::path generator_source;  // trusted input generator; empty: random inputs
  std::shared_ptr<expression> cost_bytes, cost_flops;
  std::filesystem::path reference_source;
  std::map<std::string, backend_spec> backends;

  const backend_spec& backend(const std::string& name) const;       // throws naming the file
  const problem_spec& fitness_size(const std::string& name) const;  // throws naming the file
  // The element type of the first output: the arithmetic the cost model's flops are done in.
  dtype compute_type() const;
  std::int64_t element_count(const arg_spec& a, const sizes& s) const;
  double bytes(const sizes& s) const;
  double flops(const sizes& s) const;
  std::string describe_size(const sizes& s) const;  // "nx=320 ny=240 nz=200"
  // The backend's parameter space with its constraints as the validity predicate (each
  // constraint's verdicts kept per combination of the parameters it names).
  core::search_space space(const std::string& backend_name) const;
};

// A parameter value as constraints see it: its number, NaN for a textual value (which fails any
// comparison, so constraints should only name numeric parameters).
double parameter_number(const std::string& text);
// Whether g satisfies every constraint of b, each expression evaluated at g and nothing kept:
// what family::space's predicate must answer (its tests and bench/strategy_proposals.cpp).
bool satisfies_constraints(const backend_spec& b, const core::genome& g);

// Reads and validates one family.toml. Throws galapagos::error naming the file and the problem.
family load_family_file(const std::filesystem::path& toml_file);
// Finds kernels/<name>/family.toml along `search_path` (first hit wins).
family load_family(const std::string& name, const std::vector<std::filesystem::path>& search_path);
// `first` (a config's kernel_paths), then $GALAPAGOS_KERNEL_PATH and $GALAPAGOS_KERNELS (each
// colon-separated), then the shipped kernels/ folder (util::kernels_dir(): installed or source tree).
std::vector<std::filesystem::path> default_search_path(std::vector<std::filesystem::path> first = {});

}  // namespace galapagos::families
