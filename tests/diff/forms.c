/* forms.c: the table of integer instruction forms under test, with the operand shaping and
 * the SDM's defined-flags rules for each. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"

enum { RAX, RCX, RDX, RBX };
enum { S8 = 1, S16 = 2, S32 = 4, S64 = 8, SV = S16 | S32 | S64 };

Form *forms;
unsigned n_forms;
static unsigned cap_forms;

static unsigned size_bits(unsigned size) { return size * 8; }
static uint64_t size_mask(unsigned size) { return size >= 8 ? ~0ull : (1ull << (8 * size)) - 1; }

static void append(Form f) {
  if (n_forms == cap_forms) {
    cap_forms = cap_forms ? cap_forms * 2 : 256;
    forms = realloc(forms, cap_forms * sizeof *forms);
    if (!forms) abort();
  }
  if (!f.opc_len) f.opc_len = f.opc[0] == 0x0F ? 2 : 1;
  forms[n_forms++] = f;
}

/* Adds one form per operand size in `sizes` (named name/16, name/32...; one byte-sized
 * or size-less form keeps the bare name); reg_size/rm_size 0 follow the operand size. */
static void add(const char *name, Form t, unsigned sizes) {
  if (sizes == 0) {
    snprintf(t.name, sizeof t.name, "%s", name);
    append(t);
    return;
  }
  for (unsigned size = 1; size <= 8; size <<= 1) {
    if (!(sizes & size)) continue;
    Form f = t;
    f.size = (uint8_t)size;
    if (!f.reg_size) f.reg_size = f.size;
    if (!f.rm_size) f.rm_size = f.size;
    if ((sizes & (sizes - 1)) == 0) snprintf(f.name, sizeof f.name, "%s", name);
    else snprintf(f.name, sizeof f.name, "%s/%u", name, size_bits(size));
    append(f);
  }
}

#define OPC(...) .opc = {__VA_ARGS__}

/* ---- operand shaping and flag rules ---- */

/* Shift and rotate counts: mostly 0..70, to cross the 5/6-bit masking, sometimes any byte. */
static unsigned draw_count(Rng *g) { return rng_chance(g, 75) ? rng_below(g, 71) : rng_below(g, 256); }

enum { ROL, ROR, RCL, RCR, SHL, SHR, SAL, SAR };

static void prep_shift(Case *k, Rng *g) {
  uint8_t opc = k->f->opc[0];
  if (opc == 0xD0 || opc == 0xD1) {
    k->count = 1;
  } else if (opc == 0xC0 || opc == 0xC1) {
    k->count = draw_count(g);
    k->s.imm = k->count;
  } else {
    k->count = draw_count(g);
    case_set_reg(k, RCX, k->count, 1);
    if (!k->s.mem) k->count = case_get_reg(k, RCX, 1); /* the operand may be CL itself */
  }
}

/* SDM, SAL/SAR/SHL/SHR: count 0 changes no flags; AF is undefined for other counts, OF for
 * counts other than 1, and CF for SHL/SHR counts not below the operand width.
 * SDM, RCL/RCR/ROL/ROR: count 0 changes no flags; SF ZF AF PF are never affected; OF is
 * undefined unless the masked count is 1. */
static unsigned mask_shift(const Case *k) {
  unsigned size = k->f->size;
  unsigned masked = (unsigned)k->count & (size == 8 ? 63 : 31);
  if (masked == 0) return ARITH6;
  unsigned m = ARITH6;
  if (masked != 1) m &= ~FL_OF;
  unsigned op = k->f->digit;
  if (op >= SHL) {
    m &= ~FL_AF;
    if (op != SAR && masked >= size_bits(size)) m &= ~FL_CF;
  }
  return m;
}

static void prep_double_shift(Case *k, Rng *g) {
  unsigned size = k->f->size;
  k->count = draw_count(g);
  if ((k->f->opc[1] & 1) == 0) k->s.imm = k->count;
  else case_set_reg(k, RCX, k->count, 1);
  /* SDM, SHLD/SHRD: a count above the operand width (16-bit only) leaves the result and
   * the flags undefined. */
  if (size == 2 && (k->count & 31) > 16) k->reject = true;
}

/* SDM, SHLD/SHRD: count 0 changes no flags; otherwise AF is undefined, and OF is for any
 * count but 1. */
static unsigned mask_double_shift(const Case *k) {
  unsigned masked = (unsigned)k->count & (k->f->size == 8 ? 63 : 31);
  if (masked == 0) return ARITH6;
  return ARITH6 & ~FL_AF & ~(masked == 1 ? 0u : FL_OF);
}

/* Dividends and divisors: mostly quotients that fit, plus division by zero and overflow. */
static void prep_div(Case *k, Rng *g) {
  unsigned size = k->f->size, bits = size_bits(size);
  bool sign = k->f->digit == 7;
  unsigned mode = rng_below(g, 100);
  if (mode < 10) return; /* as drawn: mostly quotient overflow */
  unsigned __int128 n;
  uint64_t d;
  if (mode < 15) {
    d = 0;
    n = ((unsigned __int128)rng_value(g) << 64) | rng_value(g);
  } else if (sign && mode < 20) {
    d = size_mask(size); /* -1 */
    n = (unsigned __int128)1 << (2 * bits - 1); /* the most negative dividend */
    if (bits == 64) n = (unsigned __int128)1 << 127;
    if (rng_chance(g, 50)) n = ((unsigned __int128)1 << (bits - 1)) | (~(unsigned __int128)0 << bits);
  } else {
    do d = rng_value(g) & size_mask(size);
    while (d == 0);
    if (!sign) {
      uint64_t hi = rng_value(g) % d, lo = rng_value(g);
      n = ((unsigned __int128)hi << bits) | (lo & size_mask(size));
    } else {
      __int128 sd = (int64_t)(d << (64 - bits)) >> (64 - bits);
      __int128 q = (int64_t)(rng_value(g) << (64 - bits)) >> (64 - bits);
      if (rng_chance(g, 20)) q = rng_chance(g, 50) ? -((__int128)1 << (bits - 1)) : ((__int128)1 << (bits - 1)) - 1;
      __int128 r = (__int128)(rng_value(g) % (uint64_t)(sd < 0 ? -sd : sd));
      if (rng_chance(g, 50)) r = -r;
      n = (unsigned __int128)(q * sd + r);
    }
  }
  if (size == 1) {
    case_set_reg(k, RAX, (uint64_t)n, 2);
  } else {
    case_set_reg(k, RAX, (uint64_t)n, size);
    case_set_reg(k, RDX, (uint64_t)(n >> bits), size);
  }
  case_set_rm(k, d, size);
}

/* A bit offset that reaches a few thousand bytes either way of a memory operand. */
static void prep_bt(Case *k, Rng *g) {
  if (!k->s.mem) return;
  int64_t off = (int64_t)rng_below(g, 2 * 16000 + 1) - 16000;
  if (rng_chance(g, 30)) off = (int64_t)rng_below(g, 2 * 64 + 1) - 64;
  case_set_reg(k, k->s.reg, (uint64_t)off, k->f->size);
}

static void prep_scan(Case *k, Rng *g) {
  unsigned size = k->f->size;
  unsigned pick = rng_below(g, 100);
  if (pick < 15) case_set_rm(k, 0, size);
  else if (pick < 30) case_set_rm(k, 1ull << rng_below(g, size_bits(size)), size);
}

static void prep_cmpxchg(Case *k, Rng *g) {
  unsigned size = k->f->size;
  if (rng_chance(g, 50)) case_set_reg(k, RAX, case_get_rm(k, size), size);
}

/* CMPXCHG8B/16B: equal halves half of the time; 16B wants 16-byte alignment (else #GP). */
static void prep_cmpxchg_wide(Case *k, Rng *g) {
  bool wide = k->f->size == 8;
  Mem *m = &k->s.m;
  if (wide && rng_chance(g, 90)) m->target &= ~15ull;
  mem_put(m->target, rng_value(g), 8);
  mem_put(m->target + 8, rng_value(g), 8);
  unsigned half = wide ? 8 : 4;
  unsigned pick = rng_below(g, 100);
  if (pick < 50) {
    case_set_reg(k, RAX, mem_get(m->target, half), half);
    case_set_reg(k, RDX, mem_get(m->target + half, half), half);
  } else if (pick < 65) {
    case_set_reg(k, RAX, mem_get(m->target, half), half);
  } else if (pick < 80) {
    case_set_reg(k, RDX, mem_get(m->target + half, half), half);
  }
}

/* ---- string instructions ---- */

enum { MOVS, CMPS, STOS, LODS, SCAS };

static uint64_t data_at(unsigned off) { return (uint64_t)(uintptr_t)data + off; }

static void gen_string(Case *k, Rng *g) {
  const Form *f = k->f;
  Spec *s = &k->s;
  unsigned size = f->size, kind = f->op;
  s->opc[0] = f->opc[0];
  s->opc_len = 1;
  s->opreg = REG_NO;
  s->rex_w = size == 8;
  bool a32 = rng_chance(g, 15);
  /* The source (DS:RSI) takes a segment override; the destination (ES:RDI) cannot. */
  uint8_t seg = rng_chance(g, 10) ? (a32 || rng_chance(g, 50) ? 0x65 : 0x64) : rng_chance(g, 4) ? 0x3E : 0;
  if (seg) s->legacy[s->n_legacy++] = seg;
  if (size == 2) s->legacy[s->n_legacy++] = 0x66;
  if (a32) s->legacy[s->n_legacy++] = 0x67;
  if (f->mandatory) s->legacy[s->n_legacy++] = f->mandatory;

  if (rng_chance(g, 40)) k->in.rflags |= FL_DF;
  else k->in.rflags &= ~(uint64_t)FL_DF;
  bool down = k->in.rflags & FL_DF;
  unsigned n = f->mandatory ? (rng_chance(g, 10) ? 0 : rng_below(g, 41)) : 1;
  unsigned lo = 400, span = DATA_SIZE - 800;
  unsigned si = lo + rng_below(g, span), di = lo + rng_below(g, span);
  if (rng_chance(g, 30)) di = si + rng_below(g, 49) - 24; /* overlapping runs */
  uint64_t noise = a32 ? rng_next(g) << 32 : 0;
  k->in.r[6] = noise ^ (data_at(si) - seg_base(seg));
  k->in.r[7] = (a32 ? rng_next(g) << 32 : 0) ^ data_at(di);
  if (f->mandatory) k->in.r[RCX] = (a32 ? rng_next(g) << 32 : 0) | n;

  /* Equal runs for CMPS/SCAS so that REPE goes on and REPNE stops somewhere. */
  if ((kind == CMPS || kind == SCAS) && n) {
    unsigned first_si = down ? si - (n - 1) * size : si;
    unsigned first_di = down ? di - (n - 1) * size : di;
    bool equal_run = f->mandatory == 0xF3 ? rng_chance(g, 70) : rng_chance(g, 15);
    if (equal_run) {
      for (unsigned i = 0; i < n * size; i++)
        data_init[first_di + i] = kind == CMPS ? data_init[first_si + i]
                                               : (uint8_t)(k->in.r[RAX] >> (8 * (i % size)));
      if (rng_chance(g, 60)) data_init[first_di + rng_below(g, n * size)] ^= (uint8_t)(1 + rng_below(g, 255));
    } else if (rng_chance(g, 60)) {
      unsigned e = rng_below(g, n);
      for (unsigned i = 0; i < size; i++)
        data_init[first_di + e * size + i] = kind == CMPS ? data_init[first_si + e * size + i]
                                                          : (uint8_t)(k->in.r[RAX] >> (8 * i));
    }
  }
  k->flag_mask = ARITH6;
  case_emit(k, s);
}

/* ---- MOV with a 64-bit (or, with 67, 32-bit) absolute address ---- */

static void gen_moffs(Case *k, Rng *g) {
  const Form *f = k->f;
  Spec *s = &k->s;
  s->opc[0] = f->opc[0];
  s->opc_len = 1;
  s->opreg = REG_NO;
  s->rex_w = f->size == 8;
  if (f->size == 2) s->legacy[s->n_legacy++] = 0x66;
  bool a32 = rng_chance(g, 25);
  if (a32) s->legacy[s->n_legacy++] = 0x67;
  unsigned off = DATA_LO + rng_below(g, DATA_HI - DATA_LO);
  s->imm = data_at(off);
  s->imm_size = a32 ? 4 : 8;
  k->flag_mask = ARITH6;
  case_emit(k, s);
}

/* ---- instruction pairs: a flag producer then a flag consumer, to run lazy flags ---- */

static const unsigned cc_reads[8] = {FL_OF, FL_CF, FL_ZF, FL_CF | FL_ZF, FL_SF, FL_PF,
                                     FL_SF | FL_OF, FL_ZF | FL_SF | FL_OF};

static void spec_rr(Spec *s, unsigned size, uint8_t opc0, uint8_t opc1, int reg, int rm) {
  memset(s, 0, sizeof *s);
  s->opreg = REG_NO;
  if (size == 2) s->legacy[s->n_legacy++] = 0x66;
  s->rex_w = size == 8;
  s->opc[0] = opc0;
  s->opc[1] = opc1;
  s->opc_len = opc0 == 0x0F ? 2 : 1;
  s->modrm = true;
  s->reg = reg;
  s->rm = rm;
  if (size == 1 && ((reg >= 4 && reg < 8) || (rm >= 4 && rm < 8))) s->force_rex = true;
}

/* Emits a random flag producer; returns the arithmetic flags it leaves undefined. */
static unsigned emit_producer(Case *k, Rng *g, unsigned avoid) {
  Spec s;
  static const unsigned sizes[4] = {1, 2, 4, 8};
  unsigned size = sizes[rng_below(g, 4)];
  bool byte = size == 1;
  int a = pick_gpr(g, avoid, false), b = pick_gpr(g, avoid, false);
  unsigned kind = rng_below(g, 12);
  unsigned alu = rng_below(g, 8);
  if (rng_chance(g, 15)) k->in.r[b] = k->in.r[a]; /* equal operands: ZF, CF edges */
  switch (kind) {
  case 0: case 1: case 2: /* ALU E,G */
    spec_rr(&s, size, (uint8_t)(alu * 8 + !byte), 0, b, a);
    case_emit(k, &s);
    return (alu == 1 || alu == 4 || alu == 6) ? FL_AF : 0;
  case 3: /* ALU E,imm8 */
    spec_rr(&s, size, byte ? 0x80 : 0x83, 0, (int)alu, a);
    s.imm = rng_value(g) & 0xff;
    s.imm_size = 1;
    case_emit(k, &s);
    return (alu == 1 || alu == 4 || alu == 6) ? FL_AF : 0;
  case 4: /* INC/DEC */
    spec_rr(&s, size, byte ? 0xFE : 0xFF, 0, (int)rng_below(g, 2), a);
    case_emit(k, &s);
    return 0;
  case 5: /* NEG */
    spec_rr(&s, size, byte ? 0xF6 : 0xF7, 0, 3, a);
    case_emit(k, &s);
    return 0;
  case 6: { /* TEST */
    spec_rr(&s, size, byte ? 0x84 : 0x85, 0, b, a);
    case_emit(k, &s);
    return FL_AF;
  }
  case 7: case 8: { /* SHL/SHR/SAR by 1 or by 2..width-1 */
    static const int ops[3] = {SHL, SHR, SAR};
    bool one = kind == 7;
    spec_rr(&s, size, one ? (byte ? 0xD0 : 0xD1) : (byte ? 0xC0 : 0xC1), 0, ops[rng_below(g, 3)], a);
    if (!one) {
      s.imm = 2 + rng_below(g, size_bits(size) - 2);
      s.imm_size = 1;
    }
    case_emit(k, &s);
    return one ? FL_AF : FL_AF | FL_OF;
  }
  case 9: { /* ADC/SBB */
    spec_rr(&s, size, (uint8_t)((rng_chance(g, 50) ? 0x10 : 0x18) + !byte), 0, b, a);
    case_emit(k, &s);
    return 0;
  }
  case 10: { /* ROL/ROR by 1: only CF and OF change */
    spec_rr(&s, size, byte ? 0xD0 : 0xD1, 0, (int)rng_below(g, 2), a);
    case_emit(k, &s);
    return 0;
  }
  default: { /* IMUL r, r/m: only CF and OF are defined */
    if (byte) size = 4;
    spec_rr(&s, size, 0x0F, 0xAF, b, a);
    case_emit(k, &s);
    return FL_SF | FL_ZF | FL_AF | FL_PF;
  }
  }
}

enum { PAIR_SETCC, PAIR_CMOVCC, PAIR_ADC, PAIR_SBB, PAIR_CMC, PAIR_LAHF };

static void gen_pair(Case *k, Rng *g) {
  const Form *f = k->f;
  unsigned reads;
  switch (f->op) {
  case PAIR_SETCC: case PAIR_CMOVCC: reads = cc_reads[f->digit >> 1]; break;
  case PAIR_LAHF: reads = FL_SF | FL_ZF | FL_PF | FL_CF; break;
  default: reads = FL_CF; break;
  }
  unsigned undefined;
  bool zero_shift = rng_chance(g, 30);
  Case save = *k;
  for (;;) {
    undefined = emit_producer(k, g, zero_shift ? 1u << RCX : 0);
    if (!(undefined & reads)) break;
    *k = save;
  }
  Spec s;
  if (zero_shift) {
    /* A shift or rotate by a count that masks to 0 must leave the producer's flags. */
    static const unsigned sizes[4] = {1, 2, 4, 8};
    unsigned size = sizes[rng_below(g, 4)];
    spec_rr(&s, size, size == 1 ? 0xD2 : 0xD3, 0, (int)rng_below(g, 8), pick_gpr(g, 1u << RCX, false));
    k->in.r[RCX] = (k->in.r[RCX] & ~0xffull) | (rng_below(g, 4) * 64);
    case_emit(k, &s);
  }
  int a = pick_gpr(g, 0, false), b = pick_gpr(g, 0, false);
  switch (f->op) {
  case PAIR_SETCC:
    spec_rr(&s, 1, 0x0F, (uint8_t)(0x90 + f->digit), 0, a);
    break;
  case PAIR_CMOVCC: {
    static const unsigned sizes[3] = {2, 4, 8};
    spec_rr(&s, sizes[rng_below(g, 3)], 0x0F, (uint8_t)(0x40 + f->digit), b, a);
    break;
  }
  case PAIR_ADC: case PAIR_SBB:
    spec_rr(&s, 4, f->op == PAIR_ADC ? 0x11 : 0x19, 0, b, a);
    undefined = 0;
    break;
  case PAIR_LAHF:
    memset(&s, 0, sizeof s);
    s.opreg = REG_NO;
    s.opc[0] = 0x9F;
    s.opc_len = 1;
    /* AH receives AF, which the producer may leave undefined. */
    if (undefined & FL_AF) k->ignore[RAX] = FL_AF << 8;
    break;
  default:
    memset(&s, 0, sizeof s);
    s.opreg = REG_NO;
    s.opc[0] = 0xF5;
    s.opc_len = 1;
    break;
  }
  case_emit(k, &s);
  k->flag_mask = ARITH6 & ~undefined;
}

/* ---- the table ---- */

static const char *const alu_names[8] = {"add", "or", "adc", "sbb", "and", "sub", "xor", "cmp"};
static const char *const shift_names[8] = {"rol", "ror", "rcl", "rcr", "shl", "shr", "sal", "sar"};
static const char *const cc_names[16] = {"o", "no", "b", "ae", "e", "ne", "be", "a",
                                         "s", "ns", "p", "np", "l", "ge", "le", "g"};

static void add_alu(void) {
  char name[40];
  for (unsigned op = 0; op < 8; op++) {
    const char *n = alu_names[op];
    unsigned fl = (op == 1 || op == 4 || op == 6) ? ARITH6 & ~FL_AF : ARITH6; /* SDM: AF undefined */
    uint16_t lock = op == 7 ? 0 : X_LOCKABLE;
    uint8_t base = (uint8_t)(op * 8);
    snprintf(name, sizeof name, "%s Eb,Gb", n);
    add(name, (Form){OPC(base), .enc = ENC_MODRM_REG, .where = WHERE_BOTH, .flags = fl, .x = lock}, S8);
    snprintf(name, sizeof name, "%s Ev,Gv", n);
    add(name, (Form){OPC(base + 1), .enc = ENC_MODRM_REG, .where = WHERE_BOTH, .flags = fl, .x = lock}, SV);
    snprintf(name, sizeof name, "%s Gb,Eb", n);
    add(name, (Form){OPC(base + 2), .enc = ENC_MODRM_REG, .where = WHERE_BOTH, .flags = fl}, S8);
    snprintf(name, sizeof name, "%s Gv,Ev", n);
    add(name, (Form){OPC(base + 3), .enc = ENC_MODRM_REG, .where = WHERE_BOTH, .flags = fl}, SV);
    snprintf(name, sizeof name, "%s AL,Ib", n);
    add(name, (Form){OPC(base + 4), .enc = ENC_ACC, .imm = IMM_B, .flags = fl}, S8);
    snprintf(name, sizeof name, "%s rAX,Iz", n);
    add(name, (Form){OPC(base + 5), .enc = ENC_ACC, .imm = IMM_Z, .flags = fl}, SV);
    snprintf(name, sizeof name, "%s Eb,Ib", n);
    add(name, (Form){OPC(0x80), .enc = ENC_MODRM_DIGIT, .digit = (uint8_t)op, .where = WHERE_BOTH,
                     .imm = IMM_B, .flags = fl, .x = lock}, S8);
    snprintf(name, sizeof name, "%s Ev,Iz", n);
    add(name, (Form){OPC(0x81), .enc = ENC_MODRM_DIGIT, .digit = (uint8_t)op, .where = WHERE_BOTH,
                     .imm = IMM_Z, .flags = fl, .x = lock}, SV);
    snprintf(name, sizeof name, "%s Ev,Ib", n);
    add(name, (Form){OPC(0x83), .enc = ENC_MODRM_DIGIT, .digit = (uint8_t)op, .where = WHERE_BOTH,
                     .imm = IMM_B, .flags = fl, .x = lock}, SV);
  }
  unsigned logic = ARITH6 & ~FL_AF; /* SDM, TEST: AF undefined */
  add("test Eb,Gb", (Form){OPC(0x84), .enc = ENC_MODRM_REG, .where = WHERE_BOTH, .flags = logic}, S8);
  add("test Ev,Gv", (Form){OPC(0x85), .enc = ENC_MODRM_REG, .where = WHERE_BOTH, .flags = logic}, SV);
  add("test AL,Ib", (Form){OPC(0xA8), .enc = ENC_ACC, .imm = IMM_B, .flags = logic}, S8);
  add("test rAX,Iz", (Form){OPC(0xA9), .enc = ENC_ACC, .imm = IMM_Z, .flags = logic}, SV);
  add("test Eb,Ib", (Form){OPC(0xF6), .enc = ENC_MODRM_DIGIT, .where = WHERE_BOTH, .imm = IMM_B, .flags = logic}, S8);
  add("test Ev,Iz", (Form){OPC(0xF7), .enc = ENC_MODRM_DIGIT, .where = WHERE_BOTH, .imm = IMM_Z, .flags = logic}, SV);
  /* F6/F7 /1: an undocumented alias of /0 that the CPU runs as TEST. */
  add("test Eb,Ib (/1)", (Form){OPC(0xF6), .enc = ENC_MODRM_DIGIT, .digit = 1, .where = WHERE_BOTH, .imm = IMM_B, .flags = logic}, S8);
  add("test Ev,Iz (/1)", (Form){OPC(0xF7), .enc = ENC_MODRM_DIGIT, .digit = 1, .where = WHERE_BOTH, .imm = IMM_Z, .flags = logic}, SV);
}

static void add_unary_muldiv(void) {
  static const char *const names[8] = {"inc", "dec", "not", "neg", "mul", "imul", "div", "idiv"};
  char name[40];
  for (unsigned op = 0; op < 8; op++) {
    Form t = {.enc = ENC_MODRM_DIGIT, .where = WHERE_BOTH, .flags = ARITH6};
    if (op < 2) t.opc[0] = 0xFE;
    else t.opc[0] = 0xF6;
    t.digit = (uint8_t)op; /* FE/0 inc, FE/1 dec, F6/2.. not neg mul imul div idiv */
    if (op < 4) t.x = X_LOCKABLE; /* NOT changes no flags: ARITH6 compares them unchanged */
    if (op == 4 || op == 5) {
      t.fixed = 1u << RAX;
      t.flags = FL_CF | FL_OF; /* SDM, MUL/IMUL: SF ZF AF PF undefined */
    }
    if (op >= 6) {
      t.fixed = 1u << RAX | 1u << RDX;
      t.flags = 0; /* SDM, DIV/IDIV: all six undefined */
      t.prep = prep_div;
      t.x = X_MAY_FAULT;
    }
    snprintf(name, sizeof name, "%s Eb", names[op]);
    add(name, t, S8);
    t.opc[0] = (uint8_t)(t.opc[0] + 1);
    snprintf(name, sizeof name, "%s Ev", names[op]);
    add(name, t, SV);
  }
  unsigned mulf = FL_CF | FL_OF;
  add("imul Gv,Ev", (Form){OPC(0x0F, 0xAF), .enc = ENC_MODRM_REG, .where = WHERE_BOTH, .flags = mulf}, SV);
  add("imul Gv,Ev,Iz", (Form){OPC(0x69), .enc = ENC_MODRM_REG, .where = WHERE_BOTH, .imm = IMM_Z, .flags = mulf}, SV);
  add("imul Gv,Ev,Ib", (Form){OPC(0x6B), .enc = ENC_MODRM_REG, .where = WHERE_BOTH, .imm = IMM_B, .flags = mulf}, SV);
}

static void add_shifts(void) {
  static const struct { uint8_t opc; const char *how; } srcs[3] = {
      {0xD0, "1"}, {0xC0, "Ib"}, {0xD2, "CL"}};
  char name[40];
  for (unsigned op = 0; op < 8; op++) {
    for (unsigned i = 0; i < 3; i++) {
      Form t = {OPC(srcs[i].opc), .enc = ENC_MODRM_DIGIT, .digit = (uint8_t)op, .where = WHERE_BOTH,
                .imm = srcs[i].opc == 0xC0 ? IMM_B : IMM_NONE, .prep = prep_shift, .mask = mask_shift,
                .fixed = srcs[i].opc == 0xD2 ? 1u << RCX : 0};
      snprintf(name, sizeof name, "%s Eb,%s", shift_names[op], srcs[i].how);
      add(name, t, S8);
      t.opc[0]++;
      snprintf(name, sizeof name, "%s Ev,%s", shift_names[op], srcs[i].how);
      add(name, t, SV);
    }
  }
  Form t = {.enc = ENC_MODRM_REG, .where = WHERE_BOTH, .prep = prep_double_shift, .mask = mask_double_shift};
  add("shld Ev,Gv,Ib", (Form){OPC(0x0F, 0xA4), .enc = t.enc, .where = t.where, .imm = IMM_B, .prep = t.prep, .mask = t.mask}, SV);
  add("shld Ev,Gv,CL", (Form){OPC(0x0F, 0xA5), .enc = t.enc, .where = t.where, .prep = t.prep, .mask = t.mask, .fixed = 1u << RCX}, SV);
  add("shrd Ev,Gv,Ib", (Form){OPC(0x0F, 0xAC), .enc = t.enc, .where = t.where, .imm = IMM_B, .prep = t.prep, .mask = t.mask}, SV);
  add("shrd Ev,Gv,CL", (Form){OPC(0x0F, 0xAD), .enc = t.enc, .where = t.where, .prep = t.prep, .mask = t.mask, .fixed = 1u << RCX}, SV);
}

static void add_bits(void) {
  static const char *const names[4] = {"bt", "bts", "btr", "btc"};
  static const uint8_t reg_opc[4] = {0xA3, 0xAB, 0xB3, 0xBB};
  /* SDM, BT*: CF is the bit, ZF is unaffected, OF SF AF PF are undefined. */
  unsigned btf = FL_CF | FL_ZF;
  char name[40];
  for (unsigned op = 0; op < 4; op++) {
    uint16_t lock = op ? X_LOCKABLE : 0;
    snprintf(name, sizeof name, "%s Ev,Gv", names[op]);
    add(name, (Form){OPC(0x0F, reg_opc[op]), .enc = ENC_MODRM_REG, .where = WHERE_BOTH, .flags = btf,
                     .prep = prep_bt, .x = (uint16_t)(X_REG_NOT_ADDR | lock)}, SV);
    snprintf(name, sizeof name, "%s Ev,Ib", names[op]);
    add(name, (Form){OPC(0x0F, 0xBA), .enc = ENC_MODRM_DIGIT, .digit = (uint8_t)(4 + op), .where = WHERE_BOTH,
                     .imm = IMM_B, .flags = btf, .x = lock}, SV);
  }
  /* SDM, BSF/BSR: only ZF is defined. The destination is undefined for a zero source;
   * the CPU leaves it unchanged, and so must we (compared). */
  add("bsf Gv,Ev", (Form){OPC(0x0F, 0xBC), .enc = ENC_MODRM_REG, .where = WHERE_BOTH, .flags = FL_ZF, .prep = prep_scan}, SV);
  add("bsr Gv,Ev", (Form){OPC(0x0F, 0xBD), .enc = ENC_MODRM_REG, .where = WHERE_BOTH, .flags = FL_ZF, .prep = prep_scan}, SV);
  /* SDM, LZCNT: CF and ZF defined, OF SF AF PF undefined. */
  add("lzcnt Gv,Ev", (Form){OPC(0x0F, 0xBD), .mandatory = 0xF3, .enc = ENC_MODRM_REG, .where = WHERE_BOTH,
                            .flags = FL_CF | FL_ZF, .prep = prep_scan}, SV);
  add("popcnt Gv,Ev", (Form){OPC(0x0F, 0xB8), .mandatory = 0xF3, .enc = ENC_MODRM_REG, .where = WHERE_BOTH,
                             .flags = ARITH6, .prep = prep_scan}, SV);
  /* SDM, BSWAP: a 16-bit operand gives an undefined result; not tested. */
  add("bswap", (Form){OPC(0x0F, 0xC8), .enc = ENC_OPREG, .flags = ARITH6}, S32 | S64);
}

static void add_moves(void) {
  unsigned keep = ARITH6; /* none of these change a flag */
  add("mov Eb,Gb", (Form){OPC(0x88), .enc = ENC_MODRM_REG, .where = WHERE_BOTH, .flags = keep}, S8);
  add("mov Ev,Gv", (Form){OPC(0x89), .enc = ENC_MODRM_REG, .where = WHERE_BOTH, .flags = keep}, SV);
  add("mov Gb,Eb", (Form){OPC(0x8A), .enc = ENC_MODRM_REG, .where = WHERE_BOTH, .flags = keep}, S8);
  add("mov Gv,Ev", (Form){OPC(0x8B), .enc = ENC_MODRM_REG, .where = WHERE_BOTH, .flags = keep}, SV);
  add("mov Eb,Ib", (Form){OPC(0xC6), .enc = ENC_MODRM_DIGIT, .where = WHERE_BOTH, .imm = IMM_B, .flags = keep}, S8);
  add("mov Ev,Iz", (Form){OPC(0xC7), .enc = ENC_MODRM_DIGIT, .where = WHERE_BOTH, .imm = IMM_Z, .flags = keep}, SV);
  add("mov Zb,Ib", (Form){OPC(0xB0), .enc = ENC_OPREG, .imm = IMM_B, .flags = keep}, S8);
  add("mov Zv,Iv", (Form){OPC(0xB8), .enc = ENC_OPREG, .imm = IMM_V, .flags = keep}, SV);
  add("mov AL,Ob", (Form){OPC(0xA0), .enc = ENC_NONE, .gen = gen_moffs}, S8);
  add("mov rAX,Ov", (Form){OPC(0xA1), .enc = ENC_NONE, .gen = gen_moffs}, SV);
  add("mov Ob,AL", (Form){OPC(0xA2), .enc = ENC_NONE, .gen = gen_moffs}, S8);
  add("mov Ov,rAX", (Form){OPC(0xA3), .enc = ENC_NONE, .gen = gen_moffs}, SV);
  add("movbe Gv,Mv", (Form){OPC(0x0F, 0x38, 0xF0), .opc_len = 3, .enc = ENC_MODRM_REG, .where = WHERE_MEM, .flags = keep}, SV);
  add("movbe Mv,Gv", (Form){OPC(0x0F, 0x38, 0xF1), .opc_len = 3, .enc = ENC_MODRM_REG, .where = WHERE_MEM, .flags = keep}, SV);
  add("movzx Gv,Eb", (Form){OPC(0x0F, 0xB6), .enc = ENC_MODRM_REG, .where = WHERE_BOTH, .rm_size = 1, .flags = keep}, SV);
  add("movzx Gv,Ew", (Form){OPC(0x0F, 0xB7), .enc = ENC_MODRM_REG, .where = WHERE_BOTH, .rm_size = 2, .flags = keep}, SV);
  add("movsx Gv,Eb", (Form){OPC(0x0F, 0xBE), .enc = ENC_MODRM_REG, .where = WHERE_BOTH, .rm_size = 1, .flags = keep}, SV);
  add("movsx Gv,Ew", (Form){OPC(0x0F, 0xBF), .enc = ENC_MODRM_REG, .where = WHERE_BOTH, .rm_size = 2, .flags = keep}, SV);
  add("movsxd Gq,Ed", (Form){OPC(0x63), .enc = ENC_MODRM_REG, .where = WHERE_BOTH, .rm_size = 4, .flags = keep}, S64);
  add("movsxd Gv,Ev", (Form){OPC(0x63), .enc = ENC_MODRM_REG, .where = WHERE_BOTH, .flags = keep}, S16 | S32);
  char name[40];
  for (unsigned cc = 0; cc < 16; cc++) {
    snprintf(name, sizeof name, "cmov%s Gv,Ev", cc_names[cc]);
    add(name, (Form){OPC(0x0F, (uint8_t)(0x40 + cc)), .enc = ENC_MODRM_REG, .where = WHERE_BOTH, .flags = keep}, SV);
    snprintf(name, sizeof name, "set%s Eb", cc_names[cc]);
    add(name, (Form){OPC(0x0F, (uint8_t)(0x90 + cc)), .enc = ENC_MODRM_DIGIT, .where = WHERE_BOTH, .flags = keep}, S8);
  }
  add("xchg Eb,Gb", (Form){OPC(0x86), .enc = ENC_MODRM_REG, .where = WHERE_BOTH, .flags = keep, .x = X_LOCKABLE}, S8);
  add("xchg Ev,Gv", (Form){OPC(0x87), .enc = ENC_MODRM_REG, .where = WHERE_BOTH, .flags = keep, .x = X_LOCKABLE}, SV);
  add("xchg Zv,rAX", (Form){OPC(0x90), .enc = ENC_OPREG, .flags = keep}, SV);
  add("xadd Eb,Gb", (Form){OPC(0x0F, 0xC0), .enc = ENC_MODRM_REG, .where = WHERE_BOTH, .flags = ARITH6, .x = X_LOCKABLE}, S8);
  add("xadd Ev,Gv", (Form){OPC(0x0F, 0xC1), .enc = ENC_MODRM_REG, .where = WHERE_BOTH, .flags = ARITH6, .x = X_LOCKABLE}, SV);
  add("cmpxchg Eb,Gb", (Form){OPC(0x0F, 0xB0), .enc = ENC_MODRM_REG, .where = WHERE_BOTH, .flags = ARITH6,
                              .fixed = 1u << RAX, .prep = prep_cmpxchg, .x = X_LOCKABLE}, S8);
  add("cmpxchg Ev,Gv", (Form){OPC(0x0F, 0xB1), .enc = ENC_MODRM_REG, .where = WHERE_BOTH, .flags = ARITH6,
                              .fixed = 1u << RAX, .prep = prep_cmpxchg, .x = X_LOCKABLE}, SV);
  /* SDM, CMPXCHG8B/16B: ZF set by the compare, CF PF AF SF OF unaffected. */
  uint16_t wide_regs = 1u << RAX | 1u << RCX | 1u << RDX | 1u << RBX;
  add("cmpxchg8b Mq", (Form){OPC(0x0F, 0xC7), .enc = ENC_MODRM_DIGIT, .digit = 1, .where = WHERE_MEM, .rm_size = 8,
                             .flags = ARITH6, .fixed = wide_regs, .prep = prep_cmpxchg_wide, .x = X_LOCKABLE}, S32);
  add("cmpxchg16b Mdq", (Form){OPC(0x0F, 0xC7), .enc = ENC_MODRM_DIGIT, .digit = 1, .where = WHERE_MEM, .rm_size = 16,
                               .flags = ARITH6, .fixed = wide_regs, .prep = prep_cmpxchg_wide,
                               .x = X_LOCKABLE | X_MAY_FAULT}, S64);
  add("lea Gv,M", (Form){OPC(0x8D), .enc = ENC_MODRM_REG, .where = WHERE_MEM, .flags = keep, .x = X_LEA}, SV);
  add("cbw/cwde/cdqe", (Form){OPC(0x98), .enc = ENC_NONE, .flags = keep}, SV);
  add("cwd/cdq/cqo", (Form){OPC(0x99), .enc = ENC_NONE, .flags = keep}, SV);
  /* SDM: LAHF changes no flag; SAHF loads SF ZF AF PF CF and keeps OF; CLC/STC/CMC change
   * only CF; CLD/STD only DF (always compared). */
  add("lahf", (Form){OPC(0x9F), .enc = ENC_NONE, .flags = keep}, 0);
  add("sahf", (Form){OPC(0x9E), .enc = ENC_NONE, .flags = ARITH6}, 0);
  add("clc", (Form){OPC(0xF8), .enc = ENC_NONE, .flags = ARITH6}, 0);
  add("stc", (Form){OPC(0xF9), .enc = ENC_NONE, .flags = ARITH6}, 0);
  add("cmc", (Form){OPC(0xF5), .enc = ENC_NONE, .flags = ARITH6}, 0);
  add("cld", (Form){OPC(0xFC), .enc = ENC_NONE, .flags = ARITH6}, 0);
  add("std", (Form){OPC(0xFD), .enc = ENC_NONE, .flags = ARITH6}, 0);
}

static void add_strings(void) {
  static const struct { const char *name; uint8_t opc; uint8_t kind; bool conditional; } ops[5] = {
      {"movs", 0xA4, MOVS, false}, {"cmps", 0xA6, CMPS, true}, {"stos", 0xAA, STOS, false},
      {"lods", 0xAC, LODS, false}, {"scas", 0xAE, SCAS, true}};
  char name[40];
  for (unsigned i = 0; i < 5; i++) {
    static const uint8_t reps[3] = {0, 0xF3, 0xF2};
    for (unsigned r = 0; r < (ops[i].conditional ? 3u : 2u); r++) {
      const char *prefix = r == 0 ? "" : r == 2 ? "repne " : ops[i].conditional ? "repe " : "rep ";
      snprintf(name, sizeof name, "%s%sb", prefix, ops[i].name);
      add(name, (Form){OPC(ops[i].opc), .enc = ENC_NONE, .mandatory = reps[r], .op = ops[i].kind,
                       .gen = gen_string}, S8);
      snprintf(name, sizeof name, "%s%s", prefix, ops[i].name);
      add(name, (Form){OPC((uint8_t)(ops[i].opc + 1)), .enc = ENC_NONE, .mandatory = reps[r],
                       .op = ops[i].kind, .gen = gen_string}, SV);
    }
  }
}

static void add_pairs(void) {
  char name[40];
  for (unsigned cc = 0; cc < 16; cc++) {
    snprintf(name, sizeof name, "pair: flags, set%s", cc_names[cc]);
    add(name, (Form){.op = PAIR_SETCC, .digit = (uint8_t)cc, .gen = gen_pair}, 0);
    snprintf(name, sizeof name, "pair: flags, cmov%s", cc_names[cc]);
    add(name, (Form){.op = PAIR_CMOVCC, .digit = (uint8_t)cc, .gen = gen_pair}, 0);
  }
  add("pair: flags, adc", (Form){.op = PAIR_ADC, .gen = gen_pair}, 0);
  add("pair: flags, sbb", (Form){.op = PAIR_SBB, .gen = gen_pair}, 0);
  add("pair: flags, cmc", (Form){.op = PAIR_CMC, .gen = gen_pair}, 0);
  add("pair: flags, lahf", (Form){.op = PAIR_LAHF, .gen = gen_pair}, 0);
}

/* Encodings the CPU rejects with #UD: the decoder must reject them too (guest SIGILL)
 * rather than run them. */
static void add_invalid(void) {
  uint16_t ud = X_LOCK | X_MAY_FAULT | X_NO_JUNK;
  add("#UD lock add Ev,Gv (register)", (Form){OPC(0x01), .enc = ENC_MODRM_REG, .where = WHERE_REG, .x = ud}, S32);
  add("#UD lock add Gv,Ev", (Form){OPC(0x03), .enc = ENC_MODRM_REG, .where = WHERE_BOTH, .x = ud}, S32);
  add("#UD lock cmp Ev,Gv", (Form){OPC(0x39), .enc = ENC_MODRM_REG, .where = WHERE_BOTH, .x = ud}, S32);
  add("#UD lock test Ev,Gv", (Form){OPC(0x85), .enc = ENC_MODRM_REG, .where = WHERE_BOTH, .x = ud}, S32);
  add("#UD lock mov Ev,Gv", (Form){OPC(0x89), .enc = ENC_MODRM_REG, .where = WHERE_BOTH, .x = ud}, S32);
  add("#UD lock inc Ev (register)", (Form){OPC(0xFF), .enc = ENC_MODRM_DIGIT, .where = WHERE_REG, .x = ud}, S32);
  add("#UD lock neg Ev (register)", (Form){OPC(0xF7), .enc = ENC_MODRM_DIGIT, .digit = 3, .where = WHERE_REG, .x = ud}, S32);
  add("#UD lock bt Ev,Gv", (Form){OPC(0x0F, 0xA3), .enc = ENC_MODRM_REG, .where = WHERE_BOTH, .x = ud | X_REG_NOT_ADDR}, S32);
  add("#UD lock imul Gv,Ev", (Form){OPC(0x0F, 0xAF), .enc = ENC_MODRM_REG, .where = WHERE_BOTH, .x = ud}, S32);
  add("#UD lock xadd Ev,Gv (register)", (Form){OPC(0x0F, 0xC1), .enc = ENC_MODRM_REG, .where = WHERE_REG, .x = ud}, S32);
  add("#UD lock cmpxchg Ev,Gv (register)", (Form){OPC(0x0F, 0xB1), .enc = ENC_MODRM_REG, .where = WHERE_REG, .x = ud}, S32);
  add("#UD lock xchg Ev,Gv (register)", (Form){OPC(0x87), .enc = ENC_MODRM_REG, .where = WHERE_REG, .x = ud}, S32);
  ud = X_MAY_FAULT | X_NO_JUNK;
  add("#UD lea Gv,register", (Form){OPC(0x8D), .enc = ENC_MODRM_REG, .where = WHERE_REG, .x = ud}, S32);
  add("#UD FE /7", (Form){OPC(0xFE), .enc = ENC_MODRM_DIGIT, .digit = 7, .where = WHERE_BOTH, .x = ud}, S8);
  add("#UD 0F BA /0", (Form){OPC(0x0F, 0xBA), .enc = ENC_MODRM_DIGIT, .where = WHERE_BOTH, .imm = IMM_B, .x = ud}, S32);
  add("#UD cmpxchg8b register", (Form){OPC(0x0F, 0xC7), .enc = ENC_MODRM_DIGIT, .digit = 1, .where = WHERE_REG, .x = ud}, S32);
  add("#UD 82 (invalid in 64-bit mode)", (Form){OPC(0x82), .enc = ENC_MODRM_DIGIT, .where = WHERE_BOTH, .imm = IMM_B, .x = ud}, S8);
}

/* BEXTR's control and BZHI's index: mostly inside and around the operand's width. */
static void prep_bit_field(Case *k, Rng *g) {
  uint64_t v = k->in.r[k->s.vvvv];
  uint64_t start = rng_chance(g, 85) ? rng_below(g, 70) : rng_below(g, 256);
  uint64_t len = rng_chance(g, 85) ? rng_below(g, 70) : rng_below(g, 256);
  if (rng_chance(g, 90)) v = (v & ~0xffffull) | len << 8 | start;
  k->in.r[k->s.vvvv] = v;
}

/* BMI1, BMI2 (VEX-encoded) and ADX, TZCNT. SDM: ANDN, BLSI, BLSR, BZHI define SF ZF CF
 * OF; BLSMSK too (ZF always clear); BEXTR ZF CF OF; TZCNT CF ZF; the others change no
 * flag; ADCX and ADOX only theirs. */
static void add_bmi(void) {
  unsigned szco = FL_SF | FL_ZF | FL_CF | FL_OF, keep = ARITH6;
  unsigned y = S32 | S64;
  add("andn Gy,By,Ey", (Form){OPC(0xF2), .vex_map = 2, .vv = VV_SRC, .enc = ENC_MODRM_REG, .where = WHERE_BOTH, .flags = szco}, y);
  static const char *const bls[4] = {NULL, "blsr By,Ey", "blsmsk By,Ey", "blsi By,Ey"};
  for (uint8_t d = 1; d <= 3; d++)
    add(bls[d], (Form){OPC(0xF3), .vex_map = 2, .vv = VV_DEST, .enc = ENC_MODRM_DIGIT, .digit = d, .where = WHERE_BOTH, .flags = szco}, y);
  add("bextr Gy,Ey,By", (Form){OPC(0xF7), .vex_map = 2, .vv = VV_SRC, .enc = ENC_MODRM_REG, .where = WHERE_BOTH,
                               .flags = FL_ZF | FL_CF | FL_OF, .prep = prep_bit_field}, y);
  add("bzhi Gy,Ey,By", (Form){OPC(0xF5), .vex_map = 2, .vv = VV_SRC, .enc = ENC_MODRM_REG, .where = WHERE_BOTH,
                              .flags = szco, .prep = prep_bit_field}, y);
  add("pdep Gy,By,Ey", (Form){OPC(0xF5), .vex_map = 2, .vex_pp = 3, .vv = VV_SRC, .enc = ENC_MODRM_REG, .where = WHERE_BOTH, .flags = keep}, y);
  add("pext Gy,By,Ey", (Form){OPC(0xF5), .vex_map = 2, .vex_pp = 2, .vv = VV_SRC, .enc = ENC_MODRM_REG, .where = WHERE_BOTH, .flags = keep}, y);
  add("mulx Gy,By,Ey", (Form){OPC(0xF6), .vex_map = 2, .vex_pp = 3, .vv = VV_DEST, .enc = ENC_MODRM_REG, .where = WHERE_BOTH,
                              .fixed = 1u << RDX, .flags = keep}, y);
  add("sarx Gy,Ey,By", (Form){OPC(0xF7), .vex_map = 2, .vex_pp = 2, .vv = VV_SRC, .enc = ENC_MODRM_REG, .where = WHERE_BOTH, .flags = keep}, y);
  add("shlx Gy,Ey,By", (Form){OPC(0xF7), .vex_map = 2, .vex_pp = 1, .vv = VV_SRC, .enc = ENC_MODRM_REG, .where = WHERE_BOTH, .flags = keep}, y);
  add("shrx Gy,Ey,By", (Form){OPC(0xF7), .vex_map = 2, .vex_pp = 3, .vv = VV_SRC, .enc = ENC_MODRM_REG, .where = WHERE_BOTH, .flags = keep}, y);
  add("rorx Gy,Ey,Ib", (Form){OPC(0xF0), .vex_map = 3, .vex_pp = 3, .enc = ENC_MODRM_REG, .where = WHERE_BOTH, .imm = IMM_B, .flags = keep}, y);
  add("tzcnt Gv,Ev", (Form){OPC(0x0F, 0xBC), .mandatory = 0xF3, .enc = ENC_MODRM_REG, .where = WHERE_BOTH,
                            .flags = FL_CF | FL_ZF, .prep = prep_scan}, SV);
  add("adcx Gy,Ey", (Form){OPC(0x0F, 0x38, 0xF6), .opc_len = 3, .mandatory = 0x66, .enc = ENC_MODRM_REG, .where = WHERE_BOTH,
                           .flags = keep, .x = X_NO_JUNK}, y);
  add("adox Gy,Ey", (Form){OPC(0x0F, 0x38, 0xF6), .opc_len = 3, .mandatory = 0xF3, .enc = ENC_MODRM_REG, .where = WHERE_BOTH,
                           .flags = keep, .x = X_NO_JUNK}, y);
  /* #UD: VEX.L 1, a register in RORX's vvvv, a 66 before VEX. */
  uint16_t ud = X_MAY_FAULT | X_NO_JUNK;
  add("#UD andn VEX.L1", (Form){OPC(0xF2), .vex_map = 2, .vv = VV_SRC, .enc = ENC_MODRM_REG, .where = WHERE_BOTH,
                                .x = ud | X_VEX_L1}, S32);
  add("#UD rorx with vvvv", (Form){OPC(0xF0), .vex_map = 3, .vex_pp = 3, .enc = ENC_MODRM_REG, .where = WHERE_BOTH, .imm = IMM_B,
                                   .x = ud | X_VVVV_SET}, S64);
  add("#UD 66 VEX mulx", (Form){OPC(0xF6), .vex_map = 2, .vex_pp = 3, .vv = VV_DEST, .enc = ENC_MODRM_REG, .where = WHERE_BOTH,
                                .x = ud | X_VEX_66}, S64);
}

void forms_build(void) {
  add_alu();
  add_unary_muldiv();
  add_shifts();
  add_bits();
  add_bmi();
  add_moves();
  add_strings();
  add_pairs();
  add_invalid();
}
