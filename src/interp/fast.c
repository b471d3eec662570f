/* fast.c: specialised copies of the generic handlers for the forms that dominate real
 * code (32/64-bit register ALU operations, moves, shifts by an immediate). Each one
 * fixes the operation and the size at decode time, so the dispatch costs no switch. */
#include "ops_fast.h"

#include "access.h"
#include "chain.h"
#include "flags.h"
#include "ops_crypto.h"
#include "ops_int.h"

/* What only a copy's pairing (ops_fast.h, FastPairing) puts into blocks: the forms that
 * record no flags, the fused ones, the side exits. The watched copy has no pairing (a
 * stop check stands between every two of its records), and leaves them out. */
#ifdef X64EMU_WATCH_MEMORY
#define PAIRED(...)
#else
#define PAIRED(...) __VA_ARGS__
#define HAS_PAIRING 1
#endif

/* ---- ALU: E op= G, G op= E, E op= imm, with register operands; E op= G and G op= E
 * with memory ---- */

/* The lazy flags of a result, unless LF is LF_NONE: a copy for results whose flags
 * nothing reads (the _nf forms below). */
#define LAZY_SET(c, LF, size, r, a, b)                  \
  do {                                                  \
    if ((LF) != LF_NONE) lazy_set(c, LF, size, r, a, b); \
  } while (0)

/* E op= G, E op= imm and G op= E with register operands; PRE runs first (the fused
 * moves below). */
#define ALU_REG_FORMS(NAME, EXPR, LF, WRITES, SUFFIX, PRE, TAIL)                                \
  static LEAN void NAME##64_rr##SUFFIX(Cpu *c, const Insn *in) { /* E op= G */                       \
    PRE                                                                                         \
    uint64_t a = c->r[in->rm], b = c->r[in->reg], r = EXPR;                                     \
    if (WRITES) c->r[in->rm] = r;                                                               \
    LAZY_SET(c, LF, 8, r, a, b);                                                                \
    TAIL;                                                                                       \
  }                                                                                             \
  static LEAN void NAME##32_rr##SUFFIX(Cpu *c, const Insn *in) {                                     \
    PRE                                                                                         \
    uint32_t a = (uint32_t)c->r[in->rm], b = (uint32_t)c->r[in->reg], r = EXPR;                 \
    if (WRITES) c->r[in->rm] = r;                                                               \
    LAZY_SET(c, LF, 4, r, a, b);                                                                \
    TAIL;                                                                                       \
  }                                                                                             \
  static LEAN void NAME##64_ri##SUFFIX(Cpu *c, const Insn *in) {                                     \
    PRE                                                                                         \
    uint64_t a = c->r[in->rm], b = in->imm, r = EXPR;                                           \
    if (WRITES) c->r[in->rm] = r;                                                               \
    LAZY_SET(c, LF, 8, r, a, b);                                                                \
    TAIL;                                                                                       \
  }                                                                                             \
  static LEAN void NAME##32_ri##SUFFIX(Cpu *c, const Insn *in) {                                     \
    PRE                                                                                         \
    uint32_t a = (uint32_t)c->r[in->rm], b = (uint32_t)in->imm, r = EXPR;                       \
    if (WRITES) c->r[in->rm] = r;                                                               \
    LAZY_SET(c, LF, 4, r, a, b);                                                                \
    TAIL;                                                                                       \
  }                                                                                             \
  static LEAN void NAME##64_rm##SUFFIX(Cpu *c, const Insn *in) { /* G op= E, E a register */         \
    PRE                                                                                         \
    uint64_t a = c->r[in->reg], b = c->r[in->rm], r = EXPR;                                     \
    if (WRITES) c->r[in->reg] = r;                                                              \
    LAZY_SET(c, LF, 8, r, a, b);                                                                \
    TAIL;                                                                                       \
  }                                                                                             \
  static LEAN void NAME##32_rm##SUFFIX(Cpu *c, const Insn *in) {                                     \
    PRE                                                                                         \
    uint32_t a = (uint32_t)c->r[in->reg], b = (uint32_t)c->r[in->rm], r = EXPR;                 \
    if (WRITES) c->r[in->reg] = r;                                                              \
    LAZY_SET(c, LF, 4, r, a, b);                                                                \
    TAIL;                                                                                       \
  }
#define ALU_FORMS(NAME, EXPR, LF, WRITES, SUFFIX, TAIL, LEAN_TAIL)                              \
  ALU_REG_FORMS(NAME, EXPR, LF, WRITES, SUFFIX, , LEAN_TAIL)                                    \
  static void NAME##64_rml##SUFFIX(Cpu *c, const Insn *in) { /* G op= E, E in memory */         \
    uint64_t a = c->r[in->reg], b = ld64(ea(c, in)), r = EXPR;                                  \
    if (WRITES) c->r[in->reg] = r;                                                              \
    LAZY_SET(c, LF, 8, r, a, b);                                                                \
    TAIL;                                                                                       \
  }                                                                                             \
  static void NAME##32_rml##SUFFIX(Cpu *c, const Insn *in) {                                    \
    uint32_t a = (uint32_t)c->r[in->reg], b = ld32(ea(c, in)), r = EXPR;                        \
    if (WRITES) c->r[in->reg] = r;                                                              \
    LAZY_SET(c, LF, 4, r, a, b);                                                                \
    TAIL;                                                                                       \
  }                                                                                             \
  /* E op= G, E in memory: the flags change only once the store has not faulted. */             \
  static void NAME##64_mr##SUFFIX(Cpu *c, const Insn *in) {                                     \
    uint64_t m = ea(c, in), a = ld64(m), b = c->r[in->reg], r = EXPR;                           \
    if (WRITES) st64(m, r);                                                                     \
    LAZY_SET(c, LF, 8, r, a, b);                                                                \
    TAIL;                                                                                       \
  }                                                                                             \
  static void NAME##32_mr##SUFFIX(Cpu *c, const Insn *in) {                                     \
    uint64_t m = ea(c, in);                                                                     \
    uint32_t a = ld32(m), b = (uint32_t)c->r[in->reg], r = EXPR;                                \
    if (WRITES) st32(m, r);                                                                     \
    LAZY_SET(c, LF, 4, r, a, b);                                                                \
    TAIL;                                                                                       \
  }                                                                                             \
  static void NAME##16_mr##SUFFIX(Cpu *c, const Insn *in) {                                     \
    uint64_t m = ea(c, in);                                                                     \
    uint16_t a = ld16(m), b = (uint16_t)c->r[in->reg], r = (uint16_t)(EXPR);                    \
    if (WRITES) st16(m, r);                                                                     \
    LAZY_SET(c, LF, 2, r, a, b);                                                                \
    TAIL;                                                                                       \
  }                                                                                             \
  static void NAME##8_mr##SUFFIX(Cpu *c, const Insn *in) { /* G a low byte register */          \
    uint64_t m = ea(c, in);                                                                     \
    uint8_t a = ld8(m), b = (uint8_t)c->r[in->reg], r = (uint8_t)(EXPR);                        \
    if (WRITES) st8(m, r);                                                                      \
    LAZY_SET(c, LF, 1, r, a, b);                                                                \
    TAIL;                                                                                       \
  }                                                                                             \
  /* E op= G and E op= imm with a word or low byte register: the rest of it stays. */            \
  ALU_NARROW_REG_FORMS(NAME, EXPR, LF, WRITES, SUFFIX, LEAN_TAIL, uint16_t, 16, 2)             \
  ALU_NARROW_REG_FORMS(NAME, EXPR, LF, WRITES, SUFFIX, LEAN_TAIL, uint8_t, 8, 1)               \
  /* E op= imm, E in memory. */                                                                 \
  ALU_MEM_IMM_FORM(NAME, EXPR, LF, WRITES, SUFFIX, TAIL, uint64_t, 64, 8)                      \
  ALU_MEM_IMM_FORM(NAME, EXPR, LF, WRITES, SUFFIX, TAIL, uint32_t, 32, 4)                      \
  ALU_MEM_IMM_FORM(NAME, EXPR, LF, WRITES, SUFFIX, TAIL, uint16_t, 16, 2)                      \
  ALU_MEM_IMM_FORM(NAME, EXPR, LF, WRITES, SUFFIX, TAIL, uint8_t, 8, 1)
#define ALU_NARROW_REG_FORMS(NAME, EXPR, LF, WRITES, SUFFIX, TAIL, T, BITS, SIZE)    \
  static LEAN void NAME##BITS##_rr##SUFFIX(Cpu *c, const Insn *in) {                       \
    T a = (T)c->r[in->rm], b = (T)c->r[in->reg], r = (T)(EXPR);                       \
    if (WRITES) c->r[in->rm] = (c->r[in->rm] & ~(uint64_t)(T)~0) | r;                 \
    LAZY_SET(c, LF, SIZE, r, a, b);                                                   \
    TAIL;                                                                             \
  }                                                                                   \
  static LEAN void NAME##BITS##_ri##SUFFIX(Cpu *c, const Insn *in) {                       \
    T a = (T)c->r[in->rm], b = (T)in->imm, r = (T)(EXPR);                             \
    if (WRITES) c->r[in->rm] = (c->r[in->rm] & ~(uint64_t)(T)~0) | r;                 \
    LAZY_SET(c, LF, SIZE, r, a, b);                                                   \
    TAIL;                                                                             \
  }
#define ALU_MEM_IMM_FORM(NAME, EXPR, LF, WRITES, SUFFIX, TAIL, T, BITS, SIZE) \
  static void NAME##BITS##_mi##SUFFIX(Cpu *c, const Insn *in) {               \
    uint64_t m = ea(c, in);                                                   \
    T a = ld##BITS(m), b = (T)in->imm, r = (T)(EXPR);                         \
    if (WRITES) st##BITS(m, r);                                               \
    LAZY_SET(c, LF, SIZE, r, a, b);                                           \
    TAIL;                                                                     \
  }

#define NEXT DISPATCH_NEXT(c, in)
#define NEXT_LEAN DISPATCH_LEAN(c, in)
/* The specialised ALU operations, each given to FORMS(NAME, EXPR, LF, WRITES, SUFFIX, PRE)
 * with the suffix S: here for their handlers, and below for the same after a register
 * copy and for the table that pairs them. The _nf forms are for results whose
 * flags no instruction reads (Insn.flags_live 0: block.c's liveness pass counts an
 * instruction that may fault as reading them all, so a signal frame still shows them):
 * nothing recorded, for four stores fewer. Compiled code mostly overwrites the flags of
 * an ADD, AND, OR, SUB or XOR (and INC, DEC) before it reads any. */
#define FAST_ALU_OPS(FORMS, S, PRE)             \
  FORMS(add, a + b, LF_ADD, 1, S, PRE)          \
  FORMS(sub, a - b, LF_SUB, 1, S, PRE)          \
  FORMS(and, a & b, LF_LOGIC, 1, S, PRE)        \
  FORMS(or, a | b, LF_LOGIC, 1, S, PRE)         \
  FORMS(xor, a ^ b, LF_LOGIC, 1, S, PRE)        \
  FORMS(cmp, a - b, LF_SUB, 0, S, PRE)          \
  FORMS(test, a & b, LF_LOGIC, 0, S, PRE)       \
  PAIRED(FORMS(add, a + b, LF_NONE, 1, _nf##S, PRE)    \
         FORMS(sub, a - b, LF_NONE, 1, _nf##S, PRE)    \
         FORMS(and, a & b, LF_NONE, 1, _nf##S, PRE)    \
         FORMS(or, a | b, LF_NONE, 1, _nf##S, PRE)     \
         FORMS(xor, a ^ b, LF_NONE, 1, _nf##S, PRE))
#define ALU_HANDLERS(NAME, EXPR, LF, WRITES, SUFFIX, PRE) \
  ALU_FORMS(NAME, EXPR, LF, WRITES, SUFFIX, NEXT, NEXT_LEAN)
FAST_ALU_OPS(ALU_HANDLERS, , )

/* ---- INC and DEC of a 32- or 64-bit register: CF stays as it was, kept in the lazy
 * flags' cin (alu.c's op_inc), read at once when the last flag setter was one too ---- */

static inline bool carry_before(const Cpu *c, const Insn *in) {
  return in->flags_live & FL_CF ? flag_cf_kept(c) : false;
}

#define INCDEC_FORMS(NAME, OP, LF, SUFFIX, PRE, TAIL)                                          \
  static LEAN void NAME##64_r##SUFFIX(Cpu *c, const Insn *in) {                                     \
    PRE                                                                                        \
    uint64_t a = c->r[in->rm], r = a OP 1;                                                     \
    if ((LF) != LF_NONE) {                                                                     \
      bool cf = carry_before(c, in);                                                           \
      lazy_set(c, LF, 8, r, a, 1);                                                             \
      c->lf.cin = cf;                                                                          \
    }                                                                                          \
    c->r[in->rm] = r;                                                                          \
    TAIL;                                                                                      \
  }                                                                                            \
  static LEAN void NAME##32_r##SUFFIX(Cpu *c, const Insn *in) {                                     \
    PRE                                                                                        \
    uint32_t a = (uint32_t)c->r[in->rm], r = a OP 1;                                           \
    if ((LF) != LF_NONE) {                                                                     \
      bool cf = carry_before(c, in);                                                           \
      lazy_set(c, LF, 4, r, a, 1);                                                             \
      c->lf.cin = cf;                                                                          \
    }                                                                                          \
    c->r[in->rm] = r;                                                                          \
    TAIL;                                                                                      \
  }
/* As FAST_ALU_OPS: FORMS(NAME, OP, LF, SUFFIX, PRE); the _nf forms record nothing. */
#define FAST_INCDEC_OPS(FORMS, S, PRE)   \
  FORMS(inc, +, LF_INC, S, PRE)          \
  FORMS(dec, -, LF_DEC, S, PRE)          \
  PAIRED(FORMS(inc, +, LF_NONE, _nf##S, PRE) FORMS(dec, -, LF_NONE, _nf##S, PRE))
#define INCDEC_HANDLERS(NAME, OP, LF, SUFFIX, PRE) INCDEC_FORMS(NAME, OP, LF, SUFFIX, PRE, NEXT_LEAN)
FAST_INCDEC_OPS(INCDEC_HANDLERS, , )

#ifdef HAS_PAIRING
/* The same forms fused with the Jcc on ZF or CF that follows them (fuse.c): the
 * comparison and the jump in one dispatch, the condition read straight off the operands
 * the handler has just computed (cond() on a constant code, after lazy_set, folds to one
 * test). The Jcc's record stays, after this one: its target is read there. At the end of
 * a block (jump_if) either way leaves it; inside one (exit_if, the _x forms: a side exit)
 * only the jump taken does, and the record after the Jcc's runs next. */
static inline __attribute__((always_inline)) void jump_if(Cpu *c, const Insn *in, bool taken,
                                                          bool lean) {
  (void)lean; /* exit_if's shape: ALU_FORMS passes both tails the same arguments */
  if (taken) c->rip = in[1].imm;
  /* Back to run_block at the Jcc's record, the block's last: from a memory form's record,
   * which is not lean, cpu_insn would not reach it. */
  if (!chain_block(c)) c->cur = in + 1;
}
static inline __attribute__((always_inline)) void exit_if(Cpu *c, const Insn *in, bool taken,
                                                          bool lean) {
  if (taken) side_exit(c, in + 1);
  else if (lean) DISPATCH_LEAN(c, in + 1);
  else DISPATCH_NEXT(c, in + 1);
}
#define FUSED_JCC(NAME, EXPR, LF, WRITES, X, TAIL)                     \
  ALU_FORMS(NAME, EXPR, LF, WRITES, _jb##X, TAIL(c, in, cond(c, 2), false), TAIL(c, in, cond(c, 2), true))  \
  ALU_FORMS(NAME, EXPR, LF, WRITES, _jae##X, TAIL(c, in, cond(c, 3), false), TAIL(c, in, cond(c, 3), true)) \
  ALU_FORMS(NAME, EXPR, LF, WRITES, _jz##X, TAIL(c, in, cond(c, 4), false), TAIL(c, in, cond(c, 4), true))  \
  ALU_FORMS(NAME, EXPR, LF, WRITES, _jnz##X, TAIL(c, in, cond(c, 5), false), TAIL(c, in, cond(c, 5), true))
/* CMP also before the jumps on the unsigned and signed orders. */
#define FUSED_ORDER_JCC(NAME, EXPR, LF, WRITES, X, TAIL)                 \
  ALU_FORMS(NAME, EXPR, LF, WRITES, _jbe##X, TAIL(c, in, cond(c, 6), false), TAIL(c, in, cond(c, 6), true))  \
  ALU_FORMS(NAME, EXPR, LF, WRITES, _ja##X, TAIL(c, in, cond(c, 7), false), TAIL(c, in, cond(c, 7), true))   \
  ALU_FORMS(NAME, EXPR, LF, WRITES, _jl##X, TAIL(c, in, cond(c, 12), false), TAIL(c, in, cond(c, 12), true))  \
  ALU_FORMS(NAME, EXPR, LF, WRITES, _jge##X, TAIL(c, in, cond(c, 13), false), TAIL(c, in, cond(c, 13), true)) \
  ALU_FORMS(NAME, EXPR, LF, WRITES, _jle##X, TAIL(c, in, cond(c, 14), false), TAIL(c, in, cond(c, 14), true)) \
  ALU_FORMS(NAME, EXPR, LF, WRITES, _jg##X, TAIL(c, in, cond(c, 15), false), TAIL(c, in, cond(c, 15), true))
#define FUSED_INCDEC_JCC(NAME, OP, LF, X, TAIL)                      \
  INCDEC_FORMS(NAME, OP, LF, _jz##X, , TAIL(c, in, cond(c, 4), true))      \
  INCDEC_FORMS(NAME, OP, LF, _jnz##X, , TAIL(c, in, cond(c, 5), true))
#define FUSED_SETTERS(X, TAIL)                   \
  FUSED_JCC(sub, a - b, LF_SUB, 1, X, TAIL)      \
  FUSED_JCC(and, a & b, LF_LOGIC, 1, X, TAIL)    \
  FUSED_JCC(cmp, a - b, LF_SUB, 0, X, TAIL)      \
  FUSED_JCC(test, a & b, LF_LOGIC, 0, X, TAIL)   \
  FUSED_ORDER_JCC(cmp, a - b, LF_SUB, 0, X, TAIL) \
  FUSED_INCDEC_JCC(inc, +, LF_INC, X, TAIL)      \
  FUSED_INCDEC_JCC(dec, -, LF_DEC, X, TAIL)
FUSED_SETTERS(, jump_if)
FUSED_SETTERS(_x, exit_if)
#endif

/* Indexed by the ALU number (ADC and SBB stay generic: they read CF). */
typedef struct AluSet {
  Handler rr64, rr32, ri64, ri32, rm64, rm32, rml64, rml32, mr64, mr32, mr16, mr8, rr16, ri16;
  Handler rr8, ri8; /* low byte registers only */
  Handler mi[9]; /* by operand size */
} AluSet;
#define SET(n)                                                                           \
  {n##64_rr, n##32_rr, n##64_ri, n##32_ri, n##64_rm, n##32_rm, n##64_rml, n##32_rml,      \
   n##64_mr, n##32_mr, n##16_mr, n##8_mr, n##16_rr, n##16_ri, n##8_rr, n##8_ri,           \
   {[1] = n##8_mi, [2] = n##16_mi, [4] = n##32_mi, [8] = n##64_mi}}
static const AluSet alu_sets[8] = {
    [ALU_ADD] = SET(add), [ALU_OR] = SET(or),   [ALU_AND] = SET(and),
    [ALU_SUB] = SET(sub), [ALU_XOR] = SET(xor), [ALU_CMP] = SET(cmp),
};
static const AluSet test_set = SET(test);

/* ---- moves ---- */

/* 89's register form (E = G), the copy compilers emit; PRE as in ALU_REG_FORMS. */
#define MOVE_FORMS(SUFFIX, PRE)                            \
  static LEAN void mov64_rr##SUFFIX(Cpu *c, const Insn *in) {   \
    PRE                                                    \
    c->r[in->rm] = c->r[in->reg];                          \
    DISPATCH_LEAN(c, in);                                  \
  }                                                        \
  static LEAN void mov32_rr##SUFFIX(Cpu *c, const Insn *in) {   \
    PRE                                                    \
    c->r[in->rm] = (uint32_t)c->r[in->reg];                \
    DISPATCH_LEAN(c, in);                                  \
  }
MOVE_FORMS(, )
/* 8B's register form: the copy goes the other way. */
static LEAN void mov64_rr_to_reg(Cpu *c, const Insn *in) {
  c->r[in->reg] = c->r[in->rm];
  DISPATCH_LEAN(c, in);
}
static LEAN void mov32_rr_to_reg(Cpu *c, const Insn *in) {
  c->r[in->reg] = (uint32_t)c->r[in->rm];
  DISPATCH_LEAN(c, in);
}
/* 8A, 88 with memory and a low byte register (AL..R15B, not AH..BH): byte loads merge. */
static void mov8_load(Cpu *c, const Insn *in) {
  c->r[in->reg] = (c->r[in->reg] & ~0xffull) | ld8(ea(c, in));
  DISPATCH_NEXT(c, in);
}
static void mov8_store(Cpu *c, const Insn *in) {
  st8(ea(c, in), (uint8_t)c->r[in->reg]);
  DISPATCH_NEXT(c, in);
}
/* 8B, 89 with memory and a word register: loads merge. */
static void mov16_load(Cpu *c, const Insn *in) {
  c->r[in->reg] = (c->r[in->reg] & ~0xffffull) | ld16(ea(c, in));
  DISPATCH_NEXT(c, in);
}
static void mov16_store(Cpu *c, const Insn *in) {
  st16(ea(c, in), (uint16_t)c->r[in->reg]);
  DISPATCH_NEXT(c, in);
}
static void mov64_store(Cpu *c, const Insn *in) {
  st64(ea(c, in), c->r[in->reg]);
  DISPATCH_NEXT(c, in);
}
static void mov32_store(Cpu *c, const Insn *in) {
  st32(ea(c, in), (uint32_t)c->r[in->reg]);
  DISPATCH_NEXT(c, in);
}
static void mov64_load(Cpu *c, const Insn *in) {
  c->r[in->reg] = ld64(ea(c, in));
  DISPATCH_NEXT(c, in);
}
static void mov32_load(Cpu *c, const Insn *in) {
  c->r[in->reg] = ld32(ea(c, in));
  DISPATCH_NEXT(c, in);
}
static LEAN void mov_r_imm64(Cpu *c, const Insn *in) {
  c->r[in->reg] = in->imm;
  DISPATCH_LEAN(c, in);
}
static LEAN void mov_r_imm32(Cpu *c, const Insn *in) {
  c->r[in->reg] = (uint32_t)in->imm;
  DISPATCH_LEAN(c, in);
}
/* C6, C7: an immediate into memory (into a register: mov_r_imm64 and mov_r_imm32). */
#define MOV_MEMORY_IMM(BITS)                                \
  static void mov_m_imm##BITS(Cpu *c, const Insn *in) {     \
    st##BITS(ea(c, in), (uint##BITS##_t)in->imm);            \
    DISPATCH_NEXT(c, in);                                   \
  }
MOV_MEMORY_IMM(64) MOV_MEMORY_IMM(32) MOV_MEMORY_IMM(16) MOV_MEMORY_IMM(8)
/* LEA: an absent base or index is REG_NONE, which reads 0, so lea64 and lea32 serve every
 * address. PRE as in ALU_REG_FORMS. */
#define LEA_FORMS(SUFFIX, PRE)                                                            \
  static LEAN void lea64_base_disp##SUFFIX(Cpu *c, const Insn *in) {                           \
    PRE                                                                                   \
    c->r[in->reg] = c->r[in->base] + (uint64_t)in->disp;                                  \
    DISPATCH_LEAN(c, in);                                                                 \
  }                                                                                       \
  static LEAN void lea64##SUFFIX(Cpu *c, const Insn *in) {                                     \
    PRE                                                                                   \
    c->r[in->reg] = (uint64_t)in->disp + c->r[in->base] + (c->r[in->index] << in->scale); \
    DISPATCH_LEAN(c, in);                                                                 \
  }                                                                                       \
  static LEAN void lea32##SUFFIX(Cpu *c, const Insn *in) {                                     \
    PRE                                                                                   \
    c->r[in->reg] =                                                                       \
        (uint32_t)((uint64_t)in->disp + c->r[in->base] + (c->r[in->index] << in->scale)); \
    DISPATCH_LEAN(c, in);                                                                 \
  }
LEA_FORMS(, )

/* MOVZX and MOVSX from memory into a 32- or 64-bit register (32-bit results are
 * zero-extended, as every 32-bit write is). */
static void movzx_load8(Cpu *c, const Insn *in) {
  c->r[in->reg] = ld8(ea(c, in));
  DISPATCH_NEXT(c, in);
}
static void movzx_load16(Cpu *c, const Insn *in) {
  c->r[in->reg] = ld16(ea(c, in));
  DISPATCH_NEXT(c, in);
}
static void movsx32_load8(Cpu *c, const Insn *in) {
  c->r[in->reg] = (uint32_t)(int32_t)(int8_t)ld8(ea(c, in));
  DISPATCH_NEXT(c, in);
}
static void movsx64_load8(Cpu *c, const Insn *in) {
  c->r[in->reg] = (uint64_t)(int64_t)(int8_t)ld8(ea(c, in));
  DISPATCH_NEXT(c, in);
}
static void movsx32_load16(Cpu *c, const Insn *in) {
  c->r[in->reg] = (uint32_t)(int32_t)(int16_t)ld16(ea(c, in));
  DISPATCH_NEXT(c, in);
}
static void movsx64_load16(Cpu *c, const Insn *in) {
  c->r[in->reg] = (uint64_t)(int64_t)(int16_t)ld16(ea(c, in));
  DISPATCH_NEXT(c, in);
}
static void movsx64_load32(Cpu *c, const Insn *in) {
  c->r[in->reg] = (uint64_t)(int64_t)(int32_t)ld32(ea(c, in));
  DISPATCH_NEXT(c, in);
}

/* The same from a register: a low byte one (not AH..BH), a word, or MOVSXD's dword. */
#define EXTEND_REG(NAME, EXPR)                  \
  static LEAN void NAME(Cpu *c, const Insn *in) {    \
    uint64_t v = c->r[in->rm];                  \
    c->r[in->reg] = EXPR;                       \
    DISPATCH_LEAN(c, in);                       \
  }
EXTEND_REG(movzx_r8, (uint8_t)v)
EXTEND_REG(movzx_r16, (uint16_t)v)
EXTEND_REG(movsx32_r8, (uint32_t)(int32_t)(int8_t)v)
EXTEND_REG(movsx64_r8, (uint64_t)(int64_t)(int8_t)v)
EXTEND_REG(movsx32_r16, (uint32_t)(int32_t)(int16_t)v)
EXTEND_REG(movsx64_r16, (uint64_t)(int64_t)(int16_t)v)
EXTEND_REG(movsx64_r32, (uint64_t)(int64_t)(int32_t)v)

/* ---- CMOVcc into a 32- or 64-bit register, by condition code: the source is read
 * (and may fault) whatever the condition, and a 32-bit destination is zero-extended even
 * when it is not moved ---- */

/* v, as loaded: the compiler would move a plain load into the branch that uses it. */
static inline uint64_t loaded(uint64_t v) {
  __asm__ volatile("" : "+r"(v));
  return v;
}
#define CMOV_FORMS(cc)                                                              \
  static LEAN void cmov64_r_##cc(Cpu *c, const Insn *in) {                               \
    if (cond(c, cc)) c->r[in->reg] = c->r[in->rm];                                  \
    DISPATCH_LEAN(c, in);                                                           \
  }                                                                                 \
  static LEAN void cmov32_r_##cc(Cpu *c, const Insn *in) {                               \
    uint64_t v = cond(c, cc) ? c->r[in->rm] : c->r[in->reg];                        \
    c->r[in->reg] = (uint32_t)v;                                                    \
    DISPATCH_LEAN(c, in);                                                           \
  }                                                                                 \
  static void cmov64_m_##cc(Cpu *c, const Insn *in) {                               \
    uint64_t v = loaded(ld64(ea(c, in)));                                           \
    if (cond(c, cc)) c->r[in->reg] = v;                                             \
    DISPATCH_NEXT(c, in);                                                           \
  }                                                                                 \
  static void cmov32_m_##cc(Cpu *c, const Insn *in) {                               \
    uint32_t v = (uint32_t)loaded(ld32(ea(c, in)));                                 \
    c->r[in->reg] = cond(c, cc) ? v : (uint32_t)c->r[in->reg];                      \
    DISPATCH_NEXT(c, in);                                                           \
  }
CMOV_FORMS(2) CMOV_FORMS(3) CMOV_FORMS(4) CMOV_FORMS(5) CMOV_FORMS(6) CMOV_FORMS(7)
CMOV_FORMS(8) CMOV_FORMS(9) CMOV_FORMS(12) CMOV_FORMS(13) CMOV_FORMS(14) CMOV_FORMS(15)
/* By condition code (as jcc_by_cc), then 32/64 bits, then register/memory. */
#define CMOV_ROW(cc) [cc] = {{cmov32_r_##cc, cmov32_m_##cc}, {cmov64_r_##cc, cmov64_m_##cc}}
static const Handler cmov_by_cc[16][2][2] = {
    CMOV_ROW(2), CMOV_ROW(3), CMOV_ROW(4),  CMOV_ROW(5),  CMOV_ROW(6),  CMOV_ROW(7),
    CMOV_ROW(8), CMOV_ROW(9), CMOV_ROW(12), CMOV_ROW(13), CMOV_ROW(14), CMOV_ROW(15)};

/* ---- shifts and rotates of a register by a non-zero immediate ---- */

#define SHIFT_FORMS(T, BITS, SIZE, SUFFIX, PRE)                                        \
  static LEAN void shl##BITS##_ri##SUFFIX(Cpu *c, const Insn *in) {                         \
    PRE                                                                                \
    T a = (T)c->r[in->rm], r = (T)(a << in->aux);                                      \
    c->r[in->rm] = r;                                                                  \
    if (in->flags_live) lazy_set(c, LF_SHL, SIZE, r, a, in->aux);                      \
    DISPATCH_LEAN(c, in);                                                              \
  }                                                                                    \
  static LEAN void shr##BITS##_ri##SUFFIX(Cpu *c, const Insn *in) {                         \
    PRE                                                                                \
    T a = (T)c->r[in->rm], r = (T)(a >> in->aux);                                      \
    c->r[in->rm] = r;                                                                  \
    if (in->flags_live) lazy_set(c, LF_SHR, SIZE, r, a, in->aux);                      \
    DISPATCH_LEAN(c, in);                                                              \
  }                                                                                    \
  static LEAN void sar##BITS##_ri##SUFFIX(Cpu *c, const Insn *in) {                         \
    PRE                                                                                \
    T a = (T)c->r[in->rm];                                                             \
    T r = (T)((int##BITS##_t)a >> in->aux);                                            \
    c->r[in->rm] = r;                                                                  \
    if (in->flags_live) lazy_set(c, LF_SAR, SIZE, r, a, in->aux);                      \
    DISPATCH_LEAN(c, in);                                                              \
  }                                                                                    \
  /* Rotates change only CF and OF; aux holds the count modulo the width, non-zero. */ \
  static LEAN void rol##BITS##_ri##SUFFIX(Cpu *c, const Insn *in) {                         \
    PRE                                                                                \
    T a = (T)c->r[in->rm], r = (T)(a << in->aux | a >> (BITS - in->aux));              \
    c->r[in->rm] = r;                                                                  \
    if (in->flags_live & (FL_CF | FL_OF)) {                                            \
      bool cf = r & 1, of = (r >> (BITS - 1)) != cf;                                   \
      flags_update(c, F_CF | F_OF, (cf ? F_CF : 0) | (of ? F_OF : 0));                 \
    }                                                                                  \
    DISPATCH_LEAN(c, in);                                                              \
  }                                                                                    \
  static LEAN void ror##BITS##_ri##SUFFIX(Cpu *c, const Insn *in) {                         \
    PRE                                                                                \
    T a = (T)c->r[in->rm], r = (T)(a >> in->aux | a << (BITS - in->aux));              \
    c->r[in->rm] = r;                                                                  \
    if (in->flags_live & (FL_CF | FL_OF)) {                                            \
      bool cf = r >> (BITS - 1), of = ((r ^ (r << 1)) >> (BITS - 1)) & 1;              \
      flags_update(c, F_CF | F_OF, (cf ? F_CF : 0) | (of ? F_OF : 0));                 \
    }                                                                                  \
    DISPATCH_LEAN(c, in);                                                              \
  }

SHIFT_FORMS(uint64_t, 64, 8, , )
SHIFT_FORMS(uint32_t, 32, 4, , )

/* ---- conditional jumps on ZF and CF, the loop tests of compiled and OpenSSL code: with
 * a constant condition, cond()'s inline fast paths reduce to one test ---- */

#define FAST_JCC(name, cc)                   \
  static LEAN void name(Cpu *c, const Insn *in) { \
    if (cond(c, cc)) c->rip = in->imm;       \
    chain_block(c);                          \
  }                                          \
  PAIRED(static LEAN void name##_x(Cpu *c, const Insn *in) { /* a side exit */ \
    if (cond(c, cc)) side_exit(c, in);       \
    else DISPATCH_LEAN(c, in);               \
  })
FAST_JCC(jb, 2)
FAST_JCC(jae, 3)
FAST_JCC(jz, 4)
FAST_JCC(jnz, 5)
FAST_JCC(jbe, 6)
FAST_JCC(ja, 7)
FAST_JCC(js, 8)
FAST_JCC(jns, 9)
FAST_JCC(jl, 12)
FAST_JCC(jge, 13)
FAST_JCC(jle, 14)
FAST_JCC(jg, 15)

#ifdef HAS_PAIRING
/* JO, JNO, JP and JNP as a side exit (the generic op_jcc at a block's end). */
static LEAN void jcc_x(Cpu *c, const Insn *in) {
  if (cond(c, in->op)) side_exit(c, in);
  else DISPATCH_LEAN(c, in);
}
#endif

/* By condition code: all but JO, JNO, JP and JNP, which read flags cond() computes slowly
 * (the generic op_jcc runs them). */
static const Handler jcc_by_cc[16] = {[2] = jb,  [3] = jae, [4] = jz,   [5] = jnz,
                                      [6] = jbe, [7] = ja,  [8] = js,   [9] = jns,
                                      [12] = jl, [13] = jge, [14] = jle, [15] = jg};
#ifdef HAS_PAIRING
static const Handler exit_by_cc[16] = {[2] = jb_x,  [3] = jae_x, [4] = jz_x,   [5] = jnz_x,
                                       [6] = jbe_x, [7] = ja_x,  [8] = js_x,   [9] = jns_x,
                                       [12] = jl_x, [13] = jge_x, [14] = jle_x, [15] = jg_x};
#endif

Handler fast_jcc(Insn *in) { return jcc_by_cc[in->op & 15]; }

#ifdef HAS_PAIRING
static Handler side_exit_form(const Insn *in) {
  if (in->fn == op_jcc) return jcc_x;
  Handler exit = exit_by_cc[in->op & 15];
  return exit && in->fn == jcc_by_cc[in->op & 15] ? exit : NULL;
}
#endif

bool fast_is_dec32(Handler fn) { return fn == dec32_r; }
bool fast_is_lea64_base_disp(Handler fn) { return fn == lea64_base_disp; }
bool fast_is_jnz(Handler fn) { return fn == jnz; }

#ifdef HAS_PAIRING
/* The fused forms, by the flag setter's fast form and the Jcc's condition code: ending
 * the block, and as a side exit. */
#define ZF_CF(F, X) [2] = F##_jb##X, [3] = F##_jae##X, [4] = F##_jz##X, [5] = F##_jnz##X
#define ORDERS(F, X)                                                                      \
  [6] = F##_jbe##X, [7] = F##_ja##X, [12] = F##_jl##X, [13] = F##_jge##X, [14] = F##_jle##X, \
  [15] = F##_jg##X
#define FUSED_ROW(F) {F, {ZF_CF(F, )}, {ZF_CF(F, _x)}},
#define FUSED_CMP_ROW(F) {F, {ZF_CF(F, ), ORDERS(F, )}, {ZF_CF(F, _x), ORDERS(F, _x)}},
#define FUSED_INCDEC_ROW(F) /* CF is the one before */ \
  {F, {[4] = F##_jz, [5] = F##_jnz}, {[4] = F##_jz_x, [5] = F##_jnz_x}},
#define FORMS_OF(ROW, N)                                                                      \
  ROW(N##64_rr) ROW(N##32_rr) ROW(N##64_ri) ROW(N##32_ri) ROW(N##64_rm) ROW(N##32_rm)         \
  ROW(N##64_rml) ROW(N##32_rml) ROW(N##64_mr) ROW(N##32_mr) ROW(N##16_mr) ROW(N##8_mr)        \
  ROW(N##64_mi) ROW(N##32_mi) ROW(N##16_mi) ROW(N##8_mi) ROW(N##16_rr) ROW(N##16_ri)          \
  ROW(N##8_rr) ROW(N##8_ri)
static const struct {
  Handler setter, with_jcc[16], with_exit[16];
} fused_jcc[] = {FORMS_OF(FUSED_ROW, sub) FORMS_OF(FUSED_ROW, and) FORMS_OF(FUSED_CMP_ROW, cmp)
                 FORMS_OF(FUSED_ROW, test) FUSED_INCDEC_ROW(inc64_r) FUSED_INCDEC_ROW(inc32_r)
                 FUSED_INCDEC_ROW(dec64_r) FUSED_INCDEC_ROW(dec32_r)};

#define WITHOUT_FLAGS_ROW(F) {F, F##_nf},
static const struct {
  Handler with, without;
} without_flags[] = {FORMS_OF(WITHOUT_FLAGS_ROW, add) FORMS_OF(WITHOUT_FLAGS_ROW, sub)
                     FORMS_OF(WITHOUT_FLAGS_ROW, and) FORMS_OF(WITHOUT_FLAGS_ROW, or)
                     FORMS_OF(WITHOUT_FLAGS_ROW, xor) WITHOUT_FLAGS_ROW(inc64_r)
                     WITHOUT_FLAGS_ROW(inc32_r) WITHOUT_FLAGS_ROW(dec64_r)
                     WITHOUT_FLAGS_ROW(dec32_r)};

static Handler without_flags_form(Handler fn) {
  for (unsigned i = 0; i < sizeof without_flags / sizeof without_flags[0]; i++)
    if (without_flags[i].with == fn) return without_flags[i].without;
  return NULL;
}

static Handler fused_jcc_form(Handler setter, Handler jcc) {
  for (unsigned cc = 0; cc < 16; cc++) {
    bool exit = jcc == exit_by_cc[cc];
    if (!jcc || (jcc != jcc_by_cc[cc] && !exit)) continue;
    for (unsigned i = 0; i < sizeof fused_jcc / sizeof fused_jcc[0]; i++)
      if (fused_jcc[i].setter == setter) return (exit ? fused_jcc[i].with_exit : fused_jcc[i].with_jcc)[cc];
  }
  return NULL;
}

/* ---- a register copy fused with the register operation after it ----
 * Compilers copy a register before most two-operand operations (MOV EDX, ESI; ROR EDX, 11):
 * such copies are 30 % of busybox sha256sum's instructions. One record does both, the copy
 * and then the next record's operation, which stays behind it (fuse.c): one dispatch
 * instead of two. PRE does the copy and goes on as that record, lean as the copy is. */
#define AFTER_MOV64 c->r[in->rm] = c->r[in->reg]; in++;
#define AFTER_MOV32 c->r[in->rm] = (uint32_t)c->r[in->reg]; in++;
#define ALU_REG_HANDLERS(NAME, EXPR, LF, WRITES, SUFFIX, PRE) \
  ALU_REG_FORMS(NAME, EXPR, LF, WRITES, SUFFIX, PRE, NEXT_LEAN)
#define AFTER_MOVE(S, PRE)                                        \
  FAST_ALU_OPS(ALU_REG_HANDLERS, S, PRE)                          \
  FAST_INCDEC_OPS(INCDEC_HANDLERS, S, PRE)                        \
  SHIFT_FORMS(uint64_t, 64, 8, S, PRE)                            \
  SHIFT_FORMS(uint32_t, 32, 4, S, PRE)                            \
  MOVE_FORMS(S, PRE)                                              \
  LEA_FORMS(S, PRE)
AFTER_MOVE(_after_mov64, AFTER_MOV64)
AFTER_MOVE(_after_mov32, AFTER_MOV32)

#define AFTER_MOVE_ROW(F) {F, F##_after_mov64, F##_after_mov32},
#define ALU_AFTER_MOVE_ROWS(NAME, EXPR, LF, WRITES, S, PRE)                                   \
  AFTER_MOVE_ROW(NAME##64_rr##S) AFTER_MOVE_ROW(NAME##32_rr##S) AFTER_MOVE_ROW(NAME##64_ri##S) \
  AFTER_MOVE_ROW(NAME##32_ri##S) AFTER_MOVE_ROW(NAME##64_rm##S) AFTER_MOVE_ROW(NAME##32_rm##S)
#define INCDEC_AFTER_MOVE_ROWS(NAME, OP, LF, S, PRE) \
  AFTER_MOVE_ROW(NAME##64_r##S) AFTER_MOVE_ROW(NAME##32_r##S)
#define SHIFTS_OF(ROW, BITS)                                                      \
  ROW(shl##BITS##_ri) ROW(shr##BITS##_ri) ROW(sar##BITS##_ri) ROW(rol##BITS##_ri) \
  ROW(ror##BITS##_ri)
static const struct {
  Handler op, after_mov64, after_mov32;
} after_move[] = {
    FAST_ALU_OPS(ALU_AFTER_MOVE_ROWS, , ) FAST_INCDEC_OPS(INCDEC_AFTER_MOVE_ROWS, , )
    SHIFTS_OF(AFTER_MOVE_ROW, 64) SHIFTS_OF(AFTER_MOVE_ROW, 32)
    AFTER_MOVE_ROW(mov64_rr) AFTER_MOVE_ROW(mov32_rr) AFTER_MOVE_ROW(lea64_base_disp)
    AFTER_MOVE_ROW(lea64) AFTER_MOVE_ROW(lea32)};

static Handler after_move_form(Handler move, Handler op) {
  if (move != mov64_rr && move != mov32_rr) return NULL;
  for (unsigned i = 0; i < sizeof after_move / sizeof after_move[0]; i++)
    if (after_move[i].op == op)
      return move == mov64_rr ? after_move[i].after_mov64 : after_move[i].after_mov32;
  return NULL;
}

const FastPairing fast_pairing = {.side_exit = side_exit_form,
                                   .fused_jcc = fused_jcc_form,
                                   .after_move = after_move_form,
                                   .without_flags = without_flags_form,
                                   .aesenc_run = aesenc_run_form,
                                   .round_loop = aes_round_loop_form};
#endif

enum { ROL, ROR, RCL, RCR, SHL, SHR, SAL, SAR };

/* ---- the pickers the instruction table names ---- */

/* The specialised forms are for 32- and 64-bit operands, and memory operands without a
 * segment base or 32-bit address arithmetic. */
/* A memory operand at a plain address: no segment base, no 32-bit wrap. */
static bool plain_memory(const Insn *in) {
  return in->mem && in->seg == SEG_NONE && !in->addr32;
}

/* A byte form whose operands are low byte registers (AL..R15B, not AH..BH) and memory,
 * if any, at a plain address. */
static bool low_bytes(const Insn *in) {
  return in->reg < REG_AH && (in->mem ? plain_memory(in) : in->rm < REG_AH);
}

/* MOVZX/MOVSX from AH..BH, which the generic handler runs. */
static bool high_byte_source(const Insn *in) {
  return !in->mem && in->aux == 1 && in->rm >= REG_AH;
}

/* A 32/64-bit form whose memory operand, if any, is at a plain address. */
static bool plain(const Insn *in) {
  return (in->osz == 8 || in->osz == 4) && (!in->mem || plain_memory(in));
}

Handler fast_shift_imm(Insn *in) {
  if (!plain(in) || in->mem) return NULL;
  unsigned bits = in->osz * 8, count = (unsigned)in->imm & (bits - 1);
  if (count == 0) return NULL;
  bool q = in->osz == 8;
  in->aux = (uint8_t)count;
  switch (in->op) {
  case ROL: return q ? rol64_ri : rol32_ri;
  case ROR: return q ? ror64_ri : ror32_ri;
  case SHL: case SAL: return q ? shl64_ri : shl32_ri;
  case SHR: return q ? shr64_ri : shr32_ri;
  case SAR: return q ? sar64_ri : sar32_ri;
  default: return NULL;
  }
}

/* E op= G and E op= imm, register forms; G op= E, register or memory. ADC and SBB have
 * no specialised forms (they read CF). */
Handler fast_alu_rm_r(Insn *in) {
  const AluSet *s = &alu_sets[in->op & 7];
  bool wide = in->osz == 8;
  if (!s->rr64 || in->lock) return NULL; /* LOCK keeps the generic handler */
  if (in->osz == 2) return !in->mem ? s->rr16 : plain_memory(in) ? s->mr16 : NULL;
  if (in->osz == 1) return !low_bytes(in) ? NULL : in->mem ? s->mr8 : s->rr8;
  if (!plain(in)) return NULL;
  return in->mem ? (wide ? s->mr64 : s->mr32) : (wide ? s->rr64 : s->rr32);
}
Handler fast_alu_rm_imm(Insn *in) {
  const AluSet *s = &alu_sets[in->op & 7];
  if (!s->rr64 || in->lock) return NULL; /* LOCK keeps the generic handler */
  if (in->mem) return plain_memory(in) ? s->mi[in->osz] : NULL;
  if (in->osz == 2) return s->ri16;
  if (in->osz == 1) return in->rm < REG_AH ? s->ri8 : NULL;
  if (!plain(in)) return NULL;
  return in->osz == 8 ? s->ri64 : s->ri32;
}
Handler fast_alu_r_rm(Insn *in) {
  const AluSet *s = &alu_sets[in->op & 7];
  bool wide = in->osz == 8;
  if (!plain(in) || !s->rr64) return NULL;
  return in->mem ? (wide ? s->rml64 : s->rml32) : (wide ? s->rm64 : s->rm32);
}
Handler fast_test_rm_r(Insn *in) {
  bool wide = in->osz == 8;
  if (in->osz == 2 && !in->mem) return test_set.rr16;
  if (in->osz == 1) return !low_bytes(in) ? NULL : in->mem ? test_set.mr8 : test_set.rr8;
  if (!plain(in)) return NULL;
  return in->mem ? (wide ? test_set.mr64 : test_set.mr32) : (wide ? test_set.rr64 : test_set.rr32);
}

Handler fast_mov_rm_r(Insn *in) {
  bool wide = in->osz == 8;
  if (in->osz == 2 && plain_memory(in)) return mov16_store;
  if (!plain(in)) return NULL;
  return in->mem ? (wide ? mov64_store : mov32_store) : (wide ? mov64_rr : mov32_rr);
}
/* Only the load: MOV G, E with a register is rare, the 89 form is the common one. */
Handler fast_mov_r_rm(Insn *in) {
  if (in->osz == 2 && plain_memory(in)) return mov16_load;
  if (!plain(in)) return NULL;
  bool wide = in->osz == 8;
  return in->mem ? (wide ? mov64_load : mov32_load) : (wide ? mov64_rr_to_reg : mov32_rr_to_reg);
}
Handler fast_mov_rm_imm(Insn *in) {
  if (in->mem) {
    if (!plain_memory(in)) return NULL;
    switch (in->osz) {
    case 8: return mov_m_imm64;
    case 4: return mov_m_imm32;
    case 2: return mov_m_imm16;
    default: return mov_m_imm8;
    }
  }
  /* The register form is B8+r's (how compilers load a 64-bit constant that fits a
   * sign-extended imm32), with the register where B8+r has it: ModRM.reg is /0 here. */
  Handler fn = fast_mov_r_imm(in);
  if (fn) in->reg = in->rm;
  return fn;
}
/* A byte move between memory at a plain address and a low byte register. */
static bool byte_memory_move(const Insn *in) {
  return in->osz == 1 && plain_memory(in) && in->reg < REG_AH;
}
Handler fast_mov8_r_rm(Insn *in) { return byte_memory_move(in) ? mov8_load : NULL; }
Handler fast_mov8_rm_r(Insn *in) { return byte_memory_move(in) ? mov8_store : NULL; }
Handler fast_mov_r_imm(Insn *in) {
  if (!plain(in)) return NULL;
  return in->osz == 8 ? mov_r_imm64 : mov_r_imm32;
}
Handler fast_inc(Insn *in) {
  if (in->mem || in->lock || (in->osz != 8 && in->osz != 4)) return NULL;
  return in->osz == 8 ? inc64_r : inc32_r;
}
Handler fast_dec(Insn *in) {
  if (in->mem || in->lock || (in->osz != 8 && in->osz != 4)) return NULL;
  return in->osz == 8 ? dec64_r : dec32_r;
}
Handler fast_lea(Insn *in) {
  if (in->addr32 || (in->osz != 8 && in->osz != 4)) return NULL;
  if (in->osz == 4) return lea32;
  return in->base != REG_NONE && in->index == REG_NONE ? lea64_base_disp : lea64;
}
Handler fast_movzx(Insn *in) {
  if (!plain(in) || high_byte_source(in)) return NULL;
  if (!in->mem) return in->aux == 1 ? movzx_r8 : movzx_r16;
  return in->aux == 1 ? movzx_load8 : movzx_load16;
}
Handler fast_movsx(Insn *in) {
  if (!plain(in) || high_byte_source(in)) return NULL;
  bool wide = in->osz == 8, mem = in->mem;
  switch (in->aux) {
  case 1: return mem ? (wide ? movsx64_load8 : movsx32_load8) : (wide ? movsx64_r8 : movsx32_r8);
  case 2: return mem ? (wide ? movsx64_load16 : movsx32_load16) : (wide ? movsx64_r16 : movsx32_r16);
  default: /* MOVSXD into 32 bits is a plain move */
    return !wide ? NULL : mem ? movsx64_load32 : movsx64_r32;
  }
}
Handler fast_cmov(Insn *in) {
  if (!plain(in)) return NULL;
  const Handler *forms = cmov_by_cc[in->op & 15][in->osz == 8];
  return forms[in->mem];
}
