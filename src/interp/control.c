/* control.c: the stack and control transfers: PUSH/POP, JMP, Jcc, CALL, RET, LOOP, ENTER/LEAVE.
 * A handler that transfers control sets c->rip; the dispatcher already set it to the
 * fall-through address before the block ran. */
#include "access.h"
#include "flags.h"
#include "ops_int.h"

static inline void push_sized(Cpu *c, uint64_t v, unsigned s) {
  if (s == 2) {
    st16(c->r[RSP] - 2, (uint16_t)v);
    c->r[RSP] -= 2;
  } else {
    push64(c, v);
  }
}

static inline uint64_t pop_sized(Cpu *c, unsigned s) {
  if (s == 2) {
    uint64_t v = ld16(c->r[RSP]);
    c->r[RSP] += 2;
    return v;
  }
  return pop64(c);
}

/* 50+r */
void op_push_r(Cpu *c, const Insn *in) {
  push_sized(c, c->r[in->reg], in->osz);
  DISPATCH_NEXT(c, in);
}

/* 58+r: the value is read before RSP moves, so `pop rsp` loads the popped value. */
void op_pop_r(Cpu *c, const Insn *in) {
  uint64_t v = pop_sized(c, in->osz);
  reg_set(c, in->reg, v, in->osz);
  DISPATCH_NEXT(c, in);
}

/* FF/6 */
void op_push_rm(Cpu *c, const Insn *in) {
  push_sized(c, rm_get(c, in, in->osz), in->osz);
  DISPATCH_NEXT(c, in);
}

/* 8F/0: an RSP-based address is computed after the increment. */
void op_pop_rm(Cpu *c, const Insn *in) {
  uint64_t v = pop_sized(c, in->osz);
  rm_set(c, in, v, in->osz);
  DISPATCH_NEXT(c, in);
}

/* 68 6A */
void op_push_imm(Cpu *c, const Insn *in) {
  push_sized(c, in->imm, in->osz);
  DISPATCH_NEXT(c, in);
}

/* C8: ENTER size, level (nesting levels copy the outer frame pointers). */
void op_enter(Cpu *c, const Insn *in) {
  unsigned level = in->aux & 31;
  uint64_t size = in->imm & 0xffff, bp = c->r[RBP], sp = c->r[RSP];
  /* The outer frame pointers are read first and the registers written last, so that a
   * fault leaves RSP and RBP as they were, as on the CPU. */
  uint64_t outer[31];
  for (unsigned i = 1; i < level; i++) outer[i] = ld64(bp - 8 * i);
  st64(sp - 8, bp);
  uint64_t frame = sp - 8;
  sp = frame;
  if (level) {
    for (unsigned i = 1; i < level; i++) st64(sp -= 8, outer[i]);
    st64(sp -= 8, frame);
  }
  c->r[RBP] = frame;
  c->r[RSP] = sp - size;
  DISPATCH_NEXT(c, in);
}

/* C9 */
void op_leave(Cpu *c, const Insn *in) {
  c->r[RSP] = c->r[RBP];
  c->r[RBP] = pop64(c);
  DISPATCH_NEXT(c, in);
}

/* E9 EB */
void op_jmp(Cpu *c, const Insn *in) { c->rip = in->imm; }
/* FF/4 */
void op_jmp_rm(Cpu *c, const Insn *in) { c->rip = rm_get(c, in, 8); }

/* 70+cc 0F 80+cc */
void op_jcc(Cpu *c, const Insn *in) {
  if (cond(c, in->op)) c->rip = in->imm;
}

/* E8 */
void op_call(Cpu *c, const Insn *in) {
  push64(c, insn_next(in));
  c->rip = in->imm;
}

/* FF/2: the target is read before the push (it may be addressed through RSP). */
void op_call_rm(Cpu *c, const Insn *in) {
  uint64_t target = rm_get(c, in, 8);
  push64(c, insn_next(in));
  c->rip = target;
}

/* C3 C2 */
void op_ret(Cpu *c, const Insn *in) {
  c->rip = pop64(c);
  c->r[RSP] += in->imm;
}

/* E0 E1 E2 E3: counters are RCX, or ECX with a 67 prefix. */
void op_loop(Cpu *c, const Insn *in) {
  unsigned s = in->addr32 ? 4 : 8;
  uint64_t n = reg_get(c, RCX, s);
  bool jump;
  if (in->op == 3) {
    jump = n == 0;
  } else {
    n = (n - 1) & size_mask(s);
    reg_set(c, RCX, n, s);
    jump = n != 0;
    if (in->op == 0) jump = jump && !flag_zf(c);
    else if (in->op == 1) jump = jump && flag_zf(c);
  }
  if (jump) c->rip = in->imm;
}
