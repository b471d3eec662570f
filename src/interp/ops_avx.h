/* ops_avx.h: handlers of avx.c, the AVX and AVX2 instructions without an SSE body (the VEX
 * forms of SSE operations are declared beside them, in ops_sse.h and ops_sse4.h). Same
 * conventions: _m for a memory ModRM.rm, _256 for VEX.256; the first source VEX.vvvv
 * is in->vreg. */
#ifndef X64EMU_OPS_AVX_H
#define X64EMU_OPS_AVX_H

#include "insn.h"

void op_vmovd_to_xmm(Cpu *c, const Insn *in);   /* rm: general register, in->osz 4 or 8 */
void op_vmovd_to_xmm_m(Cpu *c, const Insn *in);
void op_vmovq_load(Cpu *c, const Insn *in);
void op_vmovq_load_m(Cpu *c, const Insn *in);
void op_vmovq_to_rm(Cpu *c, const Insn *in);
void op_vpmovmskb_256(Cpu *c, const Insn *in);  /* destination: general register */
void op_vbroadcast(Cpu *c, const Insn *in);     /* in->op: element size */
void op_vbroadcast_m(Cpu *c, const Insn *in);
void op_vbroadcast_256(Cpu *c, const Insn *in);
void op_vbroadcast_256_m(Cpu *c, const Insn *in);
void op_vbroadcast128_m(Cpu *c, const Insn *in);
void op_vinsert128(Cpu *c, const Insn *in);
void op_vinsert128_m(Cpu *c, const Insn *in);
void op_vextract128(Cpu *c, const Insn *in);    /* destination: ModRM.rm */
void op_vextract128_m(Cpu *c, const Insn *in);
/* Handlers that take their memory operand themselves (one for both ModRM kinds): */
void op_vperm2x128(Cpu *c, const Insn *in);
void op_vpermq(Cpu *c, const Insn *in);
void op_vpermd(Cpu *c, const Insn *in);
void op_vblend_imm(Cpu *c, const Insn *in);     /* in->op: element size */
void op_vblend_imm_256(Cpu *c, const Insn *in);
void op_vblendv(Cpu *c, const Insn *in);        /* mask register imm8[7:4] */
void op_vblendv_256(Cpu *c, const Insn *in);
void op_vshift_var(Cpu *c, const Insn *in);     /* in->op 0 SLL, 1 SRL, 2 SRA; osz 4 or 8 */
void op_vshift_var_256(Cpu *c, const Insn *in);
void op_vtest(Cpu *c, const Insn *in);          /* in->op: element size (VPTEST 0); flags */
void op_vtest_256(Cpu *c, const Insn *in);
void op_vpermil(Cpu *c, const Insn *in);        /* in->op: element size, aux 1: imm8 */
void op_vpermil_256(Cpu *c, const Insn *in);
void op_vshufpd(Cpu *c, const Insn *in);
void op_vshufpd_256(Cpu *c, const Insn *in);
void op_vpmovx_256(Cpu *c, const Insn *in);     /* in->op: source size | 0x10 signed; aux: to */
void op_vpmovx_256_m(Cpu *c, const Insn *in);
void op_vmovmsk_256(Cpu *c, const Insn *in);    /* in->op: element size */
void op_vmovlhps_load_m(Cpu *c, const Insn *in); /* in->op: the half loaded */
void op_vmovhlps(Cpu *c, const Insn *in);
void op_vmovlhps(Cpu *c, const Insn *in);
void op_vmaskmov_load_m(Cpu *c, const Insn *in); /* in->op: element size */
void op_vmaskmov_load_256_m(Cpu *c, const Insn *in);
void op_vmaskmov_store_m(Cpu *c, const Insn *in);
void op_vmaskmov_store_256_m(Cpu *c, const Insn *in);
void op_vgather_m(Cpu *c, const Insn *in);     /* in->op: index size; osz: element */
void op_vgather_256_m(Cpu *c, const Insn *in);

/* f16c.c: VCVTPH2PS (source ModRM.rm), VCVTPS2PH (source ModRM.reg, destination rm) */
void op_vcvtph2ps(Cpu *c, const Insn *in);
void op_vcvtph2ps_m(Cpu *c, const Insn *in);
void op_vcvtph2ps_256(Cpu *c, const Insn *in);
void op_vcvtph2ps_256_m(Cpu *c, const Insn *in);
void op_vcvtps2ph(Cpu *c, const Insn *in);
void op_vcvtps2ph_m(Cpu *c, const Insn *in);
void op_vcvtps2ph_256(Cpu *c, const Insn *in);
void op_vcvtps2ph_256_m(Cpu *c, const Insn *in);

/* fma.c: in->op = order << 4 | kind, in->aux = shape (sse_fp.h) */
void op_vfma(Cpu *c, const Insn *in);
void op_vfma_m(Cpu *c, const Insn *in);
void op_vfma_256(Cpu *c, const Insn *in);
void op_vfma_256_m(Cpu *c, const Insn *in);

#endif
