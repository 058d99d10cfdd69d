#include "propose/llm/local_includes.hpp"

#include <algorithm>
#include <regex>
#include <sstream>

#include "propose/llm/edits.hpp"
#include "util/hash.hpp"

namespace galapagos::propose {

namespace fs = std::filesystem;

namespace {

// The marker lines inline_local_includes writes and split_inlined reads.
const std::string inline_begin = "// galapagos:inline-begin ";
const std::string inline_end = "// galapagos:inline-end ";
const std::string inlined_already = "// galapagos:inlined already: ";
const std::string wrap_begin = "// galapagos:evolve-begin (the text of ";
const std::string wrap_end = "// galapagos:evolve-end";

const std::regex& include_line() {
  static const std::regex include(R"re(^\s*#\s*include\s*"([^"]+)"[^\n]*$)re");
  return include;
}

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
    const std::regex& include = include_line();
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
        out += inlined_already + name + "\n";
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
      out += inline_begin + name + " (" + shown + ", inlined: edit it here)\n";
      if (wrap) out += wrap_begin + shown + ")\n";
      out += expand(body, header, inside || wrap, false);
      if (wrap) out += wrap_end + "\n";
      out += inline_end + name + "\n";
    }
    if (!text.empty() && text.back() != '\n' && !out.empty() && top) out.pop_back();
    return out;
  }
};

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string without_cr(const std::string& line) {
  return !line.empty() && line.back() == '\r' ? line.substr(0, line.size() - 1) : line;
}

// What follows `tag` at the start of `line` (leading blanks allowed), or nullopt.
std::optional<std::string> after(const std::string& line, const std::string& tag) {
  const std::string bare = without_cr(line);
  const auto start = bare.find_first_not_of(" \t");
  if (start == std::string::npos || bare.compare(start, tag.size(), tag) != 0) return std::nullopt;
  return bare.substr(start + tag.size());
}

struct splitter {
  fs::path root;
  std::vector<restored_file> headers;

  // The line of `file` on disk that includes `name` (without its line break), else a plain #include of it.
  static std::string include_of(const fs::path& file, const std::string& name) {
    std::string text;
    try {
      text = util::read_file(file.string());
    } catch (const std::exception&) {
    }
    for (const auto& line : lines_of(text)) {
      std::smatch m;
      if (std::regex_match(line, m, include_line()) && m[1].str() == name) return line;
    }
    return "#include \"" + name + "\"";
  }

  // A header's body as inlined, back to its file's text: the evolve markers put around it
  // dropped, its #pragma once put back, its final line break as on disk.
  static std::string as_on_disk(std::vector<std::string> body, const fs::path& header) {
    if (body.size() >= 2 && after(body.front(), wrap_begin) && without_cr(body.back()) == wrap_end) {
      body.pop_back();
      body.erase(body.begin());
    }
    std::string disk;
    try {
      disk = util::read_file(header.string());
    } catch (const std::exception&) {
    }
    const auto original = lines_of(disk);
    const auto once = std::find_if(original.begin(), original.end(), is_pragma_once);
    if (once != original.end() && std::none_of(body.begin(), body.end(), is_pragma_once)) {
      const auto at = static_cast<std::size_t>(once - original.begin());
      const bool same_head = at <= body.size() && std::equal(original.begin(), once, body.begin());
      body.insert(body.begin() + static_cast<std::ptrdiff_t>(same_head ? at : 0), *once);
    }
    std::string text;
    for (const auto& line : body) text += line + "\n";
    if (!disk.empty() && disk.back() != '\n' && !text.empty()) text.pop_back();
    return text;
  }

  // Lines from `i` on, of `file`'s text, up to the line `closing` (the end of the input for the
  // top file): that text with its inlined blocks taken out. False where the markers do not pair.
  bool restore(const std::vector<std::string>& lines, std::size_t& i, const fs::path& file, const std::string& closing,
               std::vector<std::string>& text) {
    while (i < lines.size()) {
      const std::string& line = lines[i++];
      if (!closing.empty() && without_cr(line) == closing) return true;
      if (after(line, inline_end)) return false;  // closes a block not open here
      if (const auto name = after(line, inlined_already)) {
        text.push_back(include_of(file, *name));
        continue;
      }
      const auto begin = after(line, inline_begin);
      if (!begin) {
        text.push_back(line);
        continue;
      }
      const std::string name = begin->substr(0, begin->find(" ("));
      const fs::path header = local_file(name, file.parent_path(), root);
      if (header.empty()) return false;
      // Listed where its block begins (as inline_local_includes lists it), its text known at its end.
      const auto seen = std::find_if(headers.begin(), headers.end(), [&](const auto& h) { return h.file == header; });
      const bool first = seen == headers.end();
      const auto at = first ? headers.size() : static_cast<std::size_t>(seen - headers.begin());
      if (first) headers.push_back({header, {}});
      std::vector<std::string> body;
      if (!restore(lines, i, header, inline_end + name, body)) return false;
      const std::string restored = as_on_disk(body, header);
      if (first)
        headers[at].text = restored;
      else if (headers[at].text != restored)
        return false;
      text.push_back(include_of(file, name));
    }
    return closing.empty();
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

std::optional<split_source> split_inlined(const std::string& text, const fs::path& source, const fs::path& root) {
  std::error_code ec;
  splitter sp{fs::weakly_canonical(root, ec), {}};
  if (ec) sp.root = fs::absolute(root);
  const fs::path file = fs::weakly_canonical(source, ec);
  const auto lines = lines_of(text);
  std::vector<std::string> own;
  std::size_t i = 0;
  if (!sp.restore(lines, i, ec ? fs::absolute(source) : file, "", own)) return std::nullopt;
  split_source out;
  for (const auto& line : own) out.text += line + "\n";
  if (!text.empty() && text.back() != '\n' && !out.text.empty()) out.text.pop_back();
  out.headers = std::move(sp.headers);
  return out;
}

}  // namespace galapagos::propose
