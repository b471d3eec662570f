/* test_x87.c: the x87 instructions against the host FPU. Every form runs natively and in
 * the interpreter from the same random state (loaded natively with FRSTOR, saved with
 * FNSAVE); the stack registers (bit for bit), TOP, the tag word, the status and control
 * words, the last instruction pointer, memory, RAX and RFLAGS must agree. Also: the
 * portable tier against the host tier, the portable 80-bit conversions against the
 * host's, and unmasked exceptions faulting like the CPU.
 * X64EMU_DIFF_ITER sets the cases per form (default 3000), X64EMU_DIFF_SEED the seed. */
#define _GNU_SOURCE /* REG_RIP */
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>

#include <cmocka.h>

#include "decoder/decode.h"
#include "interp/cpu.h"
#include "interp/fault.h"
#include "interp/flags.h"
#include "interp/mxcsr.h"
#include "interp/ops_x87.h"
#include "interp/run.h"
#include "interp/x87.h"
#include "interp/x87_host.h"

/* ---- random values ---- */

static uint64_t rng_state;
/* The portable tier runs the same forms; it differs from the CPU only where documented
 * (C1 after arithmetic, precision control, unmasked exceptions, transcendental values),
 * so those are left out of its pass. */
static bool portable_pass;
static uint64_t rnd(void) {
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return rng_state * 0x2545F4914F6CDD1Dull;
}
static unsigned rnd_below(unsigned n) { return (unsigned)(rnd() % n); }

static unsigned iterations(void) {
  const char *s = getenv("X64EMU_DIFF_ITER");
  return s ? (unsigned)strtoul(s, NULL, 0) : 3000;
}

static void put_ext80(uint8_t *b, uint64_t mant, unsigned sign_exp) {
  memcpy(b, &mant, 8);
  b[8] = (uint8_t)sign_exp;
  b[9] = (uint8_t)(sign_exp >> 8);
}

static void ld_bytes(long double v, uint8_t *b) { memcpy(b, &v, 10); }

/* Register value domains: ANY mixes everything; INT is near integers and the integer
 * formats' limits; UNIT is [-1, 1] (F2XM1); NEAR is moderate magnitudes. */
enum Domain { D_ANY, D_INT, D_UNIT, D_NEAR };

static void gen_special(uint8_t *b) {
  unsigned sign = rnd_below(2) ? 0x8000 : 0;
  uint64_t r = rnd();
  switch (rnd_below(14)) {
  case 0: put_ext80(b, 0, sign); break;                                         /* zero */
  case 1: put_ext80(b, 1ull << 63, sign | 0x7FFF); break;                       /* inf */
  case 2: put_ext80(b, (3ull << 62) | (r >> 2 & -(uint64_t)rnd_below(2)), sign | 0x7FFF); break;
  case 3: put_ext80(b, (1ull << 63) | ((r >> 2) | 1), sign | 0x7FFF); break;    /* SNaN */
  case 4: put_ext80(b, 3ull << 62, 0xFFFF); break;                              /* indefinite */
  case 5: put_ext80(b, r >> (1 + rnd_below(63)), sign); break;                  /* denormal */
  case 6: put_ext80(b, 1ull << 63, sign | 1); break;                            /* min normal */
  case 7: put_ext80(b, ~0ull, sign | 0x7FFE); break;                            /* max */
  case 8: put_ext80(b, r | 1ull << 63, sign | (0x7FFE - rnd_below(64))); break;  /* huge */
  case 9: put_ext80(b, r | 1ull << 63, sign | (1 + rnd_below(64))); break;        /* tiny */
  case 10: ld_bytes(sign ? -1.0L : 1.0L, b); break;
  case 11: ld_bytes((long double)(int)(rnd_below(9) - 4), b); break;
  case 12: ld_bytes(sign ? -0.5L : 0.5L, b); break;
  default: put_ext80(b, (1ull << 63) | (r >> (rnd_below(2) ? 0 : 40)), sign | (0x3FFF + rnd_below(128))); break;
  }
}

static void gen_int_like(uint8_t *b) {
  int bits = 1 + (int)rnd_below(66);
  uint64_t m = rnd() >> (64 - (bits > 64 ? 64 : bits));
  long double v = (long double)m;
  if (bits > 64) v *= 4;
  switch (rnd_below(6)) {
  case 0: v += 0.5L; break;
  case 1: v -= 0.5L; break;
  case 2: v += (long double)(rnd() >> 11) * 0x1p-53L; break;
  case 3: {
    static const long double edges[] = {0x1p15L, 0x1p31L, 0x1p63L, 1e18L, 0x1p16L, 0x1p32L, 0x1p64L};
    v = edges[rnd_below(7)] + (long double)((int)rnd_below(5) - 2) * (rnd_below(2) ? 0.5L : 1.0L);
    break;
  }
  default: break;
  }
  if (rnd_below(2)) v = -v;
  ld_bytes(v, b);
}

static void gen_ext80(uint8_t *b, enum Domain d) {
  unsigned r = rnd_below(100);
  unsigned sign = rnd_below(2) ? 0x8000 : 0;
  if (d == D_INT && r < 70) return gen_int_like(b);
  if (d == D_UNIT && r < 80) {
    put_ext80(b, rnd() | 1ull << 63, sign | (0x3FFE - rnd_below(rnd_below(4) ? 20 : 70)));
    return;
  }
  if (d == D_NEAR && r < 80) {
    put_ext80(b, rnd() | 1ull << 63, sign | (0x3FFF - 40 + rnd_below(80)));
    return;
  }
  if (r < 2 && !portable_pass) { /* unsupported encodings: unnormals, pseudo-NaN/infinity */
    put_ext80(b, rnd() >> 1, sign | (rnd_below(2) ? 0x7FFF : rnd_below(0x7FFF)));
    return;
  }
  if (r < 25) gen_special(b);
  else if (r < 55) put_ext80(b, rnd() | 1ull << 63, sign | (0x3FFF - 12 + rnd_below(25)));
  else if (r < 70) put_ext80(b, rnd() | 1ull << 63, sign | (1 + rnd_below(0x7FFE)));
  else if (r < 85) gen_int_like(b);
  else if (r < 92) ld_bytes((long double)(float)((float)(rnd() >> 40) * 0x1p-12f * (sign ? -1 : 1)), b);
  else ld_bytes((long double)(double)((double)(rnd() >> 11) * 0x1p-30 * (sign ? -1 : 1)), b);
}

static uint32_t gen_f32(void) {
  uint32_t s = rnd_below(2) ? 0x80000000u : 0, r = (uint32_t)rnd();
  switch (rnd_below(10)) {
  case 0: return s;
  case 1: return s | 0x7F800000u;
  case 2: return s | 0x7FC00000u | (r & 0x3FFFFF);
  case 3: return s | 0x7F800000u | ((r & 0x3FFFFF) | 1);
  case 4: return s | (r & 0x7FFFFF);
  case 5: return s | (0x3F000000u + (r & 0x01FFFFFF));
  default: return r;
  }
}

static uint64_t gen_f64(void) {
  uint64_t s = rnd_below(2) ? 1ull << 63 : 0, r = rnd();
  switch (rnd_below(10)) {
  case 0: return s;
  case 1: return s | 0x7FF0000000000000ull;
  case 2: return s | 0x7FF8000000000000ull | (r & 0x7FFFFFFFFFFFFull);
  case 3: return s | 0x7FF0000000000000ull | ((r & 0x7FFFFFFFFFFFFull) | 1);
  case 4: return s | (r & 0xFFFFFFFFFFFFFull);
  case 5: return s | (0x3FE0000000000000ull + (r & 0x003FFFFFFFFFFFFFull));
  default: return r;
  }
}

static uint64_t gen_int(unsigned size) {
  uint64_t r = rnd();
  switch (rnd_below(5)) {
  case 0: return 1ull << (size * 8 - 1);            /* most negative */
  case 1: return (1ull << (size * 8 - 1)) - 1;      /* most positive */
  case 2: return (uint64_t)(int64_t)((int)rnd_below(21) - 10);
  case 3: return r >> rnd_below(64);
  default: return r;
  }
}

/* ---- the forms under test ---- */

enum Mem { M_NONE, M_F32, M_F64, M_F80, M_I16, M_I32, M_I64, M_BCD, M_CW, M_ENV, M_SAVE, M_OUT };

typedef struct Form {
  const char *name;
  uint8_t bytes[2];
  uint8_t mem;   /* enum Mem: what the memory at [rdi] holds */
  uint8_t sti;   /* the low three bits of the second byte pick ST(i) at random */
  uint8_t domain;
} Form;

/* How the portable tier's pass treats a form. */
enum PortableCheck { P_EXACT, P_NO_C1, P_SKIP };

static enum PortableCheck portable_check(const Form *f) {
  static const uint8_t transcendental[] = {0xF0, 0xF1, 0xF2, 0xF3, 0xF9, 0xFB, 0xFE, 0xFF};
  uint8_t b0 = f->bytes[0], b1 = f->bytes[1];
  if (b0 == 0xD9 && memchr(transcendental, b1, sizeof transcendental)) return P_SKIP;
  if (f->mem == M_ENV || f->mem == M_SAVE || f->mem == M_CW) return P_SKIP; /* may unmask */
  bool arith = (b0 == 0xD8 || b0 == 0xDA || b0 == 0xDC || b0 == 0xDE) &&
               ((b1 >> 3) & 7) != 2 && ((b1 >> 3) & 7) != 3 && b1 != 0xD9 && b1 != 0xE9;
  bool unary = b0 == 0xD9 && (b1 == 0xFA || b1 == 0xFD || b1 == 0xF4 || b1 == 0xF5 || b1 == 0xF8);
  return arith || unary ? P_NO_C1 : P_EXACT;
}

#define R(n, b0, b1) {n, {b0, b1}, M_NONE, 0, D_ANY}
#define RI(n, b0, b1) {n, {b0, b1}, M_NONE, 1, D_ANY}
#define RD(n, b0, b1, d) {n, {b0, b1}, M_NONE, 0, d}
#define M(n, b0, b1, m) {n, {b0, b1}, m, 0, D_ANY}
#define MD(n, b0, b1, m, d) {n, {b0, b1}, m, 0, d}

static const Form arith_forms[] = {
    M("fadd m32", 0xD8, 0x07, M_F32), M("fmul m32", 0xD8, 0x0F, M_F32),
    M("fcom m32", 0xD8, 0x17, M_F32), M("fcomp m32", 0xD8, 0x1F, M_F32),
    M("fsub m32", 0xD8, 0x27, M_F32), M("fsubr m32", 0xD8, 0x2F, M_F32),
    M("fdiv m32", 0xD8, 0x37, M_F32), M("fdivr m32", 0xD8, 0x3F, M_F32),
    M("fadd m64", 0xDC, 0x07, M_F64), M("fmul m64", 0xDC, 0x0F, M_F64),
    M("fcom m64", 0xDC, 0x17, M_F64), M("fcomp m64", 0xDC, 0x1F, M_F64),
    M("fsub m64", 0xDC, 0x27, M_F64), M("fsubr m64", 0xDC, 0x2F, M_F64),
    M("fdiv m64", 0xDC, 0x37, M_F64), M("fdivr m64", 0xDC, 0x3F, M_F64),
    M("fiadd m32", 0xDA, 0x07, M_I32), M("fimul m32", 0xDA, 0x0F, M_I32),
    M("ficom m32", 0xDA, 0x17, M_I32), M("ficomp m32", 0xDA, 0x1F, M_I32),
    M("fisub m32", 0xDA, 0x27, M_I32), M("fisubr m32", 0xDA, 0x2F, M_I32),
    M("fidiv m32", 0xDA, 0x37, M_I32), M("fidivr m32", 0xDA, 0x3F, M_I32),
    M("fiadd m16", 0xDE, 0x07, M_I16), M("fimul m16", 0xDE, 0x0F, M_I16),
    M("ficom m16", 0xDE, 0x17, M_I16), M("ficomp m16", 0xDE, 0x1F, M_I16),
    M("fisub m16", 0xDE, 0x27, M_I16), M("fisubr m16", 0xDE, 0x2F, M_I16),
    M("fidiv m16", 0xDE, 0x37, M_I16), M("fidivr m16", 0xDE, 0x3F, M_I16),
    RI("fadd st,st(i)", 0xD8, 0xC0), RI("fmul st,st(i)", 0xD8, 0xC8),
    RI("fcom st(i)", 0xD8, 0xD0), RI("fcomp st(i)", 0xD8, 0xD8),
    RI("fsub st,st(i)", 0xD8, 0xE0), RI("fsubr st,st(i)", 0xD8, 0xE8),
    RI("fdiv st,st(i)", 0xD8, 0xF0), RI("fdivr st,st(i)", 0xD8, 0xF8),
    RI("fadd st(i),st", 0xDC, 0xC0), RI("fmul st(i),st", 0xDC, 0xC8),
    RI("fcom2 st(i)", 0xDC, 0xD0), RI("fcomp3 st(i)", 0xDC, 0xD8),
    RI("fsubr st(i),st", 0xDC, 0xE0), RI("fsub st(i),st", 0xDC, 0xE8),
    RI("fdivr st(i),st", 0xDC, 0xF0), RI("fdiv st(i),st", 0xDC, 0xF8),
    RI("faddp st(i),st", 0xDE, 0xC0), RI("fmulp st(i),st", 0xDE, 0xC8),
    RI("fcomp5 st(i)", 0xDE, 0xD0), R("fcompp", 0xDE, 0xD9),
    RI("fsubrp st(i),st", 0xDE, 0xE0), RI("fsubp st(i),st", 0xDE, 0xE8),
    RI("fdivrp st(i),st", 0xDE, 0xF0), RI("fdivp st(i),st", 0xDE, 0xF8),
    RI("fucom st(i)", 0xDD, 0xE0), RI("fucomp st(i)", 0xDD, 0xE8),
    R("fucompp", 0xDA, 0xE9),
    RI("fcomi st(i)", 0xDB, 0xF0), RI("fucomi st(i)", 0xDB, 0xE8),
    RI("fcomip st(i)", 0xDF, 0xF0), RI("fucomip st(i)", 0xDF, 0xE8),
    R("ftst", 0xD9, 0xE4), R("fxam", 0xD9, 0xE5),
};

static const Form move_forms[] = {
    M("fld m32", 0xD9, 0x07, M_F32), M("fld m64", 0xDD, 0x07, M_F64),
    M("fld m80", 0xDB, 0x2F, M_F80), RI("fld st(i)", 0xD9, 0xC0),
    M("fst m32", 0xD9, 0x17, M_OUT), M("fstp m32", 0xD9, 0x1F, M_OUT),
    M("fst m64", 0xDD, 0x17, M_OUT), M("fstp m64", 0xDD, 0x1F, M_OUT),
    M("fstp m80", 0xDB, 0x3F, M_OUT),
    RI("fst st(i)", 0xDD, 0xD0), RI("fstp st(i)", 0xDD, 0xD8),
    RI("fstp1 st(i)", 0xD9, 0xD8), RI("fstp8 st(i)", 0xDF, 0xD0), RI("fstp9 st(i)", 0xDF, 0xD8),
    M("fild m16", 0xDF, 0x07, M_I16), M("fild m32", 0xDB, 0x07, M_I32),
    M("fild m64", 0xDF, 0x2F, M_I64),
    MD("fist m16", 0xDF, 0x17, M_OUT, D_INT), MD("fistp m16", 0xDF, 0x1F, M_OUT, D_INT),
    MD("fist m32", 0xDB, 0x17, M_OUT, D_INT), MD("fistp m32", 0xDB, 0x1F, M_OUT, D_INT),
    MD("fistp m64", 0xDF, 0x3F, M_OUT, D_INT),
    MD("fisttp m16", 0xDF, 0x0F, M_OUT, D_INT), MD("fisttp m32", 0xDB, 0x0F, M_OUT, D_INT),
    MD("fisttp m64", 0xDD, 0x0F, M_OUT, D_INT),
    M("fbld", 0xDF, 0x27, M_BCD), MD("fbstp", 0xDF, 0x37, M_OUT, D_INT),
    R("fld1", 0xD9, 0xE8), R("fldl2t", 0xD9, 0xE9), R("fldl2e", 0xD9, 0xEA),
    R("fldpi", 0xD9, 0xEB), R("fldlg2", 0xD9, 0xEC), R("fldln2", 0xD9, 0xED),
    R("fldz", 0xD9, 0xEE),
    RI("fxch st(i)", 0xD9, 0xC8), RI("fxch4 st(i)", 0xDD, 0xC8), RI("fxch7 st(i)", 0xDF, 0xC8),
    RI("fcmovb", 0xDA, 0xC0), RI("fcmove", 0xDA, 0xC8), RI("fcmovbe", 0xDA, 0xD0),
    RI("fcmovu", 0xDA, 0xD8), RI("fcmovnb", 0xDB, 0xC0), RI("fcmovne", 0xDB, 0xC8),
    RI("fcmovnbe", 0xDB, 0xD0), RI("fcmovnu", 0xDB, 0xD8),
};

static const Form math_forms[] = {
    R("fchs", 0xD9, 0xE0), R("fabs", 0xD9, 0xE1),
    RD("f2xm1", 0xD9, 0xF0, D_UNIT), R("f2xm1 any", 0xD9, 0xF0),
    R("fyl2x", 0xD9, 0xF1), R("fptan", 0xD9, 0xF2), RD("fptan near", 0xD9, 0xF2, D_NEAR),
    R("fpatan", 0xD9, 0xF3), R("fxtract", 0xD9, 0xF4), R("fprem1", 0xD9, 0xF5),
    RD("fprem1 near", 0xD9, 0xF5, D_NEAR),
    R("fprem", 0xD9, 0xF8), RD("fprem near", 0xD9, 0xF8, D_NEAR),
    RD("fyl2xp1", 0xD9, 0xF9, D_UNIT), R("fsqrt", 0xD9, 0xFA), R("fsincos", 0xD9, 0xFB),
    RD("frndint", 0xD9, 0xFC, D_INT), R("fscale", 0xD9, 0xFD), RD("fscale int", 0xD9, 0xFD, D_INT),
    R("fsin", 0xD9, 0xFE), RD("fsin near", 0xD9, 0xFE, D_NEAR),
    R("fcos", 0xD9, 0xFF), RD("fcos near", 0xD9, 0xFF, D_NEAR),
};

static const Form control_forms[] = {
    R("fnstsw ax", 0xDF, 0xE0), M("fnstsw m16", 0xDD, 0x3F, M_OUT),
    M("fnstcw", 0xD9, 0x3F, M_OUT), M("fldcw", 0xD9, 0x2F, M_CW),
    R("fninit", 0xDB, 0xE3), R("fnclex", 0xDB, 0xE2),
    RI("ffree st(i)", 0xDD, 0xC0), RI("ffreep st(i)", 0xDF, 0xC0),
    R("fincstp", 0xD9, 0xF7), R("fdecstp", 0xD9, 0xF6), R("fnop", 0xD9, 0xD0),
    R("feni (nop)", 0xDB, 0xE0), R("fdisi (nop)", 0xDB, 0xE1), R("fsetpm (nop)", 0xDB, 0xE4),
    M("fnstenv", 0xD9, 0x37, M_OUT), M("fldenv", 0xD9, 0x27, M_ENV),
    M("fnsave", 0xDD, 0x37, M_OUT), M("frstor", 0xDD, 0x27, M_SAVE),
};

/* ---- running one instruction natively ---- */

enum { SAVE_SIZE = 108, MEM_SIZE = 128, SLOT = 4 };

/* frstor [rsi]; push [rdx]; popfq; mov rax,[rcx]; (nops, the instruction);
 * mov [rcx],rax; pushfq; pop [rdx]; fnsave [rsi]; ret */
static const uint8_t native_pre[] = {0xDD, 0x26, 0xFF, 0x32, 0x9D, 0x48, 0x8B, 0x01};
static const uint8_t native_post[] = {0x48, 0x89, 0x01, 0x9C, 0x8F, 0x02, 0xDD, 0x36, 0xC3};
static uint8_t *native_code;

typedef void (*NativeFn)(void *mem, void *save, uint64_t *rflags, uint64_t *rax);

static int setup(void **state) {
  native_code = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS,
                     -1, 0);
  if (native_code == MAP_FAILED) return -1;
  memcpy(native_code, native_pre, sizeof native_pre);
  memcpy(native_code + sizeof native_pre + SLOT, native_post, sizeof native_post);
  const char *seed = getenv("X64EMU_DIFF_SEED");
  rng_state = seed ? strtoull(seed, NULL, 0) : 0x87C0FFEE12345ull;
  return decoder_init() ? 0 : -1;
}

static int teardown(void **state) {
  munmap(native_code, 4096);
  return 0;
}

/* The instruction ends where native_post begins; returns its address. */
static uint8_t *place_insn(const uint8_t *insn, unsigned len) {
  uint8_t *slot = native_code + sizeof native_pre;
  memset(slot, 0x90, SLOT);
  memcpy(slot + SLOT - len, insn, len);
  return slot + SLOT - len;
}

/* ---- the interpreter's state to and from the FNSAVE image ---- */

static uint16_t get16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t get32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }

static void emu_load(Cpu *c, const uint8_t *s) {
  X87 *f = &c->fpu;
  memset(f, 0, sizeof *f);
  f->cw = get16(s);
  uint16_t sw = get16(s + 4), tw = get16(s + 8);
  f->top = (sw >> 11) & 7;
  f->sw = sw & ~0x3800;
  for (unsigned p = 0; p < 8; p++)
    if (((tw >> (2 * p)) & 3) == 3) f->tag |= (uint16_t)(3u << (2 * p));
  for (unsigned i = 0; i < 8; i++) memcpy(&f->st[(f->top + i) & 7], s + 28 + 10 * i, 10);
  f->last_ip = get32(s + 12);
  f->last_op = get16(s + 18) & 0x7FF;
  f->last_dp = get32(s + 20);
}

/* ---- comparing ---- */

typedef struct Outcome {
  uint8_t save[SAVE_SIZE];
  uint8_t mem[MEM_SIZE];
  uint64_t rflags, rax;
} Outcome;

static void dump_ext80(const char *label, const uint8_t *b) {
  printf("%s %04x:%016llx", label, get16(b + 8), (unsigned long long)(*(const uint64_t *)b));
}

static void dump_image(const char *label, const uint8_t *s) {
  printf("  %s cw=%04x sw=%04x tw=%04x fip=%08x\n   ", label, get16(s), get16(s + 4),
         get16(s + 8), get32(s + 12));
  for (unsigned i = 0; i < 8; i++) {
    char l[8];
    snprintf(l, sizeof l, " st%u", i);
    dump_ext80(l, s + 28 + 10 * i);
    if (i == 3) printf("\n   ");
  }
  printf("\n");
}

/* The interpreter's result in the native outcome's terms; the first difference, or NULL. */
static const char *compare(const Cpu *c, const Outcome *nat, const uint8_t *emu_mem, unsigned mem_len,
                           bool ignore_c1) {
  const X87 *f = &c->fpu;
  const uint8_t *s = nat->save;
  uint16_t sw_mask = ignore_c1 ? (uint16_t)~X87_C1 : 0xFFFF;
  if (get16(s) != f->cw) return "control word";
  if ((get16(s + 4) ^ x87_status_word(f)) & sw_mask) return "status word";
  if (get16(s + 8) != x87_tag_word(f)) return "tag word";
  if (get32(s + 12) != (uint32_t)f->last_ip) return "last instruction pointer";
  for (unsigned i = 0; i < 8; i++)
    if (memcmp(s + 28 + 10 * i, &f->st[(f->top + i) & 7], 10)) return "register";
  if (memcmp(nat->mem, emu_mem, mem_len)) return "memory";
  if (nat->rax != c->r[RAX]) return "rax";
  if ((nat->rflags & F_ARITH) != (flags_get(c) & F_ARITH)) return "rflags";
  return NULL;
}

static void emu_image(const Cpu *c, uint8_t *s) {
  const X87 *f = &c->fpu;
  memset(s, 0, SAVE_SIZE);
  uint16_t sw = x87_status_word(f), tw = x87_tag_word(f);
  memcpy(s, &f->cw, 2);
  memcpy(s + 4, &sw, 2);
  memcpy(s + 8, &tw, 2);
  uint32_t ip = (uint32_t)f->last_ip;
  memcpy(s + 12, &ip, 4);
  for (unsigned i = 0; i < 8; i++) memcpy(s + 28 + 10 * i, &f->st[(f->top + i) & 7], 10);
}

/* ---- one case ---- */

static unsigned mem_len_of(unsigned kind) {
  switch (kind) {
  case M_ENV: return 28;
  case M_SAVE: return SAVE_SIZE;
  default: return 16;
  }
}

static void gen_memory(uint8_t *mem, unsigned kind, const uint8_t *st0) {
  for (unsigned i = 0; i < MEM_SIZE; i++) mem[i] = (uint8_t)rnd();
  switch (kind) {
  case M_F32: {
    uint32_t v = gen_f32();
    if (rnd_below(8) == 0) { /* equal to ST(0) where representable */
      float x = (float)*(const long double *)st0;
      memcpy(&v, &x, 4);
    }
    memcpy(mem, &v, 4);
    break;
  }
  case M_F64: {
    uint64_t v = gen_f64();
    if (rnd_below(8) == 0) {
      double x = (double)*(const long double *)st0;
      memcpy(&v, &x, 8);
    }
    memcpy(mem, &v, 8);
    break;
  }
  case M_F80: gen_ext80(mem, D_ANY); break;
  case M_I16: { uint64_t v = gen_int(2); memcpy(mem, &v, 2); break; }
  case M_I32: { uint64_t v = gen_int(4); memcpy(mem, &v, 4); break; }
  case M_I64: { uint64_t v = gen_int(8); memcpy(mem, &v, 8); break; }
  case M_BCD:
    for (unsigned i = 0; i < 9; i++) mem[i] = (uint8_t)(rnd_below(10) << 4 | rnd_below(10));
    mem[9] = rnd_below(2) ? 0x80 : 0;
    break;
  case M_SAVE:
    for (unsigned i = 0; i < 8; i++) gen_ext80(mem + 28 + 10 * i, D_ANY);
    /* fall through: the environment */
    __attribute__((fallthrough));
  case M_ENV: {
    uint16_t cw = (uint16_t)rnd(), sw = (uint16_t)rnd();
    memcpy(mem, &cw, 2);
    memcpy(mem + 4, &sw, 2);
    break;
  }
  default: break;
  }
}

/* A random starting state as an FNSAVE image. */
static void gen_state(uint8_t *s, enum Domain d) {
  memset(s, 0, SAVE_SIZE);
  unsigned rc = rnd_below(4), pc = rnd_below(5) || portable_pass ? 3 : rnd_below(4);
  uint16_t masks = 0x3F;
  if (rnd_below(10) == 0 && !portable_pass) masks &= (uint16_t)~(rnd() & (X87_IE | X87_DE | X87_ZE));
  uint16_t cw = (uint16_t)(0x40 | masks | pc << 8 | rc << 10);
  unsigned top = rnd_below(8);
  unsigned depth = rnd_below(4) ? 2 + rnd_below(7) : rnd_below(9);
  uint16_t sw = (uint16_t)(top << 11 | (rnd() & X87_CC) | (rnd() & masks & (rnd_below(2) ? 0x3F : 0)));
  uint16_t tw = 0;
  bool scattered = rnd_below(10) == 0;
  for (unsigned i = 0; i < 8; i++) {
    bool full = scattered ? rnd_below(2) : i < depth;
    if (!full) tw |= (uint16_t)(3u << (2 * ((top + i) & 7)));
    gen_ext80(s + 28 + 10 * i, d);
  }
  memcpy(s, &cw, 2);
  memcpy(s + 4, &sw, 2);
  memcpy(s + 8, &tw, 2);
}

static uint64_t gen_rflags(void) {
  static const uint64_t bits[] = {F_CF, F_PF, F_AF, F_ZF, F_SF, F_OF};
  uint64_t fl = 0x202;
  for (unsigned i = 0; i < 6; i++)
    if (rnd_below(2)) fl |= bits[i];
  return fl;
}

/* Runs the form once natively and once in the interpreter; false on a difference
 * (after printing it). */
static bool run_case(const Form *form) {
  uint8_t insn[2] = {form->bytes[0], form->bytes[1]};
  if (form->sti) insn[1] = (uint8_t)((insn[1] & ~7) | rnd_below(8));
  uint8_t start[SAVE_SIZE], mem0[MEM_SIZE];
  gen_state(start, (enum Domain)form->domain);
  gen_memory(mem0, form->mem, start + 28);
  uint64_t rflags0 = gen_rflags(), rax0 = rnd();

  uint8_t *at = place_insn(insn, 2);
  Outcome nat;
  memcpy(nat.save, start, SAVE_SIZE);
  memcpy(nat.mem, mem0, MEM_SIZE);
  nat.rflags = rflags0;
  nat.rax = rax0;
  ((NativeFn)(void *)native_code)(nat.mem, nat.save, &nat.rflags, &nat.rax);

  Cpu cpu;
  memset(&cpu, 0, sizeof cpu);
  flags_set(&cpu, rflags0);
  cpu.r[RAX] = rax0;
  uint8_t emem[MEM_SIZE];
  memcpy(emem, mem0, MEM_SIZE);
  cpu.r[RDI] = (uint64_t)(uintptr_t)emem;
  emu_load(&cpu, start);
  Insn in;
  uint64_t fault_at = 0;
  int n = decode_insn((uint64_t)(uintptr_t)at, &in, &fault_at);
  if (n != 2) {
    printf("%s (%02x %02x): decode_insn returned %d\n", form->name, insn[0], insn[1], n);
    return false;
  }
  cpu.cur = &in;
  cpu.rip = (uint64_t)(uintptr_t)at + 2;
  in.fn(&cpu, &in);

  bool ignore_c1 = portable_pass && portable_check(form) == P_NO_C1;
  const char *diff = compare(&cpu, &nat, emem, mem_len_of(form->mem), ignore_c1);
  if (!diff) return true;
  uint8_t img[SAVE_SIZE];
  emu_image(&cpu, img);
  printf("%s%s (%02x %02x): %s differs\n", portable_pass ? "portable tier: " : "", form->name,
         insn[0], insn[1], diff);
  dump_image("start ", start);
  printf("  memory ");
  for (unsigned i = 0; i < 16; i++) printf("%02x", mem0[i]);
  printf("  rflags %llx\n", (unsigned long long)rflags0);
  dump_image("native", nat.save);
  dump_image("interp", img);
  printf("  memory native ");
  for (unsigned i = 0; i < 16; i++) printf("%02x", nat.mem[i]);
  printf(" interp ");
  for (unsigned i = 0; i < 16; i++) printf("%02x", emem[i]);
  printf("\n  rflags native %llx interp %llx, rax native %llx interp %llx\n",
         (unsigned long long)nat.rflags, (unsigned long long)flags_get(&cpu),
         (unsigned long long)nat.rax, (unsigned long long)cpu.r[RAX]);
  return false;
}

static void run_forms(const Form *forms, size_t count) {
  unsigned iters = iterations(), failures = 0;
  for (int pass = 0; pass < 2; pass++) {
    portable_pass = pass == 1;
    fp_tier = portable_pass ? FP_TIER_PORTABLE : FP_TIER_HOST;
    for (size_t k = 0; k < count; k++) {
      if (portable_pass && portable_check(&forms[k]) == P_SKIP) continue;
      unsigned bad = 0;
      for (unsigned i = 0; i < (portable_pass ? iters / 2 : iters) && bad < 3; i++)
        if (!run_case(&forms[k])) bad++;
      failures += bad;
    }
  }
  fp_tier = FP_TIER_HOST;
  portable_pass = false;
  assert_int_equal(failures, 0);
}

static void test_arith(void **state) { run_forms(arith_forms, sizeof arith_forms / sizeof *arith_forms); }
static void test_moves(void **state) { run_forms(move_forms, sizeof move_forms / sizeof *move_forms); }
static void test_math(void **state) { run_forms(math_forms, sizeof math_forms / sizeof *math_forms); }
static void test_control(void **state) {
  run_forms(control_forms, sizeof control_forms / sizeof *control_forms);
}

/* ---- unmasked exceptions: #MF at the next waiting instruction ---- */

static sigjmp_buf native_fpe_jmp;
static volatile int native_fpe_code;
static volatile uint64_t native_fpe_addr, native_fpe_rip;

static void on_native_fpe(int sig, siginfo_t *si, void *ucv) {
  ucontext_t *uc = ucv;
  native_fpe_code = si->si_code;
  native_fpe_addr = (uint64_t)(uintptr_t)si->si_addr;
  native_fpe_rip = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
  siglongjmp(native_fpe_jmp, 1);
}

typedef struct Trap {
  bool fired;
  int code;
  uint64_t addr, rip;
} Trap;

/* Runs code (ending in RET) natively with rdi = mem, catching SIGFPE. */
static Trap native_trap(const uint8_t *code, unsigned len, void *mem) {
  uint8_t *at = native_code + 1024;
  memcpy(at, code, len);
  struct sigaction sa, old;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_native_fpe;
  sa.sa_flags = SA_SIGINFO | SA_NODEFER;
  sigaction(SIGFPE, &sa, &old);
  Trap t = {0};
  if (sigsetjmp(native_fpe_jmp, 1) == 0) {
    ((void (*)(void *))(void *)at)(mem);
  } else {
    t = (Trap){true, native_fpe_code, native_fpe_addr, native_fpe_rip};
  }
  sigaction(SIGFPE, &old, NULL);
  __asm__ volatile("fninit");
  return t;
}

/* The same instructions, at the same addresses, one by one in the interpreter (the
 * final RET is not run). */
static Trap emulated_trap(unsigned len, void *mem, bool fwait_handler) {
  uint8_t *at = native_code + 1024;
  static Cpu cpu;
  memset(&cpu, 0, sizeof cpu);
  cpu_reset(&cpu);
  cpu.r[RDI] = (uint64_t)(uintptr_t)mem;
  static Insn in;
  volatile uint64_t rip = (uint64_t)(uintptr_t)at;
  Trap t = {0};
  if (sigsetjmp(cpu.fault_jmp, 0) == 0) {
    while (rip < (uint64_t)(uintptr_t)at + len - 1) {
      uint64_t fault_at = 0;
      int n = decode_insn(rip, &in, &fault_at);
      assert_true(n > 0);
      /* 9B runs the x87 handler (the one-byte decoder may still map it to a NOP). */
      if (fwait_handler && *(const uint8_t *)(uintptr_t)rip == 0x9B) in.fn = op_x87_fwait;
      cpu.cur = &in;
      cpu.rip = rip + (uint64_t)n;
      in.fn(&cpu, &in);
      rip += (uint64_t)n;
    }
  } else {
    t = (Trap){true, fault_code, fault_addr, cpu.rip};
  }
  return t;
}

static void test_unmasked_exception_faults(void **state) {
  static const uint16_t unmask_ze = 0x037B, unmask_ie = 0x037E, unmask_pe = 0x035F;
  /* fninit; fldcw [rdi]; fld1; fldz; fdivp; <waiting or not>; ...; fninit; ret */
  static const struct {
    const char *name;
    const uint16_t *cw;
    bool fires;
    uint8_t code[24];
    unsigned len;
  } cases[] = {
      {"1/0 then fld1", &unmask_ze, true, {0xDB, 0xE3, 0xD9, 0x2F, 0xD9, 0xE8, 0xD9, 0xEE, 0xDE, 0xF9, 0xD9, 0xE8, 0xDB, 0xE3, 0xC3}, 15},
      {"1/0 then fwait", &unmask_ze, true, {0xDB, 0xE3, 0xD9, 0x2F, 0xD9, 0xE8, 0xD9, 0xEE, 0xDE, 0xF9, 0x9B, 0xDB, 0xE3, 0xC3}, 14},
      {"1/0 then fnstsw, fnclex, fld1", &unmask_ze, false, {0xDB, 0xE3, 0xD9, 0x2F, 0xD9, 0xE8, 0xD9, 0xEE, 0xDE, 0xF9, 0xDF, 0xE0, 0xDB, 0xE2, 0xD9, 0xE8, 0xDB, 0xE3, 0xC3}, 19},
      {"empty fadd then fld1", &unmask_ie, true, {0xDB, 0xE3, 0xD9, 0x2F, 0xD8, 0xC1, 0xD9, 0xE8, 0xDB, 0xE3, 0xC3}, 11},
      {"inexact fsqrt(pi) then fld1", &unmask_pe, true, {0xDB, 0xE3, 0xD9, 0x2F, 0xD9, 0xEB, 0xD9, 0xFA, 0xD9, 0xE8, 0xDB, 0xE3, 0xC3}, 13},
  };
  unsigned bad = 0;
  for (unsigned k = 0; k < sizeof cases / sizeof *cases; k++) {
    uint16_t cw = *cases[k].cw;
    Trap n = native_trap(cases[k].code, cases[k].len, &cw);
    Trap e = emulated_trap(cases[k].len, &cw, true);
    if (n.fired != cases[k].fires) {
      printf("%s: the native run %s\n", cases[k].name, n.fired ? "faulted" : "did not fault");
      bad++;
    }
    if (n.fired != e.fired || n.code != e.code || n.addr != e.addr || n.rip != e.rip) {
      printf("%s: native %s code %d addr %llx rip %llx; interp %s code %d addr %llx rip %llx\n",
             cases[k].name, n.fired ? "SIGFPE" : "no signal", n.code, (unsigned long long)n.addr,
             (unsigned long long)n.rip, e.fired ? "SIGFPE" : "no signal", e.code,
             (unsigned long long)e.addr, (unsigned long long)e.rip);
      bad++;
    }
  }
  assert_int_equal(bad, 0);
}

/* ---- compiled long double code, natively and in the interpreter ---- */

/* What gcc makes of long double code: loads, arithmetic, compares with branches,
 * conversions to and from integers (FNSTCW/FLDCW around FISTP, FILD with a correction
 * for unsigned values), stores to float and double. */
__attribute__((noinline)) static void compiled_math(const long double *in, long double *out,
                                                    uint64_t *ints) {
  long double x = in[0], y = in[1];
  long double term = 1, sum = 1;
  for (int i = 1; i < 25; i++) {
    term = term * x / i;
    sum += term;
  }
  out[0] = sum;
  out[1] = x > y ? x - y : y / (x == 0 ? 1 : x);
  out[2] = (long double)(uint64_t)ints[0] + (long double)(int32_t)ints[1];
  ints[2] = (uint64_t)(y < 0 ? -y : y);
  ints[3] = (uint64_t)(int64_t)(x * 1e6L);
  float f = (float)sum;
  double d = (double)out[1];
  memcpy(&ints[4], &f, 4);
  memcpy(&ints[5], &d, 8);
}

/* The x87-only operations libm's long double functions use, as inline assembly. */
__attribute__((noinline)) static void libm_style(const long double *in, long double *out,
                                                 uint64_t *ints) {
  long double a = in[0], b = in[1], r = a, s, c, t;
  __asm__("1: fprem1\n\tfnstsw %%ax\n\ttestw $0x400, %%ax\n\tjnz 1b"
          : "+t"(r) : "u"(b) : "ax", "cc");
  out[0] = r;
  __asm__("fsincos" : "=t"(c), "=u"(s) : "0"(a));
  out[1] = s;
  out[2] = c;
  __asm__("fpatan" : "=t"(t) : "0"(a), "u"(b) : "st(1)");
  out[3] = t;
  __asm__("fyl2x" : "=t"(t) : "0"(fabsl(b) + 1), "u"(a) : "st(1)");
  out[4] = t;
  __asm__("frndint" : "=t"(t) : "0"(a * 1000));
  out[5] = t;
  long double e = 0;
  __asm__("fxtract" : "=t"(t), "=u"(e) : "0"(b));
  out[6] = t;
  out[7] = e;
  __asm__("fscale" : "=t"(t) : "0"(a), "u"(e));
  out[8] = t;
  uint16_t sw;
  __asm__("fxam\n\tfnstsw %0" : "=a"(sw) : "t"(b));
  ints[0] = sw & 0x4700;
}

static void stop_marker(void) {}

typedef void (*MathFn)(const long double *, long double *, uint64_t *);

static void run_in_interpreter(MathFn fn, const long double *in, long double *out, uint64_t *ints) {
  static Cpu cpu;
  static uint64_t stack[4096] __attribute__((aligned(16)));
  memset(&cpu, 0, sizeof cpu);
  cpu_reset(&cpu);
  uint64_t stop = (uint64_t)(uintptr_t)stop_marker;
  uint64_t *sp = &stack[4096 - 8];
  *--sp = stop; /* the return address */
  cpu.r[RSP] = (uint64_t)(uintptr_t)sp;
  cpu.r[RDI] = (uint64_t)(uintptr_t)in;
  cpu.r[RSI] = (uint64_t)(uintptr_t)out;
  cpu.r[RDX] = (uint64_t)(uintptr_t)ints;
  cpu.rip = (uint64_t)(uintptr_t)fn;
  cpu_run(&cpu, stop);
  assert_int_equal(cpu.rip, stop);
  assert_true(cpu.icount > 20);
}

static void test_compiled_code(void **state) {
  static const MathFn fns[] = {compiled_math, libm_style};
  unsigned n = iterations() / 10 + 1, bad = 0;
  for (unsigned k = 0; k < 2; k++) {
    for (unsigned i = 0; i < n && bad < 5; i++) {
      long double in[2];
      uint8_t b[10];
      gen_ext80(b, D_NEAR);
      memcpy(&in[0], b, 10);
      gen_ext80(b, rnd_below(2) ? D_NEAR : D_ANY);
      memcpy(&in[1], b, 10);
      long double out_n[9], out_e[9];
      uint64_t ints_n[6] = {rnd(), rnd()}, ints_e[6];
      memset(out_n, 0, sizeof out_n);
      memcpy(out_e, out_n, sizeof out_n);
      memset(&ints_n[2], 0, 4 * sizeof *ints_n);
      memcpy(ints_e, ints_n, sizeof ints_n);
      fns[k](in, out_n, ints_n);
      run_in_interpreter(fns[k], in, out_e, ints_e);
      bool same = !memcmp(ints_n, ints_e, sizeof ints_n);
      for (unsigned j = 0; j < 9; j++) same &= !memcmp(&out_n[j], &out_e[j], 10);
      if (!same) {
        printf("%s differs for", k ? "libm_style" : "compiled_math");
        dump_ext80(" x", (const uint8_t *)&in[0]);
        dump_ext80(" y", (const uint8_t *)&in[1]);
        printf("\n");
        for (unsigned j = 0; j < 9; j++) {
          dump_ext80("  native", (const uint8_t *)&out_n[j]);
          dump_ext80(" interp", (const uint8_t *)&out_e[j]);
          printf("\n");
        }
        for (unsigned j = 0; j < 6; j++)
          printf("  int native %016llx interp %016llx\n", (unsigned long long)ints_n[j],
                 (unsigned long long)ints_e[j]);
        bad++;
      }
    }
  }
  assert_int_equal(bad, 0);
}

/* ---- decoding ---- */

static int decode_bytes(const uint8_t *bytes, unsigned len, Insn *in) {
  uint8_t *at = native_code + 2048;
  memset(at, 0x90, 16);
  memcpy(at, bytes, len);
  uint64_t fault_at = 0;
  return decode_insn((uint64_t)(uintptr_t)at, in, &fault_at);
}

static void test_decode_forms(void **state) {
  Insn in;
  /* The 16-bit environment layouts are not implemented: SIGILL, not a wrong layout. */
  static const uint8_t fnstenv16[] = {0x66, 0xD9, 0x37}, fldenv16[] = {0x66, 0xD9, 0x27},
                       fnsave16[] = {0x66, 0xDD, 0x37}, frstor16[] = {0x66, 0xDD, 0x27};
  assert_int_equal(decode_bytes(fnstenv16, 3, &in), -1);
  assert_int_equal(decode_bytes(fldenv16, 3, &in), -1);
  assert_int_equal(decode_bytes(fnsave16, 3, &in), -1);
  assert_int_equal(decode_bytes(frstor16, 3, &in), -1);
  /* Reserved encodings. */
  static const uint8_t d9_08[] = {0xD9, 0x08}, db_20[] = {0xDB, 0x20}, ded8[] = {0xDE, 0xD8};
  assert_int_equal(decode_bytes(d9_08, 2, &in), -1);
  assert_int_equal(decode_bytes(db_20, 2, &in), -1);
  assert_int_equal(decode_bytes(ded8, 2, &in), -1);
  /* REX does not reach ST(i); REX.B does reach the memory operand's base. */
  static const uint8_t rex_sti[] = {0x41, 0xD8, 0xC1}, rex_mem[] = {0x41, 0xD9, 0x00};
  assert_int_equal(decode_bytes(rex_sti, 3, &in), 3);
  assert_ptr_equal(in.fn, op_x87_arith_st0_sti);
  assert_int_equal(in.rm, 1);
  assert_int_equal(decode_bytes(rex_mem, 3, &in), 3);
  assert_ptr_equal(in.fn, op_x87_fld_m32);
  assert_int_equal(in.base, R8);
  /* FS-relative and RIP-relative operands. */
  static const uint8_t fs_mem[] = {0x64, 0xDD, 0x04, 0x25, 0x10, 0, 0, 0},
                       rip_mem[] = {0xDB, 0x2D, 0x10, 0, 0, 0};
  assert_int_equal(decode_bytes(fs_mem, 8, &in), 8);
  assert_int_equal(in.seg, SEG_FS);
  assert_int_equal(in.disp, 0x10);
  assert_int_equal(decode_bytes(rip_mem, 6, &in), 6);
  assert_ptr_equal(in.fn, op_x87_fld_m80);
  assert_int_equal((uint64_t)in.disp, (uint64_t)(uintptr_t)(native_code + 2048) + 6 + 0x10);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_arith),
      cmocka_unit_test(test_moves),
      cmocka_unit_test(test_math),
      cmocka_unit_test(test_control),
      cmocka_unit_test(test_unmasked_exception_faults),
      cmocka_unit_test(test_compiled_code),
      cmocka_unit_test(test_decode_forms),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
