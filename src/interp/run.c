/* run.c: the dispatch loop: blocks run back to back, chained, with one event check each;
 * runs that must stop at an exact instruction go one instruction at a time where they
 * have to. */
#define _GNU_SOURCE /* TRAP_TRACE */
#include "run.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "../decoder/block.h"
#include "../decoder/decode.h"
#include "../host/host_crypto.h"
#include "access.h"
#include "chain.h"
#include "cpuid.h"
#include "fault.h"
#include "flags.h"
#include "insn.h"
#include "ops_int.h"
#include "machine.h"
#include "mxcsr.h"
#include "split_lock.h"
#include "watch.h"
#include "x87.h"

/* What siglongjmp passes to cpu_run from a hook inside a block (not a signal): it stopped
 * the run, or moved rip. */
#define JUMP_STOP (1 << 16)
#define JUMP_MOVED (JUMP_STOP + 1)

/* Until run_blocks says otherwise: no chaining, no return site followed (handlers run
 * outside a run, a run that stopped or faulted). */
static void no_chaining(Cpu *c) {
  c->chain_generation = UINT64_MAX;
  c->chain_stack_floor = UINTPTR_MAX;
}

void cpu_init(Cpu *c, Machine *m) {
  memset(c, 0, sizeof *c);
  c->m = m;
  c->icount_limit = UINT64_MAX;
  no_chaining(c);
  c->trapno = -1;
  cpu_reset(c);
}

void cpu_reset(Cpu *c) {
  memset(c->r, 0, sizeof c->r);
  /* A 64-bit Linux process's selectors: __USER_CS and __USER_DS, the others null. */
  static const uint16_t user_selectors[6] = {0, 0x33, 0x2b, 0, 0, 0};
  memcpy(c->sreg, user_selectors, sizeof c->sreg);
  flags_set(c, 0x202);
  cpu_fpu_reset(c);
}

void cpu_fpu_reset(Cpu *c) {
  memset(c->xmm, 0, sizeof c->xmm);
  memset(c->ymmh, 0, sizeof c->ymmh);
  c->mxcsr = 0x1F80;
  memset(&c->fpu, 0, sizeof c->fpu);
  x87_init(&c->fpu);
  c->xstate_in_use = 0;
}

_Noreturn void guest_trap(Cpu *c, int sig, int code, uint64_t addr) {
  const Insn *in = cpu_insn(c);
  c->rip = in ? in->rip : c->rip;
  fault_code = code;
  fault_addr = addr;
  siglongjmp(c->fault_jmp, -sig);
}

_Noreturn void guest_trap_next(Cpu *c, int sig, int code, uint64_t addr) {
  fault_code = code;
  fault_addr = addr;
  c->rip = insn_next(cpu_insn(c));
  c->icount++; /* a trap retires its instruction */
  siglongjmp(c->fault_jmp, -sig);
}

_Noreturn void guest_gp(Cpu *c, uint64_t err) {
  c->trapno = 13;
  c->trap_err = err;
  guest_trap(c, SIGSEGV, SI_KERNEL, 0);
}

_Noreturn void guest_misaligned(Cpu *c, uint64_t a) {
  if (canonical(a)) guest_gp(c, 0);
  /* As the host's own fault on a non-canonical address, which cpu_run makes #GP or #SS. */
  fault_code = SI_KERNEL;
  fault_addr = 0;
  siglongjmp(c->fault_jmp, SIGSEGV);
}

/* The hook records (block.c): before an instruction that an instruction hook watches,
 * and first in a block while a block hook exists. The hook runs with rip where the record
 * is, and may stop the run there, send it elsewhere, or change code (which drops the
 * block this record is in: the run goes on from a fresh decode). What must outlive the
 * call is kept in c->hooked, not in registers the call would make this handler save and
 * restore, and not in the record, which a change of code may wipe; in->imm is the
 * block's end. */
static __attribute__((noinline, noreturn)) void hook_leave(Cpu *c) {
  bool stop = cpu_events(c) & EV_STOP;
  c->icount += c->hooked.nth;
  siglongjmp(c->fault_jmp, stop ? JUMP_STOP : JUMP_MOVED);
}

static inline void hook_before(Cpu *c, const Insn *in) {
  c->rip = c->hooked.rip = in->rip;
  c->hooked.generation = c->m->code.generation;
  c->hooked.nth = in->nth;
}

static inline void hook_after(Cpu *c, const Insn *in) {
  if (__builtin_expect((cpu_events(c) & EV_STOP) || c->rip != c->hooked.rip ||
                           c->m->code.generation != c->hooked.generation, 0))
    hook_leave(c);
  c->rip = in->imm;
}

void op_insn_hook(Cpu *c, const Insn *in) {
  const Machine *m = c->m;
  hook_before(c, in);
  m->hooks.insn(m->embedder, in->rip, in[1].len, m->hooks.insn_user);
  hook_after(c, in);
  DISPATCH_NEXT(c, in);
}

/* A block hook in the block's own records, so that a run with one chains blocks as any
 * other (a precise run calls it itself for the blocks it runs an instruction at a time). */
void op_block_hook(Cpu *c, const Insn *in) {
  const Machine *m = c->m;
  hook_before(c, in);
  m->hooks.block(m->embedder, in->rip, in->imm - in->rip, m->hooks.block_user);
  hook_after(c, in);
  DISPATCH_NEXT(c, in);
}

void op_stop_check(Cpu *c, const Insn *in) {
  if (__builtin_expect(cpu_events(c) & EV_STOP, 0)) {
    c->rip = in->rip;
    c->icount += in->nth;
    siglongjmp(c->fault_jmp, JUMP_STOP);
  }
  DISPATCH_NEXT(c, in);
}

/* The stop that cpu_request_stop asked for, taken (EV_STOP cleared). */
static StopReason take_stop(Cpu *c) {
  cpu_clear_events(c, EV_STOP);
  return c->stop;
}

/* ---- the machine's lock, while CPUs run in parallel (machine.h) ---- */

/* From guest code to the lock: c no longer runs blocks, so a flush may free them. A no-op
 * for a CPU that is out of guest code already (a fault while it held the lock). */
static void code_lock(Cpu *c) {
  if (!c->m->parallel || !__atomic_load_n(&c->running, __ATOMIC_RELAXED)) return;
  __atomic_store_n(&c->running, 0, __ATOMIC_RELEASE);
  pthread_mutex_lock(&c->m->lock);
}

/* Back to guest code. The flag is up before the lock goes, and before c next looks at its
 * events: a flush raises an event on every CPU, then waits for their flags to fall. */
static void code_unlock(Cpu *c) {
  if (!c->m->parallel) return;
  __atomic_store_n(&c->running, 1, __ATOMIC_SEQ_CST);
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  pthread_mutex_unlock(&c->m->lock);
}

/* The block at rip (one-instruction when single): looked up without the lock, decoded
 * under it. */
static Block *code_at(Cpu *c, uint64_t rip, bool single) {
  BlockCache *code = &c->m->code;
  Block *b = block_find(code, rip, single);
  if (b) return b;
  code_lock(c);
  b = single ? block_get_single(code, rip) : block_get(code, rip);
  code_unlock(c);
  return b;
}

/* Drops a block whose code was written over, to decode it again. */
static void drop_stale(Cpu *c, const Block *b) {
  code_lock(c);
  block_invalidate_range(&c->m->code, b->start, b->end - b->start);
  code_unlock(c);
}

void op_code_check(Cpu *c, const Insn *in) {
  if (__builtin_expect(block_code_changed(c->block), 0)) {
    drop_stale(c, c->block);
    c->rip = in->rip;
    siglongjmp(c->fault_jmp, JUMP_MOVED);
  }
  DISPATCH_NEXT(c, in);
}

void op_block_end(Cpu *c, const Insn *in) {}

/* Runs one block's instructions; the last one may redirect c->rip. Handlers that end in
 * DISPATCH_NEXT run several instructions before returning; cpu_insn says how far. */
static inline Block *run_block(Cpu *c, Block *b, bool chain) {
  /* read now: a syscall in the block may flush the cache */
  c->block = b;
  c->exit_jump = NULL;
  c->chain_stack_floor = chain ? host_stack_pointer() - CHAIN_STACK_MAX : UINTPTR_MAX;
  c->rip = b->end;
  const Insn *in = b->insns;
  for (;;) {
    c->cur = in;
    in->fn(c, in);
    in = cpu_insn(c);
    if (in >= c->block->last) break; /* the last record returned, or the end record did */
    in++;
  }
  c->icount += c->exit_jump ? c->exit_jump->nth + 1u : c->block->ninsn;
  return c->block;
}

/* State of a run that must stop at exact instructions (a count, an address,
 * breakpoints): checked at every instruction boundary where it may matter. */
typedef struct Precise {
  uint64_t until;
  bool first;     /* nothing ran yet: a breakpoint where the run starts does not stop it */
  bool mid_block; /* the last instruction run alone did not end its block */
} Precise;

/* A reason for a precise run to stop at c->rip, before anything there is decoded; 0 if
 * none. */
static StopReason precise_stop(const Cpu *c, const Precise *p) {
  const BlockCache *code = &c->m->code;
  if (p->until && c->rip == p->until) return STOP_ADDRESS;
  if (c->icount >= c->icount_limit) return STOP_BUDGET;
  if (!p->first && code->n_breakpoints && block_breakpoint_at(code, c->rip)) return STOP_BREAKPOINT;
  return 0;
}

void cpu_fp_controls_loaded(Cpu *c) {
  /* The control word's masks sit where the status word's exception flags do. */
  bool unmasked = (c->mxcsr & MXCSR_MASKS) != MXCSR_MASKS || (c->fpu.cw & X87_EXC) != X87_EXC;
  if (unmasked && !__atomic_load_n(&c->m->dec.fp_exceptions, __ATOMIC_RELAXED))
    cpu_raise_events(c, EV_FP_UNMASKED);
}

/* EV_FP_UNMASKED: once per machine, the code is decoded again with every flag recorded. */
static void take_fp_unmasked(Cpu *c) {
  cpu_clear_events(c, EV_FP_UNMASKED);
  code_lock(c);
  if (!c->m->dec.fp_exceptions) {
    __atomic_store_n(&c->m->dec.fp_exceptions, true, __ATOMIC_RELAXED);
    block_flush_all(&c->m->code);
  }
  code_unlock(c);
}

/* What c->events make cpu_run return once the core has taken its own (EV_FP_UNMASKED):
 * the stop a handler set (EV_STOP), STOP_EVENT for the caller's bits, or 0 if none is
 * left. */
static StopReason events_stop(Cpu *c) {
  if (cpu_events(c) & EV_FP_UNMASKED) take_fp_unmasked(c);
  uint32_t events = cpu_events(c);
  if (!events) return 0;
  return events & EV_STOP ? take_stop(c) : STOP_EVENT;
}

/* What a precise run does with block b at c->rip. */
enum { RUN_BLOCK, RUN_SINGLE, LOOK_AGAIN };

static int precise_choice(Cpu *c, const Precise *p, const Block *b) {
  bool limited = c->icount_limit != UINT64_MAX;
  bool single = c->icount_limit - c->icount < b->ninsn || (limited && b->has_rep) ||
                (p->until > b->start && p->until < b->end) || b->has_bp;
  if (!single) return RUN_BLOCK; /* whose first record calls the block hook */
  if (c->m->hooks.block) {
    uint64_t gen = c->m->code.generation;
    c->m->hooks.block(c->m->embedder, b->start, b->end - b->start, c->m->hooks.block_user);
    /* The hook may stop the run (the loop's event check takes it), move rip, or change
     * code (b is gone). */
    if (cpu_events(c) || c->rip != b->start || c->m->code.generation != gen) return LOOK_AGAIN;
  }
  return RUN_SINGLE;
}

/* Runs the one instruction at c->rip. */
static void run_single(Cpu *c, Precise *p) {
  Block *one = code_at(c, c->rip, true);
  if (__builtin_expect(block_stale(one), 0)) {
    drop_stale(c, one);
    one = code_at(c, c->rip, true);
  }
  p->first = false;
  c->chain_generation = UINT64_MAX;
  run_block(c, one, false);
  p->mid_block = !one->insns[one->n - 1].ends;
}

/* TF set as an instruction begins: that instruction alone, then the single-step trap
 * (#DB) at the next, the kernel's SIGTRAP TRAP_TRACE there. So the instruction after a
 * POPF that sets TF is the first trapped (POPF ends its block), and one that clears TF is
 * still trapped. A fault of the instruction comes instead; a system call's stop first
 * (the trap after a system call is not raised). After MOV SS the trap waits for one more
 * instruction (the CPU's interrupt shadow), not two for two MOV SS; so it does after an
 * instruction the kernel emulates (SGDT, SMSW...: segments.c). */
static StopReason trace_step(Cpu *c, Precise *p) {
  c->trap_deferred = false;
  run_single(c, p);
  StopReason why = events_stop(c);
  if (!why && c->trap_deferred) { /* the next instruction runs untrapped too */
    run_single(c, p);
    why = events_stop(c);
  }
  if (why) return why;
  c->fault = (Fault){SIGTRAP, TRAP_TRACE, c->rip, false, 1, 0, false};
  return STOP_FAULT;
}

/* EFLAGS.AC changed (POPF, a signal frame, the embedder): misaligned accesses raise #AC
 * only in the watched copy of the handlers, which the machine runs while any of its CPUs
 * has AC set. Switching drops the decoded code; the flag changes at block ends only. */
static void check_alignment(Cpu *c) {
  bool on = (c->rflags & F_AC) != 0;
  c->ac_checked = on ? F_AC : 0;
  code_lock(c);
  c->m->aligning += on ? 1 : -1u;
  machine_watch(c->m, WATCH_ALIGNMENT, c->m->aligning != 0);
  code_unlock(c);
}

/* Points link, in a block that was live at generation gen, to next, if no block has been
 * dropped since; and clears it again if one was meanwhile: another CPU dropping blocks
 * changes the generation before it clears links into them (block.c). A watched block is
 * linked too: its first record compares its code (op_code_check). */
static void link_blocks(const BlockCache *code, Block **link, Block *next, uint64_t gen) {
  if (gen != block_generation(code)) return;
  block_link_set(link, next);
  if (gen != block_generation(code)) block_link_set(link, NULL);
}

/* A RET to the newest return site whose CALL's block had no link yet to the block after
 * it (chain_return): next is that block; link it, so that the next such RET goes on
 * there at once. */
static void link_return_site(Cpu *c, Block *next) {
  struct ReturnSite *p = &c->pending_return;
  if (!p->caller) return;
  if (p->rip == c->rip && next->start == c->rip)
    link_blocks(&c->m->code, &p->caller->fall, next, p->generation);
  p->caller = NULL;
}

/* Runs chained blocks until an event or a stop. Kept out of cpu_run so that the compiler
 * can hold c and the block in registers: a function that calls sigsetjmp keeps its locals
 * in memory. */
static __attribute__((noinline)) StopReason run_blocks(Cpu *c, uint64_t until, bool first) {
  Machine *m = c->m;
  BlockCache *code = &m->code;
  Precise p = {.until = until, .first = first};
  bool precise = until || c->icount_limit != UINT64_MAX || code->n_breakpoints;
  Block *b = NULL;
  uint64_t gen = block_generation(code);
  for (;;) {
    if (cpu_events(c)) {
      StopReason why = events_stop(c);
      if (why) return why;
    }
    /* TF set, or AC not as the decoded code checks it: one test for both. */
    if (__builtin_expect((c->rflags ^ c->ac_checked) & (F_TF | F_AC), 0)) {
      if ((c->rflags ^ c->ac_checked) & F_AC) check_alignment(c);
      if (c->rflags & F_TF) {
        StopReason why = precise ? precise_stop(c, &p) : 0;
        return why ? why : trace_step(c, &p);
      }
    }
    if (__builtin_expect(precise, 0)) {
      StopReason why = precise_stop(c, &p);
      if (why) return why;
      if (p.mid_block) { /* the rest of a block runs an instruction at a time */
        run_single(c, &p);
        continue;
      }
    }
    Block *next;
    if (b && gen == block_generation(code)) {
      /* The link for where b went: a side exit's record's (which left b), else b's own,
       * as chain_block takes them. */
      Block **link = c->exit_jump ? (Block **)&c->exit_jump->exit
                     : c->rip == b->end ? &b->fall
                                        : &b->taken;
      Block *to = block_link(link);
      if (to && to->start == c->rip && block_live(to)) {
        next = to;
      } else {
        next = code_at(c, c->rip, false);
        link_blocks(code, link, next, gen);
      }
    } else {
      next = code_at(c, c->rip, false);
    }
    c->exit_jump = NULL;
    link_return_site(c, next);
    gen = block_generation(code);
    b = next; /* a watched one compares its code as it starts (op_code_check) */
    if (__builtin_expect(precise, 0)) {
      int what = precise_choice(c, &p, b);
      p.first = false;
      if (what != RUN_BLOCK) {
        if (what == RUN_SINGLE) run_single(c, &p);
        b = NULL; /* no chaining from a one-instruction block */
        continue;
      }
    }
    c->chain_generation = precise ? UINT64_MAX : gen;
    b = run_block(c, b, !precise);
  }
}

/* A host fault on a non-canonical address (the host's #GP or #SS, or its page fault on
 * a host whose addresses are otherwise shaped) is the guest's #GP, or #SS when the access
 * was through the stack segment (a base of RSP or RBP, or the stack pointer itself): the
 * kernel's SIGSEGV or SIGBUS, SI_KERNEL, address 0. Returns the signal, as a guest trap's
 * (negative). */
static int noncanonical_fault(Cpu *c) {
  const Insn *in = cpu_insn(c);
  uint64_t sp = c->r[RSP];
  bool stack = (in->mem && in->seg == SEG_NONE && (in->base == RSP || in->base == RBP)) ||
               in->stack ||
               !canonical(sp) || !canonical(sp - 8);
  fault_code = SI_KERNEL;
  fault_addr = 0;
  c->trapno = stack ? 12 : 13;
  c->trap_err = 0;
  return stack ? -SIGBUS : -SIGSEGV;
}

void cpu_describe_insn(Cpu *c, uint64_t rip, char *buf, size_t size) {
  uint8_t bytes[15];
  unsigned n = fault_copy_in(bytes, rip, sizeof bytes);
  char text[160], hex[3 * 15 + 1] = "";
  unsigned len = decode_text(&c->m->dec, rip, bytes, n, text, sizeof text);
  /* Capstone's length when it knew the instruction; all readable bytes when it did not. */
  unsigned show = len && len < n ? len : n;
  for (unsigned i = 0; i < show; i++) snprintf(hex + 3 * i, 4, "%02x ", bytes[i]);
  const char *lacks = cpuid_missing_set(bytes, show);
  snprintf(buf, size, "0x%llx: %s(%s)%s%s", (unsigned long long)rip, hex, text, lacks ? ": " : "",
           lacks ? lacks : "");
}

StopReason cpu_run(Cpu *c, uint64_t until) {
  /* The crypto handlers were picked for the host tier in force (crypto_tier.c). */
  if (c->m->code_crypto != host_crypto_accel) {
    block_flush_all(&c->m->code);
    c->m->code_crypto = host_crypto_accel;
  }
  memory_watch_cpu(c);
  sigjmp_buf *saved = fault_landing;
  int sig = sigsetjmp(c->fault_jmp, 0);
  bool moved = sig == JUMP_MOVED;
  if (moved) { /* runs on from the new rip, landing here again */
    code_lock(c);
    sig = 0;
  }
  if (sig != 0) {
    c->cur = cpu_insn(c); /* the record that stopped or faulted, lean ones passed over */
    no_chaining(c);
    if (c->split_locked) split_lock_give(c);
    code_lock(c);
    fault_landing = saved;
    if (sig == JUMP_STOP) return take_stop(c); /* a hook stopped it before c->cur's instruction */
    /* A host fault (sig > 0: SIGSEGV/SIGBUS on guest memory) or a guest trap (sig < 0)
     * in the instruction c->cur; the ones before it in its block retired. */
    if (sig > 0) {
      c->rip = c->cur->rip;
      /* The host's reservations (the heap beyond the break) are not guest mappings. */
      const RangeSet *map = c->m->code.exec_map;
      if (map && fault_code == SEGV_ACCERR) {
        int prot = ranges_prot(map, fault_addr);
        if (prot < 0 || (prot & GUEST_PROT_RESERVED)) fault_code = SEGV_MAPERR;
      }
      bool noncanonical = fault_code == SI_KERNEL || !canonical(fault_addr);
#if !defined(__x86_64__)
      /* An aarch64 host ignores an address's top byte and reports the rest: the
       * instruction's own address tells. */
      noncanonical = noncanonical || (c->cur->mem && !canonical(ea(c, c->cur)));
#endif
      if (noncanonical) sig = noncanonical_fault(c);
    }
    c->icount += c->cur->nth;
    c->fault = (Fault){sig > 0 ? sig : -sig, fault_code, fault_addr, c->undefined,
                       sig > 0 ? -1 : c->trapno, c->trap_err, c->cur->rmw};
    c->undefined = false;
    c->trapno = -1;
    return STOP_FAULT;
  }
  fault_landing = &c->fault_jmp;
  code_unlock(c);
  /* A hook's jump is not where the run started: a breakpoint there stops it. */
  StopReason why = run_blocks(c, until, !moved);
  no_chaining(c);
  code_lock(c);
  fault_landing = saved;
  return why;
}
