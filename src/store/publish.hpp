// Crash-safe publication of a results file. HDF5 does not make in-place writes atomic: a process
// killed in the middle of one can leave a file that no longer opens. The writer therefore works
// on a working copy and publishes it whole: copied to a temporary file beside the target,
// synced to disk, and renamed over the target, so the target is always either the previous
// complete copy or the new one.
#pragma once

#include <filesystem>

namespace galapagos::store {

// The working copy of `target` ("run.h5" -> "run.h5.partial") and the temporary a publication
// writes before its rename ("run.h5.tmp").
std::filesystem::path working_path(const std::filesystem::path& target);
std::filesystem::path temporary_path(const std::filesystem::path& target);

// Copies `from` (flushed and not being written) to temporary_path(target), syncs it, renames it
// over `target` and syncs the directory. Throws galapagos::error naming the file.
void publish_copy(const std::filesystem::path& from, const std::filesystem::path& target);
// Renames `from` (closed) over `target` and syncs the directory: the final publication, no copy.
void publish_move(const std::filesystem::path& from, const std::filesystem::path& target);
// Copies `from` to `to` (truncating it), without syncing: a new working copy.
void copy_file(const std::filesystem::path& from, const std::filesystem::path& to);

}  // namespace galapagos::store
