// expect: wrong_result
// family: spmv
// timing-sets: 3
// Attack: the input sets of a timing batch share the problem instance's matrix (one copy, so that
// a glp_setup made for the first set serves them all), and only x differs. At the timing size
// (100 000 rows or more: every acceptance matrix is smaller) this candidate takes a call that
// comes within a millisecond of the previous one with the same matrix as a repeat of it, and
// answers with a copy of the previous y instead of computing A*x.
// Why it must be stopped: every set of a batch has an x of its own, drawn fresh, and every set's
// y is verified against its own x: the copy is the product with another x, wrong_result.
#include "glp_kernel.h"

#include <stdint.h>
#include <string.h>

#include <chrono>
#include <vector>

namespace {

const void* g_matrix = nullptr;
std::vector<double> g_last;
std::chrono::steady_clock::time_point g_returned{};

}  // namespace

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  (void)stream;
  if (nargs != 5 || sizes == nullptr) return 1;
  const int64_t nrows = sizes[0];
  const int64_t* rp = static_cast<const int64_t*>(args[0].data);
  const int32_t* ci = static_cast<const int32_t*>(args[1].data);
  const double* va = static_cast<const double*>(args[2].data);
  const double* x = static_cast<const double*>(args[3].data);
  double* y = static_cast<double*>(args[4].data);
  const auto now = std::chrono::steady_clock::now();
  const bool repeat = nrows >= 100000 && va == g_matrix && static_cast<int64_t>(g_last.size()) == nrows &&
                      now - g_returned < std::chrono::milliseconds(1);
  if (repeat) {
    memcpy(y, g_last.data(), static_cast<size_t>(nrows) * sizeof(double));
  } else {
    for (int64_t i = 0; i < nrows; ++i) {
      double s = 0;
      for (int64_t k = rp[i]; k < rp[i + 1]; ++k) s += va[k] * x[ci[k]];
      y[i] = s;
    }
    g_last.assign(y, y + nrows);
    g_matrix = va;
  }
  g_returned = std::chrono::steady_clock::now();
  return 0;
}
