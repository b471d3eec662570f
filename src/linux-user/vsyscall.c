/* vsyscall.c: calls into the vsyscall page, emulated as the kernel's emulate_vsyscall()
 * (arch/x86/entry/vsyscall/vsyscall_64.c) does: the fetch from the page faults (the page
 * is not the guest's to read, on the host either), and the fault becomes the call. */
#define _GNU_SOURCE
#include "vsyscall.h"

#include <errno.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "../interp/fault.h"
#include "determinism.h"
#include "signals.h"
#include "sys_common.h"

#define VSYSCALL_PAGE 0xffffffffff600000ull
enum { VSYS_GETTIMEOFDAY = 0x000, VSYS_TIME = 0x400, VSYS_GETCPU = 0x800 };

/* A result into a guest buffer (none when NULL). The kernel's write_ok_or_segv() refuses
 * an address outside user space with SEGV_MAPERR at it; a user address the call cannot
 * write ends as "vsyscall fault": a plain SIGSEGV (SI_KERNEL). Either way the guest's
 * registers stay as they were, at the vsyscall address. */
static void put(Cpu *c, uint64_t to, const void *from, size_t n, bool *failed) {
  enum { TASK_SIZE_MAX = 0x7ffffffff000ull };
  if (*failed || !to) return;
  bool user = to + n <= TASK_SIZE_MAX && to + n > to;
  if (user && guest_copy_out(c, to, from, n) == 0) return;
  *failed = true;
  if (user) signals_deliver_sync(c, SIGSEGV, SI_KERNEL, 0);
  else signals_deliver_sync(c, SIGSEGV, SEGV_MAPERR, to);
}

bool vsyscall_emulate(Cpu *c) {
  uint64_t rip = c->rip;
  if (c->fault.sig != SIGSEGV || c->fault.addr != rip || (rip & ~0xfffull) != VSYSCALL_PAGE)
    return false;
  unsigned entry = (unsigned)(rip & 0xfff);
  uint64_t caller;
  if ((entry != VSYS_GETTIMEOFDAY && entry != VSYS_TIME && entry != VSYS_GETCPU) ||
      fault_copy_in(&caller, c->r[RSP], sizeof caller) != sizeof caller) {
    /* A misaligned vsyscall, or no return address: the kernel's plain force_sig(). */
    signals_deliver_sync(c, SIGSEGV, SI_KERNEL, 0);
    return true;
  }
  bool failed = false;
  int64_t ret = 0;
  switch (entry) {
  case VSYS_GETTIMEOFDAY: {
    struct timeval tv;
    struct timezone tz;
    ret = gettimeofday(&tv, &tz) == 0 ? 0 : -errno;
    if (det_on(c)) {
      struct timespec ts = vt_timespec(vt_now(c, CLOCK_REALTIME));
      tv = (struct timeval){ts.tv_sec, ts.tv_nsec / 1000};
      tz = (struct timezone){0, 0};
    }
    if (ret == 0) {
      put(c, c->r[RDI], &tv, sizeof tv, &failed);
      put(c, c->r[RSI], &tz, sizeof tz, &failed);
    }
    break;
  }
  case VSYS_TIME: {
    int64_t t = det_on(c) ? (int64_t)(vt_now(c, CLOCK_REALTIME) / 1000000000u) : (int64_t)time(NULL);
    put(c, c->r[RDI], &t, sizeof t, &failed);
    ret = t;
    break;
  }
  default: { /* VSYS_GETCPU */
    unsigned cpu = 0, node = 0;
    ret = syscall(SYS_getcpu, &cpu, &node, NULL) == 0 ? 0 : -errno;
    if (ret == 0) {
      put(c, c->r[RDI], &cpu, sizeof cpu, &failed);
      put(c, c->r[RSI], &node, sizeof node, &failed);
    }
    break;
  }
  }
  if (failed) return true; /* the SIGSEGV is delivered, at the vsyscall address */
  c->r[RAX] = (uint64_t)ret;
  c->rip = caller; /* the emulated RET */
  c->r[RSP] += 8;
  return true;
}
