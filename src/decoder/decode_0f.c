/* decode_0f.c: the general-purpose instructions of the 0F map (SSE forms are decode_sse's). */
#include "../interp/cpuid.h"
#include "../interp/ops_int.h"
#include "decode.h"

/* ModRM-carrying general-purpose form with the default 32-bit operand size. */
static bool gp(DecodeCtx *d, Insn *in, Handler fn) {
  in->osz = osz_default32(d);
  decode_modrm(d, in, false);
  in->fn = fn;
  return true;
}

bool decode_0f(DecodeCtx *d, Insn *in) {
  uint8_t op = d->opcode;
  if (d->map == MAP_0F38) {
    /* MOVBE (0F 38 F0/F1 without F2, which is CRC32). */
    if ((op == 0xF0 || op == 0xF1) && d->rep != 0xF2 && d->rep != 0xF3) {
      decode_modrm(d, in, false);
      if (!in->mem) return false;
      in->osz = osz_default32(d);
      in->aux = op & 1;
      in->fn = op_movbe;
      return true;
    }
    return false;
  }
  if (d->map != MAP_0F) return false;
  if (op >= 0x40 && op <= 0x4F) {
    in->op = op & 15;
    return gp(d, in, op_cmov);
  }
  if (op >= 0x80 && op <= 0x8F) {
    in->op = op & 15;
    in->imm = d->rip + d->len + decode_imm(d, 4, 0);
    in->fn = op_jcc;
    in->ends = 1;
    return true;
  }
  if (op >= 0x90 && op <= 0x9F) {
    in->op = op & 15;
    in->osz = 1;
    decode_modrm(d, in, true);
    in->fn = op_setcc;
    return true;
  }
  if (op >= 0xC8 && op <= 0xCF) {
    in->osz = osz_default32(d);
    in->reg = (uint8_t)decode_opreg(d, false);
    in->fn = op_bswap;
    return true;
  }
  switch (op) {
  case 0x05: in->fn = op_syscall; in->ends = 1; return true;
  case 0x0B: in->fn = op_ud2; in->ends = 1; return true;
  case 0x01: {
    uint8_t modrm = d->bytes[d->modrm_at];
    if (modrm == 0xF9) { in->fn = op_rdtscp; return true; }
    unsigned reg = (modrm >> 3) & 7;
    /* LGDT, LIDT, INVLPG (memory forms) and LMSW: system instructions, #GP at CPL 3. */
    if ((modrm >> 6 != 3 && (reg == 2 || reg == 3 || reg == 7)) || reg == 6) {
      in->fn = op_privileged;
      in->ends = 1;
      return true;
    }
    return false;
  }
  case 0x00: /* LLDT, LTR */
    if (((d->bytes[d->modrm_at] >> 3) & 7) != 2 && ((d->bytes[d->modrm_at] >> 3) & 7) != 3) return false;
    in->fn = op_privileged;
    in->ends = 1;
    return true;
  case 0x06: case 0x07: case 0x08: case 0x09: /* CLTS, SYSRET, INVD, WBINVD */
  case 0x20: case 0x21: case 0x22: case 0x23: /* MOV to and from control and debug registers */
  case 0x30: case 0x32: case 0x35:            /* WRMSR, RDMSR, SYSEXIT */
    in->fn = op_privileged;
    in->ends = 1;
    return true;
  case 0x0D: /* PREFETCHW and other hints */
  case 0x18: case 0x19: case 0x1A: case 0x1B: case 0x1C: case 0x1D: case 0x1E: case 0x1F:
    /* Hint NOPs (PREFETCHh, NOP Ev, ENDBR64, and with CET off RDSSP and friends). */
    in->fn = op_nop;
    return true;
  case 0x31: in->fn = op_rdtsc; return true;
  case 0xA2: in->fn = op_cpuid; return true;
  case 0xA3: in->op = 0; return gp(d, in, op_bt_rm_r);
  case 0xAB: in->op = 1; return gp(d, in, op_bt_rm_r);
  case 0xB3: in->op = 2; return gp(d, in, op_bt_rm_r);
  case 0xBB: in->op = 3; return gp(d, in, op_bt_rm_r);
  case 0xBA:
    gp(d, in, op_bt_rm_imm);
    if (d->modrm_reg < 4) return false;
    in->op = d->modrm_reg - 4;
    in->imm = decode_imm(d, 1, 0) & 0xff;
    return true;
  case 0xA4: case 0xAC:
    gp(d, in, op == 0xA4 ? op_shld : op_shrd);
    in->imm = decode_imm(d, 1, 0) & 0xff;
    return true;
  case 0xA5: case 0xAD:
    gp(d, in, op == 0xA5 ? op_shld : op_shrd);
    in->aux = 1;
    return true;
  case 0xAF: return gp(d, in, op_imul_r_rm);
  case 0xB0: case 0xB1:
    in->osz = op == 0xB0 ? 1 : osz_default32(d);
    decode_modrm(d, in, op == 0xB0);
    in->fn = op_cmpxchg;
    return true;
  case 0xC0: case 0xC1:
    in->osz = op == 0xC0 ? 1 : osz_default32(d);
    decode_modrm(d, in, op == 0xC0);
    in->fn = op_xadd;
    return true;
  case 0xB6: case 0xB7: case 0xBE: case 0xBF:
    in->osz = osz_default32(d);
    decode_modrm(d, in, !(op & 1));
    in->reg = (uint8_t)(d->modrm_reg | (d->rex_r ? 8 : 0)); /* the destination is never AH..BH */
    in->aux = (op & 1) ? 2 : 1;
    in->fn = op <= 0xB7 ? op_movzx : op_movsx;
    return true;
  case 0xB8:
    if (d->rep != 0xF3 || !cpu_feature_enabled(d->model, CPU_FEATURE_POPCNT)) return false;
    return gp(d, in, op_popcnt);
  case 0xBC: /* TZCNT is not advertised (no BMI1), so F3 0F BC runs as BSF */
    return gp(d, in, op_bsf);
  case 0xBD: /* without LZCNT, a CPU ignores the F3 and runs BSR */
    return gp(d, in, d->rep == 0xF3 && cpu_feature_enabled(d->model, CPU_FEATURE_LZCNT) ? op_lzcnt : op_bsr);
  case 0xC7:
    decode_modrm(d, in, false);
    if (d->modrm_reg == 1 && in->mem) {
      in->osz = d->rex_w ? 8 : 4;
      if (d->rex_w && !cpu_feature_enabled(d->model, CPU_FEATURE_CX16)) return false;
      in->fn = op_cmpxchg16b;
      return true;
    }
    return false;
  default:
    return false;
  }
}
