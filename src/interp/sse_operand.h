/* sse_operand.h: how SSE handlers reach their operands: memory loads of each width, the
 * 16-byte alignment check, and the macro that makes a register and a memory handler. */
#ifndef X64EMU_SSE_OPERAND_H
#define X64EMU_SSE_OPERAND_H

#include <signal.h>

#include "access.h"
#include "run.h"

/* A misaligned operand of an aligned SSE form is #GP(0): the kernel sends SIGSEGV with
 * SI_KERNEL and no address. */
static inline uint64_t sse_ea_aligned(Cpu *c, const Insn *in) {
  uint64_t a = ea(c, in);
  if (__builtin_expect(a & 15, 0)) guest_gp(c, 0);
  return a;
}

/* Loads for the memory forms: the operand lands in a temporary XMM value, zero above
 * its width, and the register form runs on it. */
static inline void load_m128a(Cpu *c, const Insn *in, Xmm *t) { ld128(sse_ea_aligned(c, in), t); }
static inline void load_m128u(Cpu *c, const Insn *in, Xmm *t) { ld128(ea(c, in), t); }
static inline void load_m64(Cpu *c, const Insn *in, Xmm *t) {
  t->q[0] = ld64(ea(c, in));
  t->q[1] = 0;
}
static inline void load_m32(Cpu *c, const Insn *in, Xmm *t) {
  t->q[0] = ld32(ea(c, in));
  t->q[1] = 0;
}

/* Defines op_<name> (source is xmm[in->rm]) and op_<name>_m (source loaded by `load`),
 * both running the body that follows with d = the destination xmm[in->reg] and s = the
 * source. The body works on local copies, stored back when it returns: they cannot
 * alias, so its lane loops compile to vector code, and a body that faults (fp_commit)
 * leaves the destination as it was. */
#define SSE_RM(name, load)                                                              \
  static inline void name##_body(Cpu *c, const Insn *in, Xmm *d, const Xmm *s);         \
  void op_##name(Cpu *c, const Insn *in) {                                              \
    Xmm dv = c->xmm[in->reg], sv = c->xmm[in->rm];                                      \
    name##_body(c, in, &dv, &sv);                                                       \
    c->xmm[in->reg] = dv;                                                               \
    DISPATCH_NEXT(c, in);                                                               \
  }                                                                                     \
  void op_##name##_m(Cpu *c, const Insn *in) {                                          \
    Xmm dv = c->xmm[in->reg], sv;                                                       \
    load(c, in, &sv);                                                                   \
    name##_body(c, in, &dv, &sv);                                                       \
    c->xmm[in->reg] = dv;                                                               \
    DISPATCH_NEXT(c, in);                                                               \
  }                                                                                     \
  static inline void name##_body(Cpu *c, const Insn *in, Xmm *d, const Xmm *s)

#endif
