/* operands.c: a row's operands from the raw bytes: ModRM, SIB, displacement, immediates
 * and the operand size, as the row's shape and width say. */
#include "../interp/access.h"
#include "decode.h"
#include "table.h"

static unsigned operand_size(const DecodeCtx *d, unsigned width) {
  switch (width) {
  case W_B: return 1;
  case W_V: return d->rex_w ? 8 : d->p66 ? 2 : 4;
  case W_D64: return d->p66 && !d->rex_w ? 2 : 8;
  case W_Y: return d->rex_w ? 8 : 4;
  case W_X: return 16;
  case W_2: return 2;
  case W_4: return 4;
  case W_8: return 8;
  case W_10: return 10;
  default: return 0;
  }
}

/* The size of an "Iz" immediate: that of the operand, but at most 4 bytes (sign-extended
 * to 64 bits for REX.W). */
static unsigned iz(unsigned osz) { return osz < 4 ? osz : 4; }

/* A register number taken from the low three opcode bits plus REX.B. */
static unsigned opcode_register(const DecodeCtx *d, bool byte_regs) {
  unsigned r = (d->opcode & 7) | (d->rex_b ? 8 : 0);
  if (byte_regs && !d->rex && r >= 4 && r < 8) return REG_AH + r - 4;
  return r;
}

void decode_modrm(DecodeCtx *d, Insn *in, bool byte_regs, bool always_register) {
  const uint8_t *p = d->bytes + d->modrm_at;
  uint8_t modrm = *p++;
  d->mod = always_register ? 3 : modrm >> 6;
  d->modrm_reg = (modrm >> 3) & 7;
  d->modrm_rm = modrm & 7;
  unsigned reg = d->modrm_reg | (d->rex_r ? 8 : 0);
  if (byte_regs && !d->rex && reg >= 4 && reg < 8) reg = REG_AH + reg - 4;
  in->reg = (uint8_t)reg;
  in->base = in->index = REG_NONE;
  if (d->mod == 3) {
    unsigned rm = d->modrm_rm | (d->rex_b ? 8 : 0);
    if (byte_regs && !d->rex && rm >= 4 && rm < 8) rm = REG_AH + rm - 4;
    in->rm = (uint8_t)rm;
    in->mem = 0;
    return;
  }
  in->mem = 1;
  in->seg = d->seg;
  in->addr32 = d->p67;
  unsigned disp_size = d->mod == 1 ? 1 : d->mod == 2 ? 4 : 0;
  bool rip_relative = false;
  if (d->modrm_rm == 4) {
    uint8_t sib = *p++;
    unsigned base = sib & 7, index = ((sib >> 3) & 7) | (d->rex_x ? 8 : 0);
    in->scale = sib >> 6;
    if (index != RSP) in->index = (uint8_t)index;
    if (base == 5 && d->mod == 0) disp_size = 4;
    else in->base = (uint8_t)(base | (d->rex_b ? 8 : 0));
  } else if (d->modrm_rm == 5 && d->mod == 0) {
    disp_size = 4;
    rip_relative = true;
  } else {
    in->base = (uint8_t)(d->modrm_rm | (d->rex_b ? 8 : 0));
  }
  int64_t disp = 0;
  if (disp_size == 1) disp = (int8_t)p[0];
  else if (disp_size == 4) disp = (int32_t)(p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24);
  if (rip_relative) disp += (int64_t)(d->rip + d->len);
  in->disp = disp;
}

uint64_t decode_imm(const DecodeCtx *d, unsigned n, unsigned after) {
  const uint8_t *p = d->bytes + d->len - after - n;
  uint64_t v = 0;
  for (unsigned i = 0; i < n; i++) v |= (uint64_t)p[i] << (8 * i);
  return n >= 8 ? v : sign_extend(v, n);
}

bool shape_has_modrm(unsigned s) {
  switch (s) {
  case S_MODRM: case S_MODRM_EB: case S_MODRM_IB: case S_MODRM_UB: case S_MODRM_1:
  case S_MODRM_IZ: case S_MASKMOV: case S_X87: case S_MODRM_R: case S_VSIB:
    return true;
  default:
    return false;
  }
}

/* The bytes of a ModRM operand (ModRM, SIB, displacement) at bytes[at], or 0 when the
 * ModRM or SIB byte lies at or past avail. In 64-bit mode a 67 prefix changes no length:
 * 32-bit addresses take the same SIB and displacements. */
unsigned modrm_operand_length(const uint8_t *bytes, unsigned at, unsigned avail) {
  if (at >= avail) return 0;
  uint8_t modrm = bytes[at];
  unsigned mod = modrm >> 6, rm = modrm & 7, n = 1;
  if (mod == 3) return 1;
  if (rm == 4) {
    if (at + 1 >= avail) return 0;
    if (mod == 0 && (bytes[at + 1] & 7) == 5) n += 4;
    n++;
  }
  if (mod == 1) n += 1;
  else if (mod == 2 || (mod == 0 && rm == 5)) n += 4;
  return n;
}

unsigned shape_length(const DecodeCtx *d, const Form *f) {
  unsigned osz = operand_size(d, f->width), imm, modrm = 0;
  switch (f->shape) {
  case S_NONE: case S_OPREG: case S_OPREG_RAX: imm = 0; break;
  case S_IB: case S_UB: case S_REL8: imm = 1; break;
  case S_UW: imm = 2; break;
  case S_ENTER: imm = 3; break;
  case S_REL32: imm = 4; break;
  case S_IZ: case S_ACC_IZ: imm = iz(osz); break;
  case S_OPREG_IMM: imm = osz; break;
  case S_MOFFS: imm = d->p67 ? 4 : 8; break;
  case S_MODRM: case S_MODRM_EB: case S_MODRM_1: case S_MASKMOV: case S_X87: case S_VSIB: imm = 0; break;
  case S_MODRM_IB: case S_MODRM_UB: imm = 1; break;
  case S_MODRM_IZ: imm = iz(osz); break;
  case S_MODRM_R:
    return d->modrm_at < d->len ? d->modrm_at + 1 : 0;
  default: return 0;
  }
  if (shape_has_modrm(f->shape) && !(modrm = modrm_operand_length(d->bytes, d->modrm_at, d->len)))
    return 0;
  return d->modrm_at + modrm + imm;
}

void decode_operands(DecodeCtx *d, Insn *in, const Form *f) {
  bool byte_regs = f->width == W_B;
  uint64_t next = d->rip + d->len;
  in->osz = (uint8_t)operand_size(d, f->width);
  in->vreg = d->vvvv;
  if (shape_has_modrm(f->shape))
    decode_modrm(d, in, byte_regs || f->shape == S_MODRM_EB, f->shape == S_MODRM_R);
  switch (f->shape) {
  case S_MODRM_EB: in->reg = (uint8_t)(d->modrm_reg | (d->rex_r ? 8 : 0)); break;
  case S_MODRM_IB: in->imm = decode_imm(d, 1, 0); break;
  case S_MODRM_UB: in->imm = decode_imm(d, 1, 0) & 0xff; break;
  case S_MODRM_1: in->imm = 1; break;
  case S_MODRM_IZ: in->imm = decode_imm(d, iz(in->osz), 0); break;
  case S_ACC_IZ:
    in->rm = RAX;
    in->imm = decode_imm(d, iz(in->osz), 0);
    break;
  case S_OPREG: in->reg = (uint8_t)opcode_register(d, byte_regs); break;
  case S_OPREG_IMM:
    in->reg = (uint8_t)opcode_register(d, byte_regs);
    in->imm = decode_imm(d, in->osz, 0);
    break;
  case S_OPREG_RAX:
    in->reg = (uint8_t)opcode_register(d, false);
    in->rm = RAX;
    break;
  case S_IB: in->imm = decode_imm(d, 1, 0); break;
  case S_UB: in->imm = decode_imm(d, 1, 0) & 0xff; break;
  case S_UW: in->imm = decode_imm(d, 2, 0) & 0xffff; break;
  case S_IZ: in->imm = decode_imm(d, iz(in->osz), 0); break;
  case S_REL8: in->imm = next + decode_imm(d, 1, 0); break;
  case S_REL32: in->imm = next + decode_imm(d, 4, 0); break;
  case S_MOFFS: /* a 64-bit absolute address (32 bits with 67) */
    in->mem = 1;
    in->base = in->index = REG_NONE;
    in->seg = d->seg;
    in->disp = (int64_t)decode_imm(d, d->p67 ? 4 : 8, 0);
    if (d->p67) in->disp = (int64_t)(uint32_t)in->disp;
    in->reg = RAX;
    break;
  case S_ENTER: /* iw, ib: Capstone sign-extends these wrongly; read the bytes */
    in->imm = decode_imm(d, 2, 1) & 0xffff;
    in->aux = (uint8_t)decode_imm(d, 1, 0);
    break;
  case S_VSIB: /* SIB index 100 is a register here too */
    in->index = (uint8_t)((d->bytes[d->modrm_at + 1] >> 3 & 7) | (d->rex_x ? 8 : 0));
    break;
  case S_MASKMOV:
    in->base = RDI;
    in->index = REG_NONE;
    in->disp = 0;
    break;
  case S_X87:
    if (!in->mem) in->rm = d->modrm_rm; /* ST(i) */
    break;
  default: break;
  }
}
