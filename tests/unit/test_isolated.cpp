// Trusted code and library code run on untrusted data in child processes: eval::family_process (a
// family's reference, checker and generator, one child serving many calls). A crash or a hang
// there is an error naming the family, never the end of the calling process.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <string>

#include "eval/family_process.hpp"
#include "families/family.hpp"
#include "util/error.hpp"
#include "util/isolated.hpp"

TEST(Isolated, SignalsAreNamedAsTheOneLineNamesThem) {
  EXPECT_EQ(galapagos::util::signal_name(SIGSEGV), "SIGSEGV");
  EXPECT_EQ(galapagos::util::signal_name(SIGKILL), "SIGKILL");
  EXPECT_EQ(galapagos::util::signal_description(SIGSEGV), std::string("SIGSEGV (") + strsignal(SIGSEGV) + ")");
  // A real-time signal has no abbreviation: its number names it.
  const int rt = SIGRTMIN + 3;
  EXPECT_EQ(galapagos::util::signal_name(rt), "signal " + std::to_string(rt));
  EXPECT_EQ(galapagos::util::signal_description(rt).rfind("signal " + std::to_string(rt), 0), 0u);
}

namespace {

galapagos::families::family test_family() {
  galapagos::families::family f;
  f.name = "unit_family";
  f.reference_source = "unit/reference.cpp";
  f.generator_source = "unit/generator.cpp";
  return f;
}

// The child's handler: op 0 counts calls in the child's own memory (a state that survives between
// calls only if one process serves them all), op 1 crashes, op 2 hangs.
int calls_in_child = 0;
void handler(const galapagos::eval::family_process::request& q, galapagos::eval::family_process::reply& r) {
  if (q.op == 1) {
    volatile int* nowhere = nullptr;
    *nowhere = 1;
  }
  while (q.op == 2) pause();
  r.rc = ++calls_in_child;
  std::snprintf(r.message, sizeof r.message, "seed %llu", static_cast<unsigned long long>(q.seed));
}

}  // namespace

TEST(FamilyProcess, OneChildServesEveryCall) {
  const auto f = test_family();
  galapagos::eval::family_process p(f, &handler);
  p.start();
  galapagos::eval::family_process::request q;
  for (int i = 1; i <= 5; ++i) {
    q.seed = static_cast<std::uint64_t>(i);
    const auto r = p.call(q, galapagos::eval::family_code::reference, "n=1");
    EXPECT_EQ(r.rc, i);
    EXPECT_EQ(std::string(r.message), "seed " + std::to_string(i));
  }
  EXPECT_EQ(calls_in_child, 0);  // nothing ran in this process
}

TEST(FamilyProcess, ACrashIsAnErrorNamingTheFamilyAndTheNextCallStartsAfresh) {
  const auto f = test_family();
  galapagos::eval::family_process p(f, &handler);
  galapagos::eval::family_process::request q;
  q.op = 1;
  try {
    p.call(q, galapagos::eval::family_code::checker, "n=7");
    FAIL() << "a crash in the child must throw";
  } catch (const galapagos::error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("unit/reference.cpp: the checker (glp_check) of family unit_family crashed with SIGSEGV"), std::string::npos)
        << m;
    EXPECT_NE(m.find("at n=7"), std::string::npos) << m;
  }
  q.op = 0;
  EXPECT_EQ(p.call(q, galapagos::eval::family_code::reference, "n=1").rc, 1);  // a new child: its count starts again
}

TEST(FamilyProcess, AHangIsAnErrorAfterTheTimeLimit) {
  const auto f = test_family();
  galapagos::eval::set_reference_time_limit(0, 0.5);
  galapagos::eval::family_process p(f, &handler);
  galapagos::eval::family_process::request q;
  q.op = 2;
  try {
    p.call(q, galapagos::eval::family_code::generator, "problem 'x'");
    FAIL() << "a hang in the child must throw";
  } catch (const galapagos::error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("unit/generator.cpp: the generator of family unit_family did not finish within 0.5 s at problem 'x'"),
              std::string::npos)
        << m;
  }
  galapagos::eval::set_reference_time_limit(60);
}
