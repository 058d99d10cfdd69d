// The pieces of an export package (galapagos export, cmd_export.cpp): the held-out problems the
// candidate is verified on again, the source with its parameters written in, shell quoting and
// file writing for the scripts, and the reviewer's page, written from evidence.json's content so
// that the two always agree.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "families/family.hpp"

namespace galapagos::cli {

// Problems the search never used: each acceptance size moved to a nearby size (every symbol
// within an eighth of its value), or for a generator spec its size keys moved and a fresh matrix
// seed; none equal to an acceptance or fitness size. Matrix Market files are not varied.
std::vector<families::problem_spec> held_out_problems(const families::family& f, std::uint64_t seed);
// A problem as the family describes it ("nx=130 ny=97 nz=81", or its generator spec).
std::string describe(const families::family& f, const families::problem_spec& p);

// The source with the parameter values written in as #defines after its leading comment: it
// builds without -D flags, and its diff against the template shows exactly the choice made.
std::string with_parameters(const std::string& text, const nlohmann::json& params, std::int64_t id, const std::string& run);
// `s` as one word of a POSIX shell command line.
std::string shell_quote(const std::string& s);
// Writes `text` to `p` (executable for a script); throws galapagos::error naming it when it cannot.
void write_file(const std::filesystem::path& p, const std::string& text, bool executable = false);

// EVIDENCE.md (FLAGGED.md when the held-out check failed), from evidence.json's content: the
// candidate, its parameters, what the search measured, the held-out check and the files.
std::string evidence_markdown(const nlohmann::json& evidence, const std::string& source_name, const std::string& template_path);

}  // namespace galapagos::cli
