/* chain.h: from the branch that ends a block straight into the next block, without
 * returning to run_blocks (run.c): loops of short blocks spent much of their time going
 * round it (a quarter of busybox gzip's, measured with perf), and every block's first
 * handler was called from its one call site. The next block is one run_blocks linked to
 * this one before, taken only when run_blocks would take it without looking further: no
 * event pending, neither TF nor a change of AC to see to, a run that need not stop at
 * exact instructions, and a next block still live (not dropped: its code was not written
 * or unmapped since; a block decoded from memory the guest may write compares its code
 * itself, op_code_check). Otherwise the handler returns and run_blocks decides, as before.
 *
 * Blocks are decoded only in run_blocks, so the cache is never emptied while a chain
 * runs, as long as other CPUs are out of guest code before one empties it (threads.c's
 * quiesce raises an event that each takes at its next branch): the blocks a chain reaches
 * stay as they were decoded, and a chain need not compare the cache's generation.
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

/* Whether a branch may go on into another block now (the conditions above). */
static inline __attribute__((always_inline)) bool may_chain(const Cpu *c) {
  return __builtin_expect(cpu_events(c) == 0, 1) && !((c->rflags ^ c->ac_checked) & (F_TF | F_AC)) &&
         host_stack_pointer() >= c->chain_stack_floor; /* UINTPTR_MAX: no chaining */
}

/* Into next, a linked block that starts at c->rip, if it is live, the running one having
 * run ran instructions; false if not. As few stores as may be: a chain is made for every few
 * guest instructions, and the host's stores are what it waits on. */
static inline __attribute__((always_inline)) bool chain_into(Cpu *c, Block *next, uint32_t ran) {
  if (!next || next->start != c->rip || !block_live(next)) return false;
  c->icount += ran;
  c->block = next;
  c->rip = next->end;
  c->cur = next->insns;
  next->insns[0].fn(c, next->insns);
  return true;
}

/* Into the block run_blocks linked to the running one for where its end went (c->rip);
 * false if there is none to go on to now. */
static inline __attribute__((always_inline)) bool chain_block(Cpu *c) {
  if (!may_chain(c)) return false;
  const Block *b = c->block;
  return chain_into(c, block_link(c->rip == b->end ? &b->fall : &b->taken), b->ninsn);
}

/* A side exit's jump taken (Insn.side_exit): the block ends here, with the instructions
 * up to the jump counted, into the block linked to the jump's record, or back to
 * run_blocks, which links it (c->exit_jump). */
static inline __attribute__((always_inline)) void side_exit(Cpu *c, const Insn *jump) {
  c->rip = jump->imm;
  Block **link = (Block **)&jump->exit; /* the record is in the writable arena */
  if (may_chain(c) && chain_into(c, block_link(link), jump->nth + 1u)) return;
  c->cur = c->block->last;
  c->exit_jump = jump;
}

enum { RETURN_SITES = sizeof ((Cpu *)0)->returns / sizeof ((Cpu *)0)->returns[0] };

/* A CALL that ends the running block, returning to ret: its return site. */
static inline void note_call(Cpu *c, uint64_t ret) {
  struct ReturnSite *s = &c->returns[c->returns_top++ % RETURN_SITES];
  *s = (struct ReturnSite){ret, c->chain_generation, c->block};
}

/* A RET, to c->rip: when that is the newest return site, into the block after its CALL
 * (the CALL's block's fall link, which run_blocks makes the first time: pending_return);
 * else as chain_block, by the RET's own link to where it went last. A function called
 * from several places returns to each without going back to run_blocks. */
static inline __attribute__((always_inline)) void chain_return(Cpu *c) {
  if (!may_chain(c)) return;
  const struct ReturnSite *s = &c->returns[(c->returns_top - 1) % RETURN_SITES];
  if (s->rip == c->rip && s->generation == c->chain_generation) {
    c->returns_top--;
    if (!chain_into(c, block_link(&s->caller->fall), c->block->ninsn)) c->pending_return = *s;
    return;
  }
  chain_block(c);
}

#endif
