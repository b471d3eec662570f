/* random_insns.c: random instruction bytes, one instruction per case, run natively and
 * under x64emu (compare.sh compares the output): each case loads random registers, XMM,
 * MXCSR and x87 values, sets EFLAGS.TF and jumps to the bytes, so that exactly one
 * instruction runs before a signal stops it: the single-step SIGTRAP after it, or the
 * fault it raises. The handler prints the signal, si_code, si_addr, RIP, the flags the SDM
 * defines for that instruction, and digests of the registers, the XMM, MXCSR and x87 state
 * and the memory the case could reach.
 *
 * The program is a static PIE (loaded high) and its code, data and stack areas sit at fixed
 * high addresses, so that random addresses (absolute, or ±2 GiB of a register) meet
 * nothing but those areas or unmapped memory, natively and under x64emu alike.
 *
 * Instructions whose outcome is not the CPU's alone are left out, each with its reason
 * (skip_reason); the counts are printed at the end. Flags the SDM leaves undefined are
 * left out of the comparison (undefined_flags).
 *
 * With --vex every case is a VEX-encoded instruction (AVX, AVX2, FMA, F16C, BMI1, BMI2,
 * VAES, VPCLMULQDQ and the encodings around them that are #UD), its YMM registers' upper
 * halves random too and digested with the XMM ones (the signal frame's AVX state).
 *
 * usage: random_insns [--vex] [CASES [SEED [CASE-TO-SHOW]]] */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <asm/prctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <ucontext.h>

#define CODE ((uint8_t *)0x300000000000ull)
#define DATA ((uint8_t *)0x310000000000ull)
#define STACK ((uint8_t *)0x320000000000ull)
enum { CODE_SIZE = 8192, DATA_SIZE = 16384, STACK_SIZE = 16384, AT = 4096 - 8 };

/* What the stub loads (stub below): the registers, XMM, MXCSR, x87 values, the target. */
uint64_t case_regs[16];
uint8_t case_xmm[16][16] __attribute__((aligned(16)));
uint8_t case_ymmh[16][16] __attribute__((aligned(16))); /* --vex: bits 255:128 of YMM0-15 */
uint32_t case_mxcsr;
double case_x87[4];
void *case_target;

static uint64_t rng;
static uint64_t rnd(void) {
  rng ^= rng >> 12;
  rng ^= rng << 25;
  rng ^= rng >> 27;
  return rng * 0x2545F4914F6CDD1Dull;
}
static unsigned below(unsigned n) { return (unsigned)((rnd() >> 32) * n >> 32); }

/* ---- the stub: state in, TF on, jump ---- */

void run_case(void), run_case_vex(void);
/* DS and ES start null in every case, so that a selector an earlier case loaded does not
 * carry over: a hypervisor that runs the kernel paravirtualised was seen to make a null
 * selector with RPL 1 to 3 plain 0 at each kernel entry, where the model keeps it. The VEX
 * stub (which needs AVX of the host) loads the YMM registers' upper halves as well. */
#define YMMH(i) "  vinsertf128 $1, case_ymmh+16*" #i "(%rip), %ymm" #i ", %ymm" #i "\n"
#define STUB(name, ymm_upper_halves)                                                        \
  ".text\n.globl " name "\n" name ":\n"                                                   \
  "  xor %eax, %eax\n mov %eax, %ds\n mov %eax, %es\n"                                     \
  "  fninit\n"                                                                             \
  "  fldl case_x87+24(%rip)\n fldl case_x87+16(%rip)\n fldl case_x87+8(%rip)\n fldl case_x87(%rip)\n" \
  "  ldmxcsr case_mxcsr(%rip)\n"                                                           \
  "  movdqa case_xmm+0(%rip), %xmm0\n movdqa case_xmm+16(%rip), %xmm1\n"                   \
  "  movdqa case_xmm+32(%rip), %xmm2\n movdqa case_xmm+48(%rip), %xmm3\n"                  \
  "  movdqa case_xmm+64(%rip), %xmm4\n movdqa case_xmm+80(%rip), %xmm5\n"                  \
  "  movdqa case_xmm+96(%rip), %xmm6\n movdqa case_xmm+112(%rip), %xmm7\n"                 \
  "  movdqa case_xmm+128(%rip), %xmm8\n movdqa case_xmm+144(%rip), %xmm9\n"                \
  "  movdqa case_xmm+160(%rip), %xmm10\n movdqa case_xmm+176(%rip), %xmm11\n"              \
  "  movdqa case_xmm+192(%rip), %xmm12\n movdqa case_xmm+208(%rip), %xmm13\n"              \
  "  movdqa case_xmm+224(%rip), %xmm14\n movdqa case_xmm+240(%rip), %xmm15\n"              \
  ymm_upper_halves                                                                          \
  "  mov case_regs+32(%rip), %rsp\n" /* points at the flags to pop */                      \
  "  mov case_regs+0(%rip), %rax\n mov case_regs+8(%rip), %rcx\n"                          \
  "  mov case_regs+16(%rip), %rdx\n mov case_regs+24(%rip), %rbx\n"                        \
  "  mov case_regs+40(%rip), %rbp\n mov case_regs+48(%rip), %rsi\n"                        \
  "  mov case_regs+56(%rip), %rdi\n mov case_regs+64(%rip), %r8\n"                         \
  "  mov case_regs+72(%rip), %r9\n mov case_regs+80(%rip), %r10\n"                         \
  "  mov case_regs+88(%rip), %r11\n mov case_regs+96(%rip), %r12\n"                        \
  "  mov case_regs+104(%rip), %r13\n mov case_regs+112(%rip), %r14\n"                      \
  "  mov case_regs+120(%rip), %r15\n"                                                       \
  "  popfq\n"                   /* TF on: the trap comes after the next instruction */      \
  "  jmp *case_target(%rip)\n" /* which is this one: then the bytes, then a trap */
__asm__(STUB("run_case", ""));
__asm__(STUB("run_case_vex", YMMH(0) YMMH(1) YMMH(2) YMMH(3) YMMH(4) YMMH(5) YMMH(6) YMMH(7)
                             YMMH(8) YMMH(9) YMMH(10) YMMH(11) YMMH(12) YMMH(13) YMMH(14) YMMH(15)));

/* ---- what the handler saw ---- */

static sigjmp_buf back;
static volatile int stepping; /* the first trap, at the bytes, lets them run */
static int show_case = -1, this_case;
static int vex; /* --vex */

typedef struct Seen {
  int sig, code;
  uint64_t addr, rip, flags;
  uint64_t regs_digest, xmm_digest, x87_digest, ymmh_digest;
} Seen;
static Seen seen;

static uint64_t digest(const void *p, size_t n, uint64_t h) {
  const uint8_t *b = p;
  for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001B3ull;
  return h;
}

/* The YMM registers' upper halves in a signal frame: the AVX component of its XSAVE area
 * (at 576 in the standard form the kernel writes), when the frame has one (the software
 * bytes at 464 carry FP_XSTATE_MAGIC1) and XSTATE_BV says it is not in its initial state;
 * else all zero, as they are then. */
static void frame_ymmh(const struct _libc_fpstate *fp, uint8_t out[16][16]) {
  const uint8_t *area = (const uint8_t *)fp;
  uint32_t magic;
  uint64_t xstate_bv;
  memcpy(&magic, area + 464, 4);
  memcpy(&xstate_bv, area + 512, 8);
  if (magic == 0x46505853u && (xstate_bv & 4))
    memcpy(out, area + 576, 256);
  else
    memset(out, 0, 256);
}

static void on_signal(int sig, siginfo_t *si, void *ucv) {
  /* A POPF of the case may have set AC, which the kernel leaves to the handler: with it
   * the C library's unaligned accesses would fault. */
  __asm__ volatile("pushfq\n andq $~0x40000, (%%rsp)\n popfq" : : : "memory", "cc");
  ucontext_t *uc = ucv;
  greg_t *g = uc->uc_mcontext.gregs;
  if (sig == SIGTRAP && !stepping && (uint8_t *)g[REG_RIP] == CODE + AT) {
    stepping = 1; /* the trap after the jump: run the bytes */
    return;
  }
  static const int order[16] = {REG_RAX, REG_RCX, REG_RDX, REG_RBX, REG_RSP, REG_RBP,
                                REG_RSI, REG_RDI, REG_R8,  REG_R9,  REG_R10, REG_R11,
                                REG_R12, REG_R13, REG_R14, REG_R15};
  uint64_t r[16];
  for (int i = 0; i < 16; i++) r[i] = (uint64_t)g[order[i]];
  const struct _libc_fpstate *fp = uc->uc_mcontext.fpregs;
  seen = (Seen){.sig = sig, .code = si->si_code, .addr = (uint64_t)(uintptr_t)si->si_addr,
                .rip = (uint64_t)g[REG_RIP], .flags = (uint64_t)g[REG_EFL]};
  seen.regs_digest = digest(r, sizeof r, 0xCBF29CE484222325ull);
  seen.xmm_digest = digest(fp->_xmm, sizeof fp->_xmm, digest(&fp->mxcsr, 4, 0xCBF29CE484222325ull));
  uint64_t h = digest(&fp->cwd, 2, 0xCBF29CE484222325ull);
  h = digest(&fp->swd, 2, h);
  h = digest(&fp->ftw, 2, h);
  for (int i = 0; i < 8; i++) h = digest(&fp->_st[i], 10, h);
  seen.x87_digest = h;
  uint8_t ymmh[16][16];
  if (vex) {
    frame_ymmh(fp, ymmh);
    seen.ymmh_digest = digest(ymmh, sizeof ymmh, 0xCBF29CE484222325ull);
  }
  if (this_case == show_case) {
    for (int i = 0; i < 16; i++) printf("  r%d %016llx\n", i, (unsigned long long)r[i]);
    for (int i = 0; i < 16; i++)
      printf("  xmm%d %08x%08x%08x%08x\n", i, fp->_xmm[i].element[3], fp->_xmm[i].element[2],
             fp->_xmm[i].element[1], fp->_xmm[i].element[0]);
    for (int i = 0; vex && i < 16; i++) {
      uint32_t w[4];
      memcpy(w, ymmh[i], 16);
      printf("  ymmh%d %08x%08x%08x%08x\n", i, w[3], w[2], w[1], w[0]);
    }
    printf("  mxcsr %08x fcw %04x fsw %04x ftw %04x\n", fp->mxcsr, fp->cwd, fp->swd, fp->ftw);
    for (int i = 0; i < 8; i++)
      printf("  st%d %04x_%04x%04x%04x%04x\n", i, fp->_st[i].exponent, fp->_st[i].significand[3],
             fp->_st[i].significand[2], fp->_st[i].significand[1], fp->_st[i].significand[0]);
  }
  siglongjmp(back, 1);
}

/* ---- which instructions, and which of their flags ---- */

typedef struct Shape {
  unsigned npfx;      /* legacy prefix bytes */
  int p66, rep;       /* 66; the last F2/F3 (0 if none) */
  int fs;             /* the last segment prefix is FS */
  int a32, lock;      /* 67: 32-bit addresses; F0 */
  int rex, rex_w, rex_b;
  unsigned map;       /* 0 one byte, 1 0F, 2 0F 38, 3 0F 3A; a VEX prefix's map field */
  uint8_t op, modrm;  /* opcode, and the byte after it */
  int vex;            /* after a VEX prefix (C4 or C5), whose pp field gives p66 and rep */
  int vex_l;          /* VEX.L */
} Shape;

static Shape shape_of(const uint8_t *b) {
  Shape s = {0};
  unsigned i = 0;
  for (;; i++) { /* legacy prefixes and REX bytes in any order: a REX counts only last */
    uint8_t x = b[i];
    if ((x & 0xF0) == 0x40) {
      s.rex = 1;
      s.rex_w = (x & 8) != 0;
      s.rex_b = (x & 1) != 0;
      continue;
    }
    if (!(x == 0x66 || x == 0xF2 || x == 0xF3 || x == 0x64 || x == 0x65 || x == 0x67 ||
          x == 0xF0 || x == 0x2E || x == 0x36 || x == 0x3E || x == 0x26))
      break;
    s.rex = s.rex_w = s.rex_b = 0;
    if (x == 0x66) s.p66 = 1;
    else if (x == 0xF2 || x == 0xF3) s.rep = x;
    else if (x == 0x64 || x == 0x65) s.fs = x == 0x64;
    else if (x == 0x67) s.a32 = 1;
    else if (x == 0xF0) s.lock = 1;
  }
  s.npfx = i;
  if (b[i] == 0xC4 || b[i] == 0xC5) { /* in 64-bit mode always VEX */
    uint8_t last = b[i] == 0xC5 ? b[i + 1] : b[i + 2];
    s.vex = 1;
    s.map = b[i] == 0xC5 ? 1 : b[i + 1] & 0x1F;
    s.rex_w = b[i] == 0xC4 && (last & 0x80);
    s.vex_l = (last >> 2) & 1;
    s.p66 = (last & 3) == 1;
    s.rep = (last & 3) == 2 ? 0xF3 : (last & 3) == 3 ? 0xF2 : 0;
    i += b[i] == 0xC5 ? 2 : 3;
    s.op = b[i];
    s.modrm = b[i + 1];
    return s;
  }
  if (b[i] == 0x0F) {
    i++;
    s.map = 1;
    if (b[i] == 0x38 || b[i] == 0x3A) s.map = b[i++] == 0x38 ? 2 : 3;
  }
  s.op = b[i];
  s.modrm = b[i + 1];
  return s;
}

/* On a host of another vendor than the CPU model's (X64EMU_TEST_HOST_VENDOR, which
 * compare.sh gives both runs), the instructions on which that vendor's CPUs differ from the
 * model's (docs/cpu-model.md, "Where the vendors differ"), or NULL. On a host of the
 * model's vendor they are compared with the CPU like any other. */
static int other_vendor;
/* Whether the host's kernel runs with UMIP and its GDT holds the 32-bit user code
 * segment, as the model's, and the vectors n whose INT n the host does not answer as the
 * CPU's #GP (compare.sh's host_traits). */
static int host_umip = 1, host_user32_cs = 1;
static uint8_t host_int_quirk[256];
static const char *vendor_reason(Shape s) {
  unsigned reg = (s.modrm >> 3) & 7;
  int mem = (s.modrm >> 6) != 3;
  if (s.map == 3 && s.p66 && (s.op == 0x40 || s.op == 0x41))
    return "vendor: DPPS, DPPD (and their VEX forms), which NaN the sums of NaN products give";
  if (s.vex) {
    if (s.map == 3 && (s.op == 0x00 || s.op == 0x01) && s.p66 && !s.rex_w)
      return "vendor: VPERMQ, VPERMPD with VEX.W0, run by AMD";
    if (s.map == 1 && (s.op == 0x0F || s.op == 0x78))
      return "vendor: VEX 0F 0F, 0F 78, whose length AMD counts with an immediate (#GP past 15 bytes)";
    if (s.map == 1 && s.op == 0xAE && mem && reg == 2)
      return "vendor: LDMXCSR, FXRSTOR and XRSTOR, AMD's MXCSR_MASK loads bit 17";
    if (s.map == 1 && s.op == 0xF7) return "vendor: MASKMOVQ, MASKMOVDQU, Intel checks the whole operand, high half first";
    if (s.map == 2 && mem && (s.op == 0x2E || s.op == 0x2F || s.op == 0x8E))
      return "vendor: masked stores that fault, Intel names their span's last byte";
    if (s.map == 3 && mem && s.op == 0x1D) return "vendor: VCVTPS2PH to memory, Intel converts before the page fault";
    return NULL;
  }
  if (s.map == 0) {
    if (s.op == 0xF1) return "vendor: ICEBP's trap, reported at the instruction on AMD";
    if (s.op == 0xCA || s.op == 0xCB) return "vendor: far RET, AMD reads the stack before the selector's #GP";
    if (s.op == 0xA6 || s.op == 0xA7) return "vendor: CMPS, which operand's fault comes first";
    if (s.op == 0x90 && s.rep == 0xF3 && s.rex_b) return "vendor: F3 REX.B 90, XCHG with r8 on AMD, PAUSE on Intel";
    if (s.a32 && s.rep && s.op >= 0xA4 && s.op <= 0xAF && s.op != 0xA8 && s.op != 0xA9)
      return "vendor: 67 REP string instruction whose first iteration faults, AMD keeps RCX, RSI and RDI whole";
    if ((s.op == 0xE0 || s.op == 0xE1) && s.rep) return "vendor: F2/F3 LOOPcc, AMD takes the prefix's condition";
    if (s.p66 && ((s.op >= 0x70 && s.op <= 0x7F) || (s.op >= 0xE0 && s.op <= 0xE3) ||
                  s.op == 0xE8 || s.op == 0xE9 || s.op == 0xEB || s.op == 0xC2 || s.op == 0xC3))
      return "vendor: 66 near branches and RET, 16-bit on AMD";
    if (s.op == 0xFF && (reg == 2 || reg == 4) && s.p66) return "vendor: 66 near branches and RET, 16-bit on AMD";
    if (s.op == 0xFF && reg == 2) return "vendor: indirect CALL to a non-canonical address, AMD writes no return address";
    if (s.op == 0xFF && (reg == 3 || reg == 5) && s.rex_w) return "vendor: far CALL/JMP with REX.W, m16:32 on AMD";
    return NULL;
  }
  if (s.map == 1) {
    if (s.op == 0x35) return "vendor: SYSEXIT, #UD in 64-bit mode on AMD";
    if (s.p66 && s.op >= 0x80 && s.op <= 0x8F) return "vendor: 66 near branches and RET, 16-bit on AMD";
    if (s.op == 0x00 && reg == 5 && s.lock) return "vendor: LOCK VERW, run by AMD";
    if ((s.op == 0x20 || s.op == 0x22) && s.lock) return "vendor: LOCK MOV CR0, AMD's MOV CR8 (#GP)";
    if (s.op == 0xAE && mem && reg == 0)
      return "vendor: FXSAVE's image, AMD's MXCSR_MASK and x87 pointers";
    if (s.op == 0xAE && mem && (reg == 1 || reg == 2 || reg == 5))
      return "vendor: LDMXCSR, FXRSTOR and XRSTOR, AMD's MXCSR_MASK loads bit 17";
    if ((s.op == 0xAE && mem && (reg == 4 || reg == 6)) || (s.op == 0xC7 && mem && reg == 4))
      return "vendor: XSAVE, XSAVEOPT, XSAVEC across a page, AMD checks their first byte first";
    if (s.p66 && !s.rex_w && (s.op == 0xA4 || s.op == 0xA5 || s.op == 0xAC || s.op == 0xAD))
      return "vendor: 16-bit SHLD/SHRD by more than 16, AMD rotates the source";
    if (mem && !s.p66 && !s.rep && (s.op == 0x7E || s.op == 0x7F || s.op == 0xE7))
      return "vendor: MMX stores that fault, TOP set first on Intel";
    if (s.op == 0xF7) return "vendor: MASKMOVQ, MASKMOVDQU, Intel checks the whole operand, high half first";
    if ((s.op == 0x78 || s.op == 0x79) && (s.p66 || s.rep == 0xF2)) return "vendor: SSE4a, AMD's";
    if (s.op == 0x2B && s.rep) return "vendor: SSE4a, AMD's";
    return NULL;
  }
  if (mem && ((s.map == 2 && s.op >= 0xC8 && s.op <= 0xCD) || (s.map == 3 && s.op == 0xCC)))
    return "vendor: SHA on a misaligned m128, run by AMD";
  return NULL;
}

/* Under x64emu's portable floating point (X64EMU_TEST_FP_TIER=portable, which
 * compare.sh gives both runs: the default on aarch64 hosts), the instructions whose
 * results are x64emu's own there and the host CPU's bits only natively (docs/cpu-model.md),
 * or NULL. */
static int portable_fp;
static const char *portable_fp_reason(Shape s) {
  if (s.map == 0 && s.op == 0xD9 &&
      (s.modrm <= 0xF3 ? s.modrm >= 0xF0 : s.modrm == 0xF9 || s.modrm == 0xFB || s.modrm >= 0xFE))
    return "portable FP: x87 transcendentals, within a unit in the last place of the CPU's";
  if (s.map == 1 && (s.op == 0x52 || s.op == 0x53) && (s.rep == 0xF3 || (!s.rep && !s.p66)))
    return "portable FP: RCP and RSQRT approximations, within the SDM's bound, not the host's bits";
  return NULL;
}

/* The VEX encodings of extensions that the host may have and the CPU model has not (their
 * instructions are #UD under x64emu), or NULL. */
static const char *vex_reason(Shape s) {
  uint8_t o = s.op;
  if ((s.map == 1 && ((o >= 0x41 && o <= 0x4B) || (o >= 0x90 && o <= 0x99))) ||
      (s.map == 3 && o >= 0x30 && o <= 0x33))
    return "VEX 0F 41-4B, 90-99, 0F 3A 30-33: AVX-512's mask instructions, not in the CPU model";
  if (s.map == 2) {
    if (o >= 0x50 && o <= 0x53) return "VEX 0F 38 50-53: AVX-VNNI, not in the CPU model";
    if (o == 0x49 || o == 0x4B || o == 0x5C || o == 0x5E || o == 0x6C)
      return "VEX 0F 38 49, 4B, 5C, 5E, 6C: AMX, not in the CPU model";
    if (o == 0x72 || o == 0xB0 || o == 0xB1) return "VEX 0F 38 72, B0, B1: AVX-NE-CONVERT, not in the CPU model";
    if (o == 0xB4 || o == 0xB5) return "VEX 0F 38 B4, B5: AVX-IFMA, not in the CPU model";
    if (o >= 0xCB && o <= 0xCD) return "VEX 0F 38 CB-CD: SHA512, not in the CPU model";
    if (o == 0xCF) return "VEX 0F 38 CF: GFNI, not in the CPU model";
    if (o == 0xD2 || o == 0xD3 || o == 0xDA) return "VEX 0F 38 D2, D3, DA: AVX-VNNI-INT16, SM3, SM4, not in the CPU model";
    if (o >= 0xE0 && o <= 0xEF) return "VEX 0F 38 E0-EF: CMPccXADD, not in the CPU model";
    if (o >= 0x90 && o <= 0x93 && s.p66)
      return "VEX 0F 38 90-93: gathers, whose later element's fault under EFLAGS.TF the AMD "
             "host turns into the single-step trap (docs/cpu-model.md); unit.test_avx has them";
  }
  if (s.map == 3 && (o == 0xCE || o == 0xCF || o == 0xDE))
    return "VEX 0F 3A CE, CF, DE: GFNI and SM3, not in the CPU model";
  return NULL;
}

/* Why a case is left out, or NULL. Each reason is a difference that is not the CPU's
 * alone: the kernel's, the host's CPU model against x64emu's, time. */
static const char *skip_reason(const uint8_t *b) {
  Shape s = shape_of(b);
  const char *vendor = other_vendor ? vendor_reason(s) : NULL;
  if (vendor) return vendor;
  const char *tier = portable_fp ? portable_fp_reason(s) : NULL;
  if (tier) return tier;
  unsigned reg = (s.modrm >> 3) & 7;
  int mem = (s.modrm >> 6) != 3;
  if (s.map == 0 && s.op == 0xCD && host_int_quirk[s.modrm])
    return "host: INT n answered by the host's hypervisor, not as #GP";
  if (!host_umip && s.map == 1 &&
      ((s.op == 0x00 && reg <= 1) || (s.op == 0x01 && mem && (reg <= 1 || reg == 4))))
    return "host: no UMIP, the CPU itself answers SLDT, STR, SGDT, SIDT and SMSW";
  if (!host_user32_cs && ((s.map == 1 && (s.op == 0x02 || s.op == 0x03 || (s.op == 0x00 && (reg == 4 || reg == 5)))) ||
                          (s.map == 0 && s.op == 0x8E)))
    return "host: no 32-bit user code segment in the GDT, which LAR, LSL, VERR, VERW and MOV Sreg may name";
  if (!host_user32_cs && s.map == 0 &&
      (s.op == 0xCA || s.op == 0xCB || s.op == 0xCF || (s.op == 0xFF && mem && (reg == 3 || reg == 5))))
    return "host: no 32-bit user code segment in the GDT, which far returns, IRET, far JMP and CALL may name";
  if (s.fs) return "FS prefix: FS is this program's own TLS (GS points at the data area)";
  if (s.vex) return vex_reason(s);
  if (s.map == 0) {
    if (s.op == 0x62) return "EVEX: AVX-512 is not in the CPU model";
    if (s.op == 0xCD && s.modrm == 0x80) return "INT 0x80: a system call";
    if (s.op == 0x8E && (reg == 4 || reg == 5)) return "MOV FS, GS: this program's TLS selectors";
    if (s.op == 0x8F && reg != 0) return "XOP: an AMD encoding";
    if ((s.op == 0xC6 || s.op == 0xC7) && s.modrm == 0xF8)
      return "XABORT, XBEGIN: RTM is not in the CPU model (this CPU may have it)";
    if ((s.op == 0xD9 || s.op == 0xDD) && mem && reg == 6)
      return "FNSTENV, FNSAVE: the last data pointer and opcode, which the model leaves zero";
    if ((s.op == 0xA6 || s.op == 0xA7 || s.op == 0xAE || s.op == 0xAF) && s.rep)
      return "REP CMPS/SCAS single-stepped: where the CPU traps before an iteration, the flags";
    return NULL;
  }
  if (s.map == 1) {
    switch (s.op) {
    case 0x05: case 0x34: return "SYSCALL, SYSENTER: system calls";
    case 0xA2: return "CPUID: the CPU model's answers";
    case 0x31: case 0x33: return "RDTSC, RDPMC: time and counters";
    case 0xA1: case 0xA9: case 0xB4: case 0xB5: case 0xB2:
      return "POP FS/GS, LFS/LGS/LSS: the FS and GS bases and the stack this program runs on";
    case 0x00:
      if (reg >= 6) return "0F 00 /6 /7: JMPE and the reserved forms";
      return NULL;
    case 0x01:
      if (!mem && (s.modrm >= 0xC0)) return "0F 01 register forms: XGETBV, RDTSCP, RDPKRU, TSX, MONITOR...";
      return NULL;
    case 0xAE:
      if (s.rep == 0xF3) return "F3 0F AE: FSGSBASE and friends, not in the CPU model";
      if (s.p66 && (reg == 6 || reg == 7)) return "CLWB, CLFLUSHOPT: not in the CPU model";
      if (mem && (reg == 4 || reg == 5 || reg == 6))
        return "XSAVE, XRSTOR, XSAVEOPT: the host's XCR0 has more than the model's (test_sse_state)";
      if (!mem && reg == 6 && (s.p66 || s.rep)) return "UMONITOR, TPAUSE: not in the CPU model";
      return NULL;
    case 0xC7:
      if (mem && reg == 4) return "XSAVEC: the host's XCR0 has more than the model's (test_sse_state)";
      if (mem && (reg == 3 || reg == 5)) return "XRSTORS, XSAVES: not in the CPU model";
      if (!mem && (reg == 6 || reg == 7)) return "RDRAND, RDSEED, RDPID: random numbers";
      return NULL;
    case 0xB8: if (s.rep != 0xF3) return "JMPE: IA-64 only"; return NULL;
    case 0x0D: case 0x18: case 0x19: case 0x1A: case 0x1B: case 0x1C: case 0x1D: case 0x1E:
      if (!mem) return "hint NOP register forms: the model's NOPs, the CPU generation's";
      return NULL;
    default: return NULL;
    }
  }
  if (s.map == 2) {
    if (s.op == 0xCF) return "GFNI: not in the CPU model";
    if (s.op == 0xF6 && (s.p66 || s.rep)) return NULL; /* ADCX, ADOX */
    if (s.op >= 0xF5) return "0F 38 F5..FF: MOVDIRI, ENQCMD, WRSS...: not in the CPU model";
    if (s.op >= 0x80 && s.op <= 0x82 && s.p66) return "INVEPT, INVVPID, INVPCID";
    return NULL;
  }
  if (s.op == 0xCE || s.op == 0xCF) return "GFNI: not in the CPU model";
  return NULL;
}

enum { CF = 1, PF = 4, AF = 16, ZF = 64, SF = 128, OF = 2048 };

/* The arithmetic flags the SDM leaves undefined after the instruction (x64emu's own
 * values there are not compared). */
static unsigned undefined_flags(const uint8_t *b) {
  Shape s = shape_of(b);
  unsigned reg = (s.modrm >> 3) & 7;
  if (s.vex) /* ANDN, BLSR/BLSMSK/BLSI, BZHI, BEXTR */
    return s.map == 2 && !s.p66 && !s.rep && (s.op == 0xF2 || s.op == 0xF3 || s.op == 0xF5 || s.op == 0xF7)
               ? AF | PF : 0;
  if (s.map == 0) {
    uint8_t o = s.op;
    if (o < 0x40 && (o & 7) < 6 && ((o >> 3) == 1 || (o >> 3) == 4 || (o >> 3) == 6)) return AF; /* OR AND XOR */
    if ((o == 0x80 || o == 0x81 || o == 0x83) && (reg == 1 || reg == 4 || reg == 6)) return AF;
    if (o == 0x84 || o == 0x85 || o == 0xA8 || o == 0xA9) return AF; /* TEST */
    if ((o == 0xF6 || o == 0xF7) && reg == 0) return AF;
    if ((o == 0xF6 || o == 0xF7) && (reg == 4 || reg == 5)) return SF | ZF | AF | PF; /* MUL IMUL */
    if ((o == 0xF6 || o == 0xF7) && reg >= 6) return CF | PF | AF | ZF | SF | OF; /* DIV IDIV */
    if (o == 0x69 || o == 0x6B) return SF | ZF | AF | PF;
    if (o == 0xC0 || o == 0xC1 || (o >= 0xD0 && o <= 0xD3)) return AF | OF | (reg <= 3 ? 0 : 0); /* OF: count != 1 */
    return 0;
  }
  if (s.map == 1) {
    uint8_t o = s.op;
    if (o == 0xAF) return SF | ZF | AF | PF;
    if (o == 0xA4 || o == 0xA5 || o == 0xAC || o == 0xAD) return CF | PF | AF | ZF | SF | OF; /* big counts */
    if (o == 0xA3 || o == 0xAB || o == 0xB3 || o == 0xBB || o == 0xBA) return OF | SF | AF | PF;
    if (o == 0xBC || o == 0xBD) return s.rep == 0xF3 ? OF | SF | AF | PF : CF | OF | SF | AF | PF;
    return 0;
  }
  return 0;
}

/* ---- the cases ---- */

static const uint8_t prefixes[] = {0x66, 0x67, 0xF0, 0xF2, 0xF3, 0x2E, 0x64, 0x65, 0x3E, 0x26, 0x36};

static void random_bytes(uint8_t *b) {
  unsigned i = 0, n = below(4) == 0 ? below(4) : 0;
  for (unsigned k = 0; k < n; k++) b[i++] = prefixes[below(sizeof prefixes)];
  if (below(2)) b[i++] = (uint8_t)(0x40 | below(16));
  unsigned map = below(20);
  if (map >= 9) b[i++] = 0x0F;
  if (map >= 16) b[i++] = map >= 18 ? 0x3A : 0x38;
  while (i < 15) b[i++] = (uint8_t)rnd();
}

/* A VEX-encoded instruction: now and then after a prefix (#UD but for 67 and the
 * segments), C5 a third of the time, else C4 with a map field of 1-3 mostly; VEX.vvvv
 * unused (1111) half the time, as most instructions with a memory or single source want. */
static void random_vex_bytes(uint8_t *b) {
  unsigned i = 0;
  if (below(8) == 0) b[i++] = below(4) ? prefixes[below(sizeof prefixes)] : (uint8_t)(0x40 | below(16));
  uint8_t last = (uint8_t)((rnd() & 0x87) | (below(2) ? 0xF : below(16)) << 3);
  if (below(3) == 0) {
    b[i++] = 0xC5;
  } else {
    b[i++] = 0xC4;
    b[i++] = (uint8_t)((rnd() & 0xE0) | (below(16) ? 1 + below(3) : below(32)));
  }
  b[i++] = last;
  while (i < 15) b[i++] = (uint8_t)rnd();
}

static uint64_t random_reg(void) {
  switch (below(8)) {
  case 0: case 1: case 2: return (uint64_t)(uintptr_t)DATA + below(DATA_SIZE);
  case 3: return below(64);
  case 4: return (uint64_t)(uintptr_t)STACK + below(STACK_SIZE);
  case 5: return below(2) ? 0 : ~0ull;
  default: return rnd();
  }
}

static void make_state(void) {
  for (int i = 0; i < 16; i++) case_regs[i] = random_reg();
  for (int i = 0; i < 16; i++)
    for (int j = 0; j < 16; j += 8) {
      uint64_t v = below(4) ? rnd() : (uint64_t)below(256) << below(64);
      memcpy(&case_xmm[i][j], &v, 8);
    }
  for (int i = 0; vex && i < 16; i++) /* only then: the other cases' stream stays as it was */
    for (int j = 0; j < 16; j += 8) {
      uint64_t v = below(4) ? rnd() : (uint64_t)below(256) << below(64);
      memcpy(&case_ymmh[i][j], &v, 8);
    }
  /* A random rounding, DAZ and FTZ now and then, and in a quarter of the cases some of
   * the six exceptions unmasked, so that an instruction that raises one is #XM (SIGFPE). */
  case_mxcsr = 0x1F80 | (uint32_t)(below(4) << 13) | (below(8) ? 0 : 0x8040);
  if (below(4) == 0) case_mxcsr &= ~(uint32_t)(rnd() & 0x1F80);
  static const double values[] = {1.0, -2.5, 3.141592653589793, 1e300, 0.0, -0.0, 5e-324, 65536.0};
  for (int i = 0; i < 4; i++) case_x87[i] = values[below(8)];
  for (unsigned i = 0; i < DATA_SIZE; i += 8) {
    uint64_t v = rnd();
    memcpy(DATA + i, &v, 8);
  }
  /* The stack: RSP in its middle, random contents, and the flags the stub pops: random
   * arithmetic flags and DF, TF on. */
  uint64_t sp = (uint64_t)(uintptr_t)STACK + STACK_SIZE / 2 + 8 * (uint64_t)((int64_t)below(64) - 32);
  for (unsigned i = 0; i < STACK_SIZE; i += 8) {
    uint64_t v = random_reg();
    memcpy(STACK + i, &v, 8);
  }
  uint64_t flags = 0x202 | 0x100 | (rnd() & 0x8D5) | (below(4) ? 0 : 0x400);
  memcpy((void *)(uintptr_t)(sp - 8), &flags, 8);
  case_regs[4] = sp - 8;
}

static void *map_at(void *at, size_t size) {
  void *p = mmap(at, size, PROT_READ | PROT_WRITE | PROT_EXEC,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
  if (p != at) {
    perror("mmap");
    exit(2);
  }
  return p;
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "--vex") == 0) {
    vex = 1;
    argv++;
    argc--;
    if (!__builtin_cpu_supports("avx")) {
      fprintf(stderr, "random_insns: --vex needs a CPU with AVX\n");
      return 2;
    }
  }
  unsigned cases = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 0) : 22000;
  rng = argc > 2 ? strtoull(argv[2], NULL, 0) : 0x5DEECE66Dull;
  if (argc > 3) show_case = atoi(argv[3]);
  const char *vendor = getenv("X64EMU_TEST_HOST_VENDOR");
  other_vendor = vendor && strcmp(vendor, "GenuineIntel") != 0;
  const char *tier = getenv("X64EMU_TEST_FP_TIER");
  portable_fp = tier && strcmp(tier, "portable") == 0;
  const char *umip = getenv("X64EMU_TEST_HOST_UMIP");
  host_umip = !umip || strcmp(umip, "0") != 0;
  const char *user32_cs = getenv("X64EMU_TEST_HOST_USER32_CS");
  host_user32_cs = !user32_cs || strcmp(user32_cs, "0") != 0;
  const char *quirks = getenv("X64EMU_TEST_HOST_INT_QUIRKS");
  for (char *end; quirks && *quirks; quirks = end) {
    unsigned long n = strtoul(quirks, &end, 16);
    if (end == quirks) break;
    host_int_quirk[n & 0xFF] = 1;
  }
  setvbuf(stdout, NULL, _IOLBF, 0);
  map_at(CODE, CODE_SIZE);
  map_at(DATA, DATA_SIZE);
  map_at(STACK, STACK_SIZE);
  /* GS-relative operands land in the data area (FS is glibc's, left alone). */
  if (syscall(SYS_arch_prctl, ARCH_SET_GS, (unsigned long)DATA) != 0) {
    perror("arch_prctl");
    return 2;
  }
  static uint8_t alt[65536];
  stack_t ss = {.ss_sp = alt, .ss_size = sizeof alt};
  sigaltstack(&ss, NULL);
  struct sigaction sa = {.sa_sigaction = on_signal, .sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER};
  int sigs[] = {SIGTRAP, SIGSEGV, SIGBUS, SIGILL, SIGFPE};
  for (unsigned i = 0; i < sizeof sigs / sizeof *sigs; i++) sigaction(sigs[i], &sa, NULL);

  const char *reasons[64];
  unsigned counts[64], nreasons = 0, run = 0;
  for (unsigned n = 0; n < cases; n++) {
    uint8_t bytes[15];
    if (vex)
      random_vex_bytes(bytes);
    else
      random_bytes(bytes);
    make_state(); /* drawn for every case, so that a case's state does not depend on skips */
    const char *why = skip_reason(bytes);
    if (why) {
      unsigned k = 0;
      while (k < nreasons && reasons[k] != why) k++;
      if (k == nreasons && nreasons < 64) {
        reasons[nreasons] = why;
        counts[nreasons++] = 0;
      }
      if (k < nreasons) counts[k]++;
      continue;
    }
    memset(CODE, 0xCC, CODE_SIZE);
    memcpy(CODE + AT, bytes, sizeof bytes);
    case_target = CODE + AT;
    this_case = (int)n;
    stepping = 0;
    run++;
    if (!sigsetjmp(back, 1)) (vex ? run_case_vex : run_case)();
    uint64_t mem = digest(DATA, DATA_SIZE, digest(STACK, STACK_SIZE, 0xCBF29CE484222325ull));
    unsigned defined = (CF | PF | AF | ZF | SF | OF) & ~undefined_flags(bytes);
    uint64_t rip = seen.rip - (uint64_t)(uintptr_t)(CODE + AT);
    printf("%5u", n);
    for (unsigned i = 0; i < 15; i++) printf("%s%02x", i ? "" : " ", bytes[i]);
    printf(" sig %d code %d addr %llx rip %+lld flags %04llx regs %016llx xmm %016llx x87 %016llx mem %016llx",
           seen.sig, seen.code, (unsigned long long)seen.addr, (long long)rip,
           (unsigned long long)(seen.flags & (defined | 0x40500)), (unsigned long long)seen.regs_digest,
           (unsigned long long)seen.xmm_digest, (unsigned long long)seen.x87_digest,
           (unsigned long long)mem);
    if (vex) printf(" ymmh %016llx", (unsigned long long)seen.ymmh_digest);
    putchar('\n');
  }
  printf("%u cases run; left out:\n", run);
  for (unsigned k = 0; k < nreasons; k++) printf("  %5u %s\n", counts[k], reasons[k]);
  return 0;
}
