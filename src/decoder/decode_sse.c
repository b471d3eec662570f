/* decode_sse.c: SSE forms of the 0F, 0F 38 and 0F 3A maps: a table from (opcode,
 * mandatory prefix) to the register and memory handlers, plus the ModRM groups.
 *
 * The mandatory prefix is the last F2/F3 if any, else 66, as the CPU takes it. A form
 * whose slot is empty (the MMX forms without a prefix among them) is not implemented
 * and becomes a guest SIGILL. */
#include <stddef.h>

#include "../interp/cpuid.h"
#include "../interp/ops_sse4.h"
#include "decode.h"
#include "sse_forms.h"

static const SseForm map_0f[256][4] = {
  [0x10] = {[NP] = RM(movu_load), [P66] = RM(movu_load), [PF3] = RM(movss), [PF2] = RM(movsd)},
  [0x11] = {[NP] = PAIR(mov128_to_rm, movu_store_m), [P66] = PAIR(mov128_to_rm, movu_store_m),
            [PF3] = PAIR(movss_to_rm, movss_store_m), [PF2] = PAIR(movsd_to_rm, movsd_store_m)},
  [0x12] = {[NP] = PAIR(movhlps, movlps_load_m), [P66] = MEM(movlps_load_m),
            [PF3] = RM(movsldup), [PF2] = RM(movddup)},
  [0x13] = {[NP] = MEM(movlps_store_m), [P66] = MEM(movlps_store_m)},
  [0x14] = {[NP] = RM(punpckldq), [P66] = RM(punpcklqdq)},   /* UNPCKLPS, UNPCKLPD */
  [0x15] = {[NP] = RM(punpckhdq), [P66] = RM(punpckhqdq)},   /* UNPCKHPS, UNPCKHPD */
  [0x16] = {[NP] = PAIR(movlhps, movhps_load_m), [P66] = MEM(movhps_load_m),
            [PF3] = RM(movshdup)},
  [0x17] = {[NP] = MEM(movhps_store_m), [P66] = MEM(movhps_store_m)},
  [0x28] = {[NP] = RM(mova_load), [P66] = RM(mova_load)},
  [0x29] = {[NP] = PAIR(mov128_to_rm, mova_store_m), [P66] = PAIR(mov128_to_rm, mova_store_m)},
  [0x2A] = {[PF3] = RM_W(cvtsi2ss), [PF2] = RM_W(cvtsi2sd)},
  [0x2B] = {[NP] = MEM(mova_store_m), [P66] = MEM(mova_store_m)}, /* MOVNTPS, MOVNTPD */
  [0x2C] = {[PF3] = RM_W(cvttss2si), [PF2] = RM_W(cvttsd2si)},
  [0x2D] = {[PF3] = RM_W(cvtss2si), [PF2] = RM_W(cvtsd2si)},
  [0x2E] = {[NP] = RM(ucomiss), [P66] = RM(ucomisd)},
  [0x2F] = {[NP] = RM(comiss), [P66] = RM(comisd)},
  [0x50] = {[NP] = REG(movmskps), [P66] = REG(movmskpd)},
  [0x51] = {[NP] = RM(sqrtps), [P66] = RM(sqrtpd), [PF3] = RM(sqrtss), [PF2] = RM(sqrtsd)},
  [0x52] = {[NP] = RM(rsqrtps), [PF3] = RM(rsqrtss)},
  [0x53] = {[NP] = RM(rcpps), [PF3] = RM(rcpss)},
  [0x54] = {[NP] = RM(pand), [P66] = RM(pand)},   /* ANDPS, ANDPD */
  [0x55] = {[NP] = RM(pandn), [P66] = RM(pandn)}, /* ANDNPS, ANDNPD */
  [0x56] = {[NP] = RM(por), [P66] = RM(por)},     /* ORPS, ORPD */
  [0x57] = {[NP] = RM(pxor), [P66] = RM(pxor)},   /* XORPS, XORPD */
  [0x58] = {[NP] = RM(addps), [P66] = RM(addpd), [PF3] = RM(addss), [PF2] = RM(addsd)},
  [0x59] = {[NP] = RM(mulps), [P66] = RM(mulpd), [PF3] = RM(mulss), [PF2] = RM(mulsd)},
  [0x5A] = {[NP] = RM(cvtps2pd), [P66] = RM(cvtpd2ps), [PF3] = RM(cvtss2sd), [PF2] = RM(cvtsd2ss)},
  [0x5B] = {[NP] = RM(cvtdq2ps), [P66] = RM(cvtps2dq), [PF3] = RM(cvttps2dq)},
  [0x5C] = {[NP] = RM(subps), [P66] = RM(subpd), [PF3] = RM(subss), [PF2] = RM(subsd)},
  [0x5D] = {[NP] = RM(minps), [P66] = RM(minpd), [PF3] = RM(minss), [PF2] = RM(minsd)},
  [0x5E] = {[NP] = RM(divps), [P66] = RM(divpd), [PF3] = RM(divss), [PF2] = RM(divsd)},
  [0x5F] = {[NP] = RM(maxps), [P66] = RM(maxpd), [PF3] = RM(maxss), [PF2] = RM(maxsd)},
  [0x60] = {[P66] = RM(punpcklbw)},
  [0x61] = {[P66] = RM(punpcklwd)},
  [0x62] = {[P66] = RM(punpckldq)},
  [0x63] = {[P66] = RM(packsswb)},
  [0x64] = {[P66] = RM(pcmpgtb)},
  [0x65] = {[P66] = RM(pcmpgtw)},
  [0x66] = {[P66] = RM(pcmpgtd)},
  [0x67] = {[P66] = RM(packuswb)},
  [0x68] = {[P66] = RM(punpckhbw)},
  [0x69] = {[P66] = RM(punpckhwd)},
  [0x6A] = {[P66] = RM(punpckhdq)},
  [0x6B] = {[P66] = RM(packssdw)},
  [0x6C] = {[P66] = RM(punpcklqdq)},
  [0x6D] = {[P66] = RM(punpckhqdq)},
  [0x6E] = {[P66] = RM_W(movd_to_xmm)},
  [0x6F] = {[P66] = RM(mova_load), [PF3] = RM(movu_load)},
  [0x70] = {[P66] = RM_I(pshufd), [PF3] = RM_I(pshufhw), [PF2] = RM_I(pshuflw)},
  [0x74] = {[P66] = RM(pcmpeqb)},
  [0x75] = {[P66] = RM(pcmpeqw)},
  [0x76] = {[P66] = RM(pcmpeqd)},
  [0x7C] = {[P66] = RM(haddpd), [PF2] = RM(haddps)},
  [0x7D] = {[P66] = RM(hsubpd), [PF2] = RM(hsubps)},
  [0x7E] = {[P66] = RM_W(movd_from_xmm), [PF3] = RM(movq_load)},
  [0x7F] = {[P66] = PAIR(mov128_to_rm, mova_store_m), [PF3] = PAIR(mov128_to_rm, movu_store_m)},
  [0xC2] = {[NP] = RM_I(cmpps), [P66] = RM_I(cmppd), [PF3] = RM_I(cmpss), [PF2] = RM_I(cmpsd)},
  [0xC3] = {[NP] = {NULL, op_movnti_m, SF_W}},
  [0xC4] = {[P66] = RM_I(pinsrw)},
  [0xC5] = {[P66] = {op_pextrw, NULL, SF_IMM8}},
  [0xC6] = {[NP] = RM_I(shufps), [P66] = RM_I(shufpd)},
  [0xD0] = {[P66] = RM(addsubpd), [PF2] = RM(addsubps)},
  [0xD1] = {[P66] = RM(psrlw)},
  [0xD2] = {[P66] = RM(psrld)},
  [0xD3] = {[P66] = RM(psrlq)},
  [0xD4] = {[P66] = RM(paddq)},
  [0xD5] = {[P66] = RM(pmullw)},
  [0xD6] = {[P66] = PAIR(movq_to_rm, movq_store_m)},
  [0xD7] = {[P66] = REG(pmovmskb)},
  [0xD8] = {[P66] = RM(psubusb)},
  [0xD9] = {[P66] = RM(psubusw)},
  [0xDA] = {[P66] = RM(pminub)},
  [0xDB] = {[P66] = RM(pand)},
  [0xDC] = {[P66] = RM(paddusb)},
  [0xDD] = {[P66] = RM(paddusw)},
  [0xDE] = {[P66] = RM(pmaxub)},
  [0xDF] = {[P66] = RM(pandn)},
  [0xE0] = {[P66] = RM(pavgb)},
  [0xE1] = {[P66] = RM(psraw)},
  [0xE2] = {[P66] = RM(psrad)},
  [0xE3] = {[P66] = RM(pavgw)},
  [0xE4] = {[P66] = RM(pmulhuw)},
  [0xE5] = {[P66] = RM(pmulhw)},
  [0xE6] = {[P66] = RM(cvttpd2dq), [PF3] = RM(cvtdq2pd), [PF2] = RM(cvtpd2dq)},
  [0xE7] = {[P66] = MEM(mova_store_m)}, /* MOVNTDQ */
  [0xE8] = {[P66] = RM(psubsb)},
  [0xE9] = {[P66] = RM(psubsw)},
  [0xEA] = {[P66] = RM(pminsw)},
  [0xEB] = {[P66] = RM(por)},
  [0xEC] = {[P66] = RM(paddsb)},
  [0xED] = {[P66] = RM(paddsw)},
  [0xEE] = {[P66] = RM(pmaxsw)},
  [0xEF] = {[P66] = RM(pxor)},
  [0xF0] = {[PF2] = MEM(movu_load_m)}, /* LDDQU */
  [0xF1] = {[P66] = RM(psllw)},
  [0xF2] = {[P66] = RM(pslld)},
  [0xF3] = {[P66] = RM(psllq)},
  [0xF4] = {[P66] = RM(pmuludq)},
  [0xF5] = {[P66] = RM(pmaddwd)},
  [0xF6] = {[P66] = RM(psadbw)},
  [0xF8] = {[P66] = RM(psubb)},
  [0xF9] = {[P66] = RM(psubw)},
  [0xFA] = {[P66] = RM(psubd)},
  [0xFB] = {[P66] = RM(psubq)},
  [0xFC] = {[P66] = RM(paddb)},
  [0xFD] = {[P66] = RM(paddw)},
  [0xFE] = {[P66] = RM(paddd)},
};

/* The SSE3 forms of the 0F map, which --cpu may take away (then #UD). */
static bool is_sse3(uint8_t op, unsigned pfx) {
  switch (op) {
  case 0x12: return pfx == PF3 || pfx == PF2; /* MOVSLDUP, MOVDDUP */
  case 0x16: return pfx == PF3;               /* MOVSHDUP */
  case 0x7C: case 0x7D: case 0xD0: return true;
  case 0xF0: return pfx == PF2;               /* LDDQU */
  default: return false;
  }
}

unsigned sse_mandatory_prefix(const DecodeCtx *d) {
  if (d->rep == 0xF3) return PF3;
  if (d->rep == 0xF2) return PF2;
  return d->p66 ? P66 : NP;
}

bool sse_decode_form(DecodeCtx *d, Insn *in, const SseForm *f) {
  if (!f || (!f->reg && !f->mem)) return false;
  decode_modrm(d, in, false);
  in->fn = in->mem ? f->mem : f->reg;
  if (!in->fn) return false;
  in->osz = (f->flags & SF_W) ? (d->rex_w ? 8 : 4) : 16;
  if (f->flags & SF_IMM8) in->imm = decode_imm(d, 1, 0) & 0xff;
  return true;
}

/* 66 0F 71/72/73 (groups 12..14): shifts of ModRM.rm by an immediate; ModRM.reg picks
 * the operation. Register operands only. */
static bool decode_shift_imm(DecodeCtx *d, Insn *in) {
  static const Handler by_reg[3][8] = {
    {[2] = op_psrlw_imm, [4] = op_psraw_imm, [6] = op_psllw_imm},
    {[2] = op_psrld_imm, [4] = op_psrad_imm, [6] = op_pslld_imm},
    {[2] = op_psrlq_imm, [3] = op_psrldq, [6] = op_psllq_imm, [7] = op_pslldq},
  };
  if (sse_mandatory_prefix(d) != P66) return false;
  decode_modrm(d, in, false);
  if (in->mem) return false;
  in->fn = by_reg[d->opcode - 0x71][d->modrm_reg];
  if (!in->fn) return false;
  in->imm = decode_imm(d, 1, 0) & 0xff;
  return true;
}

/* 0F AE (group 15). XSAVE and friends are absent (OSXSAVE is not advertised), as are
 * CLFLUSHOPT/CLWB. */
static bool decode_group15(DecodeCtx *d, Insn *in) {
  unsigned pfx = sse_mandatory_prefix(d);
  decode_modrm(d, in, false);
  unsigned r = d->modrm_reg;
  /* F3 forms: the FSGSBASE instructions, and INCSSP, which is #UD (not a NOP like
   * RDSSP) while shadow stacks are off: the host CPU agrees. */
  if (pfx != NP) return false;
  if (!in->mem) {
    static const Handler fences[8] = {[5] = op_lfence, [6] = op_mfence, [7] = op_sfence};
    in->fn = fences[r];
    return in->fn != NULL;
  }
  static const Handler mem_forms[8] = {op_fxsave, op_fxrstor, op_ldmxcsr, op_stmxcsr,
                                       [7] = op_clflush};
  in->fn = mem_forms[r];
  in->osz = d->rex_w ? 8 : 4;
  return in->fn != NULL;
}

/* 66 0F F7: MASKMOVDQU xmm, xmm stores through [rdi] (edi with 67), in DS or an
 * override. */
static bool decode_maskmovdqu(DecodeCtx *d, Insn *in) {
  if (sse_mandatory_prefix(d) != P66) return false;
  decode_modrm(d, in, false);
  if (in->mem) return false;
  in->base = RDI;
  in->index = REG_NONE;
  in->disp = 0;
  in->seg = d->seg;
  in->addr32 = d->p67;
  in->fn = op_maskmovdqu;
  return true;
}

bool decode_sse(DecodeCtx *d, Insn *in) {
  if (d->lock) return false;
  switch (d->map) {
  case MAP_0F:
    switch (d->opcode) {
    case 0x71: case 0x72: case 0x73: return decode_shift_imm(d, in);
    case 0xAE: return decode_group15(d, in);
    case 0xF7: return decode_maskmovdqu(d, in);
    default: {
      unsigned pfx = sse_mandatory_prefix(d);
      if (is_sse3(d->opcode, pfx) && !cpu_feature_enabled(d->model, CPU_FEATURE_SSE3)) return false;
      return sse_decode_form(d, in, &map_0f[d->opcode][pfx]);
    }
    }
  case MAP_0F38:
  case MAP_0F3A:
    return decode_crypto(d, in) || decode_sse4(d, in);
  default: return false;
  }
}
