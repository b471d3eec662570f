/* sys_io.c: reading, writing and polling file descriptors. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/select.h>
#include <sys/sendfile.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "../interp/fault.h"
#include "determinism.h"
#include "signals.h"
#include "sys_common.h"

/* struct iovec, struct pollfd, fd_set and struct timespec/timeval have the same layout
 * on every 64-bit Linux host, so guest arrays of them are handed to the host as they are. */

int64_t sys_read(Cpu *c, const uint64_t *a) {
  if (det_on(c) && det_random_device(arg_fd(a[0]))) return det_read(c, a[1], a[2]);
  return host_result(read(arg_fd(a[0]), GUEST_PTR(a[1]), a[2]));
}

int64_t sys_write(Cpu *c, const uint64_t *a) {
  return host_result(write(arg_fd(a[0]), GUEST_PTR(a[1]), a[2]));
}

int64_t sys_readv(Cpu *c, const uint64_t *a) {
  if (det_on(c) && det_random_device(arg_fd(a[0]))) {
    struct iovec iov[64];
    int n = (int)a[2] < 64 ? (int)a[2] : 64;
    if ((int)a[2] < 0) return -EINVAL;
    if (fault_copy_in(iov, a[1], (unsigned)(n * sizeof *iov)) != n * sizeof *iov) return -EFAULT;
    int64_t total = 0;
    for (int i = 0; i < n; i++) {
      int64_t r = det_read(c, (uint64_t)(uintptr_t)iov[i].iov_base, iov[i].iov_len);
      if (r < 0) return total ? total : r;
      total += r;
    }
    return total;
  }
  return host_result(readv(arg_fd(a[0]), GUEST_PTR(a[1]), (int)a[2]));
}

int64_t sys_writev(Cpu *c, const uint64_t *a) {
  return host_result(writev(arg_fd(a[0]), GUEST_PTR(a[1]), (int)a[2]));
}

int64_t sys_pread64(Cpu *c, const uint64_t *a) {
  if (det_on(c) && det_random_device(arg_fd(a[0]))) return -ESPIPE; /* as the device says */
  return host_result(pread(arg_fd(a[0]), GUEST_PTR(a[1]), a[2], (off_t)a[3]));
}

int64_t sys_pwrite64(Cpu *c, const uint64_t *a) {
  return host_result(pwrite(arg_fd(a[0]), GUEST_PTR(a[1]), a[2], (off_t)a[3]));
}

/* preadv(fd, iov, cnt, pos_l, pos_h): on a 64-bit kernel pos_l holds the whole offset. */
int64_t sys_preadv(Cpu *c, const uint64_t *a) {
  return host_result(preadv(arg_fd(a[0]), GUEST_PTR(a[1]), (int)a[2], (off_t)a[3]));
}

int64_t sys_pwritev(Cpu *c, const uint64_t *a) {
  return host_result(pwritev(arg_fd(a[0]), GUEST_PTR(a[1]), (int)a[2], (off_t)a[3]));
}

int64_t sys_preadv2(Cpu *c, const uint64_t *a) {
  return host_result(preadv2(arg_fd(a[0]), GUEST_PTR(a[1]), (int)a[2], (off_t)a[3], (int)a[5]));
}

int64_t sys_pwritev2(Cpu *c, const uint64_t *a) {
  return host_result(pwritev2(arg_fd(a[0]), GUEST_PTR(a[1]), (int)a[2], (off_t)a[3], (int)a[5]));
}

int64_t sys_lseek(Cpu *c, const uint64_t *a) {
  return host_result(lseek(arg_fd(a[0]), (off_t)a[1], (int)a[2]));
}

int64_t sys_sendfile(Cpu *c, const uint64_t *a) {
  return host_result(sendfile(arg_fd(a[0]), arg_fd(a[1]), GUEST_PTR(a[2]), a[3]));
}

int64_t sys_copy_file_range(Cpu *c, const uint64_t *a) {
  return host_result(copy_file_range(arg_fd(a[0]), GUEST_PTR(a[1]), arg_fd(a[2]), GUEST_PTR(a[3]),
                                     a[4], (unsigned)a[5]));
}

/* struct linux_dirent64 is the same on every architecture. */
int64_t sys_getdents64(Cpu *c, const uint64_t *a) {
  return host_result(syscall(SYS_getdents64, arg_fd(a[0]), GUEST_PTR(a[1]), (unsigned)a[2]));
}

int64_t sys_fsync(Cpu *c, const uint64_t *a) { return host_result(fsync(arg_fd(a[0]))); }

int64_t sys_fdatasync(Cpu *c, const uint64_t *a) { return host_result(fdatasync(arg_fd(a[0]))); }

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

/* With --deterministic a timeout passes on the virtual clock: a look without waiting,
 * the time let pass, a second look. */
int64_t sys_poll(Cpu *c, const uint64_t *a) {
  int timeout = (int)a[2];
  if (!det_on(c) || timeout <= 0) return host_result(poll(GUEST_PTR(a[0]), (nfds_t)a[1], timeout));
  int64_t n = host_result(poll(GUEST_PTR(a[0]), (nfds_t)a[1], 0));
  if (n != 0) return n;
  n = vt_wait_out(c, (uint64_t)timeout * 1000000u);
  return n ? n : host_result(poll(GUEST_PTR(a[0]), (nfds_t)a[1], 0));
}

/* ppoll's and pselect6's signal mask is the guest's for the wait (signals.c): a handler
 * it lets through runs with it, and the guest's mask comes back after. The raw host
 * calls take the kernel's 8-byte sigset. */

int64_t sys_ppoll(Cpu *c, const uint64_t *a) {
  if (!a[3])
    return host_result(syscall(SYS_ppoll, GUEST_PTR(a[0]), (unsigned long)a[1], GUEST_PTR(a[2]),
                               NULL, (size_t)a[4]));
  if (a[4] != X64_SIGSET_SIZE) return -EINVAL;
  uint64_t mask, host_mask;
  int r = guest_copy_in(&mask, a[3], sizeof mask);
  if (r < 0) return r;
  int64_t ret = -EINTR;
  if (signals_wait_mask_begin(c, mask, &host_mask))
    ret = host_result(syscall(SYS_ppoll, GUEST_PTR(a[0]), (unsigned long)a[1], GUEST_PTR(a[2]),
                              &host_mask, sizeof host_mask));
  signals_wait_mask_end(c, ret == -EINTR);
  return ret;
}

/* select(2) updates the timeout with the time left, as Linux does; glibc's select keeps
 * that behaviour on hosts that only have pselect6. */
int64_t sys_select(Cpu *c, const uint64_t *a) {
  return host_result(select((int)a[0], GUEST_PTR(a[1]), GUEST_PTR(a[2]), GUEST_PTR(a[3]),
                            GUEST_PTR(a[4])));
}

/* pselect6's last argument points at {sigset pointer, its size}. */
int64_t sys_pselect6(Cpu *c, const uint64_t *a) {
  uint64_t pack[2] = {0, 0};
  if (a[5]) {
    int r = guest_copy_in(pack, a[5], sizeof pack);
    if (r < 0) return r;
  }
  if (!pack[0])
    return host_result(syscall(SYS_pselect6, (int)a[0], GUEST_PTR(a[1]), GUEST_PTR(a[2]),
                               GUEST_PTR(a[3]), GUEST_PTR(a[4]), GUEST_PTR(a[5])));
  if (pack[1] != X64_SIGSET_SIZE) return -EINVAL;
  uint64_t mask, host_mask;
  int r = guest_copy_in(&mask, pack[0], sizeof mask);
  if (r < 0) return r;
  int64_t ret = -EINTR;
  if (signals_wait_mask_begin(c, mask, &host_mask)) {
    uint64_t host_pack[2] = {(uint64_t)(uintptr_t)&host_mask, sizeof host_mask};
    ret = host_result(syscall(SYS_pselect6, (int)a[0], GUEST_PTR(a[1]), GUEST_PTR(a[2]),
                              GUEST_PTR(a[3]), GUEST_PTR(a[4]), host_pack));
  }
  signals_wait_mask_end(c, ret == -EINTR);
  return ret;
}
