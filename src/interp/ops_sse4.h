/* ops_sse4.h: handlers for SSE3, SSSE3, SSE4.1 and SSE4.2 (table_0f.def, table_0f38.def and
 * table_0f3a.def are the index).
 *
 * Same conventions as ops_sse.h: op_X takes its source from the XMM register ModRM.rm,
 * op_X_m from memory; the destination is the XMM register ModRM.reg unless the comment
 * says otherwise; in->imm holds the imm8; in->osz 4 or 8 is the general-register width
 * (REX.W) where one is involved. */
#ifndef X64EMU_OPS_SSE4_H
#define X64EMU_OPS_SSE4_H

#include "ops_sse.h"

/* sse3.c */
SSE_DECLARE_RM(movddup)   /* source xmm/m64 */
SSE_DECLARE_RM(movsldup)
SSE_DECLARE_RM(movshdup)
SSE_DECLARE_RM(haddps) SSE_DECLARE_RM(haddpd) SSE_DECLARE_RM(hsubps) SSE_DECLARE_RM(hsubpd)
SSE_DECLARE_RM(addsubps) SSE_DECLARE_RM(addsubpd)
AVX_DECLARE_RM(movddup) AVX_DECLARE_RM(movsldup) AVX_DECLARE_RM(movshdup)
AVX_DECLARE_RM(haddps) AVX_DECLARE_RM(haddpd) AVX_DECLARE_RM(hsubps) AVX_DECLARE_RM(hsubpd)
AVX_DECLARE_RM(addsubps) AVX_DECLARE_RM(addsubpd)

/* ssse3.c */
SSE_DECLARE_RM(phaddw) SSE_DECLARE_RM(phaddd) SSE_DECLARE_RM(phaddsw)
SSE_DECLARE_RM(phsubw) SSE_DECLARE_RM(phsubd) SSE_DECLARE_RM(phsubsw)
SSE_DECLARE_RM(pmaddubsw) SSE_DECLARE_RM(pmulhrsw)
SSE_DECLARE_RM(psignb) SSE_DECLARE_RM(psignw) SSE_DECLARE_RM(psignd)
SSE_DECLARE_RM(pabsb) SSE_DECLARE_RM(pabsw) SSE_DECLARE_RM(pabsd)
AVX_DECLARE_RM(phaddw) AVX_DECLARE_RM(phaddd) AVX_DECLARE_RM(phaddsw)
AVX_DECLARE_RM(phsubw) AVX_DECLARE_RM(phsubd) AVX_DECLARE_RM(phsubsw)
AVX_DECLARE_RM(pmaddubsw) AVX_DECLARE_RM(pmulhrsw)
AVX_DECLARE_RM(psignb) AVX_DECLARE_RM(psignw) AVX_DECLARE_RM(psignd)
AVX_DECLARE_RM(pabsb) AVX_DECLARE_RM(pabsw) AVX_DECLARE_RM(pabsd)

/* sse41.c: integer arithmetic, compares, blends */
SSE_DECLARE_RM(pmulld) SSE_DECLARE_RM(pmuldq) SSE_DECLARE_RM(pcmpeqq) SSE_DECLARE_RM(packusdw)
SSE_DECLARE_RM(pminsb) SSE_DECLARE_RM(pminsd) SSE_DECLARE_RM(pminuw) SSE_DECLARE_RM(pminud)
SSE_DECLARE_RM(pmaxsb) SSE_DECLARE_RM(pmaxsd) SSE_DECLARE_RM(pmaxuw) SSE_DECLARE_RM(pmaxud)
SSE_DECLARE_RM(ptest)     /* writes ZF and CF, clears AF, OF, PF, SF; no XMM change */
SSE_DECLARE_RM(pblendw) SSE_DECLARE_RM(blendps) SSE_DECLARE_RM(blendpd)
SSE_DECLARE_RM(pblendvb) SSE_DECLARE_RM(blendvps) SSE_DECLARE_RM(blendvpd) /* mask: XMM0 */
SSE_DECLARE_RM(mpsadbw) SSE_DECLARE_RM(phminposuw)
void op_movntdqa_m(Cpu *c, const Insn *in);
AVX_DECLARE_RM(pmulld) AVX_DECLARE_RM(pmuldq) AVX_DECLARE_RM(pcmpeqq) AVX_DECLARE_RM(packusdw)
AVX_DECLARE_RM(pminsb) AVX_DECLARE_RM(pminsd) AVX_DECLARE_RM(pminuw) AVX_DECLARE_RM(pminud)
AVX_DECLARE_RM(pmaxsb) AVX_DECLARE_RM(pmaxsd) AVX_DECLARE_RM(pmaxuw) AVX_DECLARE_RM(pmaxud)
AVX_DECLARE_RM(pblendw)
AVX_DECLARE_RM(mpsadbw) AVX_DECLARE_128(phminposuw)
void op_vmovntdqa_m(Cpu *c, const Insn *in); /* 16 bytes; VEX.256: op_vmova_load_256_m */

/* sse41_move.c: widening moves, inserts and extracts */
SSE_DECLARE_RM(pmovsxbw) SSE_DECLARE_RM(pmovsxbd) SSE_DECLARE_RM(pmovsxbq)
SSE_DECLARE_RM(pmovsxwd) SSE_DECLARE_RM(pmovsxwq) SSE_DECLARE_RM(pmovsxdq)
SSE_DECLARE_RM(pmovzxbw) SSE_DECLARE_RM(pmovzxbd) SSE_DECLARE_RM(pmovzxbq)
SSE_DECLARE_RM(pmovzxwd) SSE_DECLARE_RM(pmovzxwq) SSE_DECLARE_RM(pmovzxdq)
/* Sources: a general register (ModRM.rm) or memory of the element's width. */
SSE_DECLARE_RM(pinsrb) SSE_DECLARE_RM(pinsrd) /* PINSRD, with in->osz 8 PINSRQ */
SSE_DECLARE_RM(insertps)                      /* source xmm or m32 */
/* Destinations: a general register (ModRM.rm, zero-extended) or memory. */
SSE_DECLARE_RM(pextrb) SSE_DECLARE_RM(pextrw_rm) SSE_DECLARE_RM(pextrd) /* PEXTRQ: osz 8 */
SSE_DECLARE_RM(extractps)
AVX_DECLARE_128(pmovsxbw) AVX_DECLARE_128(pmovsxbd) AVX_DECLARE_128(pmovsxbq)
AVX_DECLARE_128(pmovsxwd) AVX_DECLARE_128(pmovsxwq) AVX_DECLARE_128(pmovsxdq)
AVX_DECLARE_128(pmovzxbw) AVX_DECLARE_128(pmovzxbd) AVX_DECLARE_128(pmovzxbq)
AVX_DECLARE_128(pmovzxwd) AVX_DECLARE_128(pmovzxwq) AVX_DECLARE_128(pmovzxdq)
/* VPINSRB/W/D/Q, VINSERTPS: the other elements from VEX.vvvv */
AVX_DECLARE_128(pinsrb) AVX_DECLARE_128(pinsrw) AVX_DECLARE_128(pinsrd) AVX_DECLARE_128(insertps)

/* sse41_fp.c: rounding and dot products, through the floating-point tiers */
SSE_DECLARE_RM(roundps) SSE_DECLARE_RM(roundpd) SSE_DECLARE_RM(roundss) SSE_DECLARE_RM(roundsd)
SSE_DECLARE_RM(dpps) SSE_DECLARE_RM(dppd)
AVX_DECLARE_RM(roundps) AVX_DECLARE_RM(roundpd) AVX_DECLARE_128(roundss) AVX_DECLARE_128(roundsd)
AVX_DECLARE_RM(dpps) AVX_DECLARE_128(dppd)

/* sse42.c */
SSE_DECLARE_RM(pcmpgtq)
AVX_DECLARE_RM(pcmpgtq)
/* CRC32 r32/r64, r/m: in->osz is the destination size (4, 8), in->aux the source size
 * (1, 2, 4, 8); ModRM.rm is a general register (byte registers when aux is 1). */
SSE_DECLARE_RM(crc32)
/* pcmpstr.c: the string compares. ECX (the I forms) or XMM0 (the M forms) and the
 * flags are the outputs; the E forms take lengths from EAX/EDX, or RAX/RDX with
 * in->osz 8. */
SSE_DECLARE_RM(pcmpestri) SSE_DECLARE_RM(pcmpestrm)
SSE_DECLARE_RM(pcmpistri) SSE_DECLARE_RM(pcmpistrm)
SSE_DECLARE_RM(vpcmpestrm) SSE_DECLARE_RM(vpcmpistrm) /* VEX.128: YMM0's upper half cleared */

#endif
