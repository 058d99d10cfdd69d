#include "util/report.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdarg>
#include <mutex>
#include <vector>

namespace galapagos::report {

namespace {

struct console {
  std::mutex m;
  verbosity level = verbosity::normal;
  std::FILE* out = stdout;
  std::FILE* err = stderr;
  std::string shown;  // the status line on screen; empty: none
};

console& the_console() {
  static console c;
  return c;
}

// Columns of the terminal behind `f` (80 when unknown): a status line must never wrap, or the
// carriage return that redraws it would leave its first part behind.
std::size_t columns(std::FILE* f) {
  winsize w{};
  if (ioctl(fileno(f), TIOCGWINSZ, &w) == 0 && w.ws_col > 10) return w.ws_col;
  return 80;
}

void draw_status(console& c) {
  std::string text = c.shown;
  const std::size_t width = columns(c.out) - 1;
  if (text.size() > width) text.resize(width);
  std::fprintf(c.out, "\r\033[K%s", text.c_str());
  std::fflush(c.out);
}

std::string formatted(const char* format, va_list args) {
  va_list again;
  va_copy(again, args);
  const int n = std::vsnprintf(nullptr, 0, format, args);
  std::string text;
  if (n > 0) {
    std::vector<char> buf(static_cast<std::size_t>(n) + 1);
    std::vsnprintf(buf.data(), buf.size(), format, again);
    text.assign(buf.data(), static_cast<std::size_t>(n));
  }
  va_end(again);
  return text;
}

// One line on `to`, above the status line when one is shown there.
void write_line(console& c, std::FILE* to, const std::string& text) {
  const bool under_status = !c.shown.empty();  // stderr shares the terminal too
  if (under_status) std::fputs("\r\033[K", c.out);
  std::fputs(text.c_str(), to);
  std::fputc('\n', to);
  std::fflush(to);
  if (under_status) draw_status(c);
}

void show(bool wanted, bool on_err, const char* format, va_list args) {
  if (!wanted) return;
  const std::string text = formatted(format, args);
  auto& c = the_console();
  std::lock_guard hold(c.m);
  write_line(c, on_err ? c.err : c.out, text);
}

}  // namespace

void configure(verbosity v, std::FILE* out, std::FILE* err) {
  auto& c = the_console();
  std::lock_guard hold(c.m);
  c.level = v;
  c.out = out;
  c.err = err;
  c.shown.clear();
}

verbosity level() { return the_console().level; }

void line(const char* format, ...) {
  va_list args;
  va_start(args, format);
  show(true, false, format, args);
  va_end(args);
}

void progress(const char* format, ...) {
  va_list args;
  va_start(args, format);
  show(level() != verbosity::quiet, false, format, args);
  va_end(args);
}

void detail(const char* format, ...) {
  va_list args;
  va_start(args, format);
  show(level() == verbosity::verbose, false, format, args);
  va_end(args);
}

void problem(const char* format, ...) {
  va_list args;
  va_start(args, format);
  show(true, true, format, args);
  va_end(args);
}

void status(const std::string& text) {
  auto& c = the_console();
  std::lock_guard hold(c.m);
  c.shown = text;
  draw_status(c);
}

void end_status() {
  auto& c = the_console();
  std::lock_guard hold(c.m);
  if (c.shown.empty()) return;
  std::fputc('\n', c.out);
  std::fflush(c.out);
  c.shown.clear();
}

}  // namespace galapagos::report
