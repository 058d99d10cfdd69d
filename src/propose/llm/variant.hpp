// Source variants: a rewrite of a family's template that a model proposed. A variant keeps the
// template's tunable parameters and may declare new ones in its evolve regions,
//
//   // galapagos:param NAME = [v1, v2, ...]
//
// which the GA then tunes like any other (passed as -DGLP_<NAME>=<value>). Its parameter space
// is the template's, with the declared parameters appended, so the template's constraints
// still apply to the leading genes.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/search_space.hpp"

namespace galapagos::propose {

inline constexpr int max_declared_params = 8;
inline constexpr int max_declared_values = 16;

struct declared_params {
  std::vector<core::parameter> params;
  std::vector<std::string> problems;  // declarations that were refused, one line each
};

// The parameters a source declares. A declaration that is malformed, repeats a name, names a
// parameter of `base`, or goes beyond the limits above is refused with a reason.
declared_params parse_declared_params(const std::string& source, const std::vector<core::parameter>& base);

// The value a declared parameter takes when the source's own default (#define GLP_<NAME> v
// under #ifndef) is among its values; otherwise its first value.
int default_value_index(const std::string& source, const core::parameter& p);

// The point a source's own defaults make: every parameter of `space` defined (#define GLP_<NAME> v)
// with a value it lists, and the point valid. Nothing when one is missing or the point is not valid.
// `preprocessed`: `source` is a preprocessor's list of the macros a build defines (`-E -dM`), so a
// default given through another macro (#define GLP_NC GLP_DEF_NC) is followed to its value; in raw
// text it is not (which of its definitions a build sees depends on the conditionals around them).
std::optional<core::genome> defined_point(const std::string& source, const core::search_space& space, bool preprocessed = false);

// The program a source is, for telling rewrites apart: the text without its comments (a line
// comment that declares a parameter, `galapagos:param`, is kept), every run of blanks one space,
// no blank lines and no blanks at either end of a line; string and character literals verbatim.
// Two rewrites with the same program key compile to the same program.
std::string program_text(const std::string& source);

// The variant's space: `base`'s parameters and constraints, then the declared parameters.
// `base` must outlive the result.
std::unique_ptr<core::search_space> variant_space(const core::search_space& base, const std::vector<core::parameter>& declared);

}  // namespace galapagos::propose
