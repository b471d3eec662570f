/* decode_sse4.c: SSSE3, SSE4.1 and SSE4.2 forms of the 0F 38 and 0F 3A maps: tables from
 * (opcode, mandatory prefix) to the register and memory handlers, and CRC32.
 *
 * Only the 66-prefixed XMM forms exist here; the SSSE3 MMX forms (no prefix) stay empty
 * and so become guest SIGILLs. AES-NI and PCLMULQDQ are decode_crypto.c's; MOVBE (0F 38
 * F0/F1 without F2) is decode_0f.c's. */
#include <stddef.h>

#include "../interp/cpuid.h"
#include "../interp/ops_sse4.h"
#include "sse_forms.h"

/* An imm8 and a general-register operand whose width REX.W gives (in->osz 4 or 8). */
#define RM_WI(name) {op_##name, op_##name##_m, SF_IMM8 | SF_W}

static const SseForm map_0f38[256][4] = {
  /* SSSE3 */
  [0x00] = {[P66] = RM(pshufb)},
  [0x01] = {[P66] = RM(phaddw)},
  [0x02] = {[P66] = RM(phaddd)},
  [0x03] = {[P66] = RM(phaddsw)},
  [0x04] = {[P66] = RM(pmaddubsw)},
  [0x05] = {[P66] = RM(phsubw)},
  [0x06] = {[P66] = RM(phsubd)},
  [0x07] = {[P66] = RM(phsubsw)},
  [0x08] = {[P66] = RM(psignb)},
  [0x09] = {[P66] = RM(psignw)},
  [0x0A] = {[P66] = RM(psignd)},
  [0x0B] = {[P66] = RM(pmulhrsw)},
  [0x1C] = {[P66] = RM(pabsb)},
  [0x1D] = {[P66] = RM(pabsw)},
  [0x1E] = {[P66] = RM(pabsd)},
  /* SSE4.1 */
  [0x10] = {[P66] = RM(pblendvb)},
  [0x14] = {[P66] = RM(blendvps)},
  [0x15] = {[P66] = RM(blendvpd)},
  [0x17] = {[P66] = RM(ptest)},
  [0x20] = {[P66] = RM(pmovsxbw)},
  [0x21] = {[P66] = RM(pmovsxbd)},
  [0x22] = {[P66] = RM(pmovsxbq)},
  [0x23] = {[P66] = RM(pmovsxwd)},
  [0x24] = {[P66] = RM(pmovsxwq)},
  [0x25] = {[P66] = RM(pmovsxdq)},
  [0x28] = {[P66] = RM(pmuldq)},
  [0x29] = {[P66] = RM(pcmpeqq)},
  [0x2A] = {[P66] = MEM(movntdqa_m)},
  [0x2B] = {[P66] = RM(packusdw)},
  [0x30] = {[P66] = RM(pmovzxbw)},
  [0x31] = {[P66] = RM(pmovzxbd)},
  [0x32] = {[P66] = RM(pmovzxbq)},
  [0x33] = {[P66] = RM(pmovzxwd)},
  [0x34] = {[P66] = RM(pmovzxwq)},
  [0x35] = {[P66] = RM(pmovzxdq)},
  [0x38] = {[P66] = RM(pminsb)},
  [0x39] = {[P66] = RM(pminsd)},
  [0x3A] = {[P66] = RM(pminuw)},
  [0x3B] = {[P66] = RM(pminud)},
  [0x3C] = {[P66] = RM(pmaxsb)},
  [0x3D] = {[P66] = RM(pmaxsd)},
  [0x3E] = {[P66] = RM(pmaxuw)},
  [0x3F] = {[P66] = RM(pmaxud)},
  [0x40] = {[P66] = RM(pmulld)},
  [0x41] = {[P66] = RM(phminposuw)},
  /* SSE4.2 */
  [0x37] = {[P66] = RM(pcmpgtq)},
};

static const SseForm map_0f3a[256][4] = {
  /* SSE4.1 */
  [0x08] = {[P66] = RM_I(roundps)},
  [0x09] = {[P66] = RM_I(roundpd)},
  [0x0A] = {[P66] = RM_I(roundss)},
  [0x0B] = {[P66] = RM_I(roundsd)},
  [0x0C] = {[P66] = RM_I(blendps)},
  [0x0D] = {[P66] = RM_I(blendpd)},
  [0x0E] = {[P66] = RM_I(pblendw)},
  [0x14] = {[P66] = RM_I(pextrb)},
  [0x15] = {[P66] = RM_I(pextrw_rm)},
  [0x16] = {[P66] = RM_WI(pextrd)},
  [0x17] = {[P66] = RM_I(extractps)},
  [0x20] = {[P66] = RM_I(pinsrb)},
  [0x21] = {[P66] = RM_I(insertps)},
  [0x22] = {[P66] = RM_WI(pinsrd)},
  [0x40] = {[P66] = RM_I(dpps)},
  [0x41] = {[P66] = RM_I(dppd)},
  [0x42] = {[P66] = RM_I(mpsadbw)},
  /* SSSE3 */
  [0x0F] = {[P66] = RM_I(palignr)},
  /* SSE4.2 */
  [0x60] = {[P66] = RM_WI(pcmpestrm)},
  [0x61] = {[P66] = RM_WI(pcmpestri)},
  [0x62] = {[P66] = RM_I(pcmpistrm)},
  [0x63] = {[P66] = RM_I(pcmpistri)},
};

const SseForm *sse4_form(unsigned map, uint8_t opcode, unsigned prefix) {
  return map == MAP_0F38 ? &map_0f38[opcode][prefix] : &map_0f3a[opcode][prefix];
}

/* F2 [REX.W] 0F 38 F0 /r: CRC32 r32/r64, r/m8 (byte registers: AH..BH without REX);
 * F2 [66|REX.W] 0F 38 F1 /r: CRC32 r32/r64, r/m16/32/64. in->aux is the source size. */
static bool decode_crc32(DecodeCtx *d, Insn *in) {
  bool byte_source = d->opcode == 0xF0;
  decode_modrm(d, in, byte_source);
  in->reg = (uint8_t)(d->modrm_reg | (d->rex_r ? 8 : 0)); /* never AH..BH */
  in->osz = d->rex_w ? 8 : 4;
  in->aux = byte_source ? 1 : d->rex_w ? 8 : d->p66 ? 2 : 4;
  in->fn = in->mem ? op_crc32_m : op_crc32;
  return true;
}

/* The CPUID feature an instruction of these maps belongs to. */
static CpuFeature feature_of(unsigned map, uint8_t op) {
  if (map == MAP_0F38) {
    if (op <= 0x0B || (op >= 0x1C && op <= 0x1E)) return CPU_FEATURE_SSSE3;
    if (op == 0x37 || op == 0xF0 || op == 0xF1) return CPU_FEATURE_SSE42;
    return CPU_FEATURE_SSE41;
  }
  if (op == 0x0F) return CPU_FEATURE_SSSE3;
  if (op >= 0x60 && op <= 0x63) return CPU_FEATURE_SSE42;
  return CPU_FEATURE_SSE41;
}

bool decode_sse4(DecodeCtx *d, Insn *in) {
  unsigned pfx = sse_mandatory_prefix(d);
  /* --cpu may have taken the feature away: its instructions are then #UD. */
  if (!cpu_feature_enabled(d->model, feature_of(d->map, d->opcode))) return false;
  if (d->map == MAP_0F38 && (d->opcode == 0xF0 || d->opcode == 0xF1))
    return pfx == PF2 && decode_crc32(d, in);
  return sse_decode_form(d, in, sse4_form(d->map, d->opcode, pfx));
}
