/* chain.h: from the branch that ends a block straight into the next block, without
 * returning to run_blocks (run.c): loops of short blocks spent much of their time going
 * round it (a quarter of busybox gzip's, measured with perf), and every block's first
 * handler was called from its one call site. The next block is one run_blocks linked to
 * this one before, taken only when run_blocks would take it without looking further: no
 * event pending, neither TF nor a change of AC to see to, a run that need not stop at
 * exact instructions (Cpu.chain_generation), no block dropped since the run began, and
 * no watched code to compare (self-modifying code) in the next block. Otherwise the
 * handler returns and run_blocks decides, as before.
 *
 * Most handlers pass on to the next instruction with a tail call, but some cannot (those
 * that hand the address of a local to a function, as the floating-point ones do): each of
 * those keeps a host stack frame until the chain returns. Within a block that is bounded
 * by its length; across blocks the chain stops once the host stack has grown by
 * CHAIN_STACK_MAX since run_block began, and run_blocks takes over with an empty one. */
#ifndef X64EMU_CHAIN_H
#define X64EMU_CHAIN_H

#include "../decoder/block.h"
#include "flags.h"
#include "machine.h"

enum { CHAIN_STACK_MAX = 64 << 10 };

/* The host's stack pointer. */
static inline uintptr_t host_stack_pointer(void) {
  uintptr_t sp;
#if defined(__x86_64__)
  __asm__("mov %%rsp, %0" : "=r"(sp));
#elif defined(__aarch64__)
  __asm__("mov %0, sp" : "=r"(sp));
#else
  sp = (uintptr_t)__builtin_frame_address(0);
#endif
  return sp;
}

static inline __attribute__((always_inline)) void chain_block(Cpu *c) {
  const Block *b = c->block;
  if (__builtin_expect(cpu_events(c) != 0, 0) || ((c->rflags ^ c->ac_checked) & (F_TF | F_AC)) ||
      c->chain_generation != block_generation(&c->m->code) ||
      host_stack_pointer() < c->chain_stack_floor)
    return;
  Block *next = block_link(c->rip == b->end ? &b->fall : &b->taken);
  if (!next || next->start != c->rip || !block_live(next) || next->watched) return;
  c->icount += c->block_ninsn;
  c->block = next;
  c->block_last = next->insns + next->n - 1;
  c->block_ninsn = next->ninsn;
  c->rip = next->end;
  c->cur = next->insns;
  next->insns[0].fn(c, next->insns);
}

#endif
