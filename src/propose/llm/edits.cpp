#include "propose/llm/edits.hpp"

#include <algorithm>
#include <cstddef>
#include <sstream>
#include <stdexcept>
#include <utility>

namespace galapagos::propose {

// galapagos's markers, and OpenEvolve's, so that sources prepared for either work unchanged.
bool opens_region(const std::string& line) {
  return line.find("galapagos:evolve-begin") != std::string::npos || line.find("EVOLVE-BLOCK-START") != std::string::npos;
}
bool closes_region(const std::string& line) {
  return line.find("galapagos:evolve-end") != std::string::npos || line.find("EVOLVE-BLOCK-END") != std::string::npos;
}

namespace {

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::string line;
  std::istringstream in(text);
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

std::string join_lines(const std::vector<std::string>& lines, bool final_newline) {
  std::string out;
  for (std::size_t i = 0; i < lines.size(); ++i) out += lines[i] + (i + 1 < lines.size() || final_newline ? "\n" : "");
  return out;
}

// A line as compared: without leading and trailing white space, inner runs of it made one space.
std::string normalized(const std::string& line) {
  std::string out;
  bool space = false;
  for (char c : line) {
    if (c == ' ' || c == '\t' || c == '\r') {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

std::string trimmed(const std::string& s) { return normalized(s); }

// Lines [first, last) that may change: inside the regions, or everywhere.
std::vector<std::pair<std::size_t, std::size_t>> regions(const std::vector<std::string>& lines, bool whole_file) {
  if (whole_file) return {{0, lines.size()}};
  std::vector<std::pair<std::size_t, std::size_t>> out;
  std::size_t open = 0;
  bool inside = false;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (opens_region(lines[i])) {
      if (inside) throw std::invalid_argument("evolve region opened twice (line " + std::to_string(i + 1) + ")");
      inside = true;
      open = i + 1;
    } else if (closes_region(lines[i])) {
      if (!inside) throw std::invalid_argument("evolve region closed without being opened (line " + std::to_string(i + 1) + ")");
      inside = false;
      out.emplace_back(open, i);
    }
  }
  if (inside) throw std::invalid_argument("evolve region opened and never closed");
  if (out.empty())
    throw std::invalid_argument(
        "the source has no evolve region (galapagos:evolve-begin ... galapagos:evolve-end, or EVOLVE-BLOCK-START ... "
        "EVOLVE-BLOCK-END)");
  return out;
}

std::vector<std::size_t> matches(const std::vector<std::string>& lines, const std::vector<std::string>& wanted, std::size_t first,
                                 std::size_t last) {
  std::vector<std::size_t> at;
  for (std::size_t i = first; i + wanted.size() <= last; ++i) {
    bool same = true;
    for (std::size_t k = 0; k < wanted.size() && same; ++k) same = normalized(lines[i + k]) == wanted[k];
    if (same) at.push_back(i);
  }
  return at;
}

}  // namespace

int edit_result::applied() const {
  return static_cast<int>(std::count_if(outcomes.begin(), outcomes.end(), [](const auto& o) { return o.applied; }));
}

parsed_edits parse_edits(const std::string& answer) {
  parsed_edits out;
  enum { outside, in_search, in_replace } state = outside;
  edit_block current;
  int line_no = 0, opened_at = 0;
  for (const auto& line : split_lines(answer)) {
    ++line_no;
    const std::string t = trimmed(line);
    if (state == outside) {
      if (t == "<<<<<<< SEARCH") {
        state = in_search;
        current = {};
        opened_at = line_no;
      }
    } else if (state == in_search) {
      if (t == "=======")
        state = in_replace;
      else if (t == "<<<<<<< SEARCH" || t == ">>>>>>> REPLACE") {
        out.problems.push_back("block at line " + std::to_string(opened_at) + ": no ======= between SEARCH and REPLACE");
        state = t == "<<<<<<< SEARCH" ? in_search : outside;
        current = {};
        opened_at = line_no;
      } else {
        current.search += line + "\n";
      }
    } else {
      if (t == ">>>>>>> REPLACE") {
        out.blocks.push_back(std::move(current));
        current = {};
        state = outside;
      } else if (t == "<<<<<<< SEARCH") {
        out.problems.push_back("block at line " + std::to_string(opened_at) + ": no >>>>>>> REPLACE before the next block");
        state = in_search;
        current = {};
        opened_at = line_no;
      } else {
        current.replace += line + "\n";
      }
    }
  }
  if (state != outside) out.problems.push_back("block at line " + std::to_string(opened_at) + ": the answer ends inside it");
  return out;
}

edit_result apply_edits(const std::string& source, const std::vector<edit_block>& blocks, bool whole_file) {
  edit_result out;
  const bool final_newline = !source.empty() && source.back() == '\n';
  std::vector<std::string> lines = split_lines(source);
  regions(lines, whole_file);  // throws for a source without (proper) regions
  for (const auto& b : blocks) {
    block_outcome o;
    std::vector<std::string> wanted;
    for (const auto& l : split_lines(b.search)) wanted.push_back(normalized(l));
    while (!wanted.empty() && wanted.front().empty()) wanted.erase(wanted.begin());
    while (!wanted.empty() && wanted.back().empty()) wanted.pop_back();
    const auto replacement = split_lines(b.replace);
    const bool touches_marker = std::any_of(replacement.begin(), replacement.end(),
                                            [](const std::string& l) { return opens_region(l) || closes_region(l); });
    std::vector<std::size_t> found;
    for (const auto& [first, last] : regions(lines, whole_file)) {
      const auto here = matches(lines, wanted, first, last);
      found.insert(found.end(), here.begin(), here.end());
    }
    if (wanted.empty()) {
      o.reason = "the SEARCH part is empty";
    } else if (touches_marker) {
      o.reason = "the REPLACE part holds an evolve-region marker: regions cannot be moved or removed";
    } else if (found.size() > 1) {
      o.reason = "the SEARCH part matches " + std::to_string(found.size()) + " places; include more lines to make it unique";
    } else if (found.empty()) {
      o.reason = matches(lines, wanted, 0, lines.size()).empty()
                     ? "the SEARCH part is not in the source (compared without regard to white space)"
                     : "the SEARCH part lies outside the evolve regions, which alone may change";
    } else {
      const std::size_t at = found.front();
      lines.erase(lines.begin() + static_cast<std::ptrdiff_t>(at),
                  lines.begin() + static_cast<std::ptrdiff_t>(at + wanted.size()));
      lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(at), replacement.begin(), replacement.end());
      o.applied = true;
    }
    out.outcomes.push_back(o);
  }
  out.source = join_lines(lines, final_newline);
  return out;
}

}  // namespace galapagos::propose
