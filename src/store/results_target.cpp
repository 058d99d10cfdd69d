#include "store/results_target.hpp"

#include <fcntl.h>
#include <hdf5.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <ctime>
#include <regex>

#include "store/results_reader.hpp"
#include "util/error.hpp"

namespace galapagos::store {

namespace {

std::string quoted(const std::filesystem::path& p) { return "'" + p.string() + "'"; }

std::string read_all(int fd) {
  std::string text;
  char buf[512];
  for (off_t at = 0;;) {
    const ssize_t n = pread(fd, buf, sizeof buf, at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buf, static_cast<std::size_t>(n));
    at += n;
    if (text.size() > 4096) break;
  }
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  return text;
}

std::string host_name() {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  return host;
}

std::string holder_line(const std::string& command) {
  char when[32];
  const std::time_t t = std::time(nullptr);
  std::strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return "galapagos " + command + " pid " + std::to_string(getpid()) + " on host " + host_name() + " since " + when + "\n";
}

// "galapagos run pid 12 on host n1 since T" -> "galapagos run (pid 12 on host n1, since T)".
std::string describe_holder(const std::string& text) {
  static const std::regex line("galapagos (\\S+) pid ([0-9]+) on host (\\S+) since (\\S+)");
  std::smatch m;
  if (!std::regex_search(text, m, line)) return "another galapagos process";
  return "galapagos " + m[1].str() + " (pid " + m[2].str() + " on host " + m[3].str() + ", since " + m[4].str() + ")";
}

// Whether the holder written in a lock file is a process of this host that is gone.
bool holder_is_gone(const std::string& text) {
  static const std::regex line("galapagos \\S+ pid ([0-9]+) on host (\\S+) since");
  std::smatch m;
  if (!std::regex_search(text, m, line) || m[2].str() != host_name()) return false;
  return kill(static_cast<pid_t>(std::stoll(m[1].str())), 0) != 0 && errno == ESRCH;
}

[[noreturn]] void in_use(const std::filesystem::path& results, const std::string& holder) {
  throw galapagos::error(results.string(), "in use by " + describe_holder(holder) +
                                               ": one process writes a results file; wait until it ends, or write to "
                                               "another --out (lock file " +
                                               lock_path(results).string() + ")");
}

}  // namespace

bool is_results_file(const std::filesystem::path& path) {
  struct stat st {};
  if (lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  try {
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    if (H5Fis_hdf5(path.c_str()) <= 0) return false;
    const auto f = results_reader::open(path.string());
    return f.string_attribute("/", "galapagos_version").has_value() && f.has("/candidates");
  } catch (const std::exception&) {
    return false;
  }
}

void check_results_path(const std::filesystem::path& out, const std::string& option) {
  const std::string text = out.string();
  if (text.empty())
    throw galapagos::error(option + " ''", "an empty path: name the results file, e.g. " + option + " results/run.h5");
  if (text.back() == '/')
    throw galapagos::error(
        text, "ends in '/', so it names a folder, not a results file: give a file name, e.g. " + option + " " + text + "run.h5");
  std::error_code ec;
  if (std::filesystem::is_directory(out, ec))
    throw galapagos::error(text, "is a folder, not a results file: give a file name, e.g. " + option + " " + text + "/run.h5");
  const std::filesystem::path parent = out.has_parent_path() ? out.parent_path() : std::filesystem::path(".");
  if (!std::filesystem::exists(parent, ec))
    throw galapagos::error(text, "its folder " + parent.string() + " does not exist: create it first (mkdir -p " +
                                     quoted(parent) + ") or choose another " + option);
  if (!std::filesystem::is_directory(parent, ec))
    throw galapagos::error(text, parent.string() + " is not a folder: choose another " + option);
  if (access(parent.c_str(), W_OK | X_OK) != 0)
    throw galapagos::error(
        text, "cannot write in its folder " + parent.string() + " (" + std::strerror(errno) + "): choose another " + option);
}

void check_new_results_file(const std::filesystem::path& out, bool replace, const std::filesystem::path& keep) {
  const std::string text = out.string();
  struct stat st {};
  if (lstat(out.c_str(), &st) != 0) {
    if (errno == ENOENT) return;
    throw galapagos::error(text, std::string("cannot be examined (") + std::strerror(errno) + "): choose another --out");
  }
  if (S_ISLNK(st.st_mode))
    throw galapagos::error(text,
                           "is a symbolic link: galapagos does not write a results file through a link; give the path of a "
                           "new file with --out");
  if (!S_ISREG(st.st_mode))
    throw galapagos::error(text,
                           "exists and is not a regular file (a device, pipe or socket): galapagos never writes to it; "
                           "choose another --out");
  std::error_code ec;
  if (!keep.empty() && std::filesystem::equivalent(out, keep, ec))
    throw galapagos::error(text, "is the --replay recording this run reads: choose another --out");
  if (!is_results_file(out))
    throw galapagos::error(text,
                           "exists and is not a galapagos results file: galapagos never replaces it (not even with "
                           "--force); choose another --out");
  if (!replace)
    throw galapagos::error(text, "exists (the results of an earlier run): continue that run with `galapagos resume " + text +
                                     "`, replace the file with --force, or choose another --out");
}

std::filesystem::path lock_path(const std::filesystem::path& results) { return results.string() + ".lock"; }

bool results_writer_active(const std::filesystem::path& results) {
  const auto path = lock_path(results);
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return errno != ENOENT;  // no lock file: its holder removes it as it ends
  struct flock fl {};
  fl.l_type = F_RDLCK;  // conflicts with the writer's F_WRLCK; asked, not taken
  fl.l_whence = SEEK_SET;
  const bool asked = fcntl(fd, F_GETLK, &fl) == 0;
  ::close(fd);  // this process holds no lock on it, so closing releases nothing of the writer's
  return !asked || fl.l_type != F_UNLCK;
}

results_lock::results_lock(const std::filesystem::path& results, const std::string& command) : path_(lock_path(results)) {
  const std::string me = holder_line(command);
  for (int attempt = 0; attempt < 10; ++attempt) {
    bool created = true;
    int fd = ::open(path_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0 && errno == EEXIST) {
      created = false;
      fd = ::open(path_.c_str(), O_RDWR | O_NOFOLLOW | O_CLOEXEC);
      if (fd < 0 && errno == ENOENT) continue;  // its holder just removed it
    }
    if (fd < 0)
      throw galapagos::error(results.string(), "cannot open its lock file " + path_.string() + " (" + std::strerror(errno) +
                                                   "): choose another --out");
    struct flock fl {};
    fl.l_type = F_WRLCK;
    fl.l_whence = SEEK_SET;
    bool exclusive = true;
    if (fcntl(fd, F_SETLK, &fl) != 0) {
      const int e = errno;
      if (e == EACCES || e == EAGAIN) {
        const std::string holder = read_all(fd);
        ::close(fd);
        in_use(results, holder);
      }
      if (e != ENOLCK && e != ENOSYS && e != EOPNOTSUPP && e != EINVAL) {
        ::close(fd);
        throw galapagos::error(results.string(), "cannot lock " + path_.string() + " (" + std::strerror(e) + ")");
      }
      exclusive = false;  // no locks on this file system: the exclusive creation is the lock
    }
    // The file locked must still be the one at the path: a holder removes it as it ends.
    struct stat locked {
    }, now{};
    if (fstat(fd, &locked) != 0 || stat(path_.c_str(), &now) != 0 || locked.st_ino != now.st_ino || locked.st_dev != now.st_dev) {
      ::close(fd);
      continue;
    }
    const std::string old = read_all(fd);
    if (!created && !old.empty() && old.rfind("galapagos ", 0) != 0) {
      ::close(fd);
      throw galapagos::error(path_.string(), "exists and was not written by galapagos (galapagos keeps the lock of " +
                                                 results.string() + " there): move it away or choose another --out");
    }
    if (!exclusive && !created && !holder_is_gone(old)) {
      ::close(fd);
      throw galapagos::error(results.string(), "in use by " + describe_holder(old) + " (this file system has no locks: remove " +
                                                   path_.string() + " if no galapagos writes the file any more)");
    }
    if (ftruncate(fd, 0) != 0 || pwrite(fd, me.data(), me.size(), 0) != static_cast<ssize_t>(me.size())) {
      const int e = errno;
      if (created) unlink(path_.c_str());
      ::close(fd);
      throw galapagos::error(path_.string(), std::string("cannot write the lock file: ") + std::strerror(e));
    }
    fd_ = fd;
    return;
  }
  throw galapagos::error(results.string(), "cannot take its lock " + path_.string() + ": it keeps changing hands");
}

results_lock::~results_lock() {
  if (fd_ < 0) return;
  struct stat mine {
  }, now{};
  if (fstat(fd_, &mine) == 0 && stat(path_.c_str(), &now) == 0 && mine.st_ino == now.st_ino && mine.st_dev == now.st_dev)
    unlink(path_.c_str());
  ::close(fd_);
}

}  // namespace galapagos::store
