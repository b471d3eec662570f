/* sse_state.c: group 15 (0F AE): LDMXCSR/STMXCSR, FXSAVE/FXRSTOR, the fences, CLFLUSH. */
#include "mxcsr.h"
#include "ops_sse.h"
#include "run.h"
#include "sse_operand.h"
#include "x87.h"

/* A write of a reserved MXCSR bit is #GP(0). */
static void mxcsr_write(Cpu *c, uint32_t v) {
  if (v & ~(uint32_t)MXCSR_WRITABLE) guest_gp(c, 0);
  c->mxcsr = v;
  cpu_fp_controls_loaded(c);
}

/* 0F AE /2 */
void op_ldmxcsr(Cpu *c, const Insn *in) {
  mxcsr_write(c, ld32(ea(c, in)));
  DISPATCH_NEXT(c, in);
}
/* 0F AE /3 */
void op_stmxcsr(Cpu *c, const Insn *in) {
  st32(ea(c, in), c->mxcsr);
  DISPATCH_NEXT(c, in);
}

/* ---- FXSAVE/FXRSTOR: the image layout of the SDM (vol. 1, 10.5.1), 64-bit mode ---- */

enum {
  FX_FCW = 0, FX_FSW = 2, FX_FTW = 4, FX_FOP = 6, FX_FIP = 8, FX_FDP = 16,
  FX_MXCSR = 24, FX_MXCSR_MASK = 28, FX_ST = 32, FX_XMM = 160,
};

void fx_image_save(const Cpu *c, uint8_t img[FX_IMAGE_WRITTEN], bool ptr64) {
  const X87 *f = &c->fpu;
  memset(img, 0, FX_IMAGE_WRITTEN);
  uint16_t fsw = x87_status_word(f);
  uint16_t fop = f->last_op & 0x7FF;
  memcpy(img + FX_FCW, &f->cw, 2);
  memcpy(img + FX_FSW, &fsw, 2);
  img[FX_FTW] = x87_abridged_tag(f);
  memcpy(img + FX_FOP, &fop, 2);
  if (ptr64) {
    memcpy(img + FX_FIP, &f->last_ip, 8);
    memcpy(img + FX_FDP, &f->last_dp, 8);
  } else {
    uint32_t ip = (uint32_t)f->last_ip, dp = (uint32_t)f->last_dp;
    memcpy(img + FX_FIP, &ip, 4);
    memcpy(img + FX_FDP, &dp, 4);
  }
  uint32_t mask = MXCSR_WRITABLE;
  memcpy(img + FX_MXCSR, &c->mxcsr, 4);
  memcpy(img + FX_MXCSR_MASK, &mask, 4);
  for (unsigned i = 0; i < 8; i++) x87_image(f, (f->top + i) & 7, img + FX_ST + 16 * i);
  memcpy(img + FX_XMM, c->xmm, 16 * 16);
}

bool fx_mxcsr_valid(const uint8_t img[FX_IMAGE_WRITTEN]) {
  uint32_t mxcsr;
  memcpy(&mxcsr, img + FX_MXCSR, 4);
  return !(mxcsr & ~(uint32_t)MXCSR_WRITABLE);
}

void fx_load_x87(Cpu *c, const uint8_t img[FX_IMAGE_WRITTEN], bool ptr64) {
  X87 *f = &c->fpu;
  uint16_t fsw, fop;
  memcpy(&f->cw, img + FX_FCW, 2);
  memcpy(&fsw, img + FX_FSW, 2);
  memcpy(&fop, img + FX_FOP, 2);
  /* As the CPU loads them: reserved control bits clear except bit 6, which reads as 1;
   * the error summary (and the busy bit that mirrors it) says whether an exception flag
   * is unmasked. */
  f->cw = (uint16_t)((f->cw & 0x1F3F) | 0x40);
  fsw &= (uint16_t)~(X87_ES | X87_B);
  if (fsw & ~f->cw & X87_EXC) fsw |= X87_ES | X87_B;
  x87_set_status_word(f, fsw);
  f->last_op = fop & 0x7FF;
  if (ptr64) {
    memcpy(&f->last_ip, img + FX_FIP, 8);
    memcpy(&f->last_dp, img + FX_FDP, 8);
  } else {
    uint32_t ip, dp;
    memcpy(&ip, img + FX_FIP, 4);
    memcpy(&dp, img + FX_FDP, 4);
    f->last_ip = ip;
    f->last_dp = dp;
  }
  x87_set_abridged_tag(f, img[FX_FTW]);
  for (unsigned i = 0; i < 8; i++) x87_set_image(f, (f->top + i) & 7, img + FX_ST + 16 * i);
}

void fx_load_mxcsr(Cpu *c, const uint8_t img[FX_IMAGE_WRITTEN]) { memcpy(&c->mxcsr, img + FX_MXCSR, 4); }

void fx_load_xmm(Cpu *c, const uint8_t img[FX_IMAGE_WRITTEN]) { memcpy(c->xmm, img + FX_XMM, 16 * 16); }

bool fx_image_load(Cpu *c, const uint8_t img[FX_IMAGE_WRITTEN], bool ptr64) {
  if (!fx_mxcsr_valid(img)) return false;
  fx_load_mxcsr(c, img);
  fx_load_x87(c, img, ptr64);
  fx_load_xmm(c, img);
  cpu_fp_controls_loaded(c);
  return true;
}

/* The 512-byte area of FXSAVE and FXRSTOR: 16-byte aligned (run.h's guest_misaligned),
 * and checked before any of it is read or (write) written, in the CPU's order (measured
 * on an AMD EPYC; Intel's is not measured): its last byte, then its first. So an area
 * that faults is neither read nor written in part (FXSAVE writes 416 of the 512 bytes,
 * but faults as the CPU does on any of them). */
static uint64_t fx_area_at(Cpu *c, const Insn *in, bool write) {
  uint64_t a = ea(c, in);
  if (a & 15) guest_misaligned(c, a);
  probe_access(a + FX_IMAGE_SIZE - 1, write);
  probe_access(a, write);
  access_in_order();
  return a;
}

/* 0F AE /0 */
void op_fxsave(Cpu *c, const Insn *in) {
  uint64_t a = fx_area_at(c, in, true);
  uint8_t img[FX_IMAGE_WRITTEN];
  fx_image_save(c, img, in->osz == 8);
  st_bytes(a, img, sizeof img);
  DISPATCH_NEXT(c, in);
}

/* 0F AE /1 */
void op_fxrstor(Cpu *c, const Insn *in) {
  uint64_t a = fx_area_at(c, in, false);
  uint8_t img[FX_IMAGE_WRITTEN];
  ld_bytes(a, img, sizeof img);
  if (!fx_image_load(c, img, in->osz == 8)) guest_gp(c, 0);
  DISPATCH_NEXT(c, in);
}

/* ---- ordering and cache control ---- */

/* 0F AE /5 (register form) */
void op_lfence(Cpu *c, const Insn *in) {
  __atomic_thread_fence(__ATOMIC_ACQUIRE);
  DISPATCH_NEXT(c, in);
}
/* 0F AE /6 (register form) */
void op_mfence(Cpu *c, const Insn *in) {
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  DISPATCH_NEXT(c, in);
}
/* 0F AE /7 (register form) */
void op_sfence(Cpu *c, const Insn *in) {
  __atomic_thread_fence(__ATOMIC_RELEASE);
  DISPATCH_NEXT(c, in);
}
/* 0F AE /7 (memory form): faults like a load on an unmapped line, nothing else to do
 * when memory is the host's own */
void op_clflush(Cpu *c, const Insn *in) {
  (void)probe8(ea(c, in));
  DISPATCH_NEXT(c, in);
}
