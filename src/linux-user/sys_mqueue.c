/* sys_mqueue.c: POSIX message queues, the host's own (a queue is a descriptor; struct
 * mq_attr, struct sigevent and struct timespec are the same on every 64-bit host).
 * A queue's name is not a path: the sysroot never applies to it.
 *
 * Under --deterministic a timed send or receive waits on the virtual clock, as the other
 * timed waits do: the guest's absolute time is the virtual clock's, which the host's
 * queue does not know. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "determinism.h"
#include "sys_common.h"
#include "virtual_time.h"

enum { MQ_ATTR_SIZE = 64, SIGEVENT_SIZE = 64, NOTIFY_COOKIE_LEN = 32 };
enum { X64_SIGEV_THREAD = 2 };
/* The largest message a queue can hold (the kernel's HARD_MSGSIZEMAX). */
#define MQ_MSGSIZE_MAX (16u << 20)

/* The open flags a queue takes, whose numbers are the same on every host (others, such
 * as x86-64's O_LARGEFILE, are other flags' numbers elsewhere and mean nothing here). */
#define MQ_OPEN_FLAGS (O_ACCMODE | O_CREAT | O_EXCL | O_NONBLOCK | O_CLOEXEC)

/* The guest's queue name (glibc's mq_open has taken off its leading '/') into buf, after
 * a '/': qemu-user, which runs the aarch64 build in this project's tests, reads the name
 * from the byte before it, as glibc's own call leaves it. The name, or NULL with *err. */
static const char *read_name(Cpu *c, char buf[PATH_MAX + 1], uint64_t at, int64_t *err) {
  buf[0] = '/';
  *err = guest_read_str(c, buf + 1, PATH_MAX, at);
  return *err < 0 ? NULL : buf + 1;
}

int64_t sys_mq_open(Cpu *c, const uint64_t *a) {
  char buf[PATH_MAX + 1];
  int64_t r;
  const char *name = read_name(c, buf, a[0], &r);
  if (!name) return r;
  int flags = (int)a[1] & MQ_OPEN_FLAGS;
  bool with_attr = a[3] && (flags & O_CREAT);
  uint8_t attr[MQ_ATTR_SIZE];
  if (with_attr && guest_copy_in(c, attr, a[3], sizeof attr) < 0) return -EFAULT;
  return host_result(syscall(SYS_mq_open, name, flags, (mode_t)a[2], with_attr ? attr : NULL));
}

int64_t sys_mq_unlink(Cpu *c, const uint64_t *a) {
  char buf[PATH_MAX + 1];
  int64_t r;
  const char *name = read_name(c, buf, a[0], &r);
  return name ? host_result(syscall(SYS_mq_unlink, name)) : r;
}

/* A send or receive: the host's call and its arguments, the timeout last. */
typedef struct MqCall {
  long nr;
  long args[5];
} MqCall;

static int64_t mq_call_look(void *arg) {
  const MqCall *m = arg;
  return host_result(syscall(m->nr, m->args[0], m->args[1], m->args[2], m->args[3], m->args[4]));
}

/* The call with the guest's absolute timeout at `at` (none when 0), read as the kernel
 * checks it (-EFAULT, -EINVAL) before the call. Under --deterministic the host is given
 * a time already past, and the time left to the guest's on the virtual clock passes there
 * (vt_timed_call) if the queue would have it wait. */
static int64_t mq_call(Cpu *c, MqCall *m, uint64_t at) {
  struct timespec ts;
  uint64_t wait_ns = 0;
  m->args[4] = 0;
  if (at) {
    if (guest_copy_in(c, &ts, at, sizeof ts) < 0) return -EFAULT;
    if (det_on(c)) {
      if (!vt_valid_timespec(&ts)) return -EINVAL;
      uint64_t due = vt_ns(&ts), now = vt_now(c, CLOCK_REALTIME);
      wait_ns = due > now ? due - now : 0;
      ts = (struct timespec){0, 0};
    }
    m->args[4] = (long)&ts;
  }
  return vt_timed_call(c, wait_ns, -ETIMEDOUT, mq_call_look, m);
}

/* The message is read in place (a null pointer, the host's EFAULT after its own checks,
 * where it is not the guest's). */
int64_t sys_mq_timedsend(Cpu *c, const uint64_t *a) {
  void *msg;
  if (!guest_area(c, a[1], a[2], GUEST_PROT_READ, &msg)) msg = NULL;
  MqCall m = {SYS_mq_timedsend, {arg_fd(a[0]), (long)msg, (long)a[2], (long)(unsigned)a[3]}};
  return mq_call(c, &m, a[4]);
}

/* Received into the guest's buffer or bounced (recv_buf_open); EFAULT for the priority
 * loses the message too, as the kernel's copy does. */
int64_t sys_mq_timedreceive(Cpu *c, const uint64_t *a) {
  size_t len = (size_t)a[2];
  unsigned prio;
  RecvBuf b;
  void *buf = recv_buf_open(c, &b, a[1], &len, MQ_MSGSIZE_MAX); /* no message is longer */
  if (!buf) return -ENOMEM;
  MqCall m = {SYS_mq_timedreceive, {arg_fd(a[0]), (long)buf, (long)len, (long)&prio}};
  int64_t n = mq_call(c, &m, a[4]);
  if (n >= 0 && a[3] && guest_copy_out(c, a[3], &prio, sizeof prio) < 0) n = -EFAULT;
  return recv_buf_done(c, &b, n);
}

/* With SIGEV_THREAD (glibc's helper thread) the kernel reads a cookie through
 * sigev_value.sival_ptr: it must be the guest's. */
int64_t sys_mq_notify(Cpu *c, const uint64_t *a) {
  uint8_t ev[SIGEVENT_SIZE];
  if (a[1] && guest_copy_in(c, ev, a[1], sizeof ev) < 0) return -EFAULT;
  if (a[1]) {
    int32_t how;
    uint64_t cookie;
    memcpy(&how, ev + 12, sizeof how); /* after sigev_value (8) and sigev_signo (4) */
    memcpy(&cookie, ev, sizeof cookie);
    void *unused;
    if (how == X64_SIGEV_THREAD &&
        !guest_area(c, cookie, NOTIFY_COOKIE_LEN, GUEST_PROT_READ, &unused))
      return -EFAULT;
  }
  return host_result(syscall(SYS_mq_notify, arg_fd(a[0]), a[1] ? ev : NULL));
}

int64_t sys_mq_getsetattr(Cpu *c, const uint64_t *a) {
  uint8_t new_attr[MQ_ATTR_SIZE], old_attr[MQ_ATTR_SIZE];
  if (a[1] && guest_copy_in(c, new_attr, a[1], sizeof new_attr) < 0) return -EFAULT;
  int64_t r = host_result(syscall(SYS_mq_getsetattr, arg_fd(a[0]), a[1] ? new_attr : NULL,
                                  a[2] ? old_attr : NULL));
  if (r == 0 && a[2] && guest_copy_out(c, a[2], old_attr, sizeof old_attr) < 0) return -EFAULT;
  return r;
}
