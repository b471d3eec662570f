/* signals.c: the guest's signal state (dispositions, mask, alternate stack, pending
 * signals) and delivery as the x86-64 kernel does it.
 *
 * A guest handler is backed by a host handler that only notes the signal and its siginfo
 * and sets EV_SIGNAL; the dispatch loop then delivers it at the next block boundary.
 * The host blocks what the guest blocks, so blocked signals wait in the host's own
 * pending set, and a noted signal stays blocked on the host until it is delivered. */
#define _GNU_SOURCE
#include "signals.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "../interp/fault.h"
#include "../loader/guest_space.h"
#include "determinism.h"
#include "host_signals.h"
#include "sigframe.h"
#include "sys_common.h"
#include "turns.h"
#include "virtual_time.h"

#define BIT X64_SIGBIT
#define UNBLOCKABLE (BIT(SIGKILL) | BIT(SIGSTOP))
/* fault.c catches these on the host to turn faults on guest memory into guest signals:
 * they never get another host handler and are never blocked there. */
#define HOST_FAULTS (BIT(SIGSEGV) | BIT(SIGBUS))
/* The kernel delivers these before the others (SYNCHRONOUS_MASK). */
#define SYNCHRONOUS \
  (BIT(SIGSEGV) | BIT(SIGBUS) | BIT(SIGILL) | BIT(SIGTRAP) | BIT(SIGFPE) | BIT(SIGSYS))

enum {
  X64_SA_NOCLDSTOP = 0x1, X64_SA_NOCLDWAIT = 0x2, X64_SA_SIGINFO = 0x4,
  X64_SA_RESTORER = 0x04000000, X64_SA_ONSTACK = 0x08000000, X64_SA_RESTART = 0x10000000,
  X64_SA_NODEFER = 0x40000000,
};
#define X64_SA_RESETHAND 0x80000000ull
/* The kernel's UAPI_SA_FLAGS: other bits are dropped, so that programs can probe for them. */
#define X64_SA_KNOWN                                                                   \
  (X64_SA_NOCLDSTOP | X64_SA_NOCLDWAIT | X64_SA_SIGINFO | X64_SA_RESTORER | X64_SA_ONSTACK | \
   X64_SA_RESTART | X64_SA_NODEFER | X64_SA_RESETHAND)
enum { X64_SS_ONSTACK = 1, X64_SS_DISABLE = 2, X64_MINSIGSTKSZ = 2048 };
#define X64_SS_AUTODISARM (1u << 31)

/* The guest's signal state is its process's (dispositions, Process.sig_action) and its
 * thread's (mask, alternate stack...: Thread.sig).
 *
 * The host handler's side is the host's: the host process has one set of dispositions,
 * which mirror the guest's, so one Linux guest runs per host process; each host thread
 * (a guest thread's) has a mask, which mirrors its guest thread's, and so the host
 * delivers a thread-directed signal to it and a process-directed one to a thread that
 * does not block it, as the kernel would. Per host thread: the signals taken from the
 * host and not yet delivered, their siginfo, and the CPU to tell. Each stays blocked on
 * the host until delivered, so that its siginfo is not overwritten and further instances
 * (queued real-time signals) wait in the host. */
static bool host_claimed; /* atomic: a Linux guest owns the host's signal state */
static __thread uint64_t taken; /* atomic */
static __thread X64Siginfo taken_info[X64_NSIG + 1];
static __thread Cpu *volatile signal_cpu;

static uint64_t taken_now(void) { return __atomic_load_n(&taken, __ATOMIC_ACQUIRE); }

static void untake(int sig) { __atomic_fetch_and(&taken, ~BIT(sig), __ATOMIC_ACQ_REL); }
static X64Siginfo take(Cpu *c, int sig); /* untakes it: what the guest sees of it */

static void on_host_signal(int sig, siginfo_t *si, void *ucv) {
  memcpy(&taken_info[sig], si, sizeof taken_info[sig]);
  __atomic_fetch_or(&taken, BIT(sig), __ATOMIC_RELEASE);
  if (!(BIT(sig) & HOST_FAULTS)) {
    sigset_t *mask = &((ucontext_t *)ucv)->uc_sigmask;
    host_sigset_put(mask, host_sigset_bits(mask) | BIT(sig));
  }
  Cpu *c = signal_cpu;
  if (c) cpu_raise_events(c, EV_SIGNAL);
}
_Static_assert(sizeof(siginfo_t) == sizeof(X64Siginfo), "host siginfo_t is the x86-64 one");

/* ---- the host's side: dispositions and mask ---- */

/* What the host may block of the guest's mask (host_signals.h: all 64 signals). */
static uint64_t host_blockable(uint64_t bits) { return bits & ~(HOST_FAULTS | UNBLOCKABLE); }

/* With every signal blocked the host handler cannot run, and so cannot add to `taken`. */
static void host_block_all(void) { host_sigmask_set(host_blockable(~0ull)); }

/* The faults' signals too, around code that cannot fault (a check, then the wait). */
static void host_block_faults_too(void) { host_sigmask_set(~UNBLOCKABLE); }

/* The host blocks what the guest blocks and what was taken but not yet delivered. */
static void host_mask_sync(const ThreadSignals *t) {
  host_block_all();
  host_sigmask_set(host_blockable(t->mask | taken_now()));
}

/* SIG_IGN and SIG_DFL are the host's too: ignoring SIGPIPE makes writes fail with EPIPE,
 * a default action kills the emulator as it would the guest, and both carry over exec.
 * A guest handler gets the noting host handler, without SA_RESTART: blocking host calls
 * return EINTR to the shim, which restarts them as the guest's flags say. */
static void host_set_action(const Process *p, int sig) {
  if (BIT(sig) & (HOST_FAULTS | UNBLOCKABLE)) return;
  const X64Sigaction *a = &p->sig_action[sig];
  /* They change what the host kernel does with our children. */
  int flags = sig == SIGCHLD ? (int)(a->flags & (X64_SA_NOCLDSTOP | X64_SA_NOCLDWAIT)) : 0;
  if (a->handler == X64_SIG_DFL || a->handler == X64_SIG_IGN)
    host_sig_default(sig, a->handler == X64_SIG_IGN, flags);
  else
    host_sigaction(sig, on_host_signal, flags, host_blockable(~0ull));
}

/* What the guest starts with is what exec passed on: the host's ignored signals and mask. */
static void init_once(Cpu *c) {
  Process *p = proc_of(c);
  ThreadSignals *t = &thread_of(c)->sig;
  if (p->sig_ready) return;
  p->sig_ready = true;
  t->altstack.ss_flags = X64_SS_DISABLE;
  for (int sig = 1; sig <= X64_NSIG; sig++)
    if (!(BIT(sig) & HOST_FAULTS) && host_sig_ignored(sig)) p->sig_action[sig].handler = X64_SIG_IGN;
  t->mask |= host_sigmask_get() & ~UNBLOCKABLE;
}

/* The CPU that the host handler raises EV_SIGNAL on. */
static void attach(Cpu *c) {
  init_once(c);
  signal_cpu = c;
  __atomic_store_n(&fault_user_signal, on_host_signal, __ATOMIC_RELAXED); /* every thread's */
}

/* ---- the guest's state ---- */

static uint64_t deliverable(const ThreadSignals *t) { return taken_now() & ~t->mask; }

static void mask_set(Cpu *c, uint64_t mask) {
  ThreadSignals *t = &thread_of(c)->sig;
  t->mask = mask & ~UNBLOCKABLE;
  host_mask_sync(t);
  if (deliverable(t)) cpu_raise_events(c, EV_SIGNAL);
}

enum Default { DEFAULT_TERMINATE, DEFAULT_IGNORE, DEFAULT_STOP };

static enum Default default_action(int sig) {
  switch (sig) {
  case SIGCHLD: case SIGURG: case SIGWINCH: case SIGCONT: return DEFAULT_IGNORE;
  case SIGSTOP: case SIGTSTP: case SIGTTIN: case SIGTTOU: return DEFAULT_STOP;
  default: return DEFAULT_TERMINATE; /* with a core dump or not: main.c re-raises it */
  }
}

static bool ignored(const Process *p, int sig) {
  uint64_t h = p->sig_action[sig].handler;
  return h == X64_SIG_IGN || (h == X64_SIG_DFL && default_action(sig) == DEFAULT_IGNORE);
}

void signals_action(Cpu *c, int sig, const X64Sigaction *act, X64Sigaction *old) {
  Process *p = proc_of(c);
  ThreadSignals *t = &thread_of(c)->sig;
  attach(c);
  if (old) *old = p->sig_action[sig];
  if (!act) return;
  X64Sigaction a = *act;
  a.flags &= X64_SA_KNOWN;
  a.mask &= ~UNBLOCKABLE;
  p->sig_action[sig] = a;
  host_set_action(p, sig);
  /* A pending signal that is now ignored is discarded (POSIX; the host does the same). */
  if (ignored(p, sig) && (taken_now() & BIT(sig))) {
    (void)take(c, sig);
    host_mask_sync(t);
  }
}

uint64_t signals_mask(Cpu *c) {
  init_once(c);
  const ThreadSignals *t = &thread_of(c)->sig;
  return t->mask;
}

void signals_set_mask(Cpu *c, uint64_t mask) {
  attach(c);
  mask_set(c, mask);
}

uint64_t signals_pending(Cpu *c) {
  init_once(c);
  const ThreadSignals *t = &thread_of(c)->sig;
  return (taken_now() | host_sigpending()) & t->mask;
}

static int next_signal(uint64_t set) {
  if (set & SYNCHRONOUS) set &= SYNCHRONOUS;
  return __builtin_ctzll(set) + 1;
}

/* A signal raised in another thread travels as the host's rt_tgsigqueueinfo, which lets
 * a process send another thread only codes below 0 and SI_TKILL as itself: a kernel's code
 * (an itimer's SI_KERNEL) goes as SI_QUEUE from this process, marked by the address of
 * `relayed` as its value, with the code in place of the sender's uid (qemu-user drops
 * si_errno), and the receiver restores it. */
static const char relayed;

static X64Siginfo unrelayed(X64Siginfo info) {
  int32_t ids[2]; /* pid, then uid */
  uint64_t value;
  memcpy(ids, info.u.bytes, sizeof ids);
  memcpy(&value, info.u.bytes + 8, 8);
  if (info.si_code != SI_QUEUE || ids[0] != getpid() || value != (uintptr_t)&relayed) return info;
  X64Siginfo kernel = {.si_signo = info.si_signo, .si_code = ids[1]};
  return kernel;
}

/* The sender's id in a signal a process sent (kill, tgkill, sigqueue, a message queue's
 * notification) or a child's in a SIGCHLD, as the guest knows it (--deterministic's ids);
 * the other codes below 0 carry no id there (SI_TIMER: the timer's). */
static X64Siginfo as_guest_sees(const Cpu *c, X64Siginfo info) {
  if (info.si_code == SI_USER || info.si_code == SI_QUEUE || info.si_code == SI_TKILL ||
      info.si_code == SI_MESGQ || info.si_signo == SIGCHLD) {
    int32_t pid;
    memcpy(&pid, info.u.bytes, sizeof pid);
    pid = (int32_t)det_pid_out(c, pid);
    memcpy(info.u.bytes, &pid, sizeof pid);
  }
  return info;
}

/* A signal's instance leaves the pending ones: what the guest sees of it. */
static X64Siginfo dequeued(Cpu *c, X64Siginfo info) {
  info = unrelayed(info);
  if (info.si_code == SI_TIMER && det_on(c)) { /* _timer: the timer's id first */
    int32_t timer;
    memcpy(&timer, info.u.bytes, sizeof timer);
    vt_timer_signal_taken(c, info.si_signo, timer);
  }
  return as_guest_sees(c, info);
}

static X64Siginfo take(Cpu *c, int sig) {
  X64Siginfo info = taken_info[sig];
  untake(sig);
  return dequeued(c, info);
}

void signals_host_dequeued(Cpu *c, void *info) {
  X64Siginfo seen;
  memcpy(&seen, info, sizeof seen);
  seen = dequeued(c, seen);
  memcpy(info, &seen, sizeof seen);
}

int signals_take_blocked(Cpu *c, uint64_t set, void *info) {
  init_once(c);
  const ThreadSignals *t = &thread_of(c)->sig;
  uint64_t have = taken_now() & set & t->mask;
  if (!have) return 0;
  int sig = next_signal(have);
  X64Siginfo seen = take(c, sig);
  memcpy(info, &seen, sizeof seen);
  host_mask_sync(t);
  return sig;
}

bool signals_raise(Cpu *c, const X64Siginfo *info) {
  attach(c);
  int sig = info->si_signo;
  if (ignored(proc_of(c), sig)) return true;
  if (taken_now() & BIT(sig)) return false;
  taken_info[sig] = *info;
  __atomic_fetch_or(&taken, BIT(sig), __ATOMIC_RELEASE);
  ThreadSignals *t = &thread_of(c)->sig;
  host_mask_sync(t); /* a host instance waits behind this one */
  if (deliverable(t)) cpu_raise_events(c, EV_SIGNAL);
  return true;
}

bool signals_raise_in(Cpu *c, int32_t tid, const X64Siginfo *info) {
  int sig = info->si_signo;
  X64Siginfo sent = *info;
  if (sent.si_code >= 0 || sent.si_code == SI_TKILL) {
    sent = (X64Siginfo){.si_signo = sig, .si_code = SI_QUEUE};
    int32_t ids[2] = {getpid(), info->si_code};
    uint64_t value = (uintptr_t)&relayed;
    memcpy(sent.u.bytes, ids, sizeof ids);
    memcpy(sent.u.bytes + 8, &value, sizeof value);
  }
  if (syscall(SYS_rt_tgsigqueueinfo, getpid(), tid, sig, &sent) != 0) return false;
  turns_signal_sent(c, tid, sig); /* seen at once if it waits (turns.h) */
  return true;
}

bool signals_handler_due(Cpu *c) {
  init_once(c);
  return deliverable(&thread_of(c)->sig) != 0;
}

int64_t signals_suspend(Cpu *c, const uint64_t *mask) {
  ThreadSignals *t = &thread_of(c)->sig;
  attach(c);
  /* Checked and waited for with the host handler held off, so that a signal noted
   * just before cannot be missed: the faults' signals too (a SIGBUS or SIGSEGV another
   * process sends), as nothing here touches the guest's memory. */
  host_block_faults_too();
  if (mask) {
    t->saved_mask = t->mask;
    t->restore_saved = true;
    t->mask = *mask & ~UNBLOCKABLE;
  }
  /* --deterministic: time passes at once to the next timer, until one's signal is due. */
  for (unsigned expiries = 0; expiries < VT_FOREVER_EXPIRIES && !deliverable(t) &&
                              !(cpu_events(c) & EV_EXIT) && proc_of(c)->opt.deterministic &&
                              vt_idle_to_next_timer(c);
       expiries++)
    host_block_faults_too(); /* raising synchronized the host's mask */
  if (!deliverable(t) && !(cpu_events(c) & EV_EXIT)) {
    host_sigsuspend(host_blockable(t->mask | taken_now())); /* returns once the host handler has run */
  }
  host_mask_sync(t);
  cpu_raise_events(c, EV_SIGNAL); /* delivery runs the handler or restores the mask */
  return -EINTR;
}

bool signals_wait_mask_begin(Cpu *c, uint64_t mask, uint64_t *host_mask) {
  ThreadSignals *t = &thread_of(c)->sig;
  attach(c);
  host_block_all(); /* until the host call sets host_mask atomically */
  t->saved_mask = t->mask;
  t->restore_saved = true;
  t->mask = mask & ~UNBLOCKABLE;
  *host_mask = (t->mask | taken_now()) & ~(HOST_FAULTS | UNBLOCKABLE);
  return !deliverable(t);
}

void signals_wait_mask_end(Cpu *c, bool interrupted) {
  ThreadSignals *t = &thread_of(c)->sig;
  if (interrupted) { /* the handler runs with the wait's mask, then sigreturn restores */
    host_mask_sync(t);
    cpu_raise_events(c, EV_SIGNAL);
    return;
  }
  t->restore_saved = false;
  mask_set(c, t->saved_mask);
}

/* ---- the alternate stack (the kernel's sas_ss_* and do_sigaltstack) ---- */

static bool within_altstack(const ThreadSignals *t, uint64_t sp) {
  return sp > t->altstack.ss_sp && sp - t->altstack.ss_sp <= t->altstack.ss_size;
}

/* With SS_AUTODISARM the stack is given up on entry, so the guest is never "on" it. */
static bool on_altstack(const ThreadSignals *t, uint64_t sp) {
  return !((uint32_t)t->altstack.ss_flags & X64_SS_AUTODISARM) && within_altstack(t, sp);
}

static int altstack_state(const ThreadSignals *t, uint64_t sp) {
  if (!t->altstack.ss_size) return X64_SS_DISABLE;
  return on_altstack(t, sp) ? X64_SS_ONSTACK : 0;
}

static void altstack_reset(ThreadSignals *t) {
  memset(&t->altstack, 0, sizeof t->altstack);
  t->altstack.ss_flags = X64_SS_DISABLE;
}

int signals_altstack(Cpu *c, uint64_t sp, const X64StackT *ss, X64StackT *old) {
  init_once(c);
  ThreadSignals *t = &thread_of(c)->sig;
  if (old) {
    memset(old, 0, sizeof *old);
    old->ss_sp = t->altstack.ss_sp;
    old->ss_size = t->altstack.ss_size;
    old->ss_flags =
        altstack_state(t, sp) | (int32_t)((uint32_t)t->altstack.ss_flags & X64_SS_AUTODISARM);
  }
  if (!ss) return 0;
  if (on_altstack(t, sp)) return -EPERM;
  uint32_t mode = (uint32_t)ss->ss_flags & ~X64_SS_AUTODISARM;
  if (mode != 0 && mode != X64_SS_ONSTACK && mode != X64_SS_DISABLE) return -EINVAL;
  X64StackT next = {.ss_sp = ss->ss_sp, .ss_flags = ss->ss_flags, .ss_size = ss->ss_size};
  if (mode == X64_SS_DISABLE) {
    next.ss_sp = 0;
    next.ss_size = 0;
  } else if (ss->ss_size < X64_MINSIGSTKSZ) {
    return -ENOMEM;
  }
  t->altstack = next;
  return 0;
}

/* ---- delivery ---- */

/* --strace shows each signal the guest receives, as strace does. */
static void trace_signal(const Cpu *c, int sig, const X64Siginfo *info) {
  if (!proc_of(c)->opt.strace) return;
  const char *name = sigabbrev_np(sig);
  char line[128], detail[48];
  if (info->si_code <= 0) /* sent by a process: the union starts with its pid */
    snprintf(detail, sizeof detail, "si_pid=%d", (int)(uint32_t)info->u.addr);
  else
    snprintf(detail, sizeof detail, "si_addr=%#llx", (unsigned long long)info->u.addr);
  int n = snprintf(line, sizeof line, "--- SIG%s {si_signo=%d, si_code=%d, %s} ---\n",
                   name ? name : "?", sig, info->si_code, detail);
  (void)!write(2, line, (size_t)n);
}

static void die(Cpu *c, int sig) {
  c->term_signal = sig;
  cpu_raise_events(c, EV_EXIT);
}

/* Builds the frame and enters sig's handler; false if the stack cannot take the frame. */
static bool run_handler(Cpu *c, int sig, const X64Siginfo *info, bool fault) {
  Process *p = proc_of(c);
  ThreadSignals *t = &thread_of(c)->sig;
  const X64Sigaction act = p->sig_action[sig];
  if (act.flags & X64_SA_RESETHAND) {
    p->sig_action[sig].handler = X64_SIG_DFL;
    host_set_action(p, sig);
  }
  uint64_t sp = c->r[RSP] - X64_REDZONE;
  bool nested = on_altstack(t, c->r[RSP]), entering = false;
  if ((act.flags & X64_SA_ONSTACK) && altstack_state(t, sp) == 0) {
    sp = t->altstack.ss_sp + t->altstack.ss_size;
    entering = true;
  }
  uint64_t fpstate, frame = sigframe_place(sp, sigframe_fpstate_size(&c->m->model), &fpstate);
  /* A frame that would run off the alternate stack is not written past it. */
  if ((nested || entering) && !within_altstack(t, frame)) return false;
  SigframeArgs a = {
      .sig = sig, .handler = act.handler, .restorer = act.restorer,
      .mask = t->restore_saved ? t->saved_mask : t->mask, .altstack = t->altstack,
      .err = t->err, .trapno = t->trapno, .cr2 = t->cr2, .fault = fault,
      .info = (act.flags & X64_SA_SIGINFO) ? info : NULL,
  };
  if (!sigframe_push(c, frame, fpstate, &a)) return false;
  /* signal_delivered(): the handler runs with its mask added, and the signal unless
   * SA_NODEFER. */
  uint64_t mask = t->mask | act.mask;
  if (!(act.flags & X64_SA_NODEFER)) mask |= BIT(sig);
  t->restore_saved = false;
  if ((uint32_t)t->altstack.ss_flags & X64_SS_AUTODISARM) altstack_reset(t);
  mask_set(c, mask);
  return true;
}

static void force_signal(Cpu *c, int sig, const X64Siginfo *info, bool fault);

/* The kernel's force_sigsegv(): the frame for sig could not be written. */
static void force_sigsegv(Cpu *c, int sig) {
  Process *p = proc_of(c);
  if (sig == SIGSEGV) p->sig_action[SIGSEGV].handler = X64_SIG_DFL;
  X64Siginfo info = {.si_signo = SIGSEGV, .si_code = SI_KERNEL};
  force_signal(c, SIGSEGV, &info, false);
}

/* force_sig_info(): a fault that the guest blocks or ignores takes the default action. */
static void force_signal(Cpu *c, int sig, const X64Siginfo *info, bool fault) {
  Process *p = proc_of(c);
  ThreadSignals *t = &thread_of(c)->sig;
  X64Sigaction *act = &p->sig_action[sig];
  if ((t->mask & BIT(sig)) || act->handler == X64_SIG_IGN) {
    act->handler = X64_SIG_DFL;
    host_set_action(p, sig);
    mask_set(c, t->mask & ~BIT(sig));
  }
  if (act->handler == X64_SIG_DFL) {
    die(c, sig);
    return;
  }
  if (!run_handler(c, sig, info, fault)) force_sigsegv(c, sig);
}

/* Whether the instruction at rip is an x87 one (its exceptions are #MF, SSE's #XM). */
static bool is_x87_insn(uint64_t rip) {
  uint8_t b[15];
  unsigned n = fault_copy_in(b, rip, sizeof b);
  for (unsigned i = 0; i < n; i++) {
    if (b[i] == 0x9B || (b[i] >= 0xD8 && b[i] <= 0xDF)) return true;
    bool prefix = b[i] == 0x66 || b[i] == 0x67 || b[i] == 0xF0 || b[i] == 0xF2 ||
                  b[i] == 0xF3 || b[i] == 0x2E || b[i] == 0x3E || b[i] == 0x26 ||
                  b[i] == 0x36 || b[i] == 0x64 || b[i] == 0x65 || (b[i] & 0xF0) == 0x40;
    if (!prefix) return false;
  }
  return false;
}

/* Whether x86 would have a present page-table entry at addr: a page the guest may access
 * at all (x86's PROT_NONE entries are not present) that the host has populated. */
static bool page_present(const Cpu *c, uint64_t addr) {
  int prot = ranges_prot(&c->m->mem, addr);
  if (prot <= 0 || !(prot & (GUEST_PROT_READ | GUEST_PROT_WRITE | GUEST_PROT_EXEC))) return false;
  /* One entry for the host page from a kernel with pages that size; one for each of its
   * own 4 KiB pages from qemu-user emulating larger ones, or from a 4 KiB kernel under
   * X64EMU_HOST_PAGE. An entry holds bit 0 alone, so 0xFF marks one not written. */
  uint64_t hp = host_page();
  unsigned char v[(1u << 20) / GUEST_PAGE];
  memset(v, 0xFF, sizeof v);
  if (mincore(GUEST_PTR(addr & ~(hp - 1)), hp, v) < 0) return true;
  unsigned i = v[1] != 0xFF ? (unsigned)((addr & (hp - 1)) / GUEST_PAGE) : 0;
  return v[i] & 1;
}

/* The page-fault error code: user mode; present (protection) for a SIGSEGV SEGV_ACCERR
 * on a present page (SIGBUS's BUS_ADRERR shares the number); a fault on the instruction's
 * own bytes is a fetch, never a write. A data access takes the host's code, which knows
 * reads from writes, when the host has one; an aarch64 host tells writes (fault_write).
 * An instruction that reads its operand to write it (rmw) reads it for writing, as the
 * CPU reports it: a write, though x64emu's own read came first. (That read has made a
 * read-only page present that the guest never touched, where the kernel's err has no
 * PF_PROT: tests/guest/rmw_faults.c.) */
static uint64_t page_fault_error(const Cpu *c, int sig, int code, uint64_t addr, bool rmw) {
  enum { PF_PROT = 1, PF_WRITE = 2, PF_USER = 4, PF_INSTR = 16 };
  bool fetch = addr - c->rip < 16;
  uint64_t err = PF_USER | (fetch ? PF_INSTR : fault_write > 0 ? PF_WRITE : 0);
  if (sig == SIGSEGV && code == SEGV_ACCERR && page_present(c, addr)) err |= PF_PROT;
  if (fetch) return err;
  return (fault_err ? fault_err : err) | (rmw ? PF_WRITE : 0);
}

/* The trap number, error code and cr2 the kernel records for a fault. */
static void note_fault(const Cpu *c, int sig, int code, uint64_t addr, bool rmw) {
  ThreadSignals *t = &thread_of(c)->sig;
  enum { TRAP_DE = 0, TRAP_BP = 3, TRAP_UD = 6, TRAP_GP = 13, TRAP_PF = 14, TRAP_MF = 16,
         TRAP_XM = 19 };
  t->err = 0;
  switch (sig) {
  case SIGSEGV:
  case SIGBUS:
    if (code == SI_KERNEL) {
      t->trapno = TRAP_GP;
      return;
    }
    t->trapno = TRAP_PF;
    t->err = page_fault_error(c, sig, code, addr, rmw);
    t->cr2 = addr;
    return;
  case SIGILL: t->trapno = TRAP_UD; return;
  case SIGTRAP: t->trapno = TRAP_BP; return;
  case SIGFPE:
    if (code == FPE_INTDIV || code == FPE_INTOVF) t->trapno = TRAP_DE;
    else t->trapno = is_x87_insn(c->rip) ? TRAP_MF : TRAP_XM;
    return;
  }
}

/* trapno and err: the exception's when known (f), else as the kernel derives them. */
static void deliver_sync(Cpu *c, int sig, int code, uint64_t addr, const Fault *f) {
  attach(c);
  ThreadSignals *t = &thread_of(c)->sig;
  t->interrupted = false;
  note_fault(c, sig, code, addr, f && f->rmw);
  if (f && f->trapno >= 0) {
    t->trapno = (uint64_t)f->trapno;
    t->err = f->err;
  }
  X64Siginfo info = {.si_signo = sig, .si_code = code};
  if (sig != SIGTRAP || code != SI_KERNEL) info.u.addr = addr; /* INT3's is 0, ICEBP's not */
  trace_signal(c, sig, &info);
  force_signal(c, sig, &info, sig != SIGTRAP);
}

void signals_deliver_sync(Cpu *c, int sig, int code, uint64_t addr) {
  deliver_sync(c, sig, code, addr, NULL);
}

void signals_deliver_fault(Cpu *c, const Fault *f) { deliver_sync(c, f->sig, f->code, f->addr, f); }

void signals_deliver_forced(Cpu *c, const X64Siginfo *info) {
  attach(c);
  thread_of(c)->sig.interrupted = false;
  trace_signal(c, info->si_signo, info);
  force_signal(c, info->si_signo, info, false);
}

/* How a call interrupted by a signal goes on (the kernel's -ERESTARTSYS and
 * -ERESTARTNOHAND; nanosleep's restart block is taken as the latter). */
enum Restart { RESTART_NEVER, RESTART_SYS, RESTART_NOHAND };

static enum Restart restart_kind(uint64_t nr) {
  switch (nr) {
  case X64_NR_read: case X64_NR_write: case X64_NR_readv: case X64_NR_writev:
  case X64_NR_pread64: case X64_NR_pwrite64: case X64_NR_preadv: case X64_NR_pwritev:
  case X64_NR_preadv2: case X64_NR_pwritev2: case X64_NR_open: case X64_NR_openat:
  case X64_NR_creat: case X64_NR_ioctl: case X64_NR_fcntl: case X64_NR_flock:
  case X64_NR_wait4: case X64_NR_waitid: case X64_NR_accept: case X64_NR_accept4:
  case X64_NR_connect: case X64_NR_recvfrom: case X64_NR_sendto: case X64_NR_recvmsg:
  case X64_NR_sendmsg: case X64_NR_sendfile: case X64_NR_splice: case X64_NR_futex:
  case X64_NR_recvmmsg: case X64_NR_sendmmsg: case X64_NR_mq_timedsend:
  case X64_NR_mq_timedreceive: case X64_NR_getrandom:
    return RESTART_SYS;
  /* System V IPC's waits too: never restarted after a handler, SA_RESTART or not. */
  case X64_NR_pause: case X64_NR_rt_sigsuspend: case X64_NR_poll: case X64_NR_ppoll:
  case X64_NR_select: case X64_NR_pselect6: case X64_NR_epoll_wait: case X64_NR_epoll_pwait:
  case X64_NR_nanosleep: case X64_NR_clock_nanosleep: case X64_NR_msgrcv: case X64_NR_msgsnd:
  case X64_NR_semop: case X64_NR_semtimedop:
    return RESTART_NOHAND;
  default:
    return RESTART_NEVER;
  }
}

void signals_syscall_interrupted(Cpu *c, uint64_t nr) {
  ThreadSignals *t = &thread_of(c)->sig;
  if (restart_kind(nr) == RESTART_NEVER) return;
  t->interrupted = true;
  t->interrupted_rip = c->rip;
  t->interrupted_nr = nr;
}

/* The interrupted call before c->rip restarts, or keeps -EINTR, as the handler about to
 * run (act) or the absence of one (NULL) says. */
static void syscall_restart(Cpu *c, const X64Sigaction *act) {
  ThreadSignals *t = &thread_of(c)->sig;
  enum Restart kind = restart_kind(t->interrupted_nr);
  if (act && (kind == RESTART_NOHAND || !(act->flags & X64_SA_RESTART))) return;
  c->r[RAX] = t->interrupted_nr;
  c->rip -= 2; /* back onto the SYSCALL instruction */
}

/* Delivers the deliverable signals of the set `only`. */
static void deliver_pending(Cpu *c, uint64_t only) {
  attach(c);
  Process *p = proc_of(c);
  ThreadSignals *t = &thread_of(c)->sig;
  cpu_clear_events(c, EV_SIGNAL);
  bool after_eintr =
      t->interrupted && c->rip == t->interrupted_rip && c->r[RAX] == (uint64_t)-EINTR;
  t->interrupted = false;
  bool handled = false;
  uint64_t ready;
  while (!(cpu_events(c) & EV_EXIT) && (ready = deliverable(t) & only)) {
    int sig = next_signal(ready);
    X64Siginfo info = take(c, sig);
    trace_signal(c, sig, &info);
    const X64Sigaction *act = &p->sig_action[sig];
    if (act->handler == X64_SIG_DFL || act->handler == X64_SIG_IGN) {
      /* Taken while the guest had a handler, which it has since removed. */
      host_mask_sync(t);
      if (act->handler == X64_SIG_IGN) continue;
      switch (default_action(sig)) {
      case DEFAULT_TERMINATE: die(c, sig); break;
      case DEFAULT_STOP: kill(getpid(), SIGSTOP); break;
      case DEFAULT_IGNORE: break;
      }
      continue;
    }
    if (after_eintr) syscall_restart(c, act);
    after_eintr = false;
    if (!run_handler(c, sig, &info, false)) force_sigsegv(c, sig);
    handled = true;
  }
  if (!handled) {
    if (after_eintr) syscall_restart(c, NULL);
    if (t->restore_saved) {
      t->restore_saved = false;
      mask_set(c, t->saved_mask);
    }
  }
  if (deliverable(t)) cpu_raise_events(c, EV_SIGNAL); /* the ones left out */
}

void signals_deliver_pending(Cpu *c) { deliver_pending(c, ~0ull); }

void signals_deliver_one(Cpu *c, int sig) { deliver_pending(c, BIT(sig)); }

int signals_next_due(Cpu *c) {
  uint64_t ready = deliverable(&thread_of(c)->sig);
  return ready ? next_signal(ready) : 0;
}

void signals_discard(Cpu *c, int sig) {
  (void)take(c, sig);
  host_mask_sync(&thread_of(c)->sig);
}

/* rt_sigreturn found no readable frame, or a bad FPU state in it. */
static int64_t bad_frame(Cpu *c) {
  X64Siginfo info = {.si_signo = SIGSEGV, .si_code = SI_KERNEL};
  force_signal(c, SIGSEGV, &info, false);
  return (int64_t)c->r[RAX];
}

int64_t signals_sigreturn(Cpu *c) {
  attach(c);
  X64Ucontext uc;
  if (!sigframe_read(c, &uc)) return bad_frame(c);
  mask_set(c, uc.uc_sigmask);
  if (!sigcontext_restore(c, &uc.uc_mcontext)) return bad_frame(c);
  signals_altstack(c, c->r[RSP], &uc.uc_stack, NULL); /* refusals are ignored, as the kernel does */
  return (int64_t)c->r[RAX];
}

void signals_thread_init(Cpu *child, Cpu *parent) {
  ThreadSignals *t = &thread_of(child)->sig;
  memset(t, 0, sizeof *t);
  t->mask = thread_of(parent)->sig.mask;
  t->altstack.ss_flags = X64_SS_DISABLE; /* clone with CLONE_VM clears it */
}

void signals_thread_attach(Cpu *c) {
  attach(c);
  host_mask_sync(&thread_of(c)->sig); /* the creator's mask blocked what it had taken */
}

void signals_thread_detach(Cpu *c) {
  /* What this thread took and has not delivered is lost with it (the kernel would hand a
   * process-directed one to another thread). */
  host_block_all();
  signal_cpu = NULL;
}

bool signals_host_claim(void) {
  return !__atomic_exchange_n(&host_claimed, true, __ATOMIC_ACQ_REL);
}

void signals_host_release(void) {
  host_signals_give_back();
  signal_cpu = NULL;
  __atomic_store_n(&fault_user_signal, NULL, __ATOMIC_RELAXED);
  __atomic_store_n(&taken, 0, __ATOMIC_RELEASE);
  __atomic_store_n(&host_claimed, false, __ATOMIC_RELEASE);
}

SignalsFork signals_fork_begin(Cpu *c) {
  init_once(c);
  SignalsFork f = {.mask = host_sigmask_get()};
  host_block_all(); /* the faults' signals stay deliverable: taken may still gain those */
  f.taken = taken_now();
  return f;
}

void signals_fork_parent(const SignalsFork *f) { host_sigmask_set(f->mask); }

void signals_forked_child(Cpu *c, const SignalsFork *f) {
  __atomic_fetch_and(&taken, ~f->taken, __ATOMIC_ACQ_REL);
  host_mask_sync(&thread_of(c)->sig);
}

void signals_before_exec(void) {
  uint64_t t = __atomic_exchange_n(&taken, 0, __ATOMIC_ACQ_REL) & ~HOST_FAULTS;
  for (int sig = 1; sig <= X64_NSIG; sig++)
    if (t & BIT(sig)) syscall(SYS_tgkill, getpid(), gettid(), sig); /* blocked: stays pending */
}
