#include "propose/llm/local_includes.hpp"

#include <algorithm>
#include <regex>
#include <sstream>

#include "propose/llm/edits.hpp"
#include "util/hash.hpp"

namespace galapagos::propose {

namespace fs = std::filesystem;

namespace {

bool has_regions(const std::string& text) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (opens_region(line) || closes_region(line)) return true;
  return false;
}

bool is_pragma_once(const std::string& line) {
  static const std::regex once(R"(^\s*#\s*pragma\s+once\s*$)");
  return std::regex_match(line, once);
}

// The file a quoted include names, when it is one to inline: relative to `dir`, existing, inside `root`.
fs::path local_file(const std::string& name, const fs::path& dir, const fs::path& root) {
  std::error_code ec;
  const fs::path p = fs::weakly_canonical(dir / name, ec);
  if (ec || !fs::is_regular_file(p, ec)) return {};
  const fs::path rel = p.lexically_relative(root);
  if (rel.empty() || *rel.begin() == "..") return {};
  return p;
}

struct inliner {
  fs::path root;
  std::vector<fs::path> done;

  // `text` of `file`, its local includes inlined; `inside`: the text lies in an evolve region.
  std::string expand(const std::string& text, const fs::path& file, bool inside, bool top) {
    static const std::regex include(R"re(^\s*#\s*include\s*"([^"]+)"[^\n]*$)re");
    std::string out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
      if (opens_region(line)) inside = true;
      if (closes_region(line)) inside = false;
      if (!top && is_pragma_once(line)) continue;
      std::smatch m;
      if (!std::regex_match(line, m, include)) {
        out += line + "\n";
        continue;
      }
      const std::string name = m[1].str();
      const fs::path header = local_file(name, file.parent_path(), root);
      if (header.empty()) {
        out += line + "\n";
        continue;
      }
      if (std::find(done.begin(), done.end(), header) != done.end()) {
        out += "// galapagos:inlined already: " + name + "\n";
        continue;
      }
      std::string body;
      try {
        body = util::read_file(header.string());
      } catch (const std::exception&) {
        out += line + "\n";
        continue;
      }
      const bool own_regions = has_regions(body);
      if (inside && own_regions) {  // inlining it would nest regions: left to the compiler
        out += line + "\n";
        continue;
      }
      done.push_back(header);
      const bool wrap = !inside && !own_regions;
      const std::string shown = header.lexically_relative(root).generic_string();
      out += "// galapagos:inline-begin " + name + " (" + shown + ", inlined: edit it here)\n";
      if (wrap) out += "// galapagos:evolve-begin (the text of " + shown + ")\n";
      out += expand(body, header, inside || wrap, false);
      if (wrap) out += "// galapagos:evolve-end\n";
      out += "// galapagos:inline-end " + name + "\n";
    }
    if (!text.empty() && text.back() != '\n' && !out.empty() && top) out.pop_back();
    return out;
  }
};

}  // namespace

inlined_source inline_local_includes(const fs::path& source, const fs::path& root) {
  const std::string text = util::read_file(source.string());
  std::error_code ec;
  inliner in{fs::weakly_canonical(root, ec), {}};
  if (ec) in.root = fs::absolute(root);
  const fs::path file = fs::weakly_canonical(source, ec);
  const fs::path self = ec ? fs::absolute(source) : file;
  in.done.push_back(self);  // a header that includes the source back: left a comment
  inlined_source out;
  out.text = in.expand(text, self, false, true);
  out.files.assign(in.done.begin() + 1, in.done.end());
  return out;
}

}  // namespace galapagos::propose
