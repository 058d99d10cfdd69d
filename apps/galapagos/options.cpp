#include "options.hpp"
#include "util/report.hpp"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <sstream>

namespace po = boost::program_options;

namespace galapagos::cli {

namespace {

// The range of every numeric option of every command (docs/configuration.md, "Command line").
// Checked on the text as given: boost would wrap "-1" into 2^64-1 for an unsigned option and
// accept "inf" or "nan" for a floating one.
struct numeric_option {
  bool integral;
  double min, max;
  bool open_min;
  bool list;  // N[,N...]
};
const std::map<std::string, numeric_option>& numeric_options() {
  static const std::map<std::string, numeric_option> table{
      {"budget", {true, 1, 1e9, false, false}},
      {"seed", {true, 0, 9223372036854775807.0, false, false}},
      {"seeds", {true, 1, 1000, false, false}},
      {"islands", {true, 1, 4096, false, false}},
      {"sample", {true, 0, 1000000, false, false}},
      {"id", {true, 0, 9223372036854775807.0, false, false}},
      {"at", {true, 1, 1e9, false, true}},
      {"replay-delay", {false, 0, 3600, false, false}},
      {"budget-s", {false, 0, 1e9, true, false}},
      {"time-limit", {false, 0, 31536000, false, false}},
      {"target-roofline", {false, 0, 1, false, false}},
      {"stagnant-generations", {true, 0, 1e9, false, false}},
  };
  return table;
}

std::string range_text(const numeric_option& r) {
  std::ostringstream os;
  os << (r.open_min ? "(" : "[");
  if (r.integral)  // 2^63 - 1 is not a double: the largest bound is int64's largest value
    os << static_cast<std::int64_t>(r.min) << ", " << (r.max >= 9.2e18 ? INT64_MAX : static_cast<std::int64_t>(r.max));
  else  // 1000000000, 0.5: integral bounds without an exponent
    for (int i = 0; i < 2; ++i) {
      const double v = i == 0 ? r.min : r.max;
      if (v == std::floor(v) && std::fabs(v) < 1e15)
        os << static_cast<std::int64_t>(v);
      else
        os << v;
      os << (i == 0 ? ", " : "");
    }
  os << "]";
  return os.str();
}

void check_value(const std::string& option, const std::string& text, const numeric_option& r) {
  const std::string expect = std::string(r.integral ? "an integer" : "a finite number") + " in " + range_text(r);
  const auto refuse = [&] { throw po::error("--" + option + ": must be " + expect + ", got '" + text + "'"); };
  double v = 0;
  if (r.integral) {
    std::int64_t i = 0;
    const char* end = text.data() + text.size();
    const auto res = std::from_chars(text.data(), end, i);
    if (text.empty() || res.ec != std::errc() || res.ptr != end) refuse();
    v = static_cast<double>(i);
  } else {
    char* end = nullptr;
    v = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0' || !std::isfinite(v)) refuse();
  }
  if ((r.open_min ? !(v > r.min) : !(v >= r.min)) || !(v <= r.max)) refuse();
}

void check_numeric_options(const po::parsed_options& parsed) {
  for (const auto& o : parsed.options) {
    const auto it = numeric_options().find(o.string_key);
    if (it == numeric_options().end()) continue;
    for (const auto& text : o.value) {
      if (!it->second.list) {
        check_value(o.string_key, text, it->second);
        continue;
      }
      std::stringstream ss(text);
      std::string part;
      while (std::getline(ss, part, ',')) check_value(o.string_key, part, it->second);
    }
  }
}

}  // namespace

int parse_command_line(const std::string& command, const std::vector<std::string>& args, const po::options_description& opts,
                       const char* positional, po::variables_map& vm,
                       const std::function<void(const po::variables_map&)>& check) {
  po::options_description hidden;
  hidden.add_options()(positional, po::value<std::string>());
  po::options_description all;
  all.add(opts).add(hidden);
  po::positional_options_description pos;
  pos.add(positional, 1);
  try {
    const auto parsed = po::command_line_parser(args).options(all).positional(pos).run();
    check_numeric_options(parsed);
    po::store(parsed, vm);
    po::notify(vm);
    if (vm.count("help")) {
      std::ostringstream text;
      text << opts;
      report::line("%s", text.str().c_str());
      return 0;
    }
    if (check) check(vm);
  } catch (const po::error& e) {
    report::problem("galapagos %s: %s", command.c_str(), e.what());
    return 2;
  }
  return -1;
}

}  // namespace galapagos::cli
