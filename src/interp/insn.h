/* insn.h: the decoded form of one guest instruction and the one handler signature. */
#ifndef X64EMU_INSN_H
#define X64EMU_INSN_H

#include <stdbool.h>
#include <stdint.h>

#include "cpu.h"

typedef struct Insn Insn;
typedef void (*Handler)(Cpu *c, const Insn *in);

/* Everything a handler needs, resolved once at decode time. Register numbers are final
 * (REX applied); a memory operand is base + (index << scale) + disp (+ segment base),
 * with RIP-relative addresses already made absolute in disp. */
struct Insn {
  Handler fn;
  uint64_t rip;   /* address of this instruction */
  union {
    int64_t disp;        /* memory displacement, absolute for RIP-relative operands */
    struct Block *exit;  /* a side exit's (below): the block its jump went to last, linked
                            by run_blocks (run.c); written there, read as an atomic */
  };
  uint64_t imm;   /* immediate, sign- or zero-extended as the instruction defines */
  uint8_t len;    /* encoded length in bytes */
  uint8_t osz;    /* operand size in bytes: 1, 2, 4, 8 (16 for XMM memory) */
  uint8_t reg;    /* ModRM.reg operand (or opcode-embedded register) */
  uint8_t rm;     /* ModRM.rm register when !mem */
  uint8_t base;   /* REG_NONE when absent */
  uint8_t index;  /* REG_NONE when absent */
  uint8_t vreg;   /* VEX.vvvv: the register operand a VEX encoding adds (else 0) */
  /* How the address is formed, in one byte so that ea() tests its rare cases at once. */
  uint8_t scale : 2;  /* shift count 0..3 */
  uint8_t seg : 2;    /* SEG_NONE, SEG_FS or SEG_GS: the only segments with a base */
  uint8_t addr32 : 1; /* 67 prefix: 32-bit address arithmetic */
  uint8_t rep : 2;    /* REP_NONE, REP_E (F3), REP_NE (F2) for string instructions */
  uint8_t mem : 1;    /* the ModRM.rm operand is memory */
  uint8_t ends : 1;   /* control may leave straight-line order: the block ends here */
  uint8_t rep_once : 1; /* a REP string instruction runs one iteration per execution and
                           ends its block, so that every iteration is a step and meets
                           its hook, as with the trap flag (block.c) */
  uint8_t lock : 1;   /* atomic: a LOCK prefix (on a lockable memory form: the others are
                         #UD), or XCHG with memory; an op_atomic record runs it (atomic.c) */
  uint8_t stack : 1;  /* accesses memory at RBP through the stack segment (ENTER, LEAVE) */
  uint8_t rmw : 1;    /* reads its memory operand to write it: the CPU reads it for writing,
                         so a page fault on it is a write even before anything is stored */
  uint8_t side_exit : 1; /* a forward conditional jump inside its block (block.c): not
                            taken, the block goes on; taken, it leaves it (chain.h) */
  uint8_t op;     /* sub-operation chosen by the decoder (ALU kind, condition code...) */
  uint8_t aux;    /* second small immediate or handler-specific detail */
  /* Arithmetic flags as FL_* bits: what the instruction reads, what it always writes,
   * and which of them a later instruction may read (block.c's liveness pass). Handlers
   * may skip computing a flag that is not live. */
  uint8_t flags_use, flags_def, flags_live;
  uint8_t nth;    /* guest instructions before this record in its block (block.c) */
};

enum {
  FL_CF = 1, FL_PF = 2, FL_AF = 4, FL_ZF = 8, FL_SF = 16, FL_OF = 32,
  FL_ALL = 63,
};

enum { SEG_NONE, SEG_FS, SEG_GS };
enum { REP_NONE, REP_E, REP_NE };

static inline uint64_t insn_next(const Insn *in) { return in->rip + in->len; }

/* Every run of records, a block's or a lone instruction's, ends in an end record, whose
 * handler returns to the dispatch loop (run.c): so a handler goes on to the next record
 * without asking whether there is one. */
void op_block_end(Cpu *c, const Insn *in);
static inline Insn insn_end(uint64_t rip, unsigned nth) {
  return (Insn){.fn = op_block_end, .rip = rip, .nth = (uint8_t)nth, .base = REG_NONE,
                .index = REG_NONE};
}

/* Ends a handler: runs the next record at once, as a tail call, instead of returning to
 * the dispatch loop (threaded dispatch); the loop goes on from the record running
 * (cpu_insn) when a handler returns. */
#define DISPATCH_NEXT(c, in)          \
  do {                                \
    const Insn *next_ = (in) + 1;     \
    (c)->cur = next_;                 \
    next_->fn((c), next_);            \
  } while (0)

/* Lean handlers (register forms that raise nothing: fast.c's, the SSE/AVX integer, move,
 * shuffle and crypto ones; the jumps) cannot fault, read nothing of which record is
 * running, and end in DISPATCH_LEAN or leave their block. They go on without
 * recording the next record as the one running, a store fewer for most instructions of
 * compiled code. c->cur is then a record at or before the one running with only lean
 * records between, so the one running is the first record from c->cur on that is not
 * lean (cpu_insn), an end record at the latest. A handler is lean by where it is: the
 * linker gathers the LEAN section's functions between its two symbols. */
#define LEAN __attribute__((section("x64emu_lean")))
#define DISPATCH_LEAN(c, in)          \
  do {                                \
    const Insn *next_ = (in) + 1;     \
    next_->fn((c), next_);            \
  } while (0)

extern const char __start_x64emu_lean[] __attribute__((visibility("hidden")));
extern const char __stop_x64emu_lean[] __attribute__((visibility("hidden")));

static inline bool handler_is_lean(Handler fn) {
  uintptr_t a = (uintptr_t)fn;
  return a >= (uintptr_t)__start_x64emu_lean && a < (uintptr_t)__stop_x64emu_lean;
}

/* The record running (or that stopped, faulted or returned to the loop), or NULL before
 * any has run. */
static inline const Insn *cpu_insn(const Cpu *c) {
  const Insn *in = c->cur;
  while (in && handler_is_lean(in->fn)) in++;
  return in;
}

/* Runs one decoded record on its own, followed by an end record, as tests do. */
static inline void insn_run_alone(Cpu *c, const Insn *in) {
  Insn run[2] = {*in, insn_end(insn_next(in), 1)};
  c->cur = run;
  run[0].fn(c, run);
  c->cur = in;
}

#endif
