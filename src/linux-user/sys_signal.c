/* sys_signal.c: the signal system calls: dispositions, mask, pending signals, waiting,
 * the alternate stack and rt_sigreturn, over the state in signals.c. */
#define _GNU_SOURCE
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "determinism.h"
#include "sigframe.h"
#include "signals.h"
#include "sys_common.h"
#include "turns.h"
#include "virtual_time.h"

#define NOT_BLOCKABLE (X64_SIGBIT(SIGKILL) | X64_SIGBIT(SIGSTOP))

int64_t sys_rt_sigaction(Cpu *c, const uint64_t *a) {
  /* The kernel's order: the set's size, the new action's copy, the signal, the old's. */
  int sig = (int)a[0];
  if (a[3] != X64_SIGSET_SIZE) return -EINVAL;
  X64Sigaction act, old;
  if (a[1]) {
    int r = guest_copy_in(c, &act, a[1], sizeof act);
    if (r < 0) return r;
  }
  if (sig < 1 || sig > X64_NSIG) return -EINVAL;
  if (a[1] && (sig == SIGKILL || sig == SIGSTOP)) return -EINVAL;
  signals_action(c, sig, a[1] ? &act : NULL, &old);
  return a[2] ? guest_copy_out(c, a[2], &old, sizeof old) : 0;
}

enum { X64_SIG_BLOCK = 0, X64_SIG_UNBLOCK = 1, X64_SIG_SETMASK = 2 };

int64_t sys_rt_sigprocmask(Cpu *c, const uint64_t *a) {
  if (a[3] != X64_SIGSET_SIZE) return -EINVAL;
  uint64_t old = signals_mask(c);
  if (a[1]) {
    uint64_t set;
    int r = guest_copy_in(c, &set, a[1], sizeof set);
    if (r < 0) return r;
    switch ((int)a[0]) {
    case X64_SIG_BLOCK: set |= old; break;
    case X64_SIG_UNBLOCK: set = old & ~set; break;
    case X64_SIG_SETMASK: break;
    default: return -EINVAL;
    }
    signals_set_mask(c, set);
  }
  return a[2] ? guest_copy_out(c, a[2], &old, sizeof old) : 0;
}

int64_t sys_rt_sigpending(Cpu *c, const uint64_t *a) {
  if (a[1] > X64_SIGSET_SIZE) return -EINVAL;
  uint64_t pending = signals_pending(c);
  return guest_copy_out(c, a[0], &pending, a[1]);
}

int64_t sys_rt_sigsuspend(Cpu *c, const uint64_t *a) {
  if (a[1] != X64_SIGSET_SIZE) return -EINVAL;
  uint64_t mask;
  int r = guest_copy_in(c, &mask, a[0], sizeof mask);
  if (r < 0) return r;
  return signals_suspend(c, &mask);
}

int64_t sys_pause(Cpu *c, const uint64_t *a) { return signals_suspend(c, NULL); }

/* The host's sigtimedwait, the siginfo it takes made the guest's. */
static int64_t host_wait(Cpu *c, uint64_t set, uint8_t *info, const struct timespec *timeout) {
  uint64_t *awaited = &thread_of(c)->sig.awaited;
  __atomic_store_n(awaited, set, __ATOMIC_RELEASE);
  int64_t sig = host_result(syscall(SYS_rt_sigtimedwait, &set, info, timeout, sizeof set));
  __atomic_store_n(awaited, 0, __ATOMIC_RELEASE);
  if (sig > 0) signals_host_dequeued(c, info);
  return sig;
}

/* A signal of set that is pending on the host, without waiting: its number, or -EAGAIN. */
static int64_t host_look(Cpu *c, uint64_t set, uint8_t *info) {
  static const struct timespec none = {0, 0};
  return host_wait(c, set, info, &none);
}

/* rt_sigtimedwait(set, info, timeout, size). A signal already taken from the host (or
 * raised by a virtual timer) is dequeued here; otherwise the host waits (the guest's
 * blocked signals are blocked on the host, where they stay pending). Under
 * --deterministic the wait passes on the virtual clock, ended early by a timer that
 * raises a signal of the set; one without a timeout waits in the host once no timer
 * is left to pass time to. */
int64_t sys_rt_sigtimedwait(Cpu *c, const uint64_t *a) {
  if (a[3] != X64_SIGSET_SIZE) return -EINVAL;
  uint64_t set;
  int r = guest_copy_in(c, &set, a[0], sizeof set);
  if (r < 0) return r;
  set &= ~NOT_BLOCKABLE;
  uint8_t info[128] = {0};
  int64_t sig = signals_take_blocked(c, set, info);
  if (!sig) {
    if (signals_handler_due(c)) return -EINTR; /* the handler runs first, as natively */
    struct timespec timeout;
    if (a[2] && guest_copy_in(c, &timeout, a[2], sizeof timeout) < 0) return -EFAULT;
    const bool timed = a[2] != 0;
    bool virtual_wait = det_on(c) && (!timed || (vt_valid_timespec(&timeout) && vt_ns(&timeout)));
    if (virtual_wait && (sig = host_look(c, set, info)) == -EAGAIN) {
      uint64_t ns = timed ? vt_ns(&timeout) : VT_FOREVER;
      sig = vt_wait_signal(c, ns, set) ? signals_take_blocked(c, set, info) : 0;
      if (!sig && signals_handler_due(c)) return -EINTR;
      if (!sig) sig = timed ? host_look(c, set, info) : host_wait(c, set, info, NULL);
    } else if (!virtual_wait) {
      sig = host_wait(c, set, info, a[2] ? &timeout : NULL);
    }
    if (sig < 0) return sig;
  }
  if (a[1]) {
    r = guest_copy_out(c, a[1], info, sizeof info);
    if (r < 0) return r;
  }
  return sig;
}

/* signalfd4(fd, mask, sizemask, flags): the host's own. The guest's blocked signals are
 * blocked on the host and wait in its pending set, which is what the descriptor reads
 * (struct signalfd_siginfo and the SFD_* flags are the same on every host). Under
 * --deterministic ENOSYS: a virtual timer's signal never reaches the host's pending set,
 * and the sender's pid there is the host's. */
int64_t sys_signalfd4(Cpu *c, const uint64_t *a) {
  if (det_on(c)) return -ENOSYS;
  if (a[2] != X64_SIGSET_SIZE) return -EINVAL;
  uint64_t set;
  int r = guest_copy_in(c, &set, a[1], sizeof set);
  if (r < 0) return r;
  return host_result(syscall(SYS_signalfd4, arg_fd(a[0]), &set, sizeof set, (int)a[3]));
}

int64_t sys_signalfd(Cpu *c, const uint64_t *a) {
  uint64_t args[4] = {a[0], a[1], a[2], 0};
  return sys_signalfd4(c, args);
}

/* siginfo_t is the same on every 64-bit host; the kernel checks who may send what. */
int64_t sys_rt_sigqueueinfo(Cpu *c, const uint64_t *a) {
  X64Siginfo info;
  int r = guest_copy_in(c, &info, a[2], sizeof info);
  return r < 0 ? r : host_result(syscall(SYS_rt_sigqueueinfo, (pid_t)det_pid_in(c, (pid_t)a[0]), (int)a[1], &info));
}

int64_t sys_rt_tgsigqueueinfo(Cpu *c, const uint64_t *a) {
  X64Siginfo info;
  int r = guest_copy_in(c, &info, a[3], sizeof info);
  if (r < 0) return r;
  pid_t tid = (pid_t)det_pid_in(c, (pid_t)a[1]);
  int64_t sent = host_result(syscall(SYS_rt_tgsigqueueinfo, (pid_t)det_pid_in(c, (pid_t)a[0]), tid, (int)a[2], &info));
  if (sent == 0) turns_signal_sent(c, tid, (int)a[2]); /* seen at once if it waits (turns.h) */
  return sent;
}

/* The new stack is read before anything changes; the old one is written only if the
 * call succeeded, as the kernel does. */
int64_t sys_sigaltstack(Cpu *c, const uint64_t *a) {
  X64StackT ss, old;
  if (a[0]) {
    int r = guest_copy_in(c, &ss, a[0], sizeof ss);
    if (r < 0) return r;
  }
  int r = signals_altstack(c, c->r[RSP], a[0] ? &ss : NULL, &old);
  if (r < 0) return r;
  return a[1] ? guest_copy_out(c, a[1], &old, sizeof old) : 0;
}

int64_t sys_rt_sigreturn(Cpu *c, const uint64_t *a) { return signals_sigreturn(c); }
