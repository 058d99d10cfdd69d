// Errors a user can fix (bad config, missing file, unsatisfiable constraints): the CLI prints
// what() as one line and exits non-zero. The message names the file and the problem.
#pragma once

#include <stdexcept>
#include <string>

namespace galapagos {

class error : public std::runtime_error {
 public:
  explicit error(const std::string& message) : std::runtime_error(message) {}
  // "<file>: <problem>"
  error(const std::string& file, const std::string& problem) : std::runtime_error(file + ": " + problem) {}
};

// A file whose stored bytes cannot be believed (a failed checksum, an object that does not read,
// a reader that crashed on it): nothing of it may be used, not even for a warning.
class damaged_file : public error {
 public:
  using error::error;
};

}  // namespace galapagos
