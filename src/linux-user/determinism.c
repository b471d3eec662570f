/* determinism.c: --deterministic's randomness and clocks (determinism.h). */
#include "determinism.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "sys_common.h"
#include "threads.h"

/* The started process's id; its threads' are the next ones, in the order they were made
 * (as a kernel that made no other process between would number them). NO_SUCH_ID is
 * above any pid_max. */
enum { VIRTUAL_PID = 1000, NO_SUCH_ID = 0x7fffffff };

bool det_on(const Cpu *c) { return ((const Thread *)c->owner)->proc->opt.deterministic; }

/* splitmix64: every seed gives a full-period sequence, and nearby seeds unlike ones. */
static uint64_t next(uint64_t *state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

void det_random(Process *p, void *buf, size_t n) {
  uint8_t *out = buf;
  while (n) {
    uint64_t v = next(&p->random_state);
    size_t k = n < 8 ? n : 8;
    memcpy(out, &v, k);
    out += k;
    n -= k;
  }
}

bool det_random_device(int fd) {
  struct stat st;
  return fstat(fd, &st) == 0 && S_ISCHR(st.st_mode) && major(st.st_rdev) == 1 &&
         (minor(st.st_rdev) == 8 || minor(st.st_rdev) == 9);
}

/* The id that path starts with (digits up to a '/' or the end), its host id in *host,
 * and where the rest begins; NULL if path does not start so. */
static const char *id_in_path(const Cpu *c, const char *path, int64_t *host) {
  char *rest;
  errno = 0;
  long id = strtol(path, &rest, 10);
  if (rest == path || !(*path >= '0' && *path <= '9') || (*rest && *rest != '/') || errno)
    return NULL;
  *host = det_pid_in(c, id);
  return rest;
}

bool det_proc_path(const Cpu *c, const char *path, char *out, size_t cap) {
  if (!det_on(c) || strncmp(path, "/proc/", 6) != 0) return false;
  int64_t pid, tid;
  const char *rest = id_in_path(c, path + 6, &pid), *after_tid;
  bool self = !rest && !strncmp(path + 6, "self", 4) && (!path[10] || path[10] == '/');
  if (self) { /* its threads are under their ids too: /proc/self/task/1001 */
    pid = getpid();
    rest = path + 10;
  }
  if (!rest) return false;
  if (!strncmp(rest, "/task/", 6) && (after_tid = id_in_path(c, rest + 6, &tid)))
    return snprintf(out, cap, "/proc/%lld/task/%lld%s", (long long)pid, (long long)tid, after_tid) <
           (int)cap;
  return !self && snprintf(out, cap, "/proc/%lld%s", (long long)pid, rest) < (int)cap;
}

int64_t det_read(Cpu *c, uint64_t dst, uint64_t n) {
  Process *p = ((Thread *)c->owner)->proc;
  uint8_t chunk[4096];
  for (uint64_t done = 0; done < n;) {
    size_t k = n - done < sizeof chunk ? (size_t)(n - done) : sizeof chunk;
    det_random(p, chunk, k);
    if (guest_copy_out(c, dst + done, chunk, k) < 0) return done ? (int64_t)done : -EFAULT;
    done += k;
  }
  return (int64_t)n;
}

static int64_t root_pid(const Cpu *c) { return ((const Thread *)c->owner)->proc->opt.deterministic_pid; }

/* Whether c's process is the one x64emu started (a forked child's ids are the host's). */
static bool in_root(const Cpu *c) { return getpid() == root_pid(c); }

int64_t det_pid_out(const Cpu *c, int64_t pid) {
  if (!det_on(c) || pid == 0) return pid;
  if (pid == root_pid(c)) return VIRTUAL_PID;
  if (pid == -root_pid(c)) return -VIRTUAL_PID;
  int64_t nth = in_root(c) && pid > 0 && pid <= INT32_MAX ? threads_nth(c, (int32_t)pid) : -1;
  return nth > 0 ? VIRTUAL_PID + nth : pid;
}

int64_t det_pid_in(const Cpu *c, int64_t pid) {
  if (!det_on(c)) return pid;
  if (pid == VIRTUAL_PID) return root_pid(c);
  if (pid == -VIRTUAL_PID) return -root_pid(c);
  if (in_root(c) && pid > VIRTUAL_PID && pid - VIRTUAL_PID <= threads_made(c)) {
    int32_t tid = threads_host_tid(c, (unsigned)(pid - VIRTUAL_PID));
    return tid > 0 ? tid : NO_SUCH_ID; /* an ended thread's: ESRCH, as for any dead id */
  }
  return pid;
}
