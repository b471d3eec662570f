/* sys_io.c: reading, writing and polling file descriptors. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/time.h>
#include <sys/sendfile.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "determinism.h"
#include "own_fds.h"
#include "proc_self.h"
#include "signals.h"
#include "sys_common.h"

/* struct iovec, struct pollfd, fd_set and struct timespec/timeval have the same layout
 * on every 64-bit Linux host, so guest arrays of them, once found the guest's, are handed
 * to the host as they are. */

/* A transfer of up to len bytes at addr on fd, from file offset off (-1: the descriptor's
 * position): the host buffer, with in *room as many bytes as are the guest's with access
 * (guest_transfer) and, on a /proc/self/mem, as the guest may reach there (proc_self.c),
 * or -EIO. */
static void *transfer_room(Cpu *c, int fd, int64_t off, uint64_t addr, uint64_t len, int access,
                           int64_t *room) {
  size_t n;
  void *buf = guest_transfer(c, addr, len, access, &n);
  *room = proc_mem_room(c, fd, off, n);
  return buf;
}

/* The same for a vectored transfer: the guest's cnt iovecs at addr for the host call
 * (guest_iovec, its host ones in iov[IOV_MAX]) with their count in *n, cut to what a
 * /proc/self/mem lets the guest reach from off; NULL with -EIO in *n there. */
static const struct iovec *vector_room(Cpu *c, int fd, int64_t off, uint64_t addr, uint64_t cnt,
                                       int access, struct iovec *iov, uint64_t *n) {
  const struct iovec *vec = guest_iovec(c, addr, cnt, access, iov, n);
  if (vec != iov || !*n) return vec;
  uint64_t total = 0;
  for (uint64_t i = 0; i < *n; i++) total += iov[i].iov_len;
  int64_t room = proc_mem_room(c, fd, off, total);
  if (room < 0) {
    *n = (uint64_t)room;
    return NULL;
  }
  for (uint64_t i = 0; i < *n; i++) {
    if ((uint64_t)room <= iov[i].iov_len) {
      iov[i].iov_len = (size_t)room;
      *n = i + 1;
      break;
    }
    room -= (int64_t)iov[i].iov_len;
  }
  return vec;
}

/* A vectored call on fd: nr with the iovecs vector_room gives, the offset (or -1) and
 * flags; what a write to a /proc/self/mem changed is noted. */
static int64_t vector_call(Cpu *c, long nr, const uint64_t *a, int64_t off, int flags, int access) {
  struct iovec iov[IOV_MAX];
  uint64_t n;
  int fd = arg_fd(a[0]);
  const struct iovec *vec = vector_room(c, fd, off, a[1], a[2], access, iov, &n);
  if (!vec) return (int64_t)n;
  /* On a 64-bit kernel the offset's low word holds all of it; readv and writev take
   * neither it nor the flags. */
  int64_t done = host_result(syscall(nr, fd, vec, n, off, 0L, flags));
  if (done > 0 && access == GUEST_PROT_READ) proc_mem_written(c, fd, off, (uint64_t)done);
  return done;
}

int64_t sys_read(Cpu *c, const uint64_t *a) {
  if (det_on(c) && det_random_device(arg_fd(a[0]))) return det_read(c, a[1], a[2]);
  if (det_on(c) && vt_timerfd(c, arg_fd(a[0]))) return vt_timerfd_read(c, arg_fd(a[0]), a[1], a[2]);
  int64_t room;
  void *buf = transfer_room(c, arg_fd(a[0]), -1, a[1], a[2], GUEST_PROT_WRITE, &room);
  if (room < 0) return room;
  return host_result(read(arg_fd(a[0]), buf, (size_t)room));
}

int64_t sys_write(Cpu *c, const uint64_t *a) {
  int64_t room;
  void *buf = transfer_room(c, arg_fd(a[0]), -1, a[1], a[2], GUEST_PROT_READ, &room);
  if (room < 0) return room;
  int64_t n = host_result(write(arg_fd(a[0]), buf, (size_t)room));
  if (n > 0) proc_mem_written(c, arg_fd(a[0]), -1, (uint64_t)n);
  return n;
}

int64_t sys_readv(Cpu *c, const uint64_t *a) {
  if (det_on(c) && det_random_device(arg_fd(a[0]))) {
    struct iovec iov[IOV_MAX];
    uint64_t n;
    if (guest_iovec(c, a[1], a[2], GUEST_PROT_WRITE, iov, &n) != iov)
      return a[2] > IOV_MAX ? -EINVAL : -EFAULT;
    int64_t total = 0;
    for (uint64_t i = 0; i < n; i++) {
      int64_t r = det_read(c, (uint64_t)(uintptr_t)iov[i].iov_base, iov[i].iov_len);
      if (r < 0) return total ? total : r;
      total += r;
    }
    return total;
  }
  return vector_call(c, SYS_readv, a, -1, 0, GUEST_PROT_WRITE);
}

int64_t sys_writev(Cpu *c, const uint64_t *a) {
  return vector_call(c, SYS_writev, a, -1, 0, GUEST_PROT_READ);
}

int64_t sys_pread64(Cpu *c, const uint64_t *a) {
  if (det_on(c) && det_random_device(arg_fd(a[0]))) return -ESPIPE; /* as the device says */
  int64_t room;
  void *buf = transfer_room(c, arg_fd(a[0]), (int64_t)a[3], a[1], a[2], GUEST_PROT_WRITE, &room);
  if (room < 0) return room;
  return host_result(pread(arg_fd(a[0]), buf, (size_t)room, (off_t)a[3]));
}

int64_t sys_pwrite64(Cpu *c, const uint64_t *a) {
  int64_t room;
  void *buf = transfer_room(c, arg_fd(a[0]), (int64_t)a[3], a[1], a[2], GUEST_PROT_READ, &room);
  if (room < 0) return room;
  int64_t n = host_result(pwrite(arg_fd(a[0]), buf, (size_t)room, (off_t)a[3]));
  if (n > 0) proc_mem_written(c, arg_fd(a[0]), (int64_t)a[3], (uint64_t)n);
  return n;
}

/* preadv(fd, iov, cnt, pos_l, pos_h): on a 64-bit kernel pos_l holds the whole offset. */
int64_t sys_preadv(Cpu *c, const uint64_t *a) {
  return vector_call(c, SYS_preadv, a, (int64_t)a[3], 0, GUEST_PROT_WRITE);
}

int64_t sys_pwritev(Cpu *c, const uint64_t *a) {
  return vector_call(c, SYS_pwritev, a, (int64_t)a[3], 0, GUEST_PROT_READ);
}

int64_t sys_preadv2(Cpu *c, const uint64_t *a) {
  return vector_call(c, SYS_preadv2, a, (int64_t)a[3], (int)a[5], GUEST_PROT_WRITE);
}

int64_t sys_pwritev2(Cpu *c, const uint64_t *a) {
  return vector_call(c, SYS_pwritev2, a, (int64_t)a[3], (int)a[5], GUEST_PROT_READ);
}

int64_t sys_lseek(Cpu *c, const uint64_t *a) {
  return host_result(lseek(arg_fd(a[0]), (off_t)a[1], (int)a[2]));
}

/* The optional file offsets of sendfile, splice and copy_file_range: read, then written
 * back; one not the guest's is refused by the kernel after its checks of the descriptors. */
enum { RW = GUEST_PROT_READ | GUEST_PROT_WRITE };

int64_t sys_sendfile(Cpu *c, const uint64_t *a) {
  void *off;
  guest_area(c, a[2], sizeof(off_t), RW, &off);
  if (proc_mem_file(c, arg_fd(a[0])) || proc_mem_file(c, arg_fd(a[1]))) return -EINVAL;
  return host_result(syscall(SYS_sendfile, arg_fd(a[0]), arg_fd(a[1]), off, a[3]));
}

/* splice and tee move data between descriptors in the host kernel (the SPLICE_F_* flags
 * are the same on every host); vmsplice between a pipe and the guest's memory, which it
 * reads for a pipe's write end and writes for its read end. */
int64_t sys_splice(Cpu *c, const uint64_t *a) {
  void *in, *out;
  guest_area(c, a[1], sizeof(off_t), RW, &in);
  guest_area(c, a[3], sizeof(off_t), RW, &out);
  if (proc_mem_file(c, arg_fd(a[0])) || proc_mem_file(c, arg_fd(a[2]))) return -EINVAL;
  return host_result(
      syscall(SYS_splice, arg_fd(a[0]), in, arg_fd(a[2]), out, (size_t)a[4], (unsigned)a[5]));
}

int64_t sys_tee(Cpu *c, const uint64_t *a) {
  return host_result(tee(arg_fd(a[0]), arg_fd(a[1]), (size_t)a[2], (unsigned)a[3]));
}

int64_t sys_vmsplice(Cpu *c, const uint64_t *a) {
  int mode = fcntl(arg_fd(a[0]), F_GETFL);
  if (mode < 0) return -errno;
  struct iovec iov[IOV_MAX];
  int access = (mode & O_ACCMODE) == O_RDONLY ? GUEST_PROT_WRITE : GUEST_PROT_READ;
  uint64_t n;
  const struct iovec *vec = guest_iovec(c, a[1], a[2], access, iov, &n);
  return host_result(syscall(SYS_vmsplice, arg_fd(a[0]), vec, n, (unsigned)a[3]));
}

/* process_vm_readv/writev(pid, local, liovcnt, remote, riovcnt, flags): the local iovecs
 * must be the guest's (guest_iovec); the remote ones name another process's memory,
 * unless the process is this one (pid is a thread of it), whose emulator the guest must
 * not reach through them: then they are cut to the guest's memory as well. */
static int64_t vm_transfer(Cpu *c, const uint64_t *a, bool to_remote) {
  static __thread struct iovec local[IOV_MAX], remote[IOV_MAX];
  if (a[5]) return -EINVAL; /* no flags are defined */
  pid_t pid = (pid_t)det_pid_in(c, (pid_t)a[0]);
  uint64_t nl, nr;
  const struct iovec *lvec = guest_iovec(c, a[1], a[2], to_remote ? GUEST_PROT_READ : GUEST_PROT_WRITE,
                                         local, &nl);
  const struct iovec *rvec = remote;
  if (syscall(SYS_tgkill, getpid(), pid, 0) == 0) {
    rvec = guest_iovec(c, a[3], a[4], to_remote ? GUEST_PROT_WRITE : GUEST_PROT_READ, remote, &nr);
  } else {
    nr = a[4];
    if (nr > IOV_MAX || guest_copy_in(c, remote, a[3], (size_t)nr * sizeof *remote) < 0)
      rvec = refused_by_kernel(a[3]);
  }
  return host_result(syscall(to_remote ? SYS_process_vm_writev : SYS_process_vm_readv, pid, lvec,
                             nl, rvec, nr, 0ul));
}

int64_t sys_process_vm_readv(Cpu *c, const uint64_t *a) { return vm_transfer(c, a, false); }
int64_t sys_process_vm_writev(Cpu *c, const uint64_t *a) { return vm_transfer(c, a, true); }

int64_t sys_copy_file_range(Cpu *c, const uint64_t *a) {
  void *in, *out;
  guest_area(c, a[1], sizeof(off_t), RW, &in);
  guest_area(c, a[3], sizeof(off_t), RW, &out);
  if (proc_mem_file(c, arg_fd(a[0])) || proc_mem_file(c, arg_fd(a[2]))) return -EINVAL;
  return host_result(
      syscall(SYS_copy_file_range, arg_fd(a[0]), in, arg_fd(a[2]), out, a[4], (unsigned)a[5]));
}

/* struct linux_dirent64 is the same on every architecture. */
int64_t sys_getdents64(Cpu *c, const uint64_t *a) {
  size_t room;
  void *buf = guest_transfer(c, a[1], (unsigned)a[2], GUEST_PROT_WRITE, &room);
  for (;;) {
    int64_t n = host_result(syscall(SYS_getdents64, arg_fd(a[0]), buf, (unsigned)room));
    int64_t shown = proc_self_fds_unlisted(arg_fd(a[0]), buf, n);
    if (shown != 0 || n <= 0) return shown; /* records left, the end, or an error */
  }
}

/* The old getdents, which aarch64 does not have: getdents64's records converted in place.
 * struct linux_dirent has the same 8-byte d_ino and d_off and the same d_reclen for a name
 * (its name starts a byte earlier, and d_type is the record's last byte), so a buffer that
 * holds the one holds the other. */
int64_t sys_getdents(Cpu *c, const uint64_t *a) {
  int64_t n = sys_getdents64(c, a);
  uint8_t *buf = GUEST_PTR(a[1]);
  for (int64_t at = 0; at < n;) {
    uint8_t *rec = buf + at;
    uint16_t reclen;
    memcpy(&reclen, rec + 16, sizeof reclen);
    uint8_t type = rec[18];
    memmove(rec + 18, rec + 19, strlen((char *)rec + 19) + 1);
    rec[reclen - 1] = type;
    at += reclen;
  }
  return n;
}

int64_t sys_fsync(Cpu *c, const uint64_t *a) { return host_result(fsync(arg_fd(a[0]))); }

int64_t sys_fdatasync(Cpu *c, const uint64_t *a) { return host_result(fdatasync(arg_fd(a[0]))); }

int64_t sys_syncfs(Cpu *c, const uint64_t *a) {
  return host_result(syscall(SYS_syncfs, arg_fd(a[0])));
}

/* The SYNC_FILE_RANGE_* flags are the same on every host. */
int64_t sys_sync_file_range(Cpu *c, const uint64_t *a) {
  return host_result(
      syscall(SYS_sync_file_range, arg_fd(a[0]), (off_t)a[1], (off_t)a[2], (unsigned)a[3]));
}

/* cachestat(fd, range, cstat, flags): struct cachestat_range (offset, length) and struct
 * cachestat (five u64 counts) are the same on every host; one not the guest's is refused
 * by the kernel after its EBADF. The number is 451 on every architecture. */
#define HOST_NR_cachestat 451

int64_t sys_cachestat(Cpu *c, const uint64_t *a) {
  void *range, *stat;
  guest_area(c, a[1], 16, GUEST_PROT_READ, &range);
  guest_area(c, a[2], 40, GUEST_PROT_WRITE, &stat);
  return host_result(syscall(HOST_NR_cachestat, arg_fd(a[0]), range, stat, (unsigned)a[3]));
}

int64_t sys_readahead(Cpu *c, const uint64_t *a) {
  return host_result(syscall(SYS_readahead, arg_fd(a[0]), (off_t)a[1], (size_t)a[2]));
}

int64_t sys_ftruncate(Cpu *c, const uint64_t *a) {
  return host_result(ftruncate(arg_fd(a[0]), (off_t)a[1]));
}

/* posix_fadvise returns the error instead of setting errno. */
int64_t sys_fadvise64(Cpu *c, const uint64_t *a) {
  return -(int64_t)posix_fadvise(arg_fd(a[0]), (off_t)a[1], (off_t)a[2], (int)a[3]);
}

int64_t sys_fallocate(Cpu *c, const uint64_t *a) {
  return host_result(fallocate(arg_fd(a[0]), (int)a[1], (off_t)a[2], (off_t)a[3]));
}

/* ---- waiting for descriptors ---- */

/* A wait with a timeout that the kernel writes back (ppoll, select, pselect6; a timeval,
 * or a timespec when nsec) under --deterministic: the wait of vt_timed_call, the time
 * left written back as Linux writes it; -ENOSYS when the host is to wait (no
 * --deterministic, a zero timeout or one the host refuses with its EINVAL, or none and
 * no timer left to pass time to). */
static int64_t wait_virtually_left(Cpu *c, void *timeout, bool nsec, int64_t (*look)(void *), void *arg) {
  if (!det_on(c)) return -ENOSYS;
  if (!timeout) {
    int64_t n = vt_timed_call(c, VT_FOREVER, 0, look, arg);
    return n == 0 ? -ENOSYS : n;
  }
  const struct timespec *ts = timeout;
  const struct timeval *tv = timeout;
  bool valid = nsec ? vt_valid_timespec(ts)
                    : tv->tv_sec >= 0 && tv->tv_usec >= 0; /* Linux carries whole seconds */
  uint64_t ns = !valid ? 0
                : nsec ? vt_ns(ts)
                       : (uint64_t)tv->tv_sec * 1000000000u + (uint64_t)tv->tv_usec * 1000u;
  if (ns == 0) return -ENOSYS;
  uint64_t start = vt_now(c, CLOCK_MONOTONIC);
  int64_t n = vt_timed_call(c, ns, 0, look, arg);
  uint64_t passed = vt_now(c, CLOCK_MONOTONIC) - start, left = passed < ns ? ns - passed : 0;
  if (nsec) *(struct timespec *)timeout = vt_timespec(left);
  else *(struct timeval *)timeout = (struct timeval){(time_t)(left / 1000000000u),
                                                     (suseconds_t)(left % 1000000000u / 1000u)};
  return n;
}

/* poll's array of n struct pollfd: read, and the results written into it; 0, -EINVAL
 * (more than nr_open, the most RLIMIT_NOFILE allows) or -EFAULT. */
static int64_t pollfds(Cpu *c, uint64_t addr, uint64_t n, struct pollfd **out) {
  if (n > (1u << 20)) return -EINVAL;
  return guest_area(c, addr, n * sizeof **out, RW, (void **)out) ? 0 : -EFAULT;
}

typedef struct PollLook {
  struct pollfd *fds;
  nfds_t n;
} PollLook;

static int64_t poll_look(void *arg) {
  const PollLook *p = arg;
  return host_result(poll(p->fds, p->n, 0));
}

/* poll and ppoll on fds, the guest's array or own_fds_polled's copy of it. */
static int64_t poll_on(Cpu *c, const uint64_t *a, struct pollfd *fds) {
  int timeout = (int)a[2];
  if (!det_on(c) || timeout == 0) return host_result(poll(fds, (nfds_t)a[1], timeout));
  PollLook look = {fds, (nfds_t)a[1]};
  int64_t n = vt_timed_call(c, timeout < 0 ? VT_FOREVER : (uint64_t)timeout * 1000000u, 0, poll_look, &look);
  return n == 0 && timeout < 0 ? host_result(poll(fds, (nfds_t)a[1], -1)) : n;
}

/* ppoll's and pselect6's signal mask is the guest's for the wait (signals.c): a handler
 * it lets through runs with it, and the guest's mask comes back after. The raw host
 * calls take the kernel's 8-byte sigset. */

static int64_t ppoll_on(Cpu *c, const uint64_t *a, struct pollfd *fds) {
  void *timeout; /* the time left is written back */
  if (!guest_area(c, a[2], 16, RW, &timeout)) return -EFAULT;
  PollLook look = {fds, (nfds_t)a[1]};
  if (!a[3]) {
    int64_t r = wait_virtually_left(c, timeout, true, poll_look, &look);
    return r != -ENOSYS ? r
                        : host_result(syscall(SYS_ppoll, fds, (unsigned long)a[1], timeout, NULL, (size_t)a[4]));
  }
  if (a[4] != X64_SIGSET_SIZE) return -EINVAL;
  uint64_t mask, host_mask;
  int r = guest_copy_in(c, &mask, a[3], sizeof mask);
  if (r < 0) return r;
  int64_t ret = -EINTR;
  if (signals_wait_mask_begin(c, mask, &host_mask)) {
    ret = wait_virtually_left(c, timeout, true, poll_look, &look);
    if (ret == -ENOSYS)
      ret = host_result(syscall(SYS_ppoll, fds, (unsigned long)a[1], timeout, &host_mask,
                                sizeof host_mask));
  }
  signals_wait_mask_end(c, ret == -EINTR);
  return ret;
}

/* poll and ppoll: the guest's array, in which x64emu's own descriptors are closed ones
 * (own_fds_polled), given to the call's wait. */
static int64_t poll_guest(Cpu *c, const uint64_t *a, int64_t (*on)(Cpu *, const uint64_t *, struct pollfd *)) {
  struct pollfd *fds;
  int64_t r = pollfds(c, a[0], a[1], &fds);
  if (r < 0) return r;
  struct pollfd *shown = own_fds_polled(fds, (size_t)a[1]);
  r = on(c, a, shown);
  own_fds_polled_done(fds, shown, (size_t)a[1]);
  return r;
}

int64_t sys_poll(Cpu *c, const uint64_t *a) { return poll_guest(c, a, poll_on); }
int64_t sys_ppoll(Cpu *c, const uint64_t *a) { return poll_guest(c, a, ppoll_on); }

/* select(2) updates the timeout with the time left, as Linux does; glibc's select keeps
 * that behaviour on hosts that only have pselect6. */
/* select's three fd_sets of nfds bits, read and written back, and its timeout (the time
 * left is written back): found the guest's into sets[3] and *timeout; EBADF when they
 * name one of x64emu's own descriptors, as for a closed one. */
static int64_t select_args(Cpu *c, const uint64_t *a, void *sets[3], void **timeout) {
  /* The kernel's order: the timeout, then the count, then the sets. */
  if (!guest_area(c, a[4], 16, RW, timeout)) return -EFAULT;
  int nfds = (int)a[0];
  if (nfds < 0) return -EINVAL;
  uint64_t bytes = ((uint64_t)nfds + 63) / 64 * 8;
  for (int i = 0; i < 3; i++)
    if (!guest_area(c, a[1 + i], bytes, RW, &sets[i])) return -EFAULT;
  return own_fd_selected(nfds, sets) ? -EBADF : 0;
}

/* select's looks without waiting: each from the sets as the guest gave them (a look
 * that finds nothing clears them). */
typedef struct SelectLook {
  int nfds;
  void *sets[3];
  uint8_t *given; /* the three sets as given, bytes each */
  uint64_t bytes;
} SelectLook;

static int64_t select_look(void *arg) {
  SelectLook *s = arg;
  for (int i = 0; i < 3; i++)
    if (s->sets[i]) memcpy(s->sets[i], s->given + i * s->bytes, s->bytes);
  struct timeval none = {0, 0};
  return host_result(select(s->nfds, s->sets[0], s->sets[1], s->sets[2], &none));
}

/* select and pselect6 under --deterministic (wait_virtually_left). */
static int64_t select_virtually(Cpu *c, int nfds, void *sets[3], void *timeout, bool nsec) {
  if (!det_on(c)) return -ENOSYS;
  SelectLook look = {nfds, {sets[0], sets[1], sets[2]}, NULL, ((uint64_t)nfds + 63) / 64 * 8};
  if (!(look.given = malloc(3 * look.bytes + 1))) return -ENOMEM;
  for (int i = 0; i < 3; i++)
    if (sets[i]) memcpy(look.given + i * look.bytes, sets[i], look.bytes);
  int64_t n = wait_virtually_left(c, timeout, nsec, select_look, &look);
  for (int i = 0; i < 3 && n == -ENOSYS; i++) /* the host waits on the sets as given */
    if (sets[i]) memcpy(sets[i], look.given + i * look.bytes, look.bytes);
  free(look.given);
  return n;
}

int64_t sys_select(Cpu *c, const uint64_t *a) {
  void *sets[3], *timeout;
  int64_t r = select_args(c, a, sets, &timeout);
  if (r < 0) return r;
  if ((r = select_virtually(c, (int)a[0], sets, timeout, false)) != -ENOSYS) return r;
  return host_result(select((int)a[0], sets[0], sets[1], sets[2], timeout));
}

/* pselect6's last argument points at {sigset pointer, its size}. */
/* The kernel's order: the signal argument's pair, the timeout, the mask, then select's. */
int64_t sys_pselect6(Cpu *c, const uint64_t *a) {
  void *sets[3], *timeout;
  uint64_t pack[2] = {0, 0};
  if (a[5] && guest_copy_in(c, pack, a[5], sizeof pack) < 0) return -EFAULT;
  if (!guest_area(c, a[4], 16, RW, &timeout)) return -EFAULT;
  uint64_t mask, host_mask;
  if (pack[0] && pack[1] != X64_SIGSET_SIZE) return -EINVAL;
  if (pack[0] && guest_copy_in(c, &mask, pack[0], sizeof mask) < 0) return -EFAULT;
  int64_t bad = select_args(c, a, sets, &timeout);
  if (bad < 0) return bad;
  if (!pack[0]) {
    int64_t r = select_virtually(c, (int)a[0], sets, timeout, true);
    return r != -ENOSYS ? r
                        : host_result(syscall(SYS_pselect6, (int)a[0], sets[0], sets[1], sets[2],
                                              timeout, a[5] ? pack : NULL));
  }
  int64_t ret = -EINTR;
  if (signals_wait_mask_begin(c, mask, &host_mask)) {
    uint64_t host_pack[2] = {(uint64_t)(uintptr_t)&host_mask, sizeof host_mask};
    ret = select_virtually(c, (int)a[0], sets, timeout, true);
    if (ret == -ENOSYS)
      ret = host_result(syscall(SYS_pselect6, (int)a[0], sets[0], sets[1], sets[2], timeout,
                                host_pack));
  }
  signals_wait_mask_end(c, ret == -EINTR);
  return ret;
}
