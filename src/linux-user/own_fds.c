/* own_fds.c: the descriptors x64emu keeps for itself, out of the guest's reach. */
#define _GNU_SOURCE
#include "own_fds.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/syscall.h>

#ifndef CLOSE_RANGE_UNSHARE
#define CLOSE_RANGE_UNSHARE (1U << 1)
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

/* The deterministic timerfds (64), a vfork's pair, the trace, gdb's connection, x64emu's
 * own file, with room to spare. */
enum { OWN_FDS_MAX = 96 };

/* Process-global, as the host's descriptor table is (own_fds.h). */
static struct {
  int *holder[OWN_FDS_MAX];
  unsigned n;
} own;

/* fd's place in the table, or -1. Below OWN_FD_BASE only when it could not move. */
static int kept(int fd) {
  for (unsigned i = 0; i < own.n; i++)
    if (*own.holder[i] == fd) return (int)i;
  return -1;
}

bool own_fd(int fd) { return fd >= 0 && own.n && kept(fd) >= 0; }

bool own_fds_any(void) { return own.n > 0; }

void own_fd_keep(int *holder) {
  if (*holder < 0) return;
  int at = kept(*holder);
  if (at >= 0) {
    own.holder[at] = holder;
    return;
  }
  if (*holder < OWN_FD_BASE) {
    int high = fcntl(*holder, F_DUPFD_CLOEXEC, OWN_FD_BASE);
    if (high >= 0) {
      close(*holder);
      *holder = high;
    } /* else (a guest's RLIMIT_NOFILE under OWN_FD_BASE) it stays where it is, still kept */
  }
  if (own.n < OWN_FDS_MAX) own.holder[own.n++] = holder;
}

static void forget(const int *holder) {
  for (unsigned i = 0; i < own.n; i++)
    if (own.holder[i] == holder) {
      own.holder[i] = own.holder[--own.n];
      return;
    }
}

void own_fd_close(int *holder) {
  if (*holder < 0) return;
  forget(holder);
  close(*holder);
  *holder = -1;
}

int own_fd_make_room(int fd) {
  int at = fd >= 0 ? kept(fd) : -1;
  if (at < 0) return 0;
  int moved = fcntl(fd, F_DUPFD_CLOEXEC, OWN_FD_BASE);
  if (moved < 0) return -errno;
  *own.holder[at] = moved;
  close(fd);
  return 0;
}

int64_t own_fds_close_range(unsigned first, unsigned last, unsigned flags) {
  if (first > last || (flags & ~(CLOSE_RANGE_UNSHARE | CLOSE_RANGE_CLOEXEC))) return -EINVAL;
  /* Unsharing comes first, as the kernel's: the gaps are then closed in the new table. */
  if ((flags & CLOSE_RANGE_UNSHARE) && unshare(CLONE_FILES) != 0) return -errno;
  flags &= ~CLOSE_RANGE_UNSHARE;
  unsigned from = first;
  for (;;) {
    /* The lowest of x64emu's at from or above, up to last. */
    unsigned next = last;
    bool ours = false;
    for (unsigned i = 0; i < own.n; i++) {
      unsigned fd = (unsigned)*own.holder[i];
      if (fd >= from && fd <= next) next = fd, ours = true;
    }
    unsigned to = ours ? next - 1 : last;
    if ((!ours || next > from) && syscall(SYS_close_range, from, to, flags) != 0) return -errno;
    if (!ours || next == last) return 0;
    from = next + 1;
  }
}

/* ---- descriptors inside a call's structures ---- */

struct pollfd *own_fds_polled(struct pollfd *fds, size_t n) {
  if (!own.n) return fds;
  size_t i = 0;
  while (i < n && !own_fd(fds[i].fd)) i++;
  if (i == n) return fds;
  struct pollfd *shown = malloc(n * sizeof *shown);
  if (!shown) return fds;
  memcpy(shown, fds, n * sizeof *shown);
  for (; i < n; i++)
    if (own_fd(shown[i].fd)) shown[i].fd = NOT_A_FD;
  return shown;
}

void own_fds_polled_done(struct pollfd *fds, struct pollfd *shown, size_t n) {
  if (shown == fds) return;
  for (size_t i = 0; i < n; i++) fds[i].revents = shown[i].revents;
  free(shown);
}

bool own_fd_selected(int nfds, void *const sets[3]) {
  for (unsigned i = 0; i < own.n; i++) {
    int fd = *own.holder[i];
    if (fd >= nfds) continue;
    for (int s = 0; s < 3; s++)
      if (sets[s] && (((const uint8_t *)sets[s])[fd / 8] >> (fd % 8) & 1)) return true;
  }
  return false;
}

void *own_fds_sent(const void *control, size_t len) {
  if (!own.n || !control || len < sizeof(struct cmsghdr)) return NULL;
  char *shown = NULL; /* the copy, once one is needed */
  struct msghdr m = {.msg_control = (void *)control, .msg_controllen = len};
  for (struct cmsghdr *h = CMSG_FIRSTHDR(&m); h; h = CMSG_NXTHDR(&m, h)) {
    /* One the kernel refuses (EINVAL) ends the look: its length is not to be trusted. */
    if (h->cmsg_len < CMSG_LEN(0) || (char *)h + h->cmsg_len > (char *)m.msg_control + len) break;
    if (h->cmsg_level != SOL_SOCKET || h->cmsg_type != SCM_RIGHTS) continue;
    size_t count = (h->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    for (size_t k = 0; k < count; k++) {
      int fd;
      memcpy(&fd, CMSG_DATA(h) + k * sizeof fd, sizeof fd);
      if (!own_fd(fd)) continue;
      if (!shown) { /* go on in a copy */
        if (!(shown = malloc(len))) return NULL;
        memcpy(shown, control, len);
        h = (struct cmsghdr *)(shown + ((const char *)h - (const char *)control));
        m.msg_control = shown;
      }
      fd = NOT_A_FD;
      memcpy(CMSG_DATA(h) + k * sizeof fd, &fd, sizeof fd);
    }
  }
  return shown;
}
