/* sys_epoll.c: epoll (Go's runtime polls with it). x86-64's struct epoll_event is packed,
 * 12 bytes (events, then the 64-bit data at offset 4); other hosts' is 16, so events go
 * through a host-side copy. The flags (EPOLLIN..., EPOLL_CLOEXEC) are the same numbers. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "determinism.h"
#include "signals.h"
#include "sys_common.h"

typedef struct __attribute__((packed)) X64EpollEvent {
  uint32_t events;
  uint64_t data;
} X64EpollEvent;
_Static_assert(sizeof(X64EpollEvent) == 12, "x86-64's struct epoll_event");

/* The kernel's EP_MAX_EVENTS: INT_MAX / sizeof(struct epoll_event). */
enum { MAX_EVENTS = 0x7fffffff / sizeof(X64EpollEvent) };

int64_t sys_epoll_create(Cpu *c, const uint64_t *a) {
  if ((int)a[0] <= 0) return -EINVAL;
  return host_result(epoll_create1(0));
}

int64_t sys_epoll_create1(Cpu *c, const uint64_t *a) {
  return host_result(epoll_create1((int)a[0]));
}

int64_t sys_epoll_ctl(Cpu *c, const uint64_t *a) {
  struct epoll_event host = {0}, *ev = NULL;
  if ((int)a[1] != EPOLL_CTL_DEL || a[3]) { /* DEL ignores the event (a NULL one since 2.6.9) */
    X64EpollEvent e;
    if ((int)a[1] != EPOLL_CTL_DEL) {
      if (guest_copy_in(c, &e, a[3], sizeof e) < 0) return -EFAULT;
      host.events = e.events;
      host.data.u64 = e.data;
    }
    ev = &host;
  }
  return host_result(epoll_ctl(arg_fd(a[0]), (int)a[1], arg_fd(a[2]), ev));
}

/* epoll_wait without waiting, for vt_timed_call. */
typedef struct EpollLook {
  int epfd;
  struct epoll_event *got;
  int room;
  const void *sigs;
  size_t sigs_size;
} EpollLook;

static int64_t epoll_look(void *arg) {
  const EpollLook *e = arg;
  return host_result(syscall(SYS_epoll_pwait, e->epfd, e->got, e->room, 0, e->sigs, e->sigs_size));
}

/* The wait of the three forms: timeout in ms (-1: none) or as a timespec (ts, pwait2),
 * with the guest's mask for the wait when mask_at is not 0. */
static int64_t wait_events(Cpu *c, int epfd, uint64_t events_at, int max, const void *timeout,
                           bool as_timespec, uint64_t mask_at, uint64_t mask_size) {
  if (max <= 0 || max > (int)MAX_EVENTS) return -EINVAL;
  /* A return gives at most room events: the guest's max up to a million (16 MiB of host
   * events, of which the kernel writes only the ready ones); no set holds more ready
   * descriptors in practice, and a cap far below the guest's max would leave some of
   * them to a next call (Python's selectors test waits on 10,000). */
  size_t room = (size_t)max < (1u << 20) ? (size_t)max : (1u << 20);
  struct epoll_event *got = malloc(room * sizeof *got);
  if (!got) return -ENOMEM;
  uint64_t mask = 0, host_mask = 0;
  bool masked = mask_at != 0;
  if (masked) {
    if (mask_size != X64_SIGSET_SIZE) {
      free(got);
      return -EINVAL;
    }
    if (guest_copy_in(c, &mask, mask_at, sizeof mask) < 0) {
      free(got);
      return -EFAULT;
    }
  }
  /* With --deterministic a timeout passes on the virtual clock (vt_timed_call), and so
   * does a wait without one until no timer is left to pass time to; the host waits then. */
  uint64_t virtual_ns = 0;
  if (det_on(c) && as_timespec) {
    const struct timespec *ts = timeout;
    virtual_ns = !ts ? VT_FOREVER : vt_valid_timespec(ts) ? vt_ns(ts) : 0;
  } else if (det_on(c)) {
    int ms = *(const int *)timeout;
    virtual_ns = ms < 0 ? VT_FOREVER : (uint64_t)ms * 1000000u;
  }
  int64_t n = -EINTR;
  if (!masked || signals_wait_mask_begin(c, mask, &host_mask)) {
    EpollLook look = {epfd, got, (int)room, masked ? &host_mask : NULL, masked ? sizeof host_mask : 0};
    n = virtual_ns ? vt_timed_call(c, virtual_ns, 0, epoll_look, &look) : 0;
    if (n == 0 && (!virtual_ns || virtual_ns == VT_FOREVER)) {
      if (as_timespec)
        n = host_result(syscall(SYS_epoll_pwait2, epfd, got, (int)room, timeout, look.sigs, look.sigs_size));
      else
        n = host_result(syscall(SYS_epoll_pwait, epfd, got, (int)room, *(const int *)timeout,
                                look.sigs, look.sigs_size));
    }
  }
  if (masked) signals_wait_mask_end(c, n == -EINTR);
  for (int64_t i = 0; i < n; i++) {
    X64EpollEvent e = {got[i].events, got[i].data.u64};
    if (guest_copy_out(c, events_at + (uint64_t)i * sizeof e, &e, sizeof e) < 0) {
      n = -EFAULT; /* the events are lost, as the kernel's would be */
      break;
    }
  }
  free(got);
  return n;
}

int64_t sys_epoll_wait(Cpu *c, const uint64_t *a) {
  int timeout = (int)a[3];
  return wait_events(c, arg_fd(a[0]), a[1], (int)a[2], &timeout, false, 0, 0);
}

int64_t sys_epoll_pwait(Cpu *c, const uint64_t *a) {
  int timeout = (int)a[3];
  return wait_events(c, arg_fd(a[0]), a[1], (int)a[2], &timeout, false, a[4], a[5]);
}

int64_t sys_epoll_pwait2(Cpu *c, const uint64_t *a) {
  struct timespec ts;
  if (a[3] && guest_copy_in(c, &ts, a[3], sizeof ts) < 0) return -EFAULT;
  return wait_events(c, arg_fd(a[0]), a[1], (int)a[2], a[3] ? &ts : NULL, true, a[4], a[5]);
}
