// The folders `report` and `export` write. galapagos replaces only a folder it made itself (it
// holds the marker file .galapagos-output, which lists every file galapagos wrote there, and
// nothing else) or an empty one; anything else is refused with one line naming the folder, so a
// user's files are never removed. python/galapagos/report.py applies the same rule.
#pragma once

#include <filesystem>
#include <string>

namespace galapagos::cli {

inline constexpr const char* output_marker = ".galapagos-output";

// Checks that `out` may receive a new output folder: absent (in an existing folder), empty, or
// made by galapagos. Throws galapagos::error naming the folder and what to do. `option` names
// where the path came from ("--out", "the default output folder").
void check_output_folder(const std::filesystem::path& out, const std::string& option);
// `out` with trailing '/' removed ("pkg/" -> "pkg").
std::filesystem::path folder_path(const std::string& out);
// A new empty folder beside `out` to write into before it is renamed into place.
std::filesystem::path make_work_folder(const std::filesystem::path& out, const std::string& prefix);
// Writes the marker into `work` (`made_by`, then every file in it) and puts `work` where `out`
// is, replacing `out` only after checking it again.
void publish_output_folder(const std::filesystem::path& work, const std::filesystem::path& out, const std::string& made_by,
                           const std::string& option);

}  // namespace galapagos::cli
