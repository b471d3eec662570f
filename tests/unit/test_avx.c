/* test_avx.c: the VEX forms x64emu has of AVX and AVX2 (both vector lengths) against the
 * host CPU: random registers (the YMM upper halves included), VEX.vvvv sources, 2- and
 * 3-byte VEX prefixes, memory operands, unmasked floating-point exceptions and
 * misaligned operands of the aligned moves; VZEROUPPER and VZEROALL; and the --cpu
 * switches that make them #UD. */
#define _GNU_SOURCE /* ucontext register names for the native side */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

/* The host CPU is the oracle: on other hosts there is nothing to compare with. */
#ifdef __x86_64__
#include <cpuid.h>

#include "sse_harness.h"
#include "dp_model.h"

#pragma GCC diagnostic ignored "-Woverride-init"
#define OP1(o) .opc = {o}, .nopc = 1
#define OP2(o) .opc[1] = o, .nopc = 2 /* after OP1's 0x38 or 0x3A: the map */
/* A VEX form with a vvvv source, xmm/ymm or memory, no alignment needed. */
#define VX(n, p, o, l, ...) {.name = n, .pfx = p, OP1(o), .modrm = MR_BOTH, .ext = -1, \
                             .vals = VAL_INT, .vex = 1, .vex_l = l, ##__VA_ARGS__}
/* Both lengths. */
#define V2(n, p, o, ...) VX(n, p, o, 0, ##__VA_ARGS__), VX(n " ymm", p, o, 1, ##__VA_ARGS__)
/* Moves: no vvvv. */
#define VM(n, p, o, ...) V2(n, p, o, .vex_nv = 1, ##__VA_ARGS__)

static const Form int_forms[] = {
  V2("vpand", 0x66, 0xDB), V2("vpandn", 0x66, 0xDF), V2("vpor", 0x66, 0xEB),
  V2("vpxor", 0x66, 0xEF), V2("vandps", 0, 0x54), V2("vandpd", 0x66, 0x54),
  V2("vandnps", 0, 0x55), V2("vandnpd", 0x66, 0x55), V2("vorps", 0, 0x56),
  V2("vorpd", 0x66, 0x56), V2("vxorps", 0, 0x57), V2("vxorpd", 0x66, 0x57),
  V2("vpcmpeqb", 0x66, 0x74), V2("vpcmpeqw", 0x66, 0x75), V2("vpcmpeqd", 0x66, 0x76),
  V2("vpcmpgtb", 0x66, 0x64), V2("vpcmpgtw", 0x66, 0x65), V2("vpcmpgtd", 0x66, 0x66),
  V2("vpaddb", 0x66, 0xFC), V2("vpaddw", 0x66, 0xFD), V2("vpaddd", 0x66, 0xFE),
  V2("vpaddq", 0x66, 0xD4), V2("vpsubb", 0x66, 0xF8), V2("vpsubw", 0x66, 0xF9),
  V2("vpsubd", 0x66, 0xFA), V2("vpsubq", 0x66, 0xFB),
  V2("vpaddusb", 0x66, 0xDC), V2("vpaddusw", 0x66, 0xDD), V2("vpsubusb", 0x66, 0xD8),
  V2("vpsubusw", 0x66, 0xD9), V2("vpaddsb", 0x66, 0xEC), V2("vpaddsw", 0x66, 0xED),
  V2("vpsubsb", 0x66, 0xE8), V2("vpsubsw", 0x66, 0xE9),
  V2("vpminub", 0x66, 0xDA), V2("vpmaxub", 0x66, 0xDE), V2("vpminsw", 0x66, 0xEA),
  V2("vpmaxsw", 0x66, 0xEE), V2("vpavgb", 0x66, 0xE0), V2("vpavgw", 0x66, 0xE3),
  V2("vpsadbw", 0x66, 0xF6), V2("vpmullw", 0x66, 0xD5), V2("vpmulhw", 0x66, 0xE5),
  V2("vpmulhuw", 0x66, 0xE4), V2("vpmuludq", 0x66, 0xF4), V2("vpmaddwd", 0x66, 0xF5),
  V2("vpunpcklbw", 0x66, 0x60), V2("vpunpcklwd", 0x66, 0x61),
  V2("vpunpckldq", 0x66, 0x62), V2("vpunpcklqdq", 0x66, 0x6C),
  V2("vpunpckhbw", 0x66, 0x68), V2("vpunpckhwd", 0x66, 0x69),
  V2("vpunpckhdq", 0x66, 0x6A), V2("vpunpckhqdq", 0x66, 0x6D),
  V2("vpacksswb", 0x66, 0x63), V2("vpackuswb", 0x66, 0x67), V2("vpackssdw", 0x66, 0x6B),
  V2("vunpcklps", 0, 0x14), V2("vunpcklpd", 0x66, 0x14), V2("vunpckhps", 0, 0x15),
  V2("vunpckhpd", 0x66, 0x15), V2("vshufps", 0, 0xC6, .imm8 = 1),
  V2("vpshufd", 0x66, 0x70, .imm8 = 1, .vex_nv = 1), V2("vpshufhw", 0xF3, 0x70, .imm8 = 1, .vex_nv = 1),
  V2("vpshuflw", 0xF2, 0x70, .imm8 = 1, .vex_nv = 1),
  /* shifts by a register or memory count, and by an immediate (into vvvv) */
  V2("vpsllw", 0x66, 0xF1, .vals = VAL_SHIFT), V2("vpslld", 0x66, 0xF2, .vals = VAL_SHIFT),
  V2("vpsllq", 0x66, 0xF3, .vals = VAL_SHIFT), V2("vpsrlw", 0x66, 0xD1, .vals = VAL_SHIFT),
  V2("vpsrld", 0x66, 0xD2, .vals = VAL_SHIFT), V2("vpsrlq", 0x66, 0xD3, .vals = VAL_SHIFT),
  V2("vpsraw", 0x66, 0xE1, .vals = VAL_SHIFT), V2("vpsrad", 0x66, 0xE2, .vals = VAL_SHIFT),
  V2("vpsrlw imm", 0x66, 0x71, .ext = 2, .imm8 = 1, .modrm = MR_REG),
  V2("vpsraw imm", 0x66, 0x71, .ext = 4, .imm8 = 1, .modrm = MR_REG),
  V2("vpsllw imm", 0x66, 0x71, .ext = 6, .imm8 = 1, .modrm = MR_REG),
  V2("vpsrld imm", 0x66, 0x72, .ext = 2, .imm8 = 1, .modrm = MR_REG),
  V2("vpsrad imm", 0x66, 0x72, .ext = 4, .imm8 = 1, .modrm = MR_REG),
  V2("vpslld imm", 0x66, 0x72, .ext = 6, .imm8 = 1, .modrm = MR_REG),
  V2("vpsrlq imm", 0x66, 0x73, .ext = 2, .imm8 = 1, .modrm = MR_REG),
  V2("vpsrldq", 0x66, 0x73, .ext = 3, .imm8 = 1, .modrm = MR_REG),
  V2("vpsllq imm", 0x66, 0x73, .ext = 6, .imm8 = 1, .modrm = MR_REG),
  V2("vpslldq", 0x66, 0x73, .ext = 7, .imm8 = 1, .modrm = MR_REG),
  /* SSSE3, SSE4.1, SSE4.2 */
  V2("vpshufb", 0x66, 0x38, OP2(0x00)), V2("vphaddw", 0x66, 0x38, OP2(0x01)),
  V2("vphaddd", 0x66, 0x38, OP2(0x02)), V2("vphaddsw", 0x66, 0x38, OP2(0x03)),
  V2("vpmaddubsw", 0x66, 0x38, OP2(0x04)), V2("vphsubw", 0x66, 0x38, OP2(0x05)),
  V2("vphsubd", 0x66, 0x38, OP2(0x06)), V2("vphsubsw", 0x66, 0x38, OP2(0x07)),
  V2("vpsignb", 0x66, 0x38, OP2(0x08)), V2("vpsignw", 0x66, 0x38, OP2(0x09)),
  V2("vpsignd", 0x66, 0x38, OP2(0x0A)), V2("vpmulhrsw", 0x66, 0x38, OP2(0x0B)),
  V2("vpabsb", 0x66, 0x38, OP2(0x1C), .vex_nv = 1), V2("vpabsw", 0x66, 0x38, OP2(0x1D), .vex_nv = 1),
  V2("vpabsd", 0x66, 0x38, OP2(0x1E), .vex_nv = 1),
  V2("vpmuldq", 0x66, 0x38, OP2(0x28)), V2("vpcmpeqq", 0x66, 0x38, OP2(0x29)),
  V2("vpackusdw", 0x66, 0x38, OP2(0x2B)), V2("vpcmpgtq", 0x66, 0x38, OP2(0x37)),
  V2("vpminsb", 0x66, 0x38, OP2(0x38)), V2("vpminsd", 0x66, 0x38, OP2(0x39)),
  V2("vpminuw", 0x66, 0x38, OP2(0x3A)), V2("vpminud", 0x66, 0x38, OP2(0x3B)),
  V2("vpmaxsb", 0x66, 0x38, OP2(0x3C)), V2("vpmaxsd", 0x66, 0x38, OP2(0x3D)),
  V2("vpmaxuw", 0x66, 0x38, OP2(0x3E)), V2("vpmaxud", 0x66, 0x38, OP2(0x3F)),
  V2("vpmulld", 0x66, 0x38, OP2(0x40)),
  V2("vpalignr", 0x66, 0x3A, OP2(0x0F), .imm8 = 1), V2("vpblendw", 0x66, 0x3A, OP2(0x0E), .imm8 = 1),
  V2("vptest", 0x66, 0x38, OP2(0x17), .vex_nv = 1),
  /* broadcasts */
  V2("vpbroadcastb", 0x66, 0x38, OP2(0x78), .vex_nv = 1), V2("vpbroadcastw", 0x66, 0x38, OP2(0x79), .vex_nv = 1),
  V2("vpbroadcastd", 0x66, 0x38, OP2(0x58), .vex_nv = 1), V2("vpbroadcastq", 0x66, 0x38, OP2(0x59), .vex_nv = 1),
  V2("vbroadcastss", 0x66, 0x38, OP2(0x18), .vex_nv = 1),
  VX("vbroadcastsd", 0x66, 0x38, 1, OP2(0x19), .vex_nv = 1),
  VX("vbroadcastf128", 0x66, 0x38, 1, OP2(0x1A), .vex_nv = 1, .modrm = MR_MEM),
  VX("vbroadcasti128", 0x66, 0x38, 1, OP2(0x5A), .vex_nv = 1, .modrm = MR_MEM),
  /* lanes and permutes (VEX.256 only) */
  VX("vinsertf128", 0x66, 0x3A, 1, OP2(0x18), .imm8 = 1), VX("vinserti128", 0x66, 0x3A, 1, OP2(0x38), .imm8 = 1),
  VX("vextractf128", 0x66, 0x3A, 1, OP2(0x19), .imm8 = 1, .vex_nv = 1),
  VX("vextracti128", 0x66, 0x3A, 1, OP2(0x39), .imm8 = 1, .vex_nv = 1),
  VX("vperm2f128", 0x66, 0x3A, 1, OP2(0x06), .imm8 = 1), VX("vperm2i128", 0x66, 0x3A, 1, OP2(0x46), .imm8 = 1),
  VX("vpermq", 0x66, 0x3A, 1, OP2(0x00), .imm8 = 1, .rexw = 1, .vex_nv = 1),
  VX("vpermpd", 0x66, 0x3A, 1, OP2(0x01), .imm8 = 1, .rexw = 1, .vex_nv = 1),
  VX("vpermd", 0x66, 0x38, 1, OP2(0x36)), VX("vpermps", 0x66, 0x38, 1, OP2(0x16)),
  /* blends, variable shifts, widening moves, permutes within lanes */
  V2("vpblendd", 0x66, 0x3A, OP2(0x02), .imm8 = 1), V2("vblendps", 0x66, 0x3A, OP2(0x0C), .imm8 = 1),
  V2("vblendpd", 0x66, 0x3A, OP2(0x0D), .imm8 = 1),
  V2("vpblendvb", 0x66, 0x3A, OP2(0x4C), .imm8 = 1), V2("vblendvps", 0x66, 0x3A, OP2(0x4A), .imm8 = 1),
  V2("vblendvpd", 0x66, 0x3A, OP2(0x4B), .imm8 = 1),
  V2("vpsllvd", 0x66, 0x38, OP2(0x47), .vals = VAL_SHIFT), V2("vpsllvq", 0x66, 0x38, OP2(0x47), .rexw = 1, .vals = VAL_SHIFT),
  V2("vpsrlvd", 0x66, 0x38, OP2(0x45), .vals = VAL_SHIFT), V2("vpsrlvq", 0x66, 0x38, OP2(0x45), .rexw = 1, .vals = VAL_SHIFT),
  V2("vpsravd", 0x66, 0x38, OP2(0x46), .vals = VAL_SHIFT),
  V2("vpmovsxbw", 0x66, 0x38, OP2(0x20), .vex_nv = 1), V2("vpmovsxbd", 0x66, 0x38, OP2(0x21), .vex_nv = 1),
  V2("vpmovsxbq", 0x66, 0x38, OP2(0x22), .vex_nv = 1), V2("vpmovsxwd", 0x66, 0x38, OP2(0x23), .vex_nv = 1),
  V2("vpmovsxwq", 0x66, 0x38, OP2(0x24), .vex_nv = 1), V2("vpmovsxdq", 0x66, 0x38, OP2(0x25), .vex_nv = 1),
  V2("vpmovzxbw", 0x66, 0x38, OP2(0x30), .vex_nv = 1), V2("vpmovzxbd", 0x66, 0x38, OP2(0x31), .vex_nv = 1),
  V2("vpmovzxbq", 0x66, 0x38, OP2(0x32), .vex_nv = 1), V2("vpmovzxwd", 0x66, 0x38, OP2(0x33), .vex_nv = 1),
  V2("vpmovzxwq", 0x66, 0x38, OP2(0x34), .vex_nv = 1), V2("vpmovzxdq", 0x66, 0x38, OP2(0x35), .vex_nv = 1),
  V2("vpermilps", 0x66, 0x38, OP2(0x0C)), V2("vpermilpd", 0x66, 0x38, OP2(0x0D)),
  V2("vpermilps imm", 0x66, 0x3A, OP2(0x04), .imm8 = 1, .vex_nv = 1),
  V2("vpermilpd imm", 0x66, 0x3A, OP2(0x05), .imm8 = 1, .vex_nv = 1),
  V2("vshufpd", 0x66, 0xC6, .imm8 = 1),
  V2("vtestps", 0x66, 0x38, OP2(0x0E), .vex_nv = 1), V2("vtestpd", 0x66, 0x38, OP2(0x0F), .vex_nv = 1),
  VX("vphminposuw", 0x66, 0x38, 0, OP2(0x41), .vex_nv = 1), V2("vmpsadbw", 0x66, 0x3A, OP2(0x42), .imm8 = 1),
  /* inserts and extracts (VEX.W1 ignored where it is for the SSE forms' REX.W) */
  VX("vpinsrb", 0x66, 0x3A, 0, OP2(0x20), .imm8 = 1, .rm_gpr = 1),
  VX("vpinsrw", 0x66, 0xC4, 0, .imm8 = 1, .rm_gpr = 1),
  VX("vpinsrd", 0x66, 0x3A, 0, OP2(0x22), .imm8 = 1, .rm_gpr = 1),
  VX("vpinsrq", 0x66, 0x3A, 0, OP2(0x22), .imm8 = 1, .rm_gpr = 1, .rexw = 1),
  VX("vinsertps", 0x66, 0x3A, 0, OP2(0x21), .imm8 = 1),
  VX("vpextrb", 0x66, 0x3A, 0, OP2(0x14), .imm8 = 1, .rm_gpr = 1, .vex_nv = 1),
  VX("vpextrb W1", 0x66, 0x3A, 0, OP2(0x14), .imm8 = 1, .rm_gpr = 1, .vex_nv = 1, .rexw = 1),
  VX("vpextrw", 0x66, 0x3A, 0, OP2(0x15), .imm8 = 1, .rm_gpr = 1, .vex_nv = 1),
  VX("vpextrw r32", 0x66, 0xC5, 0, .imm8 = 1, .reg_gpr = 1, .modrm = MR_REG, .vex_nv = 1),
  VX("vpextrd", 0x66, 0x3A, 0, OP2(0x16), .imm8 = 1, .rm_gpr = 1, .vex_nv = 1),
  VX("vpextrq", 0x66, 0x3A, 0, OP2(0x16), .imm8 = 1, .rm_gpr = 1, .vex_nv = 1, .rexw = 1),
  VX("vextractps", 0x66, 0x3A, 0, OP2(0x17), .imm8 = 1, .rm_gpr = 1, .vex_nv = 1),
  /* string compares (VEX.128; the M forms clear YMM0's upper half) */
  VX("vpcmpestri", 0x66, 0x3A, 0, OP2(0x61), .imm8 = 1, .vex_nv = 1, .avoid_gprs = 1u << RAX | 1u << RDX),
  VX("vpcmpestri W1", 0x66, 0x3A, 0, OP2(0x61), .imm8 = 1, .vex_nv = 1, .rexw = 1, .avoid_gprs = 1u << RAX | 1u << RDX),
  VX("vpcmpestrm", 0x66, 0x3A, 0, OP2(0x60), .imm8 = 1, .vex_nv = 1, .avoid_gprs = 1u << RAX | 1u << RDX),
  VX("vpcmpistri", 0x66, 0x3A, 0, OP2(0x63), .imm8 = 1, .vex_nv = 1),
  VX("vpcmpistrm", 0x66, 0x3A, 0, OP2(0x62), .imm8 = 1, .vex_nv = 1),
};

static const Form move_forms[] = {
  VM("vmovups load", 0, 0x10), VM("vmovupd load", 0x66, 0x10), VM("vmovdqu load", 0xF3, 0x6F),
  VM("vmovaps load", 0, 0x28, .align16 = 1), VM("vmovapd load", 0x66, 0x28, .align16 = 1),
  VM("vmovdqa load", 0x66, 0x6F, .align16 = 1),
  VM("vmovups store", 0, 0x11), VM("vmovupd store", 0x66, 0x11), VM("vmovdqu store", 0xF3, 0x7F),
  VM("vmovaps store", 0, 0x29, .align16 = 1), VM("vmovapd store", 0x66, 0x29, .align16 = 1),
  VM("vmovdqa store", 0x66, 0x7F, .align16 = 1),
  VM("vmovntps", 0, 0x2B, .align16 = 1, .modrm = MR_MEM),
  VM("vmovntpd", 0x66, 0x2B, .align16 = 1, .modrm = MR_MEM),
  VM("vmovntdq", 0x66, 0xE7, .align16 = 1, .modrm = MR_MEM),
  /* VEX.128 only: VMOVD, VMOVQ, VPMOVMSKB (also VEX.256) */
  VX("vmovd xmm, r/m32", 0x66, 0x6E, 0, .rm_gpr = 1, .vex_nv = 1),
  VX("vmovq xmm, r/m64", 0x66, 0x6E, 0, .rm_gpr = 1, .rexw = 1, .vex_nv = 1),
  VX("vmovd r/m32, xmm", 0x66, 0x7E, 0, .rm_gpr = 1, .vex_nv = 1),
  VX("vmovq r/m64, xmm", 0x66, 0x7E, 0, .rm_gpr = 1, .rexw = 1, .vex_nv = 1),
  VX("vmovq xmm, xmm/m64", 0xF3, 0x7E, 0, .vex_nv = 1),
  VX("vmovq xmm/m64, xmm", 0x66, 0xD6, 0, .vex_nv = 1),
  V2("vpmovmskb", 0x66, 0xD7, .modrm = MR_REG, .reg_gpr = 1, .vex_nv = 1),
  V2("vmovmskps", 0, 0x50, .modrm = MR_REG, .reg_gpr = 1, .vex_nv = 1),
  V2("vmovmskpd", 0x66, 0x50, .modrm = MR_REG, .reg_gpr = 1, .vex_nv = 1),
  /* halves, duplicates */
  VX("vmovlps load", 0, 0x12, 0, .modrm = MR_MEM), VX("vmovlpd load", 0x66, 0x12, 0, .modrm = MR_MEM),
  VX("vmovhps load", 0, 0x16, 0, .modrm = MR_MEM), VX("vmovhpd load", 0x66, 0x16, 0, .modrm = MR_MEM),
  VX("vmovhlps", 0, 0x12, 0, .modrm = MR_REG), VX("vmovlhps", 0, 0x16, 0, .modrm = MR_REG),
  VX("vmovlps store", 0, 0x13, 0, .modrm = MR_MEM, .vex_nv = 1),
  VX("vmovhpd store", 0x66, 0x17, 0, .modrm = MR_MEM, .vex_nv = 1),
  VM("vmovddup", 0xF2, 0x12), VM("vmovsldup", 0xF3, 0x12), VM("vmovshdup", 0xF3, 0x16),
  VM("vlddqu", 0xF2, 0xF0, .modrm = MR_MEM),
  VM("vmovntdqa", 0x66, 0x38, OP2(0x2A), .modrm = MR_MEM, .align16 = 1),
  VX("vmaskmovdqu", 0x66, 0xF7, 0, .modrm = MR_REG, .rdi_mem = 1, .vex_nv = 1),
  /* masked loads and stores (the mask in vvvv) */
  V2("vmaskmovps load", 0x66, 0x38, OP2(0x2C), .modrm = MR_MEM),
  V2("vmaskmovpd load", 0x66, 0x38, OP2(0x2D), .modrm = MR_MEM),
  V2("vmaskmovps store", 0x66, 0x38, OP2(0x2E), .modrm = MR_MEM),
  V2("vmaskmovpd store", 0x66, 0x38, OP2(0x2F), .modrm = MR_MEM),
  V2("vpmaskmovd load", 0x66, 0x38, OP2(0x8C), .modrm = MR_MEM),
  V2("vpmaskmovq load", 0x66, 0x38, OP2(0x8C), .modrm = MR_MEM, .rexw = 1),
  V2("vpmaskmovd store", 0x66, 0x38, OP2(0x8E), .modrm = MR_MEM),
  V2("vpmaskmovq store", 0x66, 0x38, OP2(0x8E), .modrm = MR_MEM, .rexw = 1),
};

/* Packed forms in both lengths, scalar ones with VEX.L 0 and 1 (it is ignored). */
#define VFP(n, o)                                                                   \
  V2("v" n "ps", 0, o, .vals = VAL_F32), V2("v" n "pd", 0x66, o, .vals = VAL_F64), \
  V2("v" n "ss", 0xF3, o, .vals = VAL_F32), V2("v" n "sd", 0xF2, o, .vals = VAL_F64)
static const Form float_forms[] = {
  VFP("add", 0x58), VFP("sub", 0x5C), VFP("mul", 0x59), VFP("div", 0x5E),
  VFP("min", 0x5D), VFP("max", 0x5F),
  V2("vsqrtps", 0, 0x51, .vals = VAL_F32, .vex_nv = 1),
  V2("vsqrtpd", 0x66, 0x51, .vals = VAL_F64, .vex_nv = 1),
  V2("vsqrtss", 0xF3, 0x51, .vals = VAL_F32), V2("vsqrtsd", 0xF2, 0x51, .vals = VAL_F64),
  /* compares with the 32 predicates (and imm8 bits 7:5 set at random) */
  V2("vcmpps", 0, 0xC2, .vals = VAL_F32, .imm8 = 1), V2("vcmppd", 0x66, 0xC2, .vals = VAL_F64, .imm8 = 1),
  V2("vcmpss", 0xF3, 0xC2, .vals = VAL_F32, .imm8 = 1), V2("vcmpsd", 0xF2, 0xC2, .vals = VAL_F64, .imm8 = 1),
  V2("vcomiss", 0, 0x2F, .vals = VAL_F32, .vex_nv = 1), V2("vcomisd", 0x66, 0x2F, .vals = VAL_F64, .vex_nv = 1),
  V2("vucomiss", 0, 0x2E, .vals = VAL_F32, .vex_nv = 1), V2("vucomisd", 0x66, 0x2E, .vals = VAL_F64, .vex_nv = 1),
  /* scalar moves: registers merge with vvvv, loads have none */
  VX("vmovss xmm", 0xF3, 0x10, 0, .vals = VAL_F32, .modrm = MR_REG),
  VX("vmovss load", 0xF3, 0x10, 0, .vals = VAL_F32, .modrm = MR_MEM, .vex_nv = 1),
  VX("vmovsd xmm", 0xF2, 0x10, 0, .vals = VAL_F64, .modrm = MR_REG),
  VX("vmovsd load", 0xF2, 0x10, 0, .vals = VAL_F64, .modrm = MR_MEM, .vex_nv = 1),
  VX("vmovss xmm (11)", 0xF3, 0x11, 0, .vals = VAL_F32, .modrm = MR_REG),
  VX("vmovss store", 0xF3, 0x11, 0, .vals = VAL_F32, .modrm = MR_MEM, .vex_nv = 1),
  VX("vmovsd xmm (11)", 0xF2, 0x11, 0, .vals = VAL_F64, .modrm = MR_REG),
  VX("vmovsd store", 0xF2, 0x11, 0, .vals = VAL_F64, .modrm = MR_MEM, .vex_nv = 1),
  /* conversions */
  VX("vcvtsi2ss r32", 0xF3, 0x2A, 0, .rm_gpr = 1), VX("vcvtsi2ss r64", 0xF3, 0x2A, 0, .rm_gpr = 1, .rexw = 1),
  VX("vcvtsi2sd r32", 0xF2, 0x2A, 0, .rm_gpr = 1), VX("vcvtsi2sd r64", 0xF2, 0x2A, 0, .rm_gpr = 1, .rexw = 1),
  VX("vcvtss2si", 0xF3, 0x2D, 0, .reg_gpr = 1, .vals = VAL_F32, .vex_nv = 1),
  VX("vcvttss2si r64", 0xF3, 0x2C, 0, .reg_gpr = 1, .rexw = 1, .vals = VAL_F32, .vex_nv = 1),
  VX("vcvtsd2si r64", 0xF2, 0x2D, 0, .reg_gpr = 1, .rexw = 1, .vals = VAL_F64, .vex_nv = 1),
  VX("vcvttsd2si", 0xF2, 0x2C, 0, .reg_gpr = 1, .vals = VAL_F64, .vex_nv = 1),
  V2("vcvtss2sd", 0xF3, 0x5A, .vals = VAL_F32), V2("vcvtsd2ss", 0xF2, 0x5A, .vals = VAL_F64),
  V2("vcvtdq2ps", 0, 0x5B, .vex_nv = 1), V2("vcvtps2dq", 0x66, 0x5B, .vals = VAL_F32, .vex_nv = 1),
  V2("vcvttps2dq", 0xF3, 0x5B, .vals = VAL_F32, .vex_nv = 1),
  V2("vcvtps2pd", 0, 0x5A, .vals = VAL_F32, .vex_nv = 1),
  V2("vcvtpd2ps", 0x66, 0x5A, .vals = VAL_F64, .vex_nv = 1),
  V2("vcvtdq2pd", 0xF3, 0xE6, .vex_nv = 1),
  V2("vcvtpd2dq", 0xF2, 0xE6, .vals = VAL_F64, .vex_nv = 1),
  V2("vcvttpd2dq", 0x66, 0xE6, .vals = VAL_F64, .vex_nv = 1),
  /* SSE3 and SSE4.1 arithmetic */
  V2("vhaddps", 0xF2, 0x7C, .vals = VAL_F32), V2("vhaddpd", 0x66, 0x7C, .vals = VAL_F64),
  V2("vhsubps", 0xF2, 0x7D, .vals = VAL_F32), V2("vhsubpd", 0x66, 0x7D, .vals = VAL_F64),
  V2("vaddsubps", 0xF2, 0xD0, .vals = VAL_F32), V2("vaddsubpd", 0x66, 0xD0, .vals = VAL_F64),
  V2("vroundps", 0x66, 0x3A, OP2(0x08), .imm8 = 1, .vals = VAL_F32, .vex_nv = 1),
  V2("vroundpd", 0x66, 0x3A, OP2(0x09), .imm8 = 1, .vals = VAL_F64, .vex_nv = 1),
  V2("vroundss", 0x66, 0x3A, OP2(0x0A), .imm8 = 1, .vals = VAL_F32),
  V2("vroundsd", 0x66, 0x3A, OP2(0x0B), .imm8 = 1, .vals = VAL_F64),
  V2("vdpps", 0x66, 0x3A, OP2(0x40), .imm8 = 1, .vals = VAL_F32),
  VX("vdppd", 0x66, 0x3A, 0, OP2(0x41), .imm8 = 1, .vals = VAL_F64),
};


/* The reciprocal estimates: the host tier runs the host's (the portable tier's own
 * table is held to the SDM's bound by test_sse_float). */
static const Form estimate_forms[] = {
  V2("vrcpps", 0, 0x53, .vals = VAL_F32, .vex_nv = 1), V2("vrsqrtps", 0, 0x52, .vals = VAL_F32, .vex_nv = 1),
  V2("vrcpss", 0xF3, 0x53, .vals = VAL_F32), V2("vrsqrtss", 0xF3, 0x52, .vals = VAL_F32),
};

/* F16C */
static const Form f16c_forms[] = {
  V2("vcvtph2ps", 0x66, 0x38, OP2(0x13), .vex_nv = 1),
  V2("vcvtps2ph", 0x66, 0x3A, OP2(0x1D), .imm8 = 1, .vals = VAL_F32, .vex_nv = 1),
};

/* FMA3: every kind, order and shape (the scalar ones with VEX.L 0 and 1) */
static const Form fma_forms[] = {
  V2("vfmaddsub132ps", 0x66, 0x38, OP2(0x96), .vals = VAL_F32), V2("vfmaddsub132pd", 0x66, 0x38, OP2(0x96), .vals = VAL_F64, .rexw = 1),
  V2("vfmsubadd132ps", 0x66, 0x38, OP2(0x97), .vals = VAL_F32), V2("vfmsubadd132pd", 0x66, 0x38, OP2(0x97), .vals = VAL_F64, .rexw = 1),
  V2("vfmadd132ps", 0x66, 0x38, OP2(0x98), .vals = VAL_F32), V2("vfmadd132pd", 0x66, 0x38, OP2(0x98), .vals = VAL_F64, .rexw = 1),
  V2("vfmadd132ss", 0x66, 0x38, OP2(0x99), .vals = VAL_F32), V2("vfmadd132sd", 0x66, 0x38, OP2(0x99), .vals = VAL_F64, .rexw = 1),
  V2("vfmsub132ps", 0x66, 0x38, OP2(0x9A), .vals = VAL_F32), V2("vfmsub132pd", 0x66, 0x38, OP2(0x9A), .vals = VAL_F64, .rexw = 1),
  V2("vfmsub132ss", 0x66, 0x38, OP2(0x9B), .vals = VAL_F32), V2("vfmsub132sd", 0x66, 0x38, OP2(0x9B), .vals = VAL_F64, .rexw = 1),
  V2("vfnmadd132ps", 0x66, 0x38, OP2(0x9C), .vals = VAL_F32), V2("vfnmadd132pd", 0x66, 0x38, OP2(0x9C), .vals = VAL_F64, .rexw = 1),
  V2("vfnmadd132ss", 0x66, 0x38, OP2(0x9D), .vals = VAL_F32), V2("vfnmadd132sd", 0x66, 0x38, OP2(0x9D), .vals = VAL_F64, .rexw = 1),
  V2("vfnmsub132ps", 0x66, 0x38, OP2(0x9E), .vals = VAL_F32), V2("vfnmsub132pd", 0x66, 0x38, OP2(0x9E), .vals = VAL_F64, .rexw = 1),
  V2("vfnmsub132ss", 0x66, 0x38, OP2(0x9F), .vals = VAL_F32), V2("vfnmsub132sd", 0x66, 0x38, OP2(0x9F), .vals = VAL_F64, .rexw = 1),
  V2("vfmaddsub213ps", 0x66, 0x38, OP2(0xA6), .vals = VAL_F32), V2("vfmaddsub213pd", 0x66, 0x38, OP2(0xA6), .vals = VAL_F64, .rexw = 1),
  V2("vfmsubadd213ps", 0x66, 0x38, OP2(0xA7), .vals = VAL_F32), V2("vfmsubadd213pd", 0x66, 0x38, OP2(0xA7), .vals = VAL_F64, .rexw = 1),
  V2("vfmadd213ps", 0x66, 0x38, OP2(0xA8), .vals = VAL_F32), V2("vfmadd213pd", 0x66, 0x38, OP2(0xA8), .vals = VAL_F64, .rexw = 1),
  V2("vfmadd213ss", 0x66, 0x38, OP2(0xA9), .vals = VAL_F32), V2("vfmadd213sd", 0x66, 0x38, OP2(0xA9), .vals = VAL_F64, .rexw = 1),
  V2("vfmsub213ps", 0x66, 0x38, OP2(0xAA), .vals = VAL_F32), V2("vfmsub213pd", 0x66, 0x38, OP2(0xAA), .vals = VAL_F64, .rexw = 1),
  V2("vfmsub213ss", 0x66, 0x38, OP2(0xAB), .vals = VAL_F32), V2("vfmsub213sd", 0x66, 0x38, OP2(0xAB), .vals = VAL_F64, .rexw = 1),
  V2("vfnmadd213ps", 0x66, 0x38, OP2(0xAC), .vals = VAL_F32), V2("vfnmadd213pd", 0x66, 0x38, OP2(0xAC), .vals = VAL_F64, .rexw = 1),
  V2("vfnmadd213ss", 0x66, 0x38, OP2(0xAD), .vals = VAL_F32), V2("vfnmadd213sd", 0x66, 0x38, OP2(0xAD), .vals = VAL_F64, .rexw = 1),
  V2("vfnmsub213ps", 0x66, 0x38, OP2(0xAE), .vals = VAL_F32), V2("vfnmsub213pd", 0x66, 0x38, OP2(0xAE), .vals = VAL_F64, .rexw = 1),
  V2("vfnmsub213ss", 0x66, 0x38, OP2(0xAF), .vals = VAL_F32), V2("vfnmsub213sd", 0x66, 0x38, OP2(0xAF), .vals = VAL_F64, .rexw = 1),
  V2("vfmaddsub231ps", 0x66, 0x38, OP2(0xB6), .vals = VAL_F32), V2("vfmaddsub231pd", 0x66, 0x38, OP2(0xB6), .vals = VAL_F64, .rexw = 1),
  V2("vfmsubadd231ps", 0x66, 0x38, OP2(0xB7), .vals = VAL_F32), V2("vfmsubadd231pd", 0x66, 0x38, OP2(0xB7), .vals = VAL_F64, .rexw = 1),
  V2("vfmadd231ps", 0x66, 0x38, OP2(0xB8), .vals = VAL_F32), V2("vfmadd231pd", 0x66, 0x38, OP2(0xB8), .vals = VAL_F64, .rexw = 1),
  V2("vfmadd231ss", 0x66, 0x38, OP2(0xB9), .vals = VAL_F32), V2("vfmadd231sd", 0x66, 0x38, OP2(0xB9), .vals = VAL_F64, .rexw = 1),
  V2("vfmsub231ps", 0x66, 0x38, OP2(0xBA), .vals = VAL_F32), V2("vfmsub231pd", 0x66, 0x38, OP2(0xBA), .vals = VAL_F64, .rexw = 1),
  V2("vfmsub231ss", 0x66, 0x38, OP2(0xBB), .vals = VAL_F32), V2("vfmsub231sd", 0x66, 0x38, OP2(0xBB), .vals = VAL_F64, .rexw = 1),
  V2("vfnmadd231ps", 0x66, 0x38, OP2(0xBC), .vals = VAL_F32), V2("vfnmadd231pd", 0x66, 0x38, OP2(0xBC), .vals = VAL_F64, .rexw = 1),
  V2("vfnmadd231ss", 0x66, 0x38, OP2(0xBD), .vals = VAL_F32), V2("vfnmadd231sd", 0x66, 0x38, OP2(0xBD), .vals = VAL_F64, .rexw = 1),
  V2("vfnmsub231ps", 0x66, 0x38, OP2(0xBE), .vals = VAL_F32), V2("vfnmsub231pd", 0x66, 0x38, OP2(0xBE), .vals = VAL_F64, .rexw = 1),
  V2("vfnmsub231ss", 0x66, 0x38, OP2(0xBF), .vals = VAL_F32), V2("vfnmsub231sd", 0x66, 0x38, OP2(0xBF), .vals = VAL_F64, .rexw = 1),
};

#define COUNT(a) (sizeof(a) / sizeof(a)[0])

/* The emulated machine has AVX, AVX2, FMA and F16C (the default model); the host must
 * have them to be the oracle, else every test is skipped. */
static bool host_is_oracle;
static int setup(void **state) {
  (void)state;
  unsigned a, b, c = 0, d; /* F16C is CPUID.1:ECX bit 29: Clang 14's builtin knows no "f16c" */
  host_is_oracle = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
                   __get_cpuid(1, &a, &b, &c, &d) && (c & bit_F16C);
  harness_avx = host_is_oracle;
  cpuid_reset_features(&test_machine()->model);
  return 0;
}
#define NEEDS_HOST_AVX2()         \
  do {                            \
    (void)state;                  \
    if (!host_is_oracle) skip();  \
  } while (0)

static void test_avx_integer_forms_match_host(void **state) {
  NEEDS_HOST_AVX2();
  assert_int_equal(run_forms(int_forms, COUNT(int_forms), 0, NULL), 0);
}

static void test_avx_move_forms_match_host(void **state) {
  NEEDS_HOST_AVX2();
  assert_int_equal(run_forms(move_forms, COUNT(move_forms), 0, NULL), 0);
}

static void test_avx_float_forms_match_host(void **state) {
  NEEDS_HOST_AVX2();
  static const enum FpTier tiers[] = {FP_TIER_HOST, FP_TIER_PORTABLE};
  unsigned bad = 0;
  for (unsigned t = 0; t < COUNT(tiers); t++) {
    test_machine()->fp_tier = tiers[t];
    model_rule = dot_product_nan_rule; /* VDPPS, VDPPD with NaN operands */
    bad += run_forms(float_forms, COUNT(float_forms), 0, NULL);
    /* Unmasked exceptions: one #XM for both lanes of a 256-bit form, with the flags of
     * both (overflow and underflow too: the trapping response of sse_fp_soft.c). */
    bad += run_forms(float_forms, COUNT(float_forms), MXCSR_FLAGS, NULL);
    model_rule = NULL;
  }
  test_machine()->fp_tier = FP_TIER_HOST;
  bad += run_forms(estimate_forms, COUNT(estimate_forms), 0, NULL);
  assert_int_equal(bad, 0);
}

/* FMA3 and F16C through both tiers (the host tier runs the host's own instructions),
 * with unmasked exceptions too. */
static void test_avx_fma_forms_match_host(void **state) {
  NEEDS_HOST_AVX2();
  static const enum FpTier tiers[] = {FP_TIER_HOST, FP_TIER_PORTABLE};
  unsigned bad = 0;
  for (unsigned t = 0; t < COUNT(tiers); t++) {
    test_machine()->fp_tier = tiers[t];
    bad += run_forms(fma_forms, COUNT(fma_forms), 0, NULL);
    bad += run_forms(fma_forms, COUNT(fma_forms), MXCSR_FLAGS, NULL);
    bad += run_forms(f16c_forms, COUNT(f16c_forms), 0, NULL);
    bad += run_forms(f16c_forms, COUNT(f16c_forms), MXCSR_FLAGS, NULL);
  }
  test_machine()->fp_tier = FP_TIER_HOST;
  assert_int_equal(bad, 0);
}

/* VMOVAPS and friends need 16 (VEX.128) or 32 (VEX.256) aligned operands, #GP
 * otherwise; the other forms take any address. */
static void test_avx_misaligned_operands_fault_like_host(void **state) {
  NEEDS_HOST_AVX2();
  unsigned bad = run_forms_misaligned(move_forms, COUNT(move_forms), NULL) +
                 run_forms_misaligned(int_forms, COUNT(int_forms), NULL);
  assert_int_equal(bad, 0);
}

/* VZEROUPPER (c5 f8 77) and VZEROALL (c5 fc 77) on random YMM registers. */
static void test_avx_vzeroupper_and_vzeroall_match_host(void **state) {
  NEEDS_HOST_AVX2();
  harness_begin();
  static const uint8_t insns[][3] = {{0xC5, 0xF8, 0x77}, {0xC5, 0xFC, 0x77}};
  static const Form any = VX("registers", 0, 0x10, 1, .vex_nv = 1);
  unsigned bad = 0;
  for (unsigned k = 0; k < COUNT(insns); k++)
    for (unsigned it = 0; it < 100; it++) {
      MachineState before, nat, emu;
      uint8_t unused[16];
      (void)make_case(&any, &before, 0, unused);
      nat = emu = before;
      Outcome on = native_run(&nat, insns[k], 3), oe = emu_run(&emu, insns[k], 3);
      if (!states_match(&nat, &on, &emu, &oe, NULL, NULL, 0, F_ARITH | F_DF)) {
        print_bytes("bytes", insns[k], 3);
        bad++;
        break;
      }
    }
  assert_int_equal(bad, 0);
}

/* ---- gathers: VSIB operands built here (make_case knows no vector index) ---- */

/* Two pages, the second inaccessible: the gathered elements come from the first, or, in
 * the fault cases, some of them from the second. */
static uint8_t *gather_pages;

/* The case at hand, for the rules below. */
static struct {
  unsigned reg, mask, esz, n, width;
  bool store;
  uint8_t *at;
} vcase;

/* The top byte of element i (size esz) of register r's 256 bits, whose top bit selects
 * the element in a mask; and whether it is set. */
static uint8_t *element_top(MachineState *s, unsigned r, unsigned i, unsigned esz) {
  unsigned at = i * esz + esz - 1;
  return at < 16 ? (uint8_t *)&s->xmm[r] + at : (uint8_t *)&s->ymmh[r] + at - 16;
}
static bool element_selected(const MachineState *s, unsigned r, unsigned i, unsigned esz) {
  unsigned at = i * esz + esz - 1;
  return (at < 16 ? (const uint8_t *)&s->xmm[r] + at : (const uint8_t *)&s->ymmh[r] + at - 16)[0] & 0x80;
}

/* A gather that faults (docs/cpu-model.md): the model leaves the mask as whole elements,
 * all ones where one was still to be gathered, and a VEX.128 form has cleared its upper
 * half, and the destination's once an element was gathered. Another vendor's CPU leaves
 * the pending elements' mask as it was: their top bit tells them apart. */
static bool gather_fault_rule(const Form *f, const uint8_t *insn, unsigned len,
                              const MachineState *before, MachineState *expect, Outcome *o) {
  (void)f, (void)insn, (void)len;
  if (o->sig != SIGSEGV) return false;
  bool gathered = false;
  for (unsigned i = 0; i < vcase.width / vcase.esz; i++) {
    bool pending = element_selected(expect, vcase.mask, i, vcase.esz);
    gathered |= i < vcase.n && !pending && element_selected(before, vcase.mask, i, vcase.esz);
    memset(element_top(expect, vcase.mask, i, vcase.esz) + 1 - vcase.esz, pending ? 0xFF : 0, vcase.esz);
  }
  if (vcase.width == 16) {
    memset(&expect->ymmh[vcase.mask], 0, sizeof expect->ymmh[0]);
    if (gathered) memset(&expect->ymmh[vcase.reg], 0, sizeof expect->ymmh[0]);
  }
  return true;
}

/* One random case of the gather at opcode opc with VEX.W w and VEX.L l; true if the
 * interpreter ends where the host does (registers, partly done elements and the fault). */
static bool gather_case(uint8_t opc, bool w, bool l, bool fault) {
  unsigned isz = opc & 1 ? 8 : 4, esz = w ? 8 : 4, n = (l ? 32 : 16) / (isz > esz ? isz : esz);
  MachineState before;
  uint8_t unused[16];
  static const Form any = VX("registers", 0, 0x10, 1, .vex_nv = 1);
  (void)make_case(&any, &before, 0, unused);
  unsigned dest = rnd_below(16), index, mask, base, scale = rnd_below(4);
  do index = rnd_below(16); while (index == dest);
  do mask = rnd_below(16); while (mask == dest || mask == index);
  do base = rnd_below(16); while (base == RSP);
  int8_t disp = (int8_t)rnd();
  uint8_t *mid = gather_pages + 2048;
  before.r[base] = (uint64_t)(uintptr_t)mid - (uint64_t)(int64_t)disp;
  uint8_t *x = (uint8_t *)&before.xmm[index], *xh = (uint8_t *)&before.ymmh[index];
  for (unsigned i = 0; i < n; i++) { /* offsets from mid, element-aligned or not */
    int64_t off = (int64_t)rnd_below(2048 - 8) - 2040;
    if (rnd_below(2)) off = -off - 8;
    if (fault && rnd_below(3) == 0) off = 2048 + (int64_t)rnd_below(64); /* the second page */
    int64_t ix = off >> scale;
    uint8_t *at = i * isz < 16 ? x + i * isz : xh + i * isz - 16;
    memcpy(at, &ix, isz);
  }
  for (unsigned i = 0; i < n; i++) {
    uint8_t *top = element_top(&before, mask, i, esz);
    *top = (uint8_t)((*top & 0x7F) | (rnd_below(4) ? 0x80 : 0));
  }
  uint8_t insn[8] = {0xC4, (uint8_t)((dest < 8) << 7 | (index < 8) << 6 | (base < 8) << 5 | 2),
                     (uint8_t)(w << 7 | (~mask & 15) << 3 | l << 2 | 1), opc,
                     (uint8_t)(0x44 | (dest & 7) << 3), (uint8_t)(scale << 6 | (index & 7) << 3 | (base & 7)),
                     (uint8_t)disp};
  MachineState nat = before, emu = before;
  Outcome on = native_run(&nat, insn, 7), oe = emu_run(&emu, insn, 7);
  vcase.reg = dest, vcase.mask = mask, vcase.esz = esz, vcase.n = n, vcase.width = l ? 32 : 16;
  static const Form named = VX("gather", 0, 0x10, 1, .vex_nv = 1);
  bool ok = apply_model(&named, insn, 7, &before, &nat, &on) &&
            states_match(&nat, &on, &emu, &oe, NULL, NULL, 0, F_ARITH | F_DF);
  if (!ok) print_bytes("differs", insn, 7);
  return ok;
}

/* Every gather, both lengths and element sizes, from mapped memory and with elements on
 * an inaccessible page (the fault after the elements before it, as the CPU leaves it). */
static void test_avx_gathers_match_host(void **state) {
  NEEDS_HOST_AVX2();
  harness_begin();
  if (!gather_pages) {
    gather_pages = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(gather_pages != MAP_FAILED);
    for (unsigned i = 0; i < 4096; i++) gather_pages[i] = (uint8_t)rnd();
    assert_int_equal(mprotect(gather_pages + 4096, 4096, PROT_NONE), 0);
  }
  unsigned bad = 0, cases = diff_iterations() / 10;
  model_rule = gather_fault_rule;
  for (uint8_t opc = 0x90; opc <= 0x93; opc++)
    for (unsigned form = 0; form < 4; form++)
      for (unsigned it = 0; it < cases && bad < 5; it++)
        bad += !gather_case(opc, form & 1, form >> 1, it & 1);
  model_rule = NULL;
  model_report("  gathers that fault");
  assert_int_equal(bad, 0);
}

/* A masked store that faults (docs/cpu-model.md): the model checks the span of the
 * selected elements at its first byte, then its last, so where the first is writable the
 * fault names the last. Another vendor's CPU names the first byte it may not write. */
static bool masked_store_fault_rule(const Form *f, const uint8_t *insn, unsigned len,
                                    const MachineState *before, MachineState *expect, Outcome *o) {
  (void)f, (void)insn, (void)len, (void)expect;
  if (!vcase.store || o->sig != SIGSEGV) return false;
  unsigned n = vcase.width / vcase.esz, first = n, last = 0;
  for (unsigned i = 0; i < n; i++)
    if (element_selected(before, vcase.mask, i, vcase.esz)) {
      if (first == n) first = i;
      last = i;
    }
  uint8_t *start = vcase.at + first * vcase.esz, *end = vcase.at + last * vcase.esz + vcase.esz - 1;
  o->addr = (uint64_t)(uintptr_t)(start < gather_pages + 4096 ? end : start);
  return true;
}

/* The masked moves with their operand across the end of the accessible page: elements
 * whose mask bit is clear do not fault there, the others do, a store writing nothing. */
static bool maskmov_case(uint8_t opc, bool w, bool l) {
  MachineState before;
  uint8_t unused[16];
  static const Form any = VX("registers", 0, 0x10, 1, .vex_nv = 1);
  (void)make_case(&any, &before, 0, unused);
  unsigned reg = rnd_below(16), mask = rnd_below(16), base, size = (opc & 1) || w ? 8 : 4;
  if (opc == 0x8C || opc == 0x8E) size = w ? 8 : 4;
  do base = rnd_below(16); while (base == RSP);
  unsigned width = l ? 32 : 16, over = size * rnd_below(width / size + 1); /* bytes past the page */
  uint8_t *at = gather_pages + 4096 - width + over;
  int8_t disp = (int8_t)rnd();
  before.r[base] = (uint64_t)(uintptr_t)at - (uint64_t)(int64_t)disp;
  for (unsigned i = 0; i < width / size; i++) {
    uint8_t *top = element_top(&before, mask, i, size);
    *top = (uint8_t)((*top & 0x7F) | (rnd_below(3) ? 0 : 0x80));
  }
  uint8_t insn[7] = {0xC4, (uint8_t)((reg < 8) << 7 | 0x40 | (base < 8) << 5 | 2),
                     (uint8_t)(w << 7 | (~mask & 15) << 3 | l << 2 | 1), opc,
                     (uint8_t)(0x40 | (reg & 7) << 3 | (base & 7)), (uint8_t)disp};
  unsigned len = 6;
  if ((base & 7) == RSP) { /* r12: a SIB byte */
    insn[4] = (uint8_t)(0x44 | (reg & 7) << 3);
    insn[5] = 0x24;
    insn[6] = (uint8_t)disp;
    len = 7;
  }
  uint8_t page_before[64], page_native[64];
  memcpy(page_before, gather_pages + 4096 - 64, 64);
  MachineState nat = before, emu = before;
  Outcome on = native_run(&nat, insn, len);
  memcpy(page_native, gather_pages + 4096 - 64, 64);
  memcpy(gather_pages + 4096 - 64, page_before, 64);
  Outcome oe = emu_run(&emu, insn, len);
  vcase.mask = mask, vcase.esz = size, vcase.width = width, vcase.at = at;
  vcase.store = opc == 0x2E || opc == 0x2F || opc == 0x8E;
  static const Form named = VX("masked store", 0, 0x10, 1, .vex_nv = 1);
  bool ok = apply_model(&named, insn, len, &before, &nat, &on) && states_match(&nat, &on, &emu, &oe, page_native, gather_pages + 4096 - 64, 64, F_ARITH | F_DF);
  if (!ok) print_bytes("differs", insn, len);
  return ok;
}

static void test_avx_masked_moves_at_a_page_end_match_host(void **state) {
  NEEDS_HOST_AVX2();
  harness_begin();
  assert_non_null(gather_pages); /* made by the gather test, which runs first */
  static const uint8_t opcodes[] = {0x2C, 0x2D, 0x2E, 0x2F, 0x8C, 0x8E};
  unsigned bad = 0;
  model_rule = masked_store_fault_rule;
  for (unsigned k = 0; k < sizeof opcodes; k++)
    for (unsigned form = 0; form < 4; form++) {
      bool w = form & 1;
      if (opcodes[k] < 0x8C && w) continue; /* VMASKMOVPS/PD are W0 only */
      for (unsigned it = 0; it < 300 && bad < 5; it++) bad += !maskmov_case(opcodes[k], w, form >> 1);
    }
  model_rule = NULL;
  model_report("  masked stores that fault");
  assert_int_equal(bad, 0);
}

static bool decodes(const uint8_t *bytes, unsigned len) {
  Insn in;
  uint64_t fault_at = 0;
  return decode_insn(&test_machine()->dec, (uint64_t)(uintptr_t)bytes, &in, &fault_at) == (int)len;
}

/* --cpu=-avx2 leaves the VEX.256 integer forms #UD and the rest; -avx takes all of them
 * (and AVX2) away, and so does x86-64-v2. Also #UD: a vvvv register where the form has
 * none. */
static void test_avx_cpu_options_make_forms_undefined(void **state) {
  (void)state;
  static const uint8_t vpaddd_xmm[] = {0xC5, 0xF1, 0xFE, 0xC2}, vpaddd_ymm[] = {0xC5, 0xF5, 0xFE, 0xC2},
                       vaddps_ymm[] = {0xC5, 0xF4, 0x58, 0xC2}, vzeroupper[] = {0xC5, 0xF8, 0x77},
                       vmovups_vvvv[] = {0xC5, 0xF0, 0x10, 0xC2};
  CpuModel *m = &test_machine()->model;
  assert_true(decodes(vpaddd_xmm, 4) && decodes(vpaddd_ymm, 4) && decodes(vaddps_ymm, 4));
  assert_false(decodes(vmovups_vvvv, 4));
  /* VPGATHERDD xmm1, [rax + xmm2*1], xmm3; then with the index xmm1 (the destination),
   * with the mask xmm2 (the index), and with no SIB: #UD */
  static const uint8_t gather_ok[] = {0xC4, 0xE2, 0x61, 0x90, 0x0C, 0x10},
                       gather_dest_index[] = {0xC4, 0xE2, 0x61, 0x90, 0x0C, 0x08},
                       gather_mask_index[] = {0xC4, 0xE2, 0x69, 0x90, 0x0C, 0x10},
                       gather_no_sib[] = {0xC4, 0xE2, 0x61, 0x90, 0x08};
  assert_true(decodes(gather_ok, 6));
  assert_false(decodes(gather_dest_index, 6) || decodes(gather_mask_index, 6) || decodes(gather_no_sib, 5));
  assert_null(cpuid_apply_option(m, "-avx2"));
  assert_true(decodes(vpaddd_xmm, 4) && decodes(vaddps_ymm, 4) && decodes(vzeroupper, 3));
  assert_false(decodes(vpaddd_ymm, 4));
  assert_null(cpuid_apply_option(m, "+avx2,-avx"));
  assert_false(decodes(vpaddd_xmm, 4) || decodes(vpaddd_ymm, 4) || decodes(vzeroupper, 3));
  assert_int_equal(cpuid_query(m, 7, 0).ebx & (1u << 5), 0);
  assert_non_null(cpuid_apply_option(m, "+avx2")); /* needs avx */
  cpuid_reset_features(m);
  assert_true(decodes(vaddps_ymm, 4) && decodes(vpaddd_ymm, 4));
  assert_null(cpuid_apply_option(m, "x86-64-v2"));
  assert_false(decodes(vaddps_ymm, 4) || decodes(vpaddd_xmm, 4));
  cpuid_reset_features(m);
}

int main(void) {
  /* The run as on another vendor's host (tests/CMakeLists.txt) takes only the tests with
   * rules of the CPU model's. */
  const char *only = getenv("X64EMU_TEST_ONLY");
  if (only) cmocka_set_test_filter(only);
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_avx_integer_forms_match_host),
    cmocka_unit_test(test_avx_move_forms_match_host),
    cmocka_unit_test(test_avx_float_forms_match_host),
    cmocka_unit_test(test_avx_fma_forms_match_host),
    cmocka_unit_test(test_avx_misaligned_operands_fault_like_host),
    cmocka_unit_test(test_avx_vzeroupper_and_vzeroall_match_host),
    cmocka_unit_test(test_avx_gathers_match_host),
    cmocka_unit_test(test_avx_masked_moves_at_a_page_end_match_host),
    cmocka_unit_test(test_avx_cpu_options_make_forms_undefined),
  };
  return cmocka_run_group_tests(tests, setup, NULL);
}

#else
#include "needs_x86_64.h"
#endif
