/* run.c: the dispatch loop: blocks run back to back, chained, with one event check each. */
#include "run.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "../decoder/block.h"
#include "../decoder/decode.h"
#include "fault.h"
#include "flags.h"
#include "insn.h"
#include "machine.h"

void cpu_init(Cpu *c, Machine *m) {
  memset(c, 0, sizeof *c);
  c->m = m;
  cpu_reset(c);
}

void cpu_reset(Cpu *c) {
  memset(c->r, 0, sizeof c->r);
  flags_set(c, 0x202);
  c->mxcsr = 0x1F80;
  memset(&c->fpu, 0, sizeof c->fpu);
  c->fpu.cw = 0x037F;
  c->fpu.tag = 0xFFFF;
}

_Noreturn void guest_trap(Cpu *c, int sig, int code, uint64_t addr) {
  c->rip = c->cur ? c->cur->rip : c->rip;
  fault_code = code;
  fault_addr = addr;
  siglongjmp(c->fault_jmp, -sig);
}

_Noreturn void guest_trap_next(Cpu *c, int sig, int code, uint64_t addr) {
  fault_code = code;
  fault_addr = addr;
  c->rip = insn_next(c->cur);
  siglongjmp(c->fault_jmp, -sig);
}

/* Runs one block's instructions; the last one may redirect c->rip. Handlers that end in
 * DISPATCH_NEXT run several instructions before returning; c->cur says how far. */
static inline void run_block(Cpu *c, const Block *b) {
  c->rip = b->end;
  uint32_t n = b->n; /* read now: a syscall in the block may flush the cache */
  const Insn *in = b->insns, *last = b->insns + n - 1;
  for (;;) {
    c->cur = in;
    in->fn(c, in);
    if (c->cur == last) break;
    in = c->cur + 1;
  }
  c->icount += n;
}

/* Runs chained blocks until an event or stop_rip. Kept out of cpu_run so that the
 * compiler can hold c and the block in registers: a function that calls sigsetjmp keeps
 * its locals in memory. */
static __attribute__((noinline)) StopReason run_blocks(Cpu *c, uint64_t stop_rip) {
  BlockCache *code = &c->m->code;
  Block *b = NULL;
  uint64_t gen = code->generation;
  for (;;) {
    if (c->events) {
      if (!(c->events & EV_STOP)) return STOP_EVENT;
      __atomic_fetch_and((uint32_t *)&c->events, ~(uint32_t)EV_STOP, __ATOMIC_RELAXED);
      return c->stop;
    }
    if (stop_rip && c->rip == stop_rip) return STOP_ADDRESS;
    Block *next;
    if (b && gen == code->generation) {
      if (c->rip == b->end && b->fall) next = b->fall;
      else if (b->taken && b->taken->start == c->rip) next = b->taken;
      else {
        next = block_get(code, c->rip);
        if (gen == code->generation) {
          if (c->rip == b->end) b->fall = next;
          else b->taken = next;
        }
      }
    } else {
      next = block_get(code, c->rip);
    }
    gen = code->generation;
    b = next;
    run_block(c, b);
  }
}

StopReason cpu_run(Cpu *c, uint64_t stop_rip) {
  sigjmp_buf *saved = fault_landing;
  int sig = sigsetjmp(c->fault_jmp, 0);
  if (sig != 0) {
    /* A host fault (sig > 0: SIGSEGV/SIGBUS on guest memory) or a guest trap (sig < 0)
     * in the instruction c->cur. */
    fault_landing = saved;
    if (sig > 0) c->rip = c->cur->rip;
    c->fault = (Fault){sig > 0 ? sig : -sig, fault_code, fault_addr};
    return STOP_FAULT;
  }
  fault_landing = &c->fault_jmp;
  StopReason why = run_blocks(c, stop_rip);
  fault_landing = saved;
  return why;
}
