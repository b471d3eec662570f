/* system.c: NOPs, SYSCALL, CPUID, RDTSC, traps and the handlers for what cannot run. */
#define _GNU_SOURCE /* TRAP_BRKPT */
#include <signal.h>
#include <stdio.h>
#include <time.h>

#include "../decoder/decode.h"
#include "access.h"
#include "cpuid.h"
#include "machine.h"
#include "fault.h"
#include "flags.h"
#include "ops_int.h"
#include "run.h"

void op_nop(Cpu *c, const Insn *in) {
  DISPATCH_NEXT(c, in);
}

/* F3 90: the spin-wait hint. A loop that spins waits for another CPU's store: when
 * another thread waits to run, the events of Machine.pause_events tell this one to give
 * way at the end of the block. */
void op_pause(Cpu *c, const Insn *in) {
  uint32_t ev = __atomic_load_n(&c->m->pause_events, __ATOMIC_RELAXED);
  if (ev) cpu_raise_events(c, ev);
  DISPATCH_NEXT(c, in);
}

/* 0F 05: RCX = return address, R11 = RFLAGS, then the kernel. */
void op_syscall(Cpu *c, const Insn *in) {
  c->r[RCX] = insn_next(in);
  c->r[R11] = flags_get(c) & ~0x10000ull; /* RF reads as 0 */
  cpu_request_stop(c, STOP_SYSCALL); /* SYSCALL ends its block */
}

/* 0F A2 */
void op_cpuid(Cpu *c, const Insn *in) {
  CpuidRegs r = cpuid_query(&c->m->model, (uint32_t)c->r[RAX], (uint32_t)c->r[RCX]);
  c->r[RAX] = r.eax;
  c->r[RBX] = r.ebx;
  c->r[RCX] = r.ecx;
  c->r[RDX] = r.edx;
  DISPATCH_NEXT(c, in);
}

/* The guest's time-stamp counter: nanoseconds of CLOCK_MONOTONIC, which increases at a
 * constant rate on every host. */
static uint64_t tsc_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void read_tsc(Cpu *c) {
  uint64_t t = c->m->virtual_tsc ? c->icount + cpu_insn(c)->nth + c->m->virtual_idle : tsc_now();
  c->r[RAX] = (uint32_t)t;
  c->r[RDX] = t >> 32;
}

/* 0F 31 */
void op_rdtsc(Cpu *c, const Insn *in) {
  if (c->tsc_denied) guest_gp(c, 0);
  read_tsc(c);
  DISPATCH_NEXT(c, in);
}

/* 0F 01 F9: also ECX = processor id (0). */
void op_rdtscp(Cpu *c, const Insn *in) {
  if (c->tsc_denied) guest_gp(c, 0);
  read_tsc(c);
  c->r[RCX] = 0;
  DISPATCH_NEXT(c, in);
}

/* CC, and CD 03: a trap; the guest sees RIP after the instruction. */
void op_int3(Cpu *c, const Insn *in) { guest_trap_next(c, SIGTRAP, SI_KERNEL, 0); }

/* CD ib: INT 3 is INT3; INT 4 is the overflow trap (#OF), whose gate Linux opens to user
 * mode as INT3's: SIGSEGV, SI_KERNEL, after the instruction. User code may not use the
 * other software interrupts: #GP with the gate's error code, (vector << 3) | 2. */
void op_int(Cpu *c, const Insn *in) {
  if (in->imm == 3) {
    op_int3(c, in);
    return;
  }
  if (in->imm == 4) {
    c->trapno = 4;
    c->trap_err = 0;
    guest_trap_next(c, SIGSEGV, SI_KERNEL, 0);
  }
  guest_gp(c, (in->imm & 0xff) << 3 | 2);
}

/* F1: ICEBP (INT1) is a debug trap: SIGTRAP TRAP_BRKPT at the next instruction, #DB. */
void op_icebp(Cpu *c, const Insn *in) {
  c->trapno = 1;
  c->trap_err = 0;
  guest_trap_next(c, SIGTRAP, TRAP_BRKPT, insn_next(in));
}

/* F4 FA FB, IN, OUT, INS, OUTS, and the system instructions of 0F 01, 0F 00 and 0F C7
 * that user mode may not run: #GP. */
void op_privileged(Cpu *c, const Insn *in) { guest_gp(c, 0); }

/* An instruction longer than 15 bytes (prefixes repeated, say): #GP, whatever it is. */
void op_too_long(Cpu *c, const Insn *in) { guest_gp(c, 0); }

/* #UD: 0F 0B (UD2), and the encodings the CPU itself refuses that the decoder knows as
 * such (LOCK where no lock is allowed), unlike op_undefined's. */
void op_ud(Cpu *c, const Insn *in) { guest_trap(c, SIGILL, ILL_ILLOPN, in->rip); }

/* An instruction the decoder rejected: the guest's SIGILL, marked so that whoever runs
 * the core can say what is missing (cpu_describe_insn). */
void op_undefined(Cpu *c, const Insn *in) {
  c->undefined = true;
  guest_trap(c, SIGILL, ILL_ILLOPN, in->rip); /* the kernel reports #UD as ILL_ILLOPN */
}

/* The bytes of the next instruction are not readable: a page fault on fetch. */
void op_fetch_fault(Cpu *c, const Insn *in) {
  guest_trap(c, SIGSEGV, in->op, (uint64_t)in->disp); /* op: SEGV_MAPERR or SEGV_ACCERR */
}
