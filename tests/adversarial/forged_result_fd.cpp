// expect: protocol_error
// Attack: forge the worker's own result channel. The worker talks to the parent over some
// inherited pipe or socket; the candidate cannot know which, so it writes a plausible verdict
// line, {"status":"ok","time_s":1e-9,"times_s":[1e-9,1e-9,1e-9],"speedup":1000}, to every
// descriptor from 3 to 1023 that is a pipe or a socket, then leaves with _exit(0) before
// computing anything.
// Why it must be stopped: nothing the worker says can be trusted once candidate code ran in it.
// The result channel (fd 3, a SOCK_SEQPACKET socket) accepts only fixed-size records with the
// right magic that echo the request's nonce; the forged line arrives before the exit and is
// rejected as a garbled/forged reply: protocol_error. (Had the worker's exit been noticed
// first it would be crash.) Correctness is always judged by the parent's own check of v.
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
      if (write(fd, msg, sizeof msg - 1) < 0) { /* not writable: try the next */
      }
    }
  }
  _exit(0);
}
