#include "propose/llm/prompt.hpp"

#include <algorithm>
#include <cstddef>

#include "util/error.hpp"

namespace galapagos::propose {

namespace {

// Calls use(name) for every placeholder and returns the text between them, with values.
template <class Use>
std::string walk(const std::string& text, const std::string& origin, Use use) {
  std::string out;
  std::size_t pos = 0;
  for (;;) {
    const std::size_t open = text.find("{{", pos);
    if (open == std::string::npos) return out + text.substr(pos);
    const std::size_t close = text.find("}}", open + 2);
    const int line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(open), '\n'));
    if (close == std::string::npos) throw error(origin, "line " + std::to_string(line) + ": '{{' is never closed by '}}'");
    std::string name = text.substr(open + 2, close - open - 2);
    name.erase(0, name.find_first_not_of(" \t"));
    name.erase(name.find_last_not_of(" \t") + 1);
    out += text.substr(pos, open - pos) + use(name, line);
    pos = close + 2;
  }
}

}  // namespace

std::string render_prompt(const std::string& text, const std::map<std::string, std::string>& values, const std::string& origin) {
  return walk(text, origin, [&](const std::string& name, int line) {
    const auto it = values.find(name);
    if (it == values.end()) {
      std::string known;
      for (const auto& [k, v] : values) known += (known.empty() ? "" : ", ") + k;
      throw error(origin,
                  "line " + std::to_string(line) + ": no value for the placeholder {{" + name + "}} (known: " + known + ")");
    }
    return it->second;
  });
}

std::vector<std::string> prompt_placeholders(const std::string& text, const std::string& origin) {
  std::vector<std::string> names;
  walk(text, origin, [&](const std::string& name, int) {
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    return std::string();
  });
  return names;
}

}  // namespace galapagos::propose
