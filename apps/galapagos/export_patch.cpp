#include "export_patch.hpp"

#include <cstddef>
#include <sstream>
#include <vector>

#include "eval/builder.hpp"
#include "export_package.hpp"
#include "util/error.hpp"
#include "util/hash.hpp"

namespace galapagos::cli {

namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l + "\n");
  if (!text.empty() && text.back() != '\n') out.back().pop_back();  // keep a missing final newline missing
  return out;
}

// The region [first, last) of `lines` between the marker lines (exclusive); npos: not found.
bool find_region(const std::vector<std::string>& lines, const std::string& begin, const std::string& end, std::size_t& first,
                 std::size_t& last) {
  for (std::size_t i = 0; i < lines.size(); ++i)
    if (lines[i].find(begin) != std::string::npos) {
      for (std::size_t j = i + 1; j < lines.size(); ++j)
        if (lines[j].find(end) != std::string::npos) {
          first = i + 1, last = j;
          return true;
        }
      return false;
    }
  return false;
}

bool is_plain_relative(const std::filesystem::path& p) {
  if (p.empty() || p.is_absolute()) return false;
  for (const auto& part : p)
    if (part == "..") return false;
  return true;
}

}  // namespace

patch_target resolve_patch_target(const config::export_target& t, const std::filesystem::path& base,
                                  const std::filesystem::path& tmpl) {
  patch_target p;
  p.begin_marker = t.begin_marker, p.end_marker = t.end_marker;
  p.first_line = t.first_line, p.last_line = t.last_line;
  const std::filesystem::path written(t.user_file_as_written);
  if (!written.empty() && is_plain_relative(written.lexically_normal())) {
    p.base = base;
    p.label = written.lexically_normal().string();
    p.file = base / p.label;
  } else {
    p.file = written.empty() ? tmpl : (written.is_absolute() ? written : base / written);
    p.file = std::filesystem::weakly_canonical(p.file);
    p.base = p.file.parent_path();
    p.label = p.file.filename().string();
  }
  return p;
}

std::optional<std::string> path_inside(const std::filesystem::path& p, const std::filesystem::path& base) {
  std::string rel = p.lexically_relative(base).generic_string();
  if (rel.empty() || rel.rfind("..", 0) == 0) return std::nullopt;
  return rel;
}

std::string unified_diff(const std::string& before, const std::string& after, const std::string& label_before,
                         const std::string& label_after, const std::filesystem::path& scratch) {
  const auto old_copy = scratch / "diff.before", new_copy = scratch / "diff.after";
  write_file(old_copy, before);
  write_file(new_copy, after);
  std::string diff;
  const int rc = eval::run_program(
      {"diff", "-u", "--label", label_before, "--label", label_after, old_copy.string(), new_copy.string()}, diff, 60);
  std::filesystem::remove(old_copy);
  std::filesystem::remove(new_copy);
  if (rc != 0 && rc != 1) throw error("diff", "cannot compare " + label_before + " with the winner's: " + diff.substr(0, 200));
  return rc == 0 ? std::string() : diff;
}

std::string winner_patch(const patch_target& t, const std::string& winner_source, const std::string& description,
                         const std::filesystem::path& scratch, const std::vector<changed_file>& also) {
  const std::string where = t.file.string();
  std::string text;
  try {
    text = util::read_file(where);
  } catch (const std::exception&) {
    throw error(where, "cannot read the user's file to patch ([export] user_file or --user-file)");
  }
  const auto lines = lines_of(text);
  std::size_t first = 0, last = lines.size();
  if (!t.begin_marker.empty()) {
    if (!find_region(lines, t.begin_marker, t.end_marker, first, last))
      throw error(where, "no region between a line holding '" + t.begin_marker + "' and a later line holding '" + t.end_marker +
                             "' ([export] begin_marker, end_marker)");
  } else if (t.first_line > 0) {
    if (static_cast<std::size_t>(t.last_line) > lines.size())
      throw error(where, "lines " + std::to_string(t.first_line) + "-" + std::to_string(t.last_line) + ": the file has " +
                             std::to_string(lines.size()) + " lines ([export] lines)");
    first = static_cast<std::size_t>(t.first_line - 1), last = static_cast<std::size_t>(t.last_line);
  }
  // The winner's own region when its source holds the same markers (the template a copy of the
  // user's file), else all of it.
  auto code = lines_of(winner_source);
  std::size_t cf = 0, cl = code.size();
  if (!t.begin_marker.empty() && find_region(code, t.begin_marker, t.end_marker, cf, cl))
    code =
        std::vector<std::string>(code.begin() + static_cast<std::ptrdiff_t>(cf), code.begin() + static_cast<std::ptrdiff_t>(cl));
  if (!code.empty() && code.back().back() != '\n' && last < lines.size()) code.back() += "\n";
  std::string changed;
  for (std::size_t i = 0; i < first; ++i) changed += lines[i];
  for (const auto& l : code) changed += l;
  for (std::size_t i = last; i < lines.size(); ++i) changed += lines[i];

  std::string diff = unified_diff(text, changed, t.label, t.label, scratch);
  for (const auto& f : also) {
    const auto label = path_inside(f.file, t.base);
    if (!label)
      throw error(f.file.string(), "the winner changes this file, outside " + t.base.string() + " where the patch applies");
    std::string before;
    try {
      before = util::read_file(f.file.string());
    } catch (const std::exception&) {
      throw error(f.file.string(), "cannot read the file the winner changes");
    }
    diff += unified_diff(before, f.text, *label, *label, scratch);
  }
  // The description: text before the first "--- " line, which patch skips; a line that could be
  // read as part of a diff is indented.
  std::string head;
  for (auto l : lines_of(description)) {
    if (l.rfind("---", 0) == 0 || l.rfind("+++", 0) == 0 || l.rfind("@@", 0) == 0 || l.rfind("diff", 0) == 0 ||
        l.rfind("Index:", 0) == 0 || l.rfind("***", 0) == 0)
      l = "  " + l;
    head += l.empty() || l.back() != '\n' ? l + "\n" : l;
  }
  if (diff.empty()) return head + "\n(no change: the region already holds the winner's code)\n";
  const std::string patch = head + "\n" + diff;
  const auto patch_file = scratch / "winner.patch";
  write_file(patch_file, patch);
  std::string out;
  const int applies =
      eval::run_program({"patch", "--dry-run", "--batch", "-p0", "-d", t.base.string(), "-i", patch_file.string()}, out, 60);
  std::filesystem::remove(patch_file);
  if (applies != 0)
    throw error(where, "the winner's patch does not apply (patch --dry-run -p0 in " + t.base.string() +
                           "): " + (applies < 0 ? "patch could not run (is GNU patch installed?)" : out.substr(0, 300)));
  return patch;
}

}  // namespace galapagos::cli
