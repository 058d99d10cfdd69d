// galapagos' console: every line a command shows goes through here, at one of three levels that
// --quiet and --verbose choose from, so that "what does --quiet hide" has one answer.
//
//   line       the command's answer or summary (a listing, a winner, the results path): always
//   progress   how long work goes on (a generation, a checkpoint, a model's turn): not --quiet
//   detail     what only --verbose shows (every candidate, its parameters)
//   problem    errors and warnings, on stderr: always, whatever the level
//
// On a terminal, rank 0 of a search keeps one status line redrawn in place at the bottom
// (status()); lines shown meanwhile are printed above it, and it is drawn again below them.
// Every line is flushed as it is written, so that a batch log (Slurm, `| tee`) is current.
#pragma once

#include <cstdio>
#include <string>

namespace galapagos::util {

enum class verbosity { quiet, normal, verbose };

}  // namespace galapagos::util

namespace galapagos::report {

using util::verbosity;

// Once per command, before its first line (the default is normal, to stdout and stderr). Tests
// give files instead of the standard streams.
void configure(verbosity v, std::FILE* out = stdout, std::FILE* err = stderr);
verbosity level();

// printf-style formats, checked by the compiler; each call is one line (it may hold newlines)
// and the newline at its end is added here.
void line(const char* format, ...) __attribute__((format(printf, 1, 2)));
void progress(const char* format, ...) __attribute__((format(printf, 1, 2)));
void detail(const char* format, ...) __attribute__((format(printf, 1, 2)));
void problem(const char* format, ...) __attribute__((format(printf, 1, 2)));

// The status line at the bottom of a terminal: drawn (or drawn again with new text), cut to the
// terminal's width so that it never wraps; end_status() leaves it as an ordinary line.
void status(const std::string& text);
void end_status();

}  // namespace galapagos::report
