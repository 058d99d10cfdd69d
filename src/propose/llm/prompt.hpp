// Prompts from editable templates (configs/prompts/*.md): text with {{name}} placeholders that
// the proposer fills (the family's description and entry point, the hardware and its measured
// ceilings, the parent's source and measurements, elites, what went wrong last time, ...).
#pragma once

#include <map>
#include <string>
#include <vector>

namespace galapagos::propose {

// The template with every {{name}} replaced by values.at(name). Throws galapagos::error naming
// `origin` (the template's file) for a placeholder without a value or an unclosed "{{".
std::string render_prompt(const std::string& text, const std::map<std::string, std::string>& values, const std::string& origin);

// The placeholders a template uses, in order of first use.
std::vector<std::string> prompt_placeholders(const std::string& text, const std::string& origin);

}  // namespace galapagos::propose
