/* signals.c: the guest's signal dispositions, mask and alternate stack; delivery (minimal for now). */
#define _GNU_SOURCE
#include "signals.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "sys_common.h"
#include "sys_x64.h"

#define X64_NSIG 64
#define X64_SIG_DFL 0
#define X64_SIG_IGN 1
#define X64_SS_ONSTACK 1
#define X64_SS_DISABLE 2
#define X64_SS_AUTODISARM (1u << 31)
#define X64_MINSIGSTKSZ 2048
#define BIT(sig) (1ull << ((sig) - 1))
#define UNBLOCKABLE (BIT(SIGKILL) | BIT(SIGSTOP))

static X64Sigaction actions[X64_NSIG + 1];
static bool action_known[X64_NSIG + 1];
static uint64_t guest_mask;
static bool mask_known;
static X64StackT alt_stack = {.ss_flags = X64_SS_DISABLE};

/* Signals the emulator raises itself from guest faults: the host must always deliver them
 * to fault.c, so the guest's wishes for them stay in the guest's state only. */
static bool is_sync_signal(int sig) {
  return sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE || sig == SIGTRAP ||
         sig == SIGSYS;
}

/* What the guest starts with: what it inherited through exec, i.e. the host's ignored
 * signals and blocked mask. */
static X64Sigaction *action_of(int sig) {
  if (!action_known[sig]) {
    struct sigaction host;
    memset(&actions[sig], 0, sizeof actions[sig]);
    if (!is_sync_signal(sig) && sigaction(sig, NULL, &host) == 0 && host.sa_handler == SIG_IGN)
      actions[sig].handler = X64_SIG_IGN;
    action_known[sig] = true;
  }
  return &actions[sig];
}

static uint64_t mask_now(void) {
  if (!mask_known) {
    sigset_t host;
    sigprocmask(SIG_BLOCK, NULL, &host);
    guest_mask = 0;
    for (int sig = 1; sig <= X64_NSIG; sig++)
      if (sigismember(&host, sig) == 1) guest_mask |= BIT(sig);
    mask_known = true;
  }
  return guest_mask;
}

/* ---- the calls ---- */

/* SIG_IGN is applied on the host too, so that ignoring SIGPIPE makes writes fail with
 * EPIPE and ignored signals stay ignored across exec. A guest handler leaves the host's
 * default action: handlers are not run yet (see signals_deliver_pending). */
static void apply_to_host(int sig, uint64_t handler) {
  if (is_sync_signal(sig) || sig == SIGKILL || sig == SIGSTOP) return;
  struct sigaction host;
  memset(&host, 0, sizeof host);
  host.sa_handler = handler == X64_SIG_IGN ? SIG_IGN : SIG_DFL;
  sigemptyset(&host.sa_mask);
  sigaction(sig, &host, NULL); /* fails harmlessly for the host libc's own signals */
}

int64_t sys_rt_sigaction(Cpu *c, const uint64_t *a) {
  int sig = (int)a[0];
  if (a[3] != 8 || sig < 1 || sig > X64_NSIG) return -EINVAL;
  if (a[1] && (sig == SIGKILL || sig == SIGSTOP)) return -EINVAL;
  X64Sigaction old = *action_of(sig);
  if (a[1]) {
    X64Sigaction act;
    int r = guest_copy_in(&act, a[1], sizeof act);
    if (r < 0) return r;
    act.mask &= ~UNBLOCKABLE;
    actions[sig] = act;
    apply_to_host(sig, act.handler);
  }
  return a[2] ? guest_copy_out(a[2], &old, sizeof old) : 0;
}

enum { X64_SIG_BLOCK = 0, X64_SIG_UNBLOCK = 1, X64_SIG_SETMASK = 2 };

/* The guest's mask is applied to the host for asynchronous signals, so that a blocked
 * signal waits, and the mask is inherited across fork and exec as natively. */
int64_t sys_rt_sigprocmask(Cpu *c, const uint64_t *a) {
  if (a[3] != 8) return -EINVAL;
  uint64_t old = mask_now();
  if (a[1]) {
    uint64_t set;
    int r = guest_copy_in(&set, a[1], sizeof set);
    if (r < 0) return r;
    uint64_t mask;
    switch ((int)a[0]) {
    case X64_SIG_BLOCK: mask = old | set; break;
    case X64_SIG_UNBLOCK: mask = old & ~set; break;
    case X64_SIG_SETMASK: mask = set; break;
    default: return -EINVAL;
    }
    guest_mask = mask & ~UNBLOCKABLE;
    sigset_t host;
    sigemptyset(&host);
    for (int sig = 1; sig <= X64_NSIG; sig++)
      if ((guest_mask & BIT(sig)) && !is_sync_signal(sig)) sigaddset(&host, sig);
    sigprocmask(SIG_SETMASK, &host, NULL);
  }
  return a[2] ? guest_copy_out(a[2], &old, sizeof old) : 0;
}

/* Recorded for the guest only: the host's alternate stack belongs to fault.c. */
int64_t sys_sigaltstack(Cpu *c, const uint64_t *a) {
  X64StackT old = alt_stack;
  if (a[0]) {
    X64StackT ss;
    int r = guest_copy_in(&ss, a[0], sizeof ss);
    if (r < 0) return r;
    uint32_t mode = (uint32_t)ss.ss_flags & ~X64_SS_AUTODISARM;
    if (mode != 0 && mode != X64_SS_DISABLE && mode != X64_SS_ONSTACK) return -EINVAL;
    if (mode == X64_SS_DISABLE) {
      ss.ss_sp = 0;
      ss.ss_size = 0;
    } else if (ss.ss_size < X64_MINSIGSTKSZ) {
      return -ENOMEM;
    }
    ss.ss_flags = (int32_t)(mode == X64_SS_DISABLE ? X64_SS_DISABLE : (uint32_t)ss.ss_flags & X64_SS_AUTODISARM);
    ss.pad = 0;
    alt_stack = ss;
  }
  return a[1] ? guest_copy_out(a[1], &old, sizeof old) : 0;
}

/* ---- delivery ---- */

void signals_deliver_sync(Cpu *c, int sig, int code, uint64_t addr) {
  uint64_t handler = sig >= 1 && sig <= X64_NSIG ? action_of(sig)->handler : X64_SIG_DFL;
  if (handler != X64_SIG_DFL && handler != X64_SIG_IGN)
    fprintf(stderr,
            "x64emu: the guest's handler for SIG%s (at %#llx) is not run: delivery to "
            "signal handlers is not implemented yet; the guest dies of the signal\n",
            sigabbrev_np(sig) ? sigabbrev_np(sig) : "?", (unsigned long long)handler);
  /* A fault the guest ignores or blocks still kills it, as the kernel forces it. */
  c->term_signal = sig;
  c->events |= EV_EXIT;
}

/* No host handler notes asynchronous signals yet: they keep their host default action. */
void signals_deliver_pending(Cpu *c) { c->events &= ~EV_SIGNAL; }
