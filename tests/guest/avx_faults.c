/* avx_faults.c: where vector memory instructions fault at a page they may not touch, and
 * what they leave behind (the output is the CPU model's, docs/cpu-model.md: compare.sh
 * checks it against avx_faults.expected and the native run on Intel hosts):
 *   - 32-byte stores (VMOVUPS m256) that run into the page: the fault names its first
 *     byte, and nothing is written before it;
 *   - masked stores (VMASKMOVPS): the span of the selected elements is checked at its
 *     first byte, then at its last, which the fault names when the first is writable;
 *     MASKMOVDQU and MASKMOVQ: the whole operand, whatever the mask, in 8-byte halves,
 *     the high one first; nothing written;
 *   - VCVTPS2PH to an unmapped address: the conversion comes first, so an unmasked
 *     exception is #XM (SIGFPE at the instruction), and a page fault finds the flags
 *     raised already in MXCSR;
 *   - VPGATHERDD under TF whose element 3 faults: the single-step trap at the gather
 *     instead, the elements before it gathered; whose element 0 faults: the fault;
 *   - VPUNPCKHQDQ from memory, which uses only the high half of its operand: the fault
 *     names the operand's first byte (all 16 bytes are read);
 *   - VEX encodings that are #UD (after a 66, with a reserved map) but longer than 15
 *     bytes: #GP, as the CPU's length limit comes first; 15 bytes: #UD. */
#define _GNU_SOURCE /* REG_RIP */
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

static sigjmp_buf back;
static uint8_t *page; /* a writable page, then one with no access */
static int fault_sig;
static uintptr_t fault_addr;
static uint32_t fault_mxcsr;

static int fault_code;
static uintptr_t fault_rip;

static void on_fault(int sig, siginfo_t *si, void *ucv) {
  ucontext_t *uc = ucv;
  fault_sig = sig;
  fault_code = si->si_code;
  fault_addr = (uintptr_t)si->si_addr;
  fault_rip = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
  fault_mxcsr = uc->uc_mcontext.fpregs->mxcsr;
  siglongjmp(back, 1);
}

/* Runs one case: fills the writable page with 0xAA, runs it, and prints its signal, where
 * it faulted (as an offset from the writable page), MXCSR then, and how many bytes it
 * changed. */
static void run(const char *name, void (*body)(uint8_t *), uint8_t *at) {
  memset(page, 0xAA, 4096);
  fault_addr = 0;
  if (!sigsetjmp(back, 1)) {
    body(at);
    printf("%-48s no fault\n", name);
    return;
  }
  unsigned changed = 0;
  for (unsigned i = 0; i < 4096; i++) changed += page[i] != 0xAA;
  char where[32];
  if (fault_addr == fault_rip) snprintf(where, sizeof where, "the instruction");
  else snprintf(where, sizeof where, "page%+ld", (long)(fault_addr - (uintptr_t)page));
  const char *sig = fault_sig == SIGSEGV ? "SIGSEGV" : fault_sig == SIGTRAP ? "SIGTRAP" : "SIGFPE";
  printf("%-48s %s at %s, MXCSR %04x, %u bytes written\n", name, sig, where, fault_mxcsr, changed);
}

static void vmovups_store(uint8_t *p) {
  __asm__ volatile("vpcmpeqd %%ymm0, %%ymm0, %%ymm0\n vmovups %%ymm0, (%0)" : : "r"(p) : "xmm0", "memory");
}
static void vmaskmovps_store(uint8_t *p) { /* every element's mask bit set */
  __asm__ volatile("vpcmpeqd %%ymm1, %%ymm1, %%ymm1\n vxorps %%ymm0, %%ymm0, %%ymm0\n"
                   "vmaskmovps %%ymm0, %%ymm1, (%0)" : : "r"(p) : "xmm0", "xmm1", "memory");
}
static void vmaskmovps_last_element(uint8_t *p) { /* only element 7, which straddles */
  static const uint32_t mask[8] = {0, 0, 0, 0, 0, 0, 0, 0x80000000u};
  __asm__ volatile("vmovdqu %1, %%ymm1\n vxorps %%ymm0, %%ymm0, %%ymm0\n"
                   "vmaskmovps %%ymm0, %%ymm1, (%0)" : : "r"(p), "m"(mask) : "xmm0", "xmm1", "memory");
}
/* Only the elements whose bit is set in `elements` selected, the span's first one
 * writable. */
static void vmaskmovps_elements(uint8_t *p, unsigned elements) {
  uint32_t mask[8];
  for (unsigned i = 0; i < 8; i++) mask[i] = elements >> i & 1 ? 0x80000000u : 0;
  __asm__ volatile("vmovdqu %1, %%ymm1\n vxorps %%ymm0, %%ymm0, %%ymm0\n"
                   "vmaskmovps %%ymm0, %%ymm1, (%0)" : : "r"(p), "m"(mask) : "xmm0", "xmm1", "memory");
}
static void vmaskmovps_first_and_last(uint8_t *p) { vmaskmovps_elements(p, 0x81); }
static void vmaskmovps_two_across(uint8_t *p) { vmaskmovps_elements(p, 0x30); }
static void vmaskmovps_from_the_page(uint8_t *p) { vmaskmovps_elements(p, 0x20); }
/* MASKMOVDQU and MASKMOVQ with the bytes selected by a mask (one per byte). */
static void maskmovdqu_bytes(uint8_t *p, unsigned bytes) {
  uint8_t mask[16];
  for (unsigned i = 0; i < 16; i++) mask[i] = bytes >> i & 1 ? 0x80 : 0;
  __asm__ volatile("movdqu %1, %%xmm1\n pcmpeqd %%xmm0, %%xmm0\n maskmovdqu %%xmm1, %%xmm0"
                   : : "D"(p), "m"(mask) : "xmm0", "xmm1", "memory");
}
static void maskmovdqu_all(uint8_t *p) { maskmovdqu_bytes(p, 0xFFFF); }
static void maskmovdqu_low_byte(uint8_t *p) { maskmovdqu_bytes(p, 1); }
static void maskmovdqu_none(uint8_t *p) { maskmovdqu_bytes(p, 0); }
static void maskmovq_low_byte(uint8_t *p) {
  uint64_t mask = 0x80;
  __asm__ volatile("movq %1, %%mm1\n pcmpeqd %%mm0, %%mm0\n maskmovq %%mm1, %%mm0\n emms"
                   : : "D"(p), "m"(mask) : "memory");
}
/* VCVTPS2PH of four copies of the float with these bits, under this MXCSR. */
static void vcvtps2ph_of(uint8_t *p, uint32_t bits, uint32_t mxcsr) {
  uint32_t lanes[4] = {bits, bits, bits, bits};
  __asm__ volatile("vldmxcsr %2\n vmovups %1, %%xmm0\n vcvtps2ph $0, %%xmm0, (%0)"
                   : : "r"(p), "m"(lanes), "m"(mxcsr) : "xmm0", "memory");
}
/* 1/3, inexact in half precision: PE, masked or unmasked; a signalling NaN with the
 * invalid exception unmasked. */
static void vcvtps2ph_store(uint8_t *p) { vcvtps2ph_of(p, 0x3eaaaaab, 0x1f80); }
static void vcvtps2ph_precision_unmasked(uint8_t *p) { vcvtps2ph_of(p, 0x3eaaaaab, 0x0f80); }
static void vcvtps2ph_invalid_unmasked(uint8_t *p) { vcvtps2ph_of(p, 0x7f800001, 0x1f00); }
/* VPGATHERDD of eight elements from before p, element `faulting` from p + 8, with TF set;
 * the elements gathered are stored at p - 64 (none when the gather stops). */
static void vpgatherdd_stepped(uint8_t *p, int faulting) {
  int32_t index[8];
  for (int i = 0; i < 8; i++) index[i] = i == faulting ? 8 : -128 + 4 * i;
  __asm__ volatile("vpcmpeqd %%ymm1, %%ymm1, %%ymm1\n vmovdqu %1, %%ymm2\n vpxor %%ymm0, %%ymm0, %%ymm0\n"
                   "pushfq\n orq $0x100, (%%rsp)\n popfq\n"
                   "vpgatherdd %%ymm1, (%0,%%ymm2,1), %%ymm0\n"
                   "pushfq\n andq $~0x100, (%%rsp)\n popfq\n vmovdqu %%ymm0, -64(%0)"
                   : : "r"(p), "m"(index) : "xmm0", "xmm1", "xmm2", "memory", "cc");
}
static void vpgatherdd_stepped_3(uint8_t *p) { vpgatherdd_stepped(p, 3); }
static void vpgatherdd_stepped_0(uint8_t *p) { vpgatherdd_stepped(p, 0); }
static void vpunpckhqdq_load(uint8_t *p) {
  __asm__ volatile("vpunpckhqdq (%0), %%xmm1, %%xmm0" : : "r"(p) : "xmm0", "xmm1");
}

/* Runs the n bytes of an encoding followed by RET and prints its signal and si_code. */
static void encoding(const char *name, const uint8_t *bytes, size_t n) {
  static uint8_t *code;
  if (!code) code = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  memset(code, 0xC3, 64);
  memcpy(code, bytes, n);
  fault_sig = 0;
  if (!sigsetjmp(back, 1)) ((void (*)(void))code)();
  printf("%-48s %zu bytes: signal %d, si_code %d\n", name, n, fault_sig, fault_code);
}

int main(void) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  page = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (page == MAP_FAILED || mprotect(page + 4096, 4096, PROT_NONE) != 0) {
    perror("mmap");
    return 2;
  }
  struct sigaction sa = {.sa_sigaction = on_fault, .sa_flags = SA_SIGINFO | SA_NODEFER};
  sigaction(SIGSEGV, &sa, NULL);
  sigaction(SIGFPE, &sa, NULL);
  sigaction(SIGILL, &sa, NULL);
  sigaction(SIGTRAP, &sa, NULL);
  uint8_t *end = page + 4096;
  run("VMOVUPS m256, 28 bytes before the page", vmovups_store, end - 28);
  run("VMOVUPS m256, at the page", vmovups_store, end);
  run("VMASKMOVPS m256, 28 bytes before the page", vmaskmovps_store, end - 28);
  run("VMASKMOVPS m256, its last element straddles", vmaskmovps_last_element, end - 30);
  run("VMASKMOVPS m256, elements 0 and 7, 20 before", vmaskmovps_first_and_last, end - 20);
  run("VMASKMOVPS m256, elements 4 and 5, 20 before", vmaskmovps_two_across, end - 20);
  run("VMASKMOVPS m256, element 5 at the page", vmaskmovps_from_the_page, end - 20);
  run("MASKMOVDQU, 12 bytes before the page", maskmovdqu_all, end - 12);
  run("MASKMOVDQU, byte 0 only, 9 bytes before", maskmovdqu_low_byte, end - 9);
  run("MASKMOVDQU, byte 0 only, 4 bytes before", maskmovdqu_low_byte, end - 4);
  run("MASKMOVDQU, empty mask, at the page", maskmovdqu_none, end);
  run("MASKMOVQ, byte 0 only, 4 bytes before", maskmovq_low_byte, end - 4);
  run("VCVTPS2PH m64, at the page", vcvtps2ph_store, end);
  run("VCVTPS2PH m64, 4 bytes before the page", vcvtps2ph_store, end - 4);
  run("VCVTPS2PH m64, PE unmasked, at the page", vcvtps2ph_precision_unmasked, end);
  run("VCVTPS2PH m64, IE unmasked, SNaN, at the page", vcvtps2ph_invalid_unmasked, end);
  run("VPGATHERDD under TF, element 3 at the page", vpgatherdd_stepped_3, end);
  run("VPGATHERDD under TF, element 0 at the page", vpgatherdd_stepped_0, end);
  run("VPUNPCKHQDQ m128, at the page", vpunpckhqdq_load, end);
  run("VPUNPCKHQDQ m128, 8 bytes before the page", vpunpckhqdq_load, end - 8);

  /* VPADDQ xmm0, xmm0, [rbx+disp32] after 66 (#UD), with SS prefixes to the length. */
  static const uint8_t p66_15[] = {0x66, 0x36, 0x36, 0x36, 0x36, 0x36, 0xC4, 0xE1, 0x79, 0xD4, 0x83, 0, 0, 0, 0};
  static const uint8_t p66_16[] = {0x66, 0x36, 0x36, 0x36, 0x36, 0x36, 0x36, 0xC4, 0xE1, 0x79, 0xD4, 0x83, 0, 0, 0, 0};
  /* The same with VEX's reserved map 26, and VPSHUFD's row (an immediate) after 66. */
  static const uint8_t map26_15[] = {0x36, 0x36, 0x36, 0x36, 0x36, 0x36, 0xC4, 0xFA, 0x79, 0xD4, 0x83, 0, 0, 0, 0};
  static const uint8_t map26_16[] = {0x36, 0x36, 0x36, 0x36, 0x36, 0x36, 0x36, 0xC4, 0xFA, 0x79, 0xD4, 0x83, 0, 0, 0, 0};
  static const uint8_t imm_16[] = {0x36, 0x36, 0x36, 0x36, 0x36, 0x66, 0xC4, 0xE1, 0x79, 0x70, 0x83, 0, 0, 0, 0, 0};
  encoding("66 before VEX", p66_15, sizeof p66_15);
  encoding("66 before VEX", p66_16, sizeof p66_16);
  encoding("VEX with map 26", map26_15, sizeof map26_15);
  encoding("VEX with map 26", map26_16, sizeof map26_16);
  encoding("66 before VEX 0F 70 (its immediate counted)", imm_16, sizeof imm_16);
  return 0;
}
