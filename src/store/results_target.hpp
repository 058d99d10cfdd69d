// Where a run may write its results file, and one writer per results file. A run never replaces
// what galapagos did not write: an existing file is refused unless the user asked to replace it
// (--force) and it is a galapagos results file; a device, a folder or a symbolic link never is.
// Every refusal is a galapagos::error naming the path and what to do, thrown before anything is
// written.
#pragma once

#include <filesystem>
#include <string>

namespace galapagos::store {

// Whether `path` is a regular file (not a link) that opens as a galapagos results file (HDF5 with
// the root attribute galapagos_version and a /candidates table).
bool is_results_file(const std::filesystem::path& path);

// Checks that `out` can name a new results file: not empty, not a folder (nor ending in '/'),
// in an existing folder this process may write to. `option` names where the path came from in
// messages ("--out").
void check_results_path(const std::filesystem::path& out, const std::string& option = "--out");

// Checks that `out` may be written by a new run (after check_results_path, with the lock held):
// absent, or, when `replace`, a galapagos results file other than `keep` (the run's replay
// recording). The refusal names `galapagos resume` and --force where they apply.
void check_new_results_file(const std::filesystem::path& out, bool replace, const std::filesystem::path& keep = {});

// The lock file beside a results file ("run.h5" -> "run.h5.lock").
std::filesystem::path lock_path(const std::filesystem::path& results);
// Whether a run or resume holds the lock of `results` now (for `galapagos watch`): asked with
// F_GETLK, which takes nothing and so never stands in the writer's way. Where the file system has
// no locks, whether the lock file exists.
bool results_writer_active(const std::filesystem::path& results);

// An exclusive lock on a results file, held by the one process that writes it (rank 0 of a run
// or resume) from before it touches anything until it is destroyed. It is an fcntl lock on the
// side file lock_path(results), which holds the holder's pid, host and start time for the
// message another process gets; fcntl locks work on NFS and on Lustre mounted with flock, and
// the kernel drops them when the holder dies, so a killed run leaves no stale lock. Where the
// file system has no locks at all, the side file is created exclusively instead.
class results_lock {
 public:
  // Takes the lock or throws galapagos::error "<results>: in use by galapagos (pid P on host H,
  // since T): ..." without touching anything of the holder's.
  explicit results_lock(const std::filesystem::path& results, const std::string& command);
  results_lock(const results_lock&) = delete;
  results_lock& operator=(const results_lock&) = delete;
  ~results_lock();  // removes the side file and releases the lock

 private:
  std::filesystem::path path_;
  int fd_ = -1;
};

}  // namespace galapagos::store
