// expect: crash
// Attack: result-channel forgery via stdout. Without computing anything it prints what a naive
// harness might take for its own verdict line,
//   {"status":"ok","time_median_s":1e-9,"speedup":1000}
// flushes stdout and leaves with _exit(0), skipping the rest of the worker's run protocol.
// Why it must be stopped: the candidate's stdout/stderr go to a log file and are never parsed;
// verdicts come only from the worker's private channel and the parent's own checks. The worker
// exited before completing the run, so the parent reports crash, never ok.
#include "glp_kernel.h"

#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  (void)args;
  (void)nargs;
  (void)sizes;
  (void)stream;
  printf("{\"status\":\"ok\",\"time_median_s\":1e-9,\"speedup\":1000}\n");
  fflush(stdout);
  fprintf(stderr, "{\"status\":\"ok\",\"time_median_s\":1e-9,\"speedup\":1000}\n");
  fflush(stderr);
  _exit(0);
}
