#include "eval/candidate_status.hpp"

#include <array>
#include <utility>

#include "util/error.hpp"

namespace galapagos::eval {

namespace {

constexpr std::array<std::pair<candidate_status, const char*>, 17> names{{
    {candidate_status::ok, "ok"},
    {candidate_status::compile_error, "compile_error"},
    {candidate_status::forbidden_symbol, "forbidden_symbol"},
    {candidate_status::load_error, "load_error"},
    {candidate_status::kernel_error, "kernel_error"},
    {candidate_status::out_of_memory, "out_of_memory"},
    {candidate_status::crash, "crash"},
    {candidate_status::timeout, "timeout"},
    {candidate_status::protocol_error, "protocol_error"},
    {candidate_status::sandbox_violation, "sandbox_violation"},
    {candidate_status::wrong_result, "wrong_result"},
    {candidate_status::input_modified, "input_modified"},
    {candidate_status::nondeterministic, "nondeterministic"},
    {candidate_status::leaked_thread, "leaked_thread"},
    {candidate_status::timer_mismatch, "timer_mismatch"},
    {candidate_status::suspect_too_fast, "suspect_too_fast"},
    {candidate_status::not_recorded, "not_recorded"},
}};

}  // namespace

const char* status_name(candidate_status s) {
  for (const auto& [status, name] : names)
    if (status == s) return name;
  return "unknown";
}

std::optional<candidate_status> candidate_status_from(std::string_view name) {
  for (const auto& [status, n] : names)
    if (name == n) return status;
  return std::nullopt;
}

candidate_status stored_status(const std::string& name, const std::string& file, const std::string& where) {
  const auto s = candidate_status_from(name);
  if (!s) throw error(file, where + ": unknown status '" + name + "'");
  return *s;
}

}  // namespace galapagos::eval
