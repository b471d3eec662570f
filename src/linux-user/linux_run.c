/* linux_run.c: the Linux personality's run loop: cpu_run, then whatever it stopped for. */
#include "linux_run.h"

#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../interp/fault.h"
#include "../interp/insn.h"
#include "../interp/run.h"
#include "determinism.h"
#include "process.h"
#include "signals.h"
#include "syscall.h"
#include "turns.h"
#include "virtual_time.h"
#include "vsyscall.h"

/* The system call of the SYSCALL instruction just run. A host fault on guest memory that
 * the shim touches without a guarded copy is the guest's SIGSEGV at that instruction. */
static void perform_syscall(Cpu *c) {
  sigjmp_buf here, *saved = fault_landing;
  /* Read now: while the call waits, another thread may drop the decoded code. */
  volatile uint64_t at = cpu_insn(c)->rip;
  int sig = sigsetjmp(here, 0);
  if (sig != 0) {
    fault_landing = saved;
    c->rip = at;
    signals_deliver_sync(c, sig, fault_code, fault_addr);
    return;
  }
  fault_landing = &here;
  syscall_dispatch(c);
  fault_landing = saved;
}

/* Whether a synchronous signal goes to a guest handler (the kernel forces the default
 * action on one that is ignored or blocked). */
static bool guest_handles(const Cpu *c, int sig) {
  const X64Sigaction *a = &proc_of((Cpu *)c)->sig_action[sig];
  return a->handler > 1 && !(thread_of((Cpu *)c)->sig.mask >> (sig - 1) & 1);
}

/* The fault the core stopped with, to the guest. The message is for a program that dies
 * of it; one that handles SIGILL (to probe for instructions, say) sees what the kernel
 * would give it, in silence. */
static void deliver_fault(Cpu *c) {
  if (c->fault.undefined && !guest_handles(c, c->fault.sig)) {
    char what[256];
    cpu_describe_insn(c, c->rip, what, sizeof what);
    fprintf(stderr, "x64emu: unimplemented instruction at %s\n", what);
  }
  signals_deliver_fault(c, &c->fault);
}

/* Whether a debugger sees sig first: then the run stops (STOP_SIGNAL) with it noted. */
static bool stop_for(Cpu *c, int sig, bool fault) {
  Process *p = proc_of(c);
  if (!sig || !(p->opt.stop_signals >> (sig - 1) & 1)) return false;
  p->stopped_signal = sig;
  p->stopped_fault = fault;
  return true;
}

void linux_signal_resume(Cpu *c, int sig) {
  Process *p = proc_of(c);
  int stopped = p->stopped_signal;
  p->stopped_signal = 0;
  if (stopped && sig == stopped) {
    if (p->stopped_fault) deliver_fault(c);
    else signals_deliver_one(c, sig);
    return;
  }
  /* Not passed on: a fault's instruction runs again (and faults again, as under ptrace). */
  if (stopped && !p->stopped_fault) signals_discard(c, stopped);
  if (sig) { /* another one, as if a process sent it: SI_USER, from this process */
    X64Siginfo info = {.si_signo = sig, .si_code = SI_USER};
    uint32_t ids[2] = {(uint32_t)det_pid_out(c, getpid()), (uint32_t)getuid()};
    memcpy(info.u.bytes, ids, sizeof ids);
    signals_raise(c, &info);
  }
}

/* The caller's instruction budget, or sooner the next --deterministic timer's, or the end
 * of the thread's turn: the run stops at the exact instruction where a timer falls due or
 * the next thread's turn begins. */
static uint64_t budget(const Cpu *c, uint64_t caller_limit) {
  if (!proc_of(c)->opt.deterministic) return caller_limit;
  uint64_t due = vt_next_due(c), turn_end = turns_end_at(c);
  if (turn_end < due) due = turn_end;
  return due < caller_limit ? due : caller_limit;
}

StopReason linux_run(Cpu *c, uint64_t until) {
  uint64_t caller_limit = c->icount_limit;
  for (;;) {
    if (cpu_events(c) & EV_EXIT) return STOP_EXIT;
    c->icount_limit = budget(c, caller_limit);
    StopReason why = cpu_run(c, until);
    c->icount_limit = caller_limit;
    switch (why) {
    case STOP_BUDGET:
      if (c->icount >= caller_limit) return why;
      vt_expire(c);
      if (c->icount >= turns_end_at(c)) turns_yield(c);
      break;
    case STOP_SYSCALL: perform_syscall(c); break;
    case STOP_FAULT:
      if (vsyscall_emulate(c)) break;
      if (stop_for(c, c->fault.sig, true)) return STOP_SIGNAL;
      deliver_fault(c);
      break;
    case STOP_EVENT:
      cpu_clear_events(c, EV_SYNC); /* out of the code, as a flush asked */
      if (cpu_events(c) & EV_YIELD) threads_yield(c);
      if (!(cpu_events(c) & EV_SIGNAL)) break;
      if (stop_for(c, signals_next_due(c), false)) return STOP_SIGNAL;
      signals_deliver_pending(c);
      break;
    default: return why;
    }
  }
}
