/* test_x87_programs.c: x87 behaviour beyond one instruction, against the host: an
 * unmasked exception faulting (SIGFPE) at the next waiting instruction, compiled long
 * double code and libm-style instruction sequences run whole by the interpreter, and
 * the decoder's choices for prefixes and operand forms. */
#define _GNU_SOURCE /* REG_RIP */
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <ucontext.h>

#include <cmocka.h>

#include "decoder/decode.h"
#include "interp/cpu.h"
#include "interp/fault.h"
#include "interp/ops_x87.h"
#include "interp/run.h"
#include "x87_harness.h"
#include "test_machine.h"
#include "guest_call.h"

static uint8_t *code_page;

static int setup(void **state) {
  code_page = exec_page();
  seed_from_env();
  return code_page && (test_machine() != NULL) ? 0 : -1;
}

static int teardown(void **state) {
  munmap(code_page, 4096);
  return 0;
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
  uint8_t *at = code_page;
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
  uint8_t *at = code_page;
  static Cpu cpu;
  cpu_init(&cpu, test_machine());
  cpu.r[RDI] = (uint64_t)(uintptr_t)mem;
  static Insn in;
  volatile uint64_t rip = (uint64_t)(uintptr_t)at;
  Trap t = {0};
  if (sigsetjmp(cpu.fault_jmp, 0) == 0) {
    while (rip < (uint64_t)(uintptr_t)at + len - 1) {
      uint64_t fault_at = 0;
      int n = decode_insn(&test_machine()->dec, rip, &in, &fault_at);
      assert_true(n > 0);
      /* 9B runs the x87 handler (the one-byte decoder may still map it to a NOP). */
      if (fwait_handler && *(const uint8_t *)(uintptr_t)rip == 0x9B) in.fn = op_x87_fwait;
      cpu.cur = &in;
      cpu.rip = rip + (uint64_t)n;
      insn_run_alone(&cpu, &in);
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
      {"1/0 then fld1",
       &unmask_ze,
       true,
       {0xDB, 0xE3, 0xD9, 0x2F, 0xD9, 0xE8, 0xD9, 0xEE, 0xDE, 0xF9, 0xD9, 0xE8, 0xDB, 0xE3, 0xC3},
       15},
      {"1/0 then fwait",
       &unmask_ze,
       true,
       {0xDB, 0xE3, 0xD9, 0x2F, 0xD9, 0xE8, 0xD9, 0xEE, 0xDE, 0xF9, 0x9B, 0xDB, 0xE3, 0xC3},
       14},
      {"1/0 then fnstsw, fnclex, fld1",
       &unmask_ze,
       false,
       {0xDB, 0xE3, 0xD9, 0x2F, 0xD9, 0xE8, 0xD9, 0xEE, 0xDE, 0xF9, 0xDF, 0xE0, 0xDB, 0xE2, 0xD9,
        0xE8, 0xDB, 0xE3, 0xC3},
       19},
      {"empty fadd then fld1",
       &unmask_ie,
       true,
       {0xDB, 0xE3, 0xD9, 0x2F, 0xD8, 0xC1, 0xD9, 0xE8, 0xDB, 0xE3, 0xC3},
       11},
      {"inexact fsqrt(pi) then fld1",
       &unmask_pe,
       true,
       {0xDB, 0xE3, 0xD9, 0x2F, 0xD9, 0xEB, 0xD9, 0xFA, 0xD9, 0xE8, 0xDB, 0xE3, 0xC3},
       13},
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
__attribute__((noinline, UNINSTRUMENTED)) static void compiled_math(const long double *in,
                                                                  long double *out,
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
__attribute__((noinline, UNINSTRUMENTED)) static void libm_style(const long double *in,
                                                               long double *out, uint64_t *ints) {
  long double a = in[0], b = in[1], r = a, s, c, t;
  __asm__("1: fprem1\n\tfnstsw %%ax\n\ttestw $0x400, %%ax\n\tjnz 1b"
          : "+t"(r)
          : "u"(b)
          : "ax", "cc");
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

typedef void (*MathFn)(const long double *, long double *, uint64_t *);

static void run_in_interpreter(MathFn fn, const long double *in, long double *out, uint64_t *ints) {
  assert_true(guest_call((void *)fn, P(in), P(out), P(ints), 0, 0) > 20);
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
  uint8_t *at = code_page + 2048;
  memset(at, 0x90, 16);
  memcpy(at, bytes, len);
  uint64_t fault_at = 0;
  return decode_insn(&test_machine()->dec, (uint64_t)(uintptr_t)at, in, &fault_at);
}

static void test_decode_forms(void **state) {
  Insn in;
  /* With 66 the environment instructions take the 16-bit layouts (guest.x87_env16
   * compares them with the CPU): a 16-bit operand size. */
  static const uint8_t fnstenv16[] = {0x66, 0xD9, 0x37}, fldenv16[] = {0x66, 0xD9, 0x27},
                       fnsave16[] = {0x66, 0xDD, 0x37}, frstor16[] = {0x66, 0xDD, 0x27};
  const uint8_t *env16[] = {fnstenv16, fldenv16, fnsave16, frstor16};
  for (int i = 0; i < 4; i++) {
    assert_int_equal(decode_bytes(env16[i], 3, &in), 3);
    assert_int_equal(in.osz, 2);
  }
  /* LOCK is #UD on x87 instructions. */
  static const uint8_t locked[] = {0xF0, 0xD8, 0x07};
  assert_int_equal(decode_bytes(locked, 3, &in), -1);
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
  assert_int_equal((uint64_t)in.disp, (uint64_t)(uintptr_t)(code_page + 2048) + 6 + 0x10);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_unmasked_exception_faults),
      cmocka_unit_test(test_compiled_code),
      cmocka_unit_test(test_decode_forms),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
