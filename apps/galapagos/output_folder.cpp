#include "output_folder.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <vector>

#include "util/error.hpp"

namespace galapagos::cli {

namespace {

// The names a marker lists (the lines after "files:"); nullopt-like empty set with ok=false when
// the marker is missing or not one galapagos wrote.
bool marker_files(const std::filesystem::path& dir, std::set<std::string>& files) {
  std::ifstream in(dir / output_marker);
  std::string line;
  if (!in || !std::getline(in, line) || line.rfind("galapagos-output", 0) != 0) return false;
  bool listing = false;
  while (std::getline(in, line)) {
    if (listing && !line.empty()) files.insert(line);
    if (line == "files:") listing = true;
  }
  return true;
}

}  // namespace

std::filesystem::path folder_path(const std::string& out) {
  std::string s = out;
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

void check_output_folder(const std::filesystem::path& out, const std::string& option) {
  const std::string name = out.string();
  if (name.empty()) throw galapagos::error(option + " ''", "an empty path: name the output folder");
  struct stat st {};
  if (lstat(out.c_str(), &st) != 0) {
    if (errno != ENOENT) throw galapagos::error(name, std::string("cannot be examined: ") + std::strerror(errno));
    const auto parent = std::filesystem::absolute(out).parent_path();
    std::error_code ec;
    if (!std::filesystem::is_directory(parent, ec))
      throw galapagos::error(name,
                             "its folder " + parent.string() + " does not exist: create it first or choose another " + option);
    if (access(parent.c_str(), W_OK | X_OK) != 0)
      throw galapagos::error(
          name, "cannot write in its folder " + parent.string() + " (" + std::strerror(errno) + "): choose another " + option);
    return;
  }
  if (S_ISLNK(st.st_mode))
    throw galapagos::error(name, "is a symbolic link: galapagos does not replace it; choose another " + option);
  if (!S_ISDIR(st.st_mode))
    throw galapagos::error(name, "exists and is not a folder: galapagos does not replace it; choose another " + option);
  std::vector<std::string> entries;
  for (const auto& e : std::filesystem::directory_iterator(out)) entries.push_back(e.path().filename().string());
  if (entries.empty()) return;
  std::set<std::string> mine;
  if (!marker_files(out, mine))
    throw galapagos::error(name, "is a folder galapagos did not make (no " + std::string(output_marker) +
                                     " in it): galapagos does not replace it; move it away or choose another " + option);
  std::sort(entries.begin(), entries.end());
  for (const auto& e : entries) {
    if (e == output_marker) continue;
    const auto p = out / e;
    if (!mine.count(e) || std::filesystem::is_symlink(p) || !std::filesystem::is_regular_file(p))
      throw galapagos::error(name, "holds '" + e +
                                       "', which galapagos did not write there: galapagos does not replace the folder; "
                                       "move your files out of it or choose another " +
                                       option);
  }
}

std::filesystem::path make_work_folder(const std::filesystem::path& out, const std::string& prefix) {
  const auto parent = std::filesystem::absolute(out).parent_path();
  std::string pattern = (parent / (prefix + out.filename().string() + ".XXXXXX")).string();
  if (!mkdtemp(pattern.data()))
    throw galapagos::error(out.string(), "cannot make a folder beside it (" + std::string(std::strerror(errno)) + ")");
  // mkdtemp makes it 0700; the package is published as the user's folder, readable by the group
  // as any folder they make (0777 less the umask).
  const mode_t mask = umask(0);
  umask(mask);
  if (chmod(pattern.c_str(), 0777 & ~mask) != 0)
    throw galapagos::error(out.string(), "cannot set the folder's permissions (" + std::string(std::strerror(errno)) + ")");
  return pattern;
}

void publish_output_folder(const std::filesystem::path& work, const std::filesystem::path& out, const std::string& made_by,
                           const std::string& option) {
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(work)) files.push_back(e.path().filename().string());
  std::sort(files.begin(), files.end());
  {
    std::ofstream m(work / output_marker, std::ios::binary);
    m << "galapagos-output 1\n"
      << "This folder was made by " << made_by << ". galapagos replaces it only while it holds no other files than\n"
      << "these; keep your own files elsewhere.\nfiles:\n";
    for (const auto& f : files) m << f << "\n";
    if (!m) throw galapagos::error((work / output_marker).string(), "cannot write");
  }
  check_output_folder(out, option);  // again: it may have changed while the package was made
  std::error_code ec;
  if (std::filesystem::exists(std::filesystem::symlink_status(out))) std::filesystem::remove_all(out);
  std::filesystem::rename(work, out);
}

}  // namespace galapagos::cli
