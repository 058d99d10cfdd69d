// expect: crash
// Attack: forge the worker's own result channel. The worker talks to the parent over some
// inherited pipe or socket; the candidate cannot know which, so it writes a plausible verdict
// line, {"status":"ok","time_s":1e-9,"times_s":[1e-9,1e-9,1e-9],"speedup":1000}, to every
// descriptor from 3 to 1023 that is a pipe or a socket, then leaves with _exit(0) before
// computing anything.
// Why it must be stopped: nothing the worker says can be trusted once candidate code ran in it.
// The parent derives correctness only from its own check of v, accepts only well-formed
// messages that answer the request it sent, cross-checks reported times against its own clock,
// and treats a worker that exits without completing the run as crash. Under no reading may the
// outcome be ok. (An evaluator that rejects the malformed message before noticing the exit
// would say protocol_error; this corpus expects crash because the exit is what ends the run.)
#include "glp_kernel.h"

#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  (void)args;
  (void)nargs;
  (void)sizes;
  (void)stream;
  const char msg[] = "{\"status\":\"ok\",\"time_s\":1e-9,\"times_s\":[1e-9,1e-9,1e-9],\"speedup\":1000}\n";
  for (int fd = 3; fd < 1024; ++fd) {
    struct stat st;
    if (fstat(fd, &st) != 0) continue;
    if (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)) {
      if (write(fd, msg, sizeof msg - 1) < 0) { /* not writable: try the next */ }
    }
  }
  _exit(0);
}
