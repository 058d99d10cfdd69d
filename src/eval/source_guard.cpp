#include "eval/source_guard.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <mutex>
#include <regex>
#include <sstream>

#include "eval/builder.hpp"
#include "eval/compile_sandbox.hpp"

namespace galapagos::eval {

namespace fs = std::filesystem;

namespace {

fs::path canonical_or_normal(const fs::path& p) {
  std::error_code ec;
  auto c = fs::weakly_canonical(p, ec);
  return ec ? p.lexically_normal() : c;
}

bool inside(const fs::path& file, const fs::path& dir) {
  auto f = file.begin();
  for (auto d = dir.begin(); d != dir.end(); ++d, ++f) {
    if (d->empty()) continue;  // a trailing separator
    if (f == file.end() || *f != *d) return false;
  }
  return true;
}

// One logical line: continuations joined, comments blanked (strings kept), with the physical
// line it starts on.
struct logical_line {
  std::string text;
  int line;
};

std::vector<logical_line> logical_lines(const std::string& s) {
  std::vector<logical_line> out;
  std::string cur;
  int line = 1, start = 1;
  auto identifier_run = [&]() {
    std::size_t i = cur.size();
    while (i > 0 && (std::isalnum(static_cast<unsigned char>(cur[i - 1])) || cur[i - 1] == '_')) --i;
    return cur.substr(i);
  };
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '\\') {  // a continuation, trailing blanks allowed (GCC accepts them)
      std::size_t j = i + 1;
      while (j < s.size() && (s[j] == ' ' || s[j] == '\t' || s[j] == '\r')) ++j;
      if (j < s.size() && s[j] == '\n') {
        ++line;
        i = j;
        continue;
      }
    }
    if (c == '\n') {
      out.push_back({cur, start});
      cur.clear();
      start = ++line;
      continue;
    }
    if (c == '/' && i + 1 < s.size() && s[i + 1] == '/') {  // to the end of the logical line
      std::size_t j = i;
      for (; j < s.size() && s[j] != '\n'; ++j)
        if (s[j] == '\\' && j + 1 < s.size() && s[j + 1] == '\n') ++line, ++j;
      cur += ' ';
      i = j - 1;
      continue;
    }
    if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {  // one blank, even across lines
      std::size_t j = s.find("*/", i + 2);
      if (j == std::string::npos) j = s.size() - 2;
      line += static_cast<int>(std::count(s.begin() + static_cast<long>(i), s.begin() + static_cast<long>(j + 2), '\n'));
      cur += ' ';
      i = j + 1;
      continue;
    }
    if (c == '"' || c == '\'') {
      const std::string run = identifier_run();
      const bool digit_separator = c == '\'' && !run.empty() && std::isdigit(static_cast<unsigned char>(run[0]));
      const bool raw = c == '"' && !run.empty() && run.back() == 'R' &&
                       (run == "R" || run == "LR" || run == "uR" || run == "UR" || run == "u8R");
      if (digit_separator) {
        cur += c;
        continue;
      }
      std::size_t j = i + 1;
      if (raw) {
        const std::size_t open = s.find('(', j);
        const std::string end = ")" + s.substr(j, open == std::string::npos ? 0 : open - j) + "\"";
        j = open == std::string::npos ? s.size() : s.find(end, open);
        j = j == std::string::npos ? s.size() : j + end.size() - 1;
      } else {
        for (; j < s.size() && s[j] != c && s[j] != '\n'; ++j)
          if (s[j] == '\\') ++j;
      }
      j = std::min(j, s.size() - 1);
      const std::string literal = s.substr(i, j - i + 1);
      line += static_cast<int>(std::count(literal.begin(), literal.end(), '\n'));
      cur += literal;
      i = j;
      continue;
    }
    cur += c;
  }
  if (!cur.empty()) out.push_back({cur, start});
  return out;
}

std::size_t skip_blanks(const std::string& s, std::size_t i) {
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\f' || s[i] == '\v')) ++i;
  return i;
}

// "" or why the file named by an include-like operand may not be read.
std::string check_name(const std::string& name, bool angled, const std::vector<fs::path>& bases, const read_roots& roots) {
  if (name.empty()) return "an empty file name";
  if (name[0] == '/')
    return "an absolute path ('" + name + "'): candidates may include only the family's, the ABI's and the system's headers";
  const fs::path p(name);
  if (std::find(p.begin(), p.end(), fs::path("..")) == p.end()) return "";
  if (angled) return "'..' in a system include ('" + name + "')";
  for (const auto& base : bases) {
    const fs::path where = (base / p).lexically_normal();
    std::error_code ec;
    if (!fs::exists(where, ec)) continue;
    return roots.allows(where) ? "" : "'" + name + "' leaves the folders a candidate may read";
  }
  return "'" + name + "' names no file in the family's folders";
}

// The operand of an include-like directive or __has_include at s[i]: "..." or <...>.
// Returns false for a computed (macro) operand.
bool operand(const std::string& s, std::size_t i, std::string& name, bool& angled) {
  i = skip_blanks(s, i);
  if (i >= s.size() || (s[i] != '"' && s[i] != '<')) return false;
  angled = s[i] == '<';
  const std::size_t close = s.find(angled ? '>' : '"', i + 1);
  if (close == std::string::npos) return false;
  name = s.substr(i + 1, close - i - 1);
  return true;
}

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

void read_roots::add(const fs::path& dir) {
  if (dir.empty()) return;
  const auto c = canonical_or_normal(fs::absolute(dir));
  if (std::find(dirs_.begin(), dirs_.end(), c) == dirs_.end()) dirs_.push_back(c);
}

bool read_roots::allows(const fs::path& file) const {
  const auto c = canonical_or_normal(fs::absolute(file));
  return std::any_of(dirs_.begin(), dirs_.end(), [&](const fs::path& d) { return inside(c, d); });
}

std::vector<fs::path> compiler_search_dirs(const std::string& compiler, const std::string& fallback) {
  static std::mutex mutex;
  static std::map<std::string, std::vector<fs::path>> known;
  std::lock_guard<std::mutex> hold(mutex);
  const auto it = known.find(compiler);
  if (it != known.end()) return it->second;
  auto ask = [](const std::string& c) {
    std::vector<fs::path> dirs;
    std::string out;
    if (run_program({c, "-E", "-x", "c++", "-v", "-"}, out, 60) != 0) return dirs;
    std::istringstream lines(out);
    bool listing = false;
    for (std::string l; std::getline(lines, l);) {
      if (l.rfind("#include ", 0) == 0 && l.find("search starts here") != std::string::npos)
        listing = true;
      else if (l.rfind("End of search list", 0) == 0)
        listing = false;
      else if (listing && !l.empty() && l[0] == ' ') {
        const auto first = l.find_first_not_of(' ');
        std::string d = l.substr(first);
        if (const auto note = d.find(" (framework directory)"); note != std::string::npos) d.resize(note);
        dirs.push_back(d);
      }
    }
    return dirs;
  };
  std::vector<fs::path> dirs = ask(compiler);
  if (dirs.empty() && !fallback.empty() && fallback != compiler) {
    dirs = ask(fallback);
    const std::string program = find_program(compiler);
    std::error_code ec;
    const auto prefix = program.empty() ? fs::path() : fs::canonical(program, ec).parent_path().parent_path();
    if (!ec && !prefix.empty() && prefix != "/" && prefix != "/usr") dirs.push_back(prefix);
  }
  return known[compiler] = dirs;
}

std::string scan_source(const std::string& text, const std::string& name, const std::vector<fs::path>& quote_bases,
                        const read_roots& roots) {
  auto refuse = [&](int line, const std::string& why) {
    return name + ":" + std::to_string(line) + ": error: refused before compiling: " + why;
  };
  for (const auto& [s, line] : logical_lines(text)) {
    std::size_t i = skip_blanks(s, 0);
    const bool directive = s.compare(i, 1, "#") == 0 || s.compare(i, 2, "%:") == 0 || s.compare(i, 3, "?\?=") == 0;
    if (directive) {
      i = skip_blanks(s, i + (s[i] == '#' ? 1 : s[i] == '%' ? 2 : 3));
      std::size_t j = i;
      while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '_')) ++j;
      const std::string word = s.substr(i, j - i);
      if (word == "include" || word == "include_next" || word == "import" || word == "embed") {
        std::string file;
        bool angled = false;
        if (!operand(s, j, file, angled))
          return refuse(line, "#" + word + " of a computed name (a macro): name the header itself");
        const std::string why = check_name(file, angled, quote_bases, roots);
        if (!why.empty()) return refuse(line, "#" + word + " of " + why);
      } else if (word == "pragma" && lower(s).find("dependency") != std::string::npos) {
        return refuse(line, "#pragma dependency reads another file");
      }
    }
    for (auto at = s.find("__has_"); at != std::string::npos; at = s.find("__has_", at + 1)) {
      std::size_t k = at;
      while (k < s.size() && (std::isalnum(static_cast<unsigned char>(s[k])) || s[k] == '_')) ++k;
      const std::string probe = s.substr(at, k - at);
      if (probe != "__has_include" && probe != "__has_include_next" && probe != "__has_embed") continue;
      k = skip_blanks(s, k);
      if (k < s.size() && s[k] == '(') ++k;
      std::string file;
      bool angled = false;
      if (!operand(s, k, file, angled)) return refuse(line, probe + " of a computed name (a macro)");
      const std::string why = check_name(file, angled, quote_bases, roots);
      if (!why.empty()) return refuse(line, probe + " of " + why);
    }
    const std::string l = lower(s);
    if (const auto p = l.find("_pragma");
        p != std::string::npos && (l.find("dependency", p) != std::string::npos || l.find("include", p) != std::string::npos))
      return refuse(line, "_Pragma naming a dependency or an include");
    for (const char* asm_directive : {".incbin", ".include"})
      if (l.find(asm_directive) != std::string::npos)
        return refuse(line, std::string("the assembler directive ") + asm_directive + " reads another file");
  }
  return "";
}

std::string reads_outside(const std::string& depfile, const fs::path& workdir, const read_roots& roots) {
  std::vector<std::string> words;
  std::string cur;
  for (std::size_t i = 0; i < depfile.size(); ++i) {
    const char c = depfile[i];
    if (c == '\\' && i + 1 < depfile.size() && (depfile[i + 1] == ' ' || depfile[i + 1] == '#' || depfile[i + 1] == '\\')) {
      cur += depfile[++i];
    } else if (c == '\\' && i + 1 < depfile.size() && (depfile[i + 1] == '\n' || depfile[i + 1] == '\r')) {
      ++i;
    } else if (c == '$' && i + 1 < depfile.size() && depfile[i + 1] == '$') {
      cur += depfile[++i];
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      if (!cur.empty()) words.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) words.push_back(cur);
  for (std::size_t i = 0; i < words.size(); ++i) {
    const auto& w = words[i];
    // Targets: "out.so:" (GCC) or "out.so :" (nvcc writes the colon apart).
    if (w == ":" || w.back() == ':' || (i + 1 < words.size() && words[i + 1] == ":")) continue;
    const fs::path p = fs::path(w).is_absolute() ? fs::path(w) : workdir / w;
    if (!roots.allows(p)) return w;
  }
  return "";
}

std::string candidate_diagnostics(const std::string& log, const std::string& name, const fs::path& private_dir,
                                  std::size_t max_bytes) {
  // "path:L:" "path:L:C:" (GCC, Clang, gas), "path(L):" (nvcc's front end), "path: In function".
  static const std::regex location(R"(^([^\s:(][^:(]*?)(?::\d+(?::\d+)?:|\(\d+\):|: (?:In |At |Assembler messages)))");
  static const std::regex included(R"(^(?:In file included from|\s+from) ([^:]+):\d+)");
  static const std::regex tool(
      R"(^(?:\S*/)?(cc1plus|cc1|g\+\+|gcc|c\+\+|clang|clang\+\+|collect2|ld|ld\.bfd|ld\.gold|ld\.lld|as|lto-wrapper|nvcc|ptxas|nvlink|fatbinary|cicc|hipcc)(?:-[0-9.]+)?: )");
  static const std::regex summary(R"(^(?:compilation terminated\.|\d+ errors? detected in the compilation of .*)$)");
  const std::string private_prefix = private_dir.string() + "/";
  std::istringstream lines(log);
  std::string out;
  bool context = false;  // the last record was kept: its quoted and indented lines are too
  int left_out = 0;
  for (std::string l; std::getline(lines, l);) {
    if (!l.empty() && l.back() == '\r') l.pop_back();
    std::smatch m;
    bool keep = false;
    const std::string head = l.substr(0, 512);  // locations come first; std::regex is slow on long lines
    if (std::regex_search(head, m, included)) {
      keep = m[1] == name;
      context = false;
    } else if (l.rfind(name + ":", 0) == 0 || l.rfind(name + "(", 0) == 0) {
      keep = context = true;
    } else if (std::regex_search(head, m, location)) {
      const std::string where = m[1];
      keep = context = where.rfind(private_prefix, 0) == 0 && where.size() > 2 && where.compare(where.size() - 2, 2, ".s") == 0;
      if (keep) l.erase(0, private_prefix.size());
    } else if (std::regex_search(head, tool) || std::regex_search(head, summary)) {
      keep = true;
      context = false;
    } else if (!l.empty() && (l[0] == ' ' || l[0] == '\t')) {
      keep = context;
    } else if (l.empty()) {
      continue;
    }
    if (!keep) {
      ++left_out;
      continue;
    }
    if (out.size() + l.size() + 1 > max_bytes) {
      out += "(compiler log truncated)\n";
      break;
    }
    out += l + "\n";
  }
  if (left_out) out += "(" + std::to_string(left_out) + " lines about other files left out)\n";
  return out;
}

}  // namespace galapagos::eval
