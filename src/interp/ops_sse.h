/* ops_sse.h: handlers for the SSE/SSE2 instructions (table_0f.def is the index).
 *
 * Most come in pairs from SSE_RM (sse_operand.h): op_X takes its source from the XMM
 * register ModRM.rm, op_X_m from memory, loaded with the instruction's width and
 * alignment rule into a temporary first. Destination is the XMM register ModRM.reg
 * unless the comment says otherwise; in->imm holds an imm8, in->osz 4 or 8 selects the
 * general-register width of MOVD/MOVQ, MOVNTI and the integer conversions. */
#ifndef X64EMU_OPS_SSE_H
#define X64EMU_OPS_SSE_H

#include <stdbool.h>
#include <stdint.h>

#include "cpuid.h"
#include "insn.h"

#define SSE_DECLARE_RM(name)                 \
  void op_##name(Cpu *c, const Insn *in);    \
  void op_##name##_m(Cpu *c, const Insn *in);

/* The AVX forms of an SSE_RM operation (sse_operand.h's AVX_128 and AVX_RM): VEX.128
 * op_v<name>[_m], VEX.256 op_v<name>_256[_m]. */
#define AVX_DECLARE_128(name)                  \
  void op_v##name(Cpu *c, const Insn *in);     \
  void op_v##name##_m(Cpu *c, const Insn *in);
#define AVX_DECLARE_RM(name)                       \
  AVX_DECLARE_128(name)                            \
  void op_v##name##_256(Cpu *c, const Insn *in);   \
  void op_v##name##_256_m(Cpu *c, const Insn *in);

/* sse_move.c */
SSE_DECLARE_RM(movu_load)   /* MOVUPS/MOVUPD/MOVDQU loads */
SSE_DECLARE_RM(mova_load)   /* MOVAPS/MOVAPD/MOVDQA loads (aligned memory) */
void op_mov128_to_rm(Cpu *c, const Insn *in);   /* store forms, register destination */
void op_movu_store_m(Cpu *c, const Insn *in);
void op_mova_store_m(Cpu *c, const Insn *in);   /* also MOVNTPS/MOVNTPD/MOVNTDQ */
SSE_DECLARE_RM(movss)       /* reg: merge the low lane; m: zero-extend */
SSE_DECLARE_RM(movsd)
void op_movss_to_rm(Cpu *c, const Insn *in);
void op_movss_store_m(Cpu *c, const Insn *in);
void op_movsd_to_rm(Cpu *c, const Insn *in);
void op_movsd_store_m(Cpu *c, const Insn *in);
void op_movhlps(Cpu *c, const Insn *in);
void op_movlhps(Cpu *c, const Insn *in);
void op_movlps_load_m(Cpu *c, const Insn *in);  /* also MOVLPD */
void op_movlps_store_m(Cpu *c, const Insn *in);
void op_movhps_load_m(Cpu *c, const Insn *in);  /* also MOVHPD */
void op_movhps_store_m(Cpu *c, const Insn *in);
SSE_DECLARE_RM(movd_to_xmm)   /* rm: general register or memory */
SSE_DECLARE_RM(movd_from_xmm) /* destination rm: general register or memory */
SSE_DECLARE_RM(movq_load)     /* F3 0F 7E */
void op_movq_to_rm(Cpu *c, const Insn *in);     /* 66 0F D6 */
void op_movq_store_m(Cpu *c, const Insn *in);
void op_movmskps(Cpu *c, const Insn *in);       /* destination: general register */
void op_movmskpd(Cpu *c, const Insn *in);
void op_pmovmskb(Cpu *c, const Insn *in);
SSE_DECLARE_RM(pinsrw)        /* rm: general register or m16 */
void op_pextrw(Cpu *c, const Insn *in);         /* destination: general register */
void op_movnti_m(Cpu *c, const Insn *in);
void op_maskmovdqu(Cpu *c, const Insn *in);
/* AVX moves: VEX.128 loads, then the VEX.256 ones (the register form is shared), the
 * register destinations of the store forms, the 256-bit stores (the VEX.128 ones are
 * the SSE handlers), VZEROUPPER and VZEROALL. */
AVX_DECLARE_128(movu_load) AVX_DECLARE_128(mova_load)
void op_vmov_load_256(Cpu *c, const Insn *in);
void op_vmovu_load_256_m(Cpu *c, const Insn *in);
void op_vmova_load_256_m(Cpu *c, const Insn *in);
void op_vmov_to_rm(Cpu *c, const Insn *in);
void op_vmov_to_rm_256(Cpu *c, const Insn *in);
void op_vmovu_store_256_m(Cpu *c, const Insn *in);
void op_vmova_store_256_m(Cpu *c, const Insn *in);
void op_vzeroupper(Cpu *c, const Insn *in);
void op_vzeroall(Cpu *c, const Insn *in);
/* VMOVSS, VMOVSD: register forms merge into VEX.vvvv (_to_rm: destination ModRM.rm) */
AVX_DECLARE_128(movss) AVX_DECLARE_128(movsd)
void op_vmovss_to_rm(Cpu *c, const Insn *in);
void op_vmovsd_to_rm(Cpu *c, const Insn *in);

/* sse_int.c */
SSE_DECLARE_RM(pand) SSE_DECLARE_RM(pandn) SSE_DECLARE_RM(por) SSE_DECLARE_RM(pxor)
SSE_DECLARE_RM(pcmpeqb) SSE_DECLARE_RM(pcmpeqw) SSE_DECLARE_RM(pcmpeqd)
SSE_DECLARE_RM(pcmpgtb) SSE_DECLARE_RM(pcmpgtw) SSE_DECLARE_RM(pcmpgtd)
SSE_DECLARE_RM(paddb) SSE_DECLARE_RM(paddw) SSE_DECLARE_RM(paddd) SSE_DECLARE_RM(paddq)
SSE_DECLARE_RM(psubb) SSE_DECLARE_RM(psubw) SSE_DECLARE_RM(psubd) SSE_DECLARE_RM(psubq)
SSE_DECLARE_RM(paddusb) SSE_DECLARE_RM(paddusw) SSE_DECLARE_RM(psubusb) SSE_DECLARE_RM(psubusw)
SSE_DECLARE_RM(paddsb) SSE_DECLARE_RM(paddsw) SSE_DECLARE_RM(psubsb) SSE_DECLARE_RM(psubsw)
SSE_DECLARE_RM(pminub) SSE_DECLARE_RM(pmaxub) SSE_DECLARE_RM(pminsw) SSE_DECLARE_RM(pmaxsw)
SSE_DECLARE_RM(pavgb) SSE_DECLARE_RM(pavgw) SSE_DECLARE_RM(psadbw)
SSE_DECLARE_RM(pmullw) SSE_DECLARE_RM(pmulhw) SSE_DECLARE_RM(pmulhuw)
SSE_DECLARE_RM(pmuludq) SSE_DECLARE_RM(pmaddwd)
SSE_DECLARE_RM(psllw) SSE_DECLARE_RM(pslld) SSE_DECLARE_RM(psllq)
SSE_DECLARE_RM(psrlw) SSE_DECLARE_RM(psrld) SSE_DECLARE_RM(psrlq)
SSE_DECLARE_RM(psraw) SSE_DECLARE_RM(psrad)
/* Immediate shifts (66 0F 71..73): the register is ModRM.rm. */
void op_psllw_imm(Cpu *c, const Insn *in);
void op_pslld_imm(Cpu *c, const Insn *in);
void op_psllq_imm(Cpu *c, const Insn *in);
void op_psrlw_imm(Cpu *c, const Insn *in);
void op_psrld_imm(Cpu *c, const Insn *in);
void op_psrlq_imm(Cpu *c, const Insn *in);
void op_psraw_imm(Cpu *c, const Insn *in);
void op_psrad_imm(Cpu *c, const Insn *in);

AVX_DECLARE_RM(pand) AVX_DECLARE_RM(pandn) AVX_DECLARE_RM(por) AVX_DECLARE_RM(pxor)
AVX_DECLARE_RM(pcmpeqb) AVX_DECLARE_RM(pcmpeqw) AVX_DECLARE_RM(pcmpeqd)
AVX_DECLARE_RM(pcmpgtb) AVX_DECLARE_RM(pcmpgtw) AVX_DECLARE_RM(pcmpgtd)
AVX_DECLARE_RM(paddb) AVX_DECLARE_RM(paddw) AVX_DECLARE_RM(paddd) AVX_DECLARE_RM(paddq)
AVX_DECLARE_RM(psubb) AVX_DECLARE_RM(psubw) AVX_DECLARE_RM(psubd) AVX_DECLARE_RM(psubq)
AVX_DECLARE_RM(paddusb) AVX_DECLARE_RM(paddusw) AVX_DECLARE_RM(psubusb) AVX_DECLARE_RM(psubusw)
AVX_DECLARE_RM(paddsb) AVX_DECLARE_RM(paddsw) AVX_DECLARE_RM(psubsb) AVX_DECLARE_RM(psubsw)
AVX_DECLARE_RM(pminub) AVX_DECLARE_RM(pmaxub) AVX_DECLARE_RM(pminsw) AVX_DECLARE_RM(pmaxsw)
AVX_DECLARE_RM(pavgb) AVX_DECLARE_RM(pavgw) AVX_DECLARE_RM(psadbw)
AVX_DECLARE_RM(pmullw) AVX_DECLARE_RM(pmulhw) AVX_DECLARE_RM(pmulhuw)
AVX_DECLARE_RM(pmuludq) AVX_DECLARE_RM(pmaddwd)
/* Shifts by an XMM or m128 count (the same count for both lanes of VEX.256), and by an
 * imm8: VEX 66 0F 71..73, source ModRM.rm, destination VEX.vvvv. */
AVX_DECLARE_RM(psllw) AVX_DECLARE_RM(pslld) AVX_DECLARE_RM(psllq)
AVX_DECLARE_RM(psrlw) AVX_DECLARE_RM(psrld) AVX_DECLARE_RM(psrlq)
AVX_DECLARE_RM(psraw) AVX_DECLARE_RM(psrad)
#define AVX_DECLARE_IMM(name)                 \
  void op_v##name(Cpu *c, const Insn *in);    \
  void op_v##name##_256(Cpu *c, const Insn *in);
AVX_DECLARE_IMM(psllw_imm) AVX_DECLARE_IMM(pslld_imm) AVX_DECLARE_IMM(psllq_imm)
AVX_DECLARE_IMM(psrlw_imm) AVX_DECLARE_IMM(psrld_imm) AVX_DECLARE_IMM(psrlq_imm)
AVX_DECLARE_IMM(psraw_imm) AVX_DECLARE_IMM(psrad_imm)

/* sse_shuffle.c */
SSE_DECLARE_RM(punpcklbw) SSE_DECLARE_RM(punpckhbw) SSE_DECLARE_RM(punpcklwd)
SSE_DECLARE_RM(punpckhwd) SSE_DECLARE_RM(punpckldq) SSE_DECLARE_RM(punpckhdq)
SSE_DECLARE_RM(punpcklqdq) SSE_DECLARE_RM(punpckhqdq)
SSE_DECLARE_RM(packsswb) SSE_DECLARE_RM(packuswb) SSE_DECLARE_RM(packssdw)
SSE_DECLARE_RM(pshuflw) SSE_DECLARE_RM(pshufhw)
SSE_DECLARE_RM(shufps) SSE_DECLARE_RM(shufpd)
AVX_DECLARE_RM(pshuflw) AVX_DECLARE_RM(pshufhw) AVX_DECLARE_RM(shufps)
AVX_DECLARE_RM(punpcklbw) AVX_DECLARE_RM(punpckhbw) AVX_DECLARE_RM(punpcklwd)
AVX_DECLARE_RM(punpckhwd) AVX_DECLARE_RM(punpckldq) AVX_DECLARE_RM(punpckhdq)
AVX_DECLARE_RM(punpcklqdq) AVX_DECLARE_RM(punpckhqdq)
AVX_DECLARE_RM(packsswb) AVX_DECLARE_RM(packuswb) AVX_DECLARE_RM(packssdw)

/* sse_float.c */
SSE_DECLARE_RM(addps) SSE_DECLARE_RM(addpd) SSE_DECLARE_RM(addss) SSE_DECLARE_RM(addsd)
SSE_DECLARE_RM(subps) SSE_DECLARE_RM(subpd) SSE_DECLARE_RM(subss) SSE_DECLARE_RM(subsd)
SSE_DECLARE_RM(mulps) SSE_DECLARE_RM(mulpd) SSE_DECLARE_RM(mulss) SSE_DECLARE_RM(mulsd)
SSE_DECLARE_RM(divps) SSE_DECLARE_RM(divpd) SSE_DECLARE_RM(divss) SSE_DECLARE_RM(divsd)
SSE_DECLARE_RM(minps) SSE_DECLARE_RM(minpd) SSE_DECLARE_RM(minss) SSE_DECLARE_RM(minsd)
SSE_DECLARE_RM(maxps) SSE_DECLARE_RM(maxpd) SSE_DECLARE_RM(maxss) SSE_DECLARE_RM(maxsd)
SSE_DECLARE_RM(sqrtps) SSE_DECLARE_RM(sqrtpd) SSE_DECLARE_RM(sqrtss) SSE_DECLARE_RM(sqrtsd)
SSE_DECLARE_RM(cmpps) SSE_DECLARE_RM(cmppd) SSE_DECLARE_RM(cmpss) SSE_DECLARE_RM(cmpsd)
SSE_DECLARE_RM(comiss) SSE_DECLARE_RM(comisd) SSE_DECLARE_RM(ucomiss) SSE_DECLARE_RM(ucomisd)
SSE_DECLARE_RM(rcpps) SSE_DECLARE_RM(rcpss) SSE_DECLARE_RM(rsqrtps) SSE_DECLARE_RM(rsqrtss)
AVX_DECLARE_RM(addps) AVX_DECLARE_RM(addpd) AVX_DECLARE_128(addss) AVX_DECLARE_128(addsd)
AVX_DECLARE_RM(subps) AVX_DECLARE_RM(subpd) AVX_DECLARE_128(subss) AVX_DECLARE_128(subsd)
AVX_DECLARE_RM(mulps) AVX_DECLARE_RM(mulpd) AVX_DECLARE_128(mulss) AVX_DECLARE_128(mulsd)
AVX_DECLARE_RM(divps) AVX_DECLARE_RM(divpd) AVX_DECLARE_128(divss) AVX_DECLARE_128(divsd)
AVX_DECLARE_RM(minps) AVX_DECLARE_RM(minpd) AVX_DECLARE_128(minss) AVX_DECLARE_128(minsd)
AVX_DECLARE_RM(maxps) AVX_DECLARE_RM(maxpd) AVX_DECLARE_128(maxss) AVX_DECLARE_128(maxsd)
AVX_DECLARE_RM(sqrtps) AVX_DECLARE_RM(sqrtpd) AVX_DECLARE_128(sqrtss) AVX_DECLARE_128(sqrtsd)
AVX_DECLARE_RM(rcpps) AVX_DECLARE_RM(rsqrtps) AVX_DECLARE_128(rcpss) AVX_DECLARE_128(rsqrtss)
/* VCMPPS/PD/SS/SD: the 32 predicates of imm8 bits 4:0 */
AVX_DECLARE_RM(cmpps_vex) AVX_DECLARE_RM(cmppd_vex) AVX_DECLARE_128(cmpss_vex) AVX_DECLARE_128(cmpsd_vex)

/* sse_convert.c */
SSE_DECLARE_RM(cvtss2sd) SSE_DECLARE_RM(cvtsd2ss) SSE_DECLARE_RM(cvtps2pd) SSE_DECLARE_RM(cvtpd2ps)
SSE_DECLARE_RM(cvtdq2ps) SSE_DECLARE_RM(cvtps2dq) SSE_DECLARE_RM(cvttps2dq)
SSE_DECLARE_RM(cvtdq2pd) SSE_DECLARE_RM(cvtpd2dq) SSE_DECLARE_RM(cvttpd2dq)
SSE_DECLARE_RM(cvtsi2ss) SSE_DECLARE_RM(cvtsi2sd)  /* rm: general register or memory */
SSE_DECLARE_RM(cvtss2si) SSE_DECLARE_RM(cvttss2si) /* destination: general register */
SSE_DECLARE_RM(cvtsd2si) SSE_DECLARE_RM(cvttsd2si)
AVX_DECLARE_128(cvtsi2ss) AVX_DECLARE_128(cvtsi2sd) /* lanes from VEX.vvvv */
AVX_DECLARE_128(cvtss2sd) AVX_DECLARE_128(cvtsd2ss)
AVX_DECLARE_RM(cvtdq2ps) AVX_DECLARE_RM(cvtps2dq) AVX_DECLARE_RM(cvttps2dq)
/* those that change the width: VEX.256 widens xmm/m128 or narrows ymm/m256 */
AVX_DECLARE_RM(cvtps2pd) AVX_DECLARE_RM(cvtpd2ps) AVX_DECLARE_RM(cvtdq2pd)
AVX_DECLARE_RM(cvtpd2dq) AVX_DECLARE_RM(cvttpd2dq)

/* sse_state.c */
/* The FXSAVE image (also the fpstate of signal frames): bytes [0, 416) hold x87, MXCSR
 * and XMM state, the rest is left alone. ptr64: 64-bit FPU instruction/data pointers
 * (FXSAVE64) instead of 32-bit ones and zero selectors. Loading fails, changing nothing,
 * if the image sets reserved MXCSR bits (FXRSTOR's #GP, sigreturn's rejection). */
enum { FX_IMAGE_SIZE = 512, FX_IMAGE_WRITTEN = 416 };
void fx_image_save(const Cpu *c, uint8_t img[FX_IMAGE_WRITTEN], bool ptr64);
bool fx_image_load(Cpu *c, const uint8_t img[FX_IMAGE_WRITTEN], bool ptr64);
/* Its parts, as the XSAVE family loads them (xsave.c): the x87 state; MXCSR, after
 * fx_mxcsr_valid said it may be loaded; the XMM registers. */
void fx_load_x87(Cpu *c, const uint8_t img[FX_IMAGE_WRITTEN], bool ptr64);
bool fx_mxcsr_valid(const uint8_t img[FX_IMAGE_WRITTEN]);
void fx_load_mxcsr(Cpu *c, const uint8_t img[FX_IMAGE_WRITTEN]);
void fx_load_xmm(Cpu *c, const uint8_t img[FX_IMAGE_WRITTEN]);

void op_ldmxcsr(Cpu *c, const Insn *in);
void op_stmxcsr(Cpu *c, const Insn *in);
void op_fxsave(Cpu *c, const Insn *in);   /* in->osz 8: FXSAVE64 */
void op_fxrstor(Cpu *c, const Insn *in);
void op_lfence(Cpu *c, const Insn *in);
void op_mfence(Cpu *c, const Insn *in);
void op_sfence(Cpu *c, const Insn *in);
void op_clflush(Cpu *c, const Insn *in);

/* xsave.c: the XSAVE feature set, for the model's XCR0 (cpuid.h). The area the kernel's
 * XSAVE64 of every component writes in a signal frame (cpuid_xsave_size bytes of it). */
void xsave_image(const Cpu *c, uint8_t area[XSAVE_AREA_MAX]);
/* XRSTOR64 of area for the components in rfbm (a subset of the model's XCR0): false,
 * changing nothing, where XRSTOR would be #GP (a reserved header bit or MXCSR bit set). */
bool xrstor_image(Cpu *c, const uint8_t area[XSAVE_AREA_MAX], uint64_t rfbm, bool ptr64);
void op_xgetbv(Cpu *c, const Insn *in);
void op_xsave(Cpu *c, const Insn *in);    /* XSAVE, XSAVEOPT (op 1), XSAVEC (op 2) */
void op_xrstor(Cpu *c, const Insn *in);

#endif
