/* control.c: the stack and control transfers: PUSH/POP, JMP, Jcc, CALL, RET, LOOP, ENTER/LEAVE.
 * A handler that transfers control sets c->rip; the dispatcher already set it to the
 * fall-through address before the block ran. */
#include <signal.h>

#include "access.h"
#include "chain.h"
#include "flags.h"
#include "ops_int.h"
#include "run.h"

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
  /* A destination based on RSP sees it incremented; a faulting store leaves RSP as it
   * was. */
  uint64_t sp = c->r[RSP];
  if (in->mem) {
    c->r[RSP] = sp + in->osz;
    uint64_t a = ea(c, in);
    c->r[RSP] = sp;
    uint64_t v = ld(sp, in->osz);
    st(a, v, in->osz);
    access_in_order();
    c->r[RSP] = sp + in->osz;
  } else {
    rm_set(c, in, pop_sized(c, in->osz), in->osz);
  }
  DISPATCH_NEXT(c, in);
}

/* 0F A0, 0F A8: PUSH FS, PUSH GS: the selector, zero-extended to the operand size. */
void op_push_sreg(Cpu *c, const Insn *in) {
  push_sized(c, c->sreg[in->op], in->osz);
  DISPATCH_NEXT(c, in);
}

/* An indirect near branch to a non-canonical address is #GP at the branch, before it
 * changes anything (Intel's behaviour, the model's). */
static uint64_t branch_target(Cpu *c, uint64_t target) {
  if (!canonical(target)) guest_gp(c, 0);
  return target;
}

/* 68 6A */
void op_push_imm(Cpu *c, const Insn *in) {
  push_sized(c, in->imm, in->osz);
  DISPATCH_NEXT(c, in);
}

/* C8: ENTER size, level (nesting levels copy the outer frame pointers). */
void op_enter(Cpu *c, const Insn *in) {
  unsigned level = in->aux & 31, w = in->osz; /* 8, or 2 with 66: BP and words */
  uint64_t size = in->imm & 0xffff, bp = c->r[RBP], sp = c->r[RSP];
  /* In the CPU's order (measured): push RBP, copy each outer frame pointer, push the
   * frame pointer, then probe the new RSP with a write; the registers are written last,
   * so that a fault of any step leaves them as they were (the stores before it done). */
  uint64_t frame = sp - w;
  st(frame, bp, w);
  sp = frame;
  if (level) {
    for (unsigned i = 1; i < level; i++) {
      access_in_order();
      uint64_t outer = ld(bp - w * i, w);
      st(sp -= w, outer, w);
    }
    st(sp -= w, frame, w);
  }
  sp -= size;
  access_in_order();
  probe_write8(sp);
  reg_set(c, RBP, frame, w); /* with 66 only BP: the upper bits stay */
  c->r[RSP] = sp;
  DISPATCH_NEXT(c, in);
}

/* C9; with 66 it pops BP alone. */
void op_leave(Cpu *c, const Insn *in) {
  uint64_t bp = c->r[RBP];
  uint64_t v = ld(bp, in->osz); /* a fault leaves RSP as it was */
  c->r[RSP] = bp + in->osz;
  reg_set(c, RBP, v, in->osz);
  DISPATCH_NEXT(c, in);
}

/* E9 EB */
void op_jmp(Cpu *c, const Insn *in) {
  c->rip = in->imm;
  chain_block(c);
}
/* FF/4 */
void op_jmp_rm(Cpu *c, const Insn *in) {
  c->rip = branch_target(c, rm_get(c, in, 8));
  chain_block(c);
}

/* 70+cc 0F 80+cc */
void op_jcc(Cpu *c, const Insn *in) {
  if (cond(c, in->op)) c->rip = in->imm;
  chain_block(c);
}

/* E8 */
void op_call(Cpu *c, const Insn *in) {
  push64(c, insn_next(in));
  c->rip = in->imm;
  note_call(c, insn_next(in));
  chain_block(c);
}

/* FF/2: the target is read before the push (it may be addressed through RSP). */
void op_call_rm(Cpu *c, const Insn *in) {
  uint64_t target = rm_get(c, in, 8), sp = c->r[RSP] - 8;
  st64(sp, insn_next(in)); /* the CPU writes the return address before the #GP below */
  access_in_order();
  c->rip = branch_target(c, target);
  c->r[RSP] = sp;
  note_call(c, insn_next(in));
  chain_block(c);
}

/* C3 C2 */
void op_ret(Cpu *c, const Insn *in) {
  c->rip = branch_target(c, ld64(c->r[RSP]));
  c->r[RSP] += 8 + in->imm;
  chain_return(c);
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

/* ---- far transfers ----
 * At CPL 3 in 64-bit mode Linux's GDT has two code segments for user mode: __USER_CS 0x33
 * (64-bit code) and __USER32_CS 0x23 (compatibility mode, which x64emu does not run: the
 * transfer is then an unimplemented instruction). A far JMP or CALL may name them with any
 * RPL, which the CPU replaces with the CPL (0x30 runs as 0x33); a far RET or IRET, which
 * would return to a more privileged level with an RPL below 3, only with RPL 3. Any other
 * selector is #GP with it as the error code, and so is a non-canonical target (#GP(0)).
 * Everything is read and checked before anything is written, so that a fault leaves the
 * registers as they were. Returns the selector CS takes. */
static uint16_t far_code_check(Cpu *c, uint16_t cs, bool is_return) {
  uint16_t with_cpl = cs | 3;
  if (is_return ? cs == 0x33 : with_cpl == 0x33) return 0x33;
  if (is_return ? cs == 0x23 : with_cpl == 0x23) {
    c->undefined = true;
    guest_trap(c, SIGILL, ILL_ILLOPN, cpu_insn(c)->rip);
  }
  guest_gp(c, cs & 0xfffc);
}

/* CA CB: pops the offset and the selector, each in an operand-size slot. */
void op_retf(Cpu *c, const Insn *in) {
  unsigned s = in->osz;
  uint64_t sp = c->r[RSP], rip = ld(sp, s);
  uint16_t cs = far_code_check(c, ld16(sp + s), true);
  c->rip = branch_target(c, rip);
  c->sreg[1] = cs;
  c->r[RSP] = sp + 2 * s + in->imm;
}

/* CF: pops RIP, CS, RFLAGS, RSP and SS (64-bit mode always returns to a stack); at CPL 3
 * only the flags user code may change are taken, and SS must be __USER_DS. */
void op_iret(Cpu *c, const Insn *in) {
  unsigned s = in->osz;
  uint64_t sp = c->r[RSP], rip = ld(sp, s), rflags = ld(sp + 2 * s, s), rsp = ld(sp + 3 * s, s);
  uint16_t cs = ld16(sp + s), ss = ld16(sp + 4 * s);
  cs = far_code_check(c, cs, true);
  if (ss != 0x2b) guest_gp(c, ss & 0xfffc);
  rip = branch_target(c, rip);
  uint64_t writable = F_ARITH | F_TF | F_DF | F_AC | F_ID;
  flags_update(c, s == 2 ? writable & 0xffff : writable, rflags);
  c->sreg[1] = cs;
  c->sreg[2] = ss;
  c->rip = rip;
  c->r[RSP] = rsp;
}

/* FF /5: JMP m16:32 (m16:64). */
void op_jmp_far(Cpu *c, const Insn *in) {
  uint64_t a = ea(c, in), rip = ld(a, in->osz);
  access_in_order(); /* the offset first, as the CPU reads them */
  uint16_t cs = far_code_check(c, ld16(a + in->osz), false);
  c->rip = branch_target(c, rip);
  c->sreg[1] = cs;
}

/* FF /3: CALL m16:32 (m16:64): pushes CS, then the return address, each in a slot. */
void op_call_far(Cpu *c, const Insn *in) {
  unsigned s = in->osz;
  uint64_t a = ea(c, in), rip = ld(a, s), sp = c->r[RSP] - 2 * s;
  access_in_order(); /* the offset first, as the CPU reads them */
  uint16_t cs = far_code_check(c, ld16(a + s), false);
  rip = branch_target(c, rip);
  st(sp + s, c->sreg[1], s);
  st(sp, insn_next(in), s);
  c->sreg[1] = cs;
  c->rip = rip;
  c->r[RSP] = sp;
}
