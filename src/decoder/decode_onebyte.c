/* decode_onebyte.c: the one-byte opcode map (general-purpose instructions). */
#include "../interp/access.h"
#include "../interp/ops_int.h"
#include "../interp/ops_x87.h"
#include "decode.h"

/* Immediate of an "Iz" operand: 2 bytes with a 16-bit operand size, else 4 (sign-extended
 * to 64 bits for REX.W). */
static unsigned iz(unsigned osz) { return osz == 2 ? 2 : 4; }

static bool alu_form(DecodeCtx *d, Insn *in) {
  unsigned form = d->opcode & 7;
  in->op = d->opcode >> 3;
  switch (form) {
  case 0: case 1:
    in->osz = form == 0 ? 1 : osz_default32(d);
    decode_modrm(d, in, form == 0);
    in->fn = op_alu_rm_r;
    return true;
  case 2: case 3:
    if (d->lock) return false; /* a register destination: LOCK is #UD */
    in->osz = form == 2 ? 1 : osz_default32(d);
    decode_modrm(d, in, form == 2);
    in->fn = op_alu_r_rm;
    return true;
  case 4: case 5:
    in->osz = form == 4 ? 1 : osz_default32(d);
    in->rm = RAX;
    in->imm = decode_imm(d, form == 4 ? 1 : iz(in->osz), 0);
    in->fn = op_alu_rm_imm;
    return true;
  default:
    return false; /* 06/07/0E... push/pop segment: invalid in 64-bit mode */
  }
}

/* Group 3 (F6/F7): TEST, NOT, NEG, MUL, IMUL, DIV, IDIV. */
static bool group3(DecodeCtx *d, Insn *in) {
  static const Handler ops[8] = {op_test_rm_imm, op_test_rm_imm, op_not,  op_neg,
                                 op_mul,         op_imul1,       op_div,  op_idiv};
  in->osz = d->opcode == 0xF6 ? 1 : osz_default32(d);
  decode_modrm(d, in, d->opcode == 0xF6);
  in->fn = ops[d->modrm_reg];
  if (d->modrm_reg < 2) in->imm = decode_imm(d, in->osz == 1 ? 1 : iz(in->osz), 0);
  return true;
}

/* Group 5 (FF): INC, DEC, CALL, JMP, PUSH (far forms are not for user code). */
static bool group5(DecodeCtx *d, Insn *in) {
  decode_modrm(d, in, false);
  switch (d->modrm_reg) {
  case 0: in->osz = osz_default32(d); in->fn = op_inc; return true;
  case 1: in->osz = osz_default32(d); in->fn = op_dec; return true;
  case 2: in->osz = 8; in->fn = op_call_rm; in->ends = 1; return true;
  case 4: in->osz = 8; in->fn = op_jmp_rm; in->ends = 1; return true;
  case 3: case 5: /* far CALL and JMP through m16:32 (m16:64 with REX.W, as Intel has it) */
    if (!in->mem) return false;
    in->osz = d->rex_w ? 8 : d->p66 ? 2 : 4;
    in->fn = d->modrm_reg == 3 ? op_call_far : op_jmp_far;
    in->ends = 1;
    return true;
  case 6: in->osz = osz_default64(d); in->fn = op_push_rm; return true;
  default: return false;
  }
}

static bool string_op(DecodeCtx *d, Insn *in) {
  static const uint8_t kinds[12] = {0, 0, 1, 1, 0xff, 0xff, 2, 2, 3, 3, 4, 4}; /* A4..AF */
  unsigned k = kinds[d->opcode - 0xA4];
  if (k == 0xff) return false;
  in->op = (uint8_t)k;
  in->osz = (d->opcode & 1) ? osz_default32(d) : 1;
  in->rep = d->rep == 0xF3 ? REP_E : d->rep == 0xF2 ? REP_NE : REP_NONE;
  in->seg = d->seg;
  in->addr32 = d->p67;
  in->fn = op_string;
  return true;
}

bool decode_onebyte(DecodeCtx *d, Insn *in) {
  uint8_t op = d->opcode;
  uint64_t next = d->rip + d->len;
  if (op < 0x40) return alu_form(d, in);
  switch (op) {
  case 0x50: case 0x51: case 0x52: case 0x53: case 0x54: case 0x55: case 0x56: case 0x57:
    in->reg = (uint8_t)decode_opreg(d, false);
    in->osz = osz_default64(d);
    in->fn = op_push_r;
    return true;
  case 0x58: case 0x59: case 0x5A: case 0x5B: case 0x5C: case 0x5D: case 0x5E: case 0x5F:
    in->reg = (uint8_t)decode_opreg(d, false);
    in->osz = osz_default64(d);
    in->fn = op_pop_r;
    return true;
  case 0x63: /* MOVSXD; without REX.W it is a plain 32/16-bit move */
    in->osz = osz_default32(d);
    decode_modrm(d, in, false);
    in->aux = in->osz == 8 ? 4 : in->osz;
    in->fn = op_movsx;
    return true;
  case 0x68: case 0x6A:
    in->osz = osz_default64(d);
    in->imm = decode_imm(d, op == 0x6A ? 1 : iz(in->osz), 0);
    in->fn = op_push_imm;
    return true;
  case 0x69: case 0x6B:
    in->osz = osz_default32(d);
    decode_modrm(d, in, false);
    in->imm = decode_imm(d, op == 0x6B ? 1 : iz(in->osz), 0);
    in->fn = op_imul_r_rm_imm;
    return true;
  case 0x70: case 0x71: case 0x72: case 0x73: case 0x74: case 0x75: case 0x76: case 0x77:
  case 0x78: case 0x79: case 0x7A: case 0x7B: case 0x7C: case 0x7D: case 0x7E: case 0x7F:
    in->op = op & 15;
    in->imm = next + decode_imm(d, 1, 0);
    in->fn = op_jcc;
    in->ends = 1;
    return true;
  case 0x80: case 0x81: case 0x83:
    in->osz = op == 0x80 ? 1 : osz_default32(d);
    decode_modrm(d, in, op == 0x80);
    in->op = d->modrm_reg;
    in->imm = decode_imm(d, op == 0x81 ? iz(in->osz) : 1, 0);
    in->fn = op_alu_rm_imm;
    return true;
  case 0x84: case 0x85:
    in->osz = op == 0x84 ? 1 : osz_default32(d);
    decode_modrm(d, in, op == 0x84);
    in->fn = op_test_rm_r;
    return true;
  case 0x86: case 0x87:
    in->osz = op == 0x86 ? 1 : osz_default32(d);
    decode_modrm(d, in, op == 0x86);
    in->fn = op_xchg;
    return true;
  case 0x88: case 0x89: case 0x8A: case 0x8B:
    in->osz = (op & 1) ? osz_default32(d) : 1;
    decode_modrm(d, in, !(op & 1));
    in->fn = op < 0x8A ? op_mov_rm_r : op_mov_r_rm;
    return true;
  case 0x8C: /* MOV r/m, Sreg: ES CS SS DS FS GS; the others are #UD */
    decode_modrm(d, in, false);
    if (d->modrm_reg > 5) return false;
    in->op = d->modrm_reg;
    in->osz = in->mem ? 2 : (uint8_t)osz_default32(d); /* memory takes 16 bits */
    in->fn = op_mov_from_sreg;
    return true;
  case 0x8E: /* MOV Sreg, r/m16: DS, ES and SS (CS is #UD; FS and GS loads not yet) */
    decode_modrm(d, in, false);
    if (d->modrm_reg != 0 && d->modrm_reg != 2 && d->modrm_reg != 3) return false;
    in->op = d->modrm_reg;
    in->osz = 2;
    in->fn = op_mov_to_sreg;
    return true;
  case 0x8D:
    in->osz = osz_default32(d);
    decode_modrm(d, in, false);
    if (!in->mem) return false;
    in->fn = op_lea;
    return true;
  case 0x8F:
    in->osz = osz_default64(d);
    decode_modrm(d, in, false);
    if (d->modrm_reg != 0) return false;
    in->fn = op_pop_rm;
    return true;
  case 0x90:
    if (!d->rex_b || d->rep == 0xF3) { /* NOP, PAUSE (F3 90, even with REX.B) */
      in->fn = op_nop;
      return true;
    }
    __attribute__((fallthrough)); /* 41 90 is xchg r8d, eax */
  case 0x91: case 0x92: case 0x93: case 0x94: case 0x95: case 0x96: case 0x97:
    in->osz = osz_default32(d);
    in->reg = (uint8_t)decode_opreg(d, false);
    in->rm = RAX;
    in->fn = op_xchg;
    return true;
  case 0x98: in->osz = osz_default32(d); in->fn = op_cbw; return true;
  case 0x99: in->osz = osz_default32(d); in->fn = op_cwd; return true;
  case 0x9B: in->fn = op_x87_fwait; return true; /* raises a pending unmasked x87 exception */
  case 0x9C: in->osz = osz_default64(d); in->fn = op_pushf; return true;
  case 0x9D: in->osz = osz_default64(d); in->fn = op_popf; return true;
  case 0x9E: in->fn = op_sahf; return true;
  case 0x9F: in->fn = op_lahf; return true;
  case 0xA0: case 0xA1: case 0xA2: case 0xA3: /* MOV with a 64-bit absolute address */
    in->osz = (op & 1) ? osz_default32(d) : 1;
    in->mem = 1;
    in->base = in->index = REG_NONE;
    in->seg = d->seg;
    in->disp = (int64_t)decode_imm(d, d->p67 ? 4 : 8, 0);
    if (d->p67) in->disp = (int64_t)(uint32_t)in->disp;
    in->reg = RAX;
    in->fn = op < 0xA2 ? op_mov_r_rm : op_mov_rm_r;
    return true;
  case 0xA8: case 0xA9:
    in->osz = op == 0xA8 ? 1 : osz_default32(d);
    in->rm = RAX;
    in->imm = decode_imm(d, op == 0xA8 ? 1 : iz(in->osz), 0);
    in->fn = op_test_rm_imm;
    return true;
  case 0xA4: case 0xA5: case 0xA6: case 0xA7: case 0xAA: case 0xAB:
  case 0xAC: case 0xAD: case 0xAE: case 0xAF:
    return string_op(d, in);
  case 0xB0: case 0xB1: case 0xB2: case 0xB3: case 0xB4: case 0xB5: case 0xB6: case 0xB7:
    in->osz = 1;
    in->reg = (uint8_t)decode_opreg(d, true);
    in->imm = decode_imm(d, 1, 0);
    in->fn = op_mov_r_imm;
    return true;
  case 0xB8: case 0xB9: case 0xBA: case 0xBB: case 0xBC: case 0xBD: case 0xBE: case 0xBF:
    in->osz = osz_default32(d);
    in->reg = (uint8_t)decode_opreg(d, false);
    in->imm = decode_imm(d, in->osz, 0);
    in->fn = op_mov_r_imm;
    return true;
  case 0xC0: case 0xC1: case 0xD0: case 0xD1: case 0xD2: case 0xD3:
    in->osz = (op & 1) ? osz_default32(d) : 1;
    decode_modrm(d, in, !(op & 1));
    in->op = d->modrm_reg;
    if (op <= 0xC1) in->imm = decode_imm(d, 1, 0) & 0xff;
    else if (op <= 0xD1) in->imm = 1;
    in->fn = op >= 0xD2 ? op_shift_cl : op_shift_imm;
    return true;
  case 0xC2: case 0xC3:
    in->imm = op == 0xC2 ? decode_imm(d, 2, 0) & 0xffff : 0;
    in->fn = op_ret;
    in->ends = 1;
    return true;
  case 0xCA: case 0xCB: case 0xCF: /* RETF [imm16], IRET: 32-bit slots unless REX.W */
    in->imm = op == 0xCA ? decode_imm(d, 2, 0) & 0xffff : 0;
    in->osz = d->rex_w ? 8 : d->p66 ? 2 : 4;
    in->fn = op == 0xCF ? op_iret : op_retf;
    in->ends = 1;
    return true;
  case 0xC6: case 0xC7:
    in->osz = op == 0xC6 ? 1 : osz_default32(d);
    decode_modrm(d, in, op == 0xC6);
    if (d->modrm_reg != 0) return false; /* C6 F8 / C7 F8 are XABORT/XBEGIN (RTM) */
    in->imm = decode_imm(d, op == 0xC6 ? 1 : iz(in->osz), 0);
    in->fn = op_mov_rm_imm;
    return true;
  case 0xC8: /* ENTER iw, ib: Capstone sign-extends these wrongly; read the bytes */
    in->imm = decode_imm(d, 2, 1) & 0xffff;
    in->aux = (uint8_t)decode_imm(d, 1, 0);
    in->fn = op_enter;
    return true;
  case 0xC9: in->fn = op_leave; return true;
  case 0xCC: in->fn = op_int3; in->ends = 1; return true;
  case 0xCD:
    in->imm = decode_imm(d, 1, 0) & 0xff;
    in->fn = in->imm == 3 ? op_int3 : op_int;
    in->ends = 1;
    return true;
  case 0xF1: in->fn = op_icebp; in->ends = 1; return true;
  case 0xD7:
    in->seg = d->seg;
    in->addr32 = d->p67;
    in->fn = op_xlat;
    return true;
  case 0xE0: case 0xE1: case 0xE2: case 0xE3:
    in->op = op - 0xE0;
    in->addr32 = d->p67;
    in->imm = next + decode_imm(d, 1, 0);
    in->fn = op_loop;
    in->ends = 1;
    return true;
  case 0xE4: case 0xE5: case 0xE6: case 0xE7: case 0xEC: case 0xED: case 0xEE: case 0xEF:
  case 0x6C: case 0x6D: case 0x6E: case 0x6F: case 0xF4: case 0xFA: case 0xFB:
    in->fn = op_privileged;
    in->ends = 1;
    return true;
  case 0xE8: case 0xE9: case 0xEB:
    in->imm = next + decode_imm(d, op == 0xEB ? 1 : 4, 0);
    in->fn = op == 0xE8 ? op_call : op_jmp;
    in->ends = 1;
    return true;
  case 0xF5: in->op = 2; in->fn = op_flagop; return true;
  case 0xF6: case 0xF7: return group3(d, in);
  case 0xF8: in->op = 0; in->fn = op_flagop; return true;
  case 0xF9: in->op = 1; in->fn = op_flagop; return true;
  case 0xFC: in->op = 3; in->fn = op_flagop; return true;
  case 0xFD: in->op = 4; in->fn = op_flagop; return true;
  case 0xFE:
    in->osz = 1;
    decode_modrm(d, in, true);
    if (d->modrm_reg > 1) return false;
    in->fn = d->modrm_reg ? op_dec : op_inc;
    return true;
  case 0xFF: return group5(d, in);
  default: return false;
  }
}
