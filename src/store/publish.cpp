#include "store/publish.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "util/error.hpp"

namespace galapagos::store {

namespace {

[[noreturn]] void fail(const std::filesystem::path& p, const std::string& what) {
  throw galapagos::error(p.string(), "cannot " + what + ": " + std::strerror(errno));
}

class descriptor {
 public:
  descriptor(const std::filesystem::path& p, int flags, const std::string& what)
      : fd_(::open(p.c_str(), flags | O_CLOEXEC, 0644)) {
    if (fd_ < 0) fail(p, what);
  }
  descriptor(const descriptor&) = delete;
  descriptor& operator=(const descriptor&) = delete;
  ~descriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

void copy_contents(const std::filesystem::path& from, const std::filesystem::path& to, bool sync) {
  const descriptor in(from, O_RDONLY, "open for copying");
  const descriptor out(to, O_WRONLY | O_CREAT | O_TRUNC, "create");
  struct stat st {};
  if (fstat(in.get(), &st) != 0) fail(from, "stat");
  off_t left = st.st_size;
  while (left > 0) {
    const ssize_t n = copy_file_range(in.get(), nullptr, out.get(), nullptr, static_cast<std::size_t>(left), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {  // file systems without copy_file_range: plain reads and writes
      char buf[1 << 16];
      const ssize_t r = ::read(in.get(), buf, sizeof buf);
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) fail(from, "read");
      if (r == 0) break;
      for (ssize_t done = 0; done < r;) {
        const ssize_t w = ::write(out.get(), buf + done, static_cast<std::size_t>(r - done));
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) fail(to, "write");
        done += w;
      }
      left -= r;
      continue;
    }
    left -= n;
  }
  if (sync && fsync(out.get()) != 0) fail(to, "sync");
}

void sync_directory(const std::filesystem::path& file) {
  const auto dir = file.has_parent_path() ? file.parent_path() : std::filesystem::path(".");
  const descriptor d(dir, O_RDONLY | O_DIRECTORY, "open directory");
  if (fsync(d.get()) != 0 && errno != EINVAL) fail(dir, "sync directory");
}

}  // namespace

std::filesystem::path working_path(const std::filesystem::path& target) { return target.string() + ".partial"; }
std::filesystem::path temporary_path(const std::filesystem::path& target) { return target.string() + ".tmp"; }

void publish_copy(const std::filesystem::path& from, const std::filesystem::path& target) {
  const auto tmp = temporary_path(target);
  copy_contents(from, tmp, true);
  if (std::rename(tmp.c_str(), target.c_str()) != 0) fail(target, "rename " + tmp.string() + " over it");
  sync_directory(target);
}

void publish_move(const std::filesystem::path& from, const std::filesystem::path& target) {
  {
    const descriptor f(from, O_RDONLY, "open");
    if (fsync(f.get()) != 0) fail(from, "sync");
  }
  if (std::rename(from.c_str(), target.c_str()) != 0) fail(target, "rename " + from.string() + " over it");
  sync_directory(target);
}

void copy_file(const std::filesystem::path& from, const std::filesystem::path& to) { copy_contents(from, to, false); }

}  // namespace galapagos::store
