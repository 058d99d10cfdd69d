// The winner as a patch to the user's own source file (galapagos export, [export] in the config):
// the region of the file (between two marker lines, a line range, or the whole file) replaced by
// the winner's code with its parameters written in, as a unified diff with the evidence summary
// as its description, checked with `patch --dry-run` before the package is published.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "config/run_config.hpp"

namespace galapagos::cli {

struct patch_target {
  std::filesystem::path file;  // the user's file
  std::filesystem::path base;  // the folder `patch -p0` is run in
  std::string label;           // the file's name in the patch, relative to base
  std::string begin_marker, end_marker;
  int first_line = 0, last_line = 0;  // 0: the whole file (unless markers are given)
};

// The target of `t` (the config's [export]), `tmpl` (the family's template) when it names no file.
// A relative file is named relative to base (the config's folder, or the current one for
// --user-file); a file outside it, or absolute, relative to its own folder.
patch_target resolve_patch_target(const config::export_target& t, const std::filesystem::path& base,
                                  const std::filesystem::path& tmpl);

// `p`'s path relative to `base` when it lies inside it (generic form), else nullopt.
std::optional<std::string> path_inside(const std::filesystem::path& p, const std::filesystem::path& base);

// A file the winner changes besides the user's (a shared kernel header it edited inlined).
struct changed_file {
  std::filesystem::path file;  // on disk
  std::string text;            // the winner's text of it
};

// The unified diff (`diff -u`) of `before` and `after` under the two labels; empty when they are
// the same. `scratch` holds the two texts meanwhile.
std::string unified_diff(const std::string& before, const std::string& after, const std::string& label_before,
                         const std::string& label_after, const std::filesystem::path& scratch);

// The patch: `description` (one line each, never read as part of the diff), then the unified
// diff of the user's file with its region replaced by `winner_source` (only its own region when
// it holds the same markers), then one of each file in `also` whose text changes, named relative
// to base. Checked to apply to the files as they are now with `patch --dry-run -p0` in base
// (`scratch` holds the patch meanwhile); throws galapagos::error naming the file and saying what
// is wrong (no such file, no region, a file of `also` outside base, does not apply).
std::string winner_patch(const patch_target& t, const std::string& winner_source, const std::string& description,
                         const std::filesystem::path& scratch, const std::vector<changed_file>& also = {});

}  // namespace galapagos::cli
