/* x87_ctl.c: x87 control instructions: status and control words, FNINIT, FNCLEX, FFREE,
 * FINCSTP/FDECSTP, the environment and whole-state saves (FNSTENV, FLDENV, FNSAVE,
 * FRSTOR, in the 32-bit protected-mode layout the CPU uses in 64-bit mode), FWAIT. */
#include "ops_x87.h"
#include "run.h"
#include "x87_state.h"

/* The environment's sizes: 28 bytes, 14 with a 66 prefix (the 16-bit layout). */
enum { ENV_SIZE = 28, ENV16_SIZE = 14, SAVE_SIZE = ENV_SIZE + 8 * 10 };
static unsigned env_size(const Insn *in) { return in->osz == 2 ? ENV16_SIZE : ENV_SIZE; }

/* The image of size bytes at a (FNSTENV, FLDENV, FNSAVE, FRSTOR), checked before any of it
 * is read or (write) written, in the CPU's order (measured on an AMD EPYC; Intel's is not
 * measured): its first word, the control word's field (2 bytes in the 16-bit formats,
 * else 4), a byte at a time, then its last byte. So a fault at either end is reported
 * there, and an image that faults is neither read nor written in part: its at most 108
 * bytes lie on at most two pages, both checked by then. */
static void image_check(const Insn *in, uint64_t a, unsigned size, bool write) {
  ALIGNED(a, size); /* #AC comes first */
  for (unsigned i = 0; i < (in->osz == 2 ? 2u : 4u); i++) probe_access(a + i, write);
  probe_access(a + size - 1, write);
  access_in_order();
}

/* Bits of the control word that exist; bit 6 always reads as 1. */
enum { CW_BITS = 0x1F3F, CW_ONE = 0x0040 };

static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static uint16_t get16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static void put16(uint8_t *p, uint16_t v) { memcpy(p, &v, 2); }
static uint32_t get32(const uint8_t *p) {
  uint32_t v;
  memcpy(&v, p, 4);
  return v;
}

/* DF E0 */
void op_x87_fnstsw_ax(Cpu *c, const Insn *in) {
  reg_set(c, RAX, x87_status_word(&c->fpu), 2);
  DISPATCH_NEXT(c, in);
}

/* DD /7 */
void op_x87_fnstsw_m16(Cpu *c, const Insn *in) {
  st16(ea(c, in), x87_status_word(&c->fpu));
  DISPATCH_NEXT(c, in);
}

/* D9 /7 */
void op_x87_fnstcw(Cpu *c, const Insn *in) {
  st16(ea(c, in), c->fpu.cw);
  DISPATCH_NEXT(c, in);
}

/* D9 /5: unmasking an exception whose flag is set makes it pending. */
void op_x87_fldcw(Cpu *c, const Insn *in) {
  x87_wait(c);
  uint16_t v = ld16(ea(c, in));
  c->fpu.cw = (v & CW_BITS) | CW_ONE;
  x87_update_es(&c->fpu);
  cpu_fp_controls_loaded(c);
  DISPATCH_NEXT(c, in);
}

/* DB E3 */
void op_x87_fninit(Cpu *c, const Insn *in) {
  x87_init(&c->fpu);
  DISPATCH_NEXT(c, in);
}

/* DB E2: clears the exception flags, SF, ES and B. */
void op_x87_fnclex(Cpu *c, const Insn *in) {
  c->fpu.sw &= (uint16_t)~(X87_EXC | X87_SF | X87_ES | X87_B);
  DISPATCH_NEXT(c, in);
}

/* DD C0+i: tag ST(i) empty; DF C0+i (FFREEP): then pop (in->aux 1). C1 = 0. */
void op_x87_ffree(Cpu *c, const Insn *in) {
  x87_begin(c, in);
  X87 *f = &c->fpu;
  f->sw &= (uint16_t)~X87_C1;
  f->tag |= (uint16_t)(3u << (2 * x87_phys(f, in->rm)));
  if (in->aux) x87_pop(f);
  DISPATCH_NEXT(c, in);
}

/* D9 F7, D9 F6: move TOP without touching the registers or tags; C1 = 0. */
void op_x87_fincstp(Cpu *c, const Insn *in) {
  x87_begin(c, in);
  c->fpu.top = (c->fpu.top + 1) & 7;
  c->fpu.sw &= (uint16_t)~X87_C1;
  DISPATCH_NEXT(c, in);
}

void op_x87_fdecstp(Cpu *c, const Insn *in) {
  x87_begin(c, in);
  c->fpu.top = (c->fpu.top - 1) & 7;
  c->fpu.sw &= (uint16_t)~X87_C1;
  DISPATCH_NEXT(c, in);
}

/* D9 D0. */
void op_x87_fnop(Cpu *c, const Insn *in) {
  x87_begin(c, in);
  DISPATCH_NEXT(c, in);
}

/* 9B */
void op_x87_fwait(Cpu *c, const Insn *in) {
  x87_wait(c);
  DISPATCH_NEXT(c, in);
}

/* The 28-byte environment: the upper halves of the first three words read as ones; the
 * code and data selectors are zero in 64-bit mode. The 14-byte one (66) holds the words
 * alone, the low 16 bits of the instruction and data pointers, and zero selectors. */
static void env_store(const X87 *f, uint8_t *e, unsigned size) {
  if (size == ENV16_SIZE) {
    put16(e + 0, f->cw);
    put16(e + 2, x87_status_word(f));
    put16(e + 4, x87_tag_word(f));
    put16(e + 6, (uint16_t)f->last_ip);
    put16(e + 8, 0);
    put16(e + 10, (uint16_t)f->last_dp);
    put16(e + 12, 0);
    return;
  }
  put32(e + 0, 0xFFFF0000u | f->cw);
  put32(e + 4, 0xFFFF0000u | x87_status_word(f));
  put32(e + 8, 0xFFFF0000u | x87_tag_word(f));
  put32(e + 12, (uint32_t)f->last_ip);
  put32(e + 16, (uint32_t)(f->last_op & 0x7FF) << 16);
  put32(e + 20, (uint32_t)f->last_dp);
  put32(e + 24, 0xFFFF0000u);
}

static void env_load(X87 *f, const uint8_t *e, unsigned size) {
  if (size == ENV16_SIZE) {
    f->cw = (get16(e + 0) & CW_BITS) | CW_ONE;
    x87_set_status_word(f, get16(e + 2));
    x87_update_es(f);
    x87_set_tag_word(f, get16(e + 4));
    f->last_ip = get16(e + 6);
    f->last_dp = get16(e + 10);
    return;
  }
  f->cw = (get16(e + 0) & CW_BITS) | CW_ONE;
  x87_set_status_word(f, get16(e + 4));
  x87_update_es(f);
  x87_set_tag_word(f, get16(e + 8));
  f->last_ip = get32(e + 12);
  f->last_op = get16(e + 18) & 0x7FF;
  f->last_dp = get32(e + 20);
}

/* D9 /6: store the environment, then mask every exception. */
void op_x87_fnstenv(Cpu *c, const Insn *in) {
  uint8_t e[ENV_SIZE];
  uint64_t a = ea(c, in);
  image_check(in, a, env_size(in), true);
  env_store(&c->fpu, e, env_size(in));
  st_bytes(a, e, env_size(in));
  c->fpu.cw |= X87_EXC;
  x87_update_es(&c->fpu);
  DISPATCH_NEXT(c, in);
}

/* D9 /4 */
void op_x87_fldenv(Cpu *c, const Insn *in) {
  uint8_t e[ENV_SIZE];
  uint64_t a = ea(c, in);
  image_check(in, a, env_size(in), false);
  ld_bytes(a, e, env_size(in));
  env_load(&c->fpu, e, env_size(in));
  cpu_fp_controls_loaded(c);
  DISPATCH_NEXT(c, in);
}

/* DD /6: the environment and ST(0)..ST(7) in stack order, then FNINIT. */
void op_x87_fnsave(Cpu *c, const Insn *in) {
  X87 *f = &c->fpu;
  uint8_t s[SAVE_SIZE];
  unsigned env = env_size(in);
  uint64_t a = ea(c, in);
  image_check(in, a, env + 8 * 10, true);
  env_store(f, s, env);
  for (unsigned i = 0; i < 8; i++) x87_image(f, x87_phys(f, i), s + env + 10 * i);
  st_bytes(a, s, env + 8 * 10);
  x87_init(f);
  DISPATCH_NEXT(c, in);
}

/* DD /4 */
void op_x87_frstor(Cpu *c, const Insn *in) {
  X87 *f = &c->fpu;
  uint8_t s[SAVE_SIZE];
  unsigned env = env_size(in);
  uint64_t a = ea(c, in);
  image_check(in, a, env + 8 * 10, false);
  ld_bytes(a, s, env + 8 * 10);
  env_load(f, s, env);
  for (unsigned i = 0; i < 8; i++) x87_set_image(f, x87_phys(f, i), s + env + 10 * i);
  cpu_fp_controls_loaded(c);
  DISPATCH_NEXT(c, in);
}
