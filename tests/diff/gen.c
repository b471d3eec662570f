/* gen.c: random operands, register choice, memory operands and the x86 encoder that turns a
 * generated case into instruction bytes. */
#include <string.h>

#include "diff.h"

/* ---- random numbers ---- */

static uint64_t splitmix(uint64_t *x) {
  uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

void rng_seed(Rng *g, uint64_t seed) {
  for (int i = 0; i < 4; i++) g->s[i] = splitmix(&seed);
}

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t rng_next(Rng *g) {
  uint64_t *s = g->s;
  uint64_t result = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl(s[3], 45);
  return result;
}

uint64_t rng_value(Rng *g) {
  static const uint64_t edges[] = {
      0, 1, 2, 0x7f, 0x80, 0xff, 0x100, 0x7fff, 0x8000, 0xffff, 0x10000,
      0x7fffffff, 0x80000000, 0xffffffff, 0x100000000, 0x7fffffffffffffff,
      0x8000000000000000, 0xffffffffffffffff, 0xfffffffffffffffe, 0xaaaaaaaaaaaaaaaa,
  };
  uint64_t r = rng_next(g);
  switch (rng_below(g, 10)) {
  case 0: case 1: /* an edge, perhaps nudged by one */
    return edges[rng_below(g, sizeof edges / sizeof *edges)] + (uint64_t)(int64_t)(rng_below(g, 3) - 1);
  case 2: return r & 0xff;                        /* small */
  case 3: return (uint64_t)(int64_t)(int8_t)r;    /* small, either sign */
  case 4: return (uint64_t)(int64_t)(int16_t)r;
  case 5: return (uint64_t)(int64_t)(int32_t)r;
  case 6: return r & (r >> 7) & (r >> 13);        /* few bits set */
  default: return r;
  }
}

/* ---- registers and memory of a case ---- */

uint8_t *code_page, *data;
uint8_t data_init[DATA_SIZE];
uint64_t fs_base, gs_base;

uint64_t seg_base(uint8_t prefix) { return prefix == 0x64 ? fs_base : prefix == 0x65 ? gs_base : 0; }

void mem_put(uint64_t addr, uint64_t v, unsigned size) {
  memcpy(&data_init[addr - (uint64_t)(uintptr_t)data], &v, size);
}

uint64_t mem_get(uint64_t addr, unsigned size) {
  uint64_t v = 0;
  memcpy(&v, &data_init[addr - (uint64_t)(uintptr_t)data], size);
  return v;
}

static uint64_t merge(uint64_t old, uint64_t v, unsigned size) {
  uint64_t m = size >= 8 ? ~0ull : (1ull << (8 * size)) - 1;
  return (old & ~m) | (v & m);
}

/* Input values keep whatever lies above the operand size: the instruction must ignore it. */
void case_set_reg(Case *k, int reg, uint64_t v, unsigned size) {
  if (reg >= HI_AH) {
    uint64_t *r = &k->in.r[reg - HI_AH];
    *r = (*r & ~0xff00ull) | ((v & 0xff) << 8);
  } else {
    k->in.r[reg] = merge(k->in.r[reg], v, size);
  }
}

uint64_t case_get_reg(const Case *k, int reg, unsigned size) {
  if (reg >= HI_AH) return (k->in.r[reg - HI_AH] >> 8) & 0xff;
  return merge(0, k->in.r[reg], size);
}

void case_set_rm(Case *k, uint64_t v, unsigned size) {
  if (k->s.mem) mem_put(k->s.m.target, v, size);
  else case_set_reg(k, k->s.rm, v, size);
}

uint64_t case_get_rm(const Case *k, unsigned size) {
  return k->s.mem ? mem_get(k->s.m.target, size) : case_get_reg(k, k->s.rm, size);
}

int pick_gpr(Rng *g, unsigned avoid, bool low8_only) {
  avoid |= 1u << 4; /* RSP belongs to the harness */
  for (;;) {
    int r = (int)rng_below(g, low8_only ? 8 : 16);
    if (!(avoid & (1u << r))) return r;
  }
}

/* A byte register: AL..BL, AH..BH in legacy mode; else any but SPL. */
static int pick_byte_reg(Rng *g, bool legacy) {
  if (legacy) {
    int r = (int)rng_below(g, 8);
    return r < 4 ? r : HI_AH + r - 4;
  }
  return pick_gpr(g, 0, false);
}

/* ---- the encoder ---- */

static unsigned low3(int r) { return r >= HI_AH ? (unsigned)(4 + r - HI_AH) : (unsigned)r & 7; }
static bool high(int r) { return r >= 8 && r < 16; }

unsigned encode(const Spec *s, uint8_t *out, uint64_t rip) {
  unsigned n = 0;
  for (unsigned i = 0; i < s->n_legacy; i++) out[n++] = s->legacy[i];
  const Mem *m = &s->m;
  bool rex_r = s->modrm && high(s->reg);
  bool rex_x = s->modrm && s->mem && m->index != REG_NO && high(m->index);
  bool rex_b = s->modrm ? (s->mem ? (m->base != REG_NO && high(m->base)) : high(s->rm))
                        : (s->opreg != REG_NO && high(s->opreg));
  if (s->vex_map) { /* R, X, B and vvvv inverted; then the opcode byte alone */
    unsigned vvvv = s->vvvv == REG_NO ? 15 : 15 - (unsigned)s->vvvv;
    uint8_t last = (uint8_t)(vvvv << 3 | (unsigned)s->vex_l << 2 | s->vex_pp);
    if (s->vex_short && s->vex_map == 1 && !rex_x && !rex_b && !s->rex_w) {
      out[n++] = 0xC5;
      out[n++] = (uint8_t)(!rex_r << 7 | last);
    } else {
      out[n++] = 0xC4;
      out[n++] = (uint8_t)(!rex_r << 7 | !rex_x << 6 | !rex_b << 5 | s->vex_map);
      out[n++] = (uint8_t)(s->rex_w << 7 | last);
    }
    out[n++] = s->opc[s->opc_len - 1];
  } else {
    if (s->rex_w || rex_r || rex_x || rex_b || s->force_rex)
      out[n++] = (uint8_t)(0x40 | s->rex_w << 3 | rex_r << 2 | rex_x << 1 | rex_b);
    for (unsigned i = 0; i < s->opc_len; i++) out[n++] = s->opc[i];
  }
  if (s->opreg != REG_NO) out[n - 1] |= (uint8_t)low3(s->opreg);
  unsigned disp_at = 0, disp_size = 0;
  if (s->modrm) {
    unsigned reg = low3(s->reg);
    if (!s->mem) {
      out[n++] = (uint8_t)(0xC0 | reg << 3 | low3(s->rm));
    } else if (m->rip_relative) {
      out[n++] = (uint8_t)(reg << 3 | 5);
      disp_size = 4;
    } else {
      unsigned idx = m->index == REG_NO ? 4 : low3(m->index);
      if (m->base == REG_NO) {
        out[n++] = (uint8_t)(reg << 3 | 4);
        out[n++] = (uint8_t)(m->scale << 6 | idx << 3 | 5);
        disp_size = 4;
      } else {
        disp_size = m->disp_size;
        if (disp_size == 0 && low3(m->base) == 5) disp_size = 1; /* [rbp] needs a disp8 */
        unsigned mod = disp_size == 0 ? 0 : disp_size == 1 ? 1 : 2;
        if (m->index != REG_NO || low3(m->base) == 4) {
          out[n++] = (uint8_t)(mod << 6 | reg << 3 | 4);
          out[n++] = (uint8_t)(m->scale << 6 | idx << 3 | low3(m->base));
        } else {
          out[n++] = (uint8_t)(mod << 6 | reg << 3 | low3(m->base));
        }
      }
    }
    disp_at = n;
    n += disp_size;
  }
  for (unsigned i = 0; i < s->imm_size; i++) out[n++] = (uint8_t)(s->imm >> (8 * i));
  int64_t disp = m->rip_relative ? (int64_t)(m->target - (rip + n)) : m->disp;
  for (unsigned i = 0; i < disp_size; i++) out[disp_at + i] = (uint8_t)((uint64_t)disp >> (8 * i));
  return n;
}

void case_emit(Case *k, const Spec *s) {
  unsigned n = encode(s, k->code + k->len, (uint64_t)(uintptr_t)code_page + k->len);
  if (n > 15) k->reject = true; /* too long for the CPU: #GP, not what is tested */
  if (k->n_insn < CASE_MAX_INSNS) {
    k->insn_at[k->n_insn] = (uint16_t)k->len;
    k->insn_len[k->n_insn] = (uint8_t)n;
  } else {
    k->reject = true;
  }
  k->len += n;
  k->n_insn++;
  k->s = *s;
}

/* ---- the generic case: one instruction from a form ---- */

static unsigned imm_bytes(const Form *f) {
  if (f->imm & IMM_Z) return f->size == 2 ? 2 : 4;
  if (f->imm & IMM_V) return f->size;
  return f->imm;
}

uint64_t gen_target_hint;

/* Chooses the addressing form of a memory operand; values come later (assign_address). */
static void choose_address(Case *k, Rng *g, unsigned avoid, bool legacy) {
  Mem *m = &k->s.m;
  const Form *f = k->f;
  m->base = m->index = REG_NO;
  m->addr32 = rng_chance(g, 10);

  unsigned shape = rng_below(g, 20);
  if (shape == 0) {
    m->rip_relative = true;
  } else {
    if (shape != 1) m->base = pick_gpr(g, avoid, legacy);
    if (shape == 1 || rng_chance(g, 40)) {
      do m->index = pick_gpr(g, avoid, legacy);
      while (m->index == m->base);
      m->scale = rng_below(g, 4);
    }
  }
  /* FS/GS overrides, with a base register to absorb the segment base. That base is added
   * after 32-bit truncation, so with 67 only GS (a small base) keeps the operand reachable. */
  if (m->base != REG_NO && rng_chance(g, 8)) m->seg = m->addr32 || rng_chance(g, 50) ? 0x65 : 0x64;
  unsigned d = rng_below(g, 3);
  m->disp_size = d == 0 ? 0 : d == 1 ? 1 : 4;
  if (m->base != REG_NO && m->disp_size == 0 && (m->base & 7) == 5) m->disp_size = 1;
  if (m->disp_size == 1) m->disp = (int8_t)rng_next(g);
  else if (m->disp_size == 4) m->disp = rng_chance(g, 50) ? (int32_t)rng_next(g) : (int16_t)rng_next(g);
  else m->disp = 0;
  unsigned span = DATA_HI - DATA_LO - 16;
  uint64_t off = DATA_LO + rng_below(g, span);
  unsigned size = f->rm_size ? f->rm_size : 1;
  if (rng_chance(g, 50)) off &= ~(uint64_t)(size - 1);
  m->target = (uint64_t)(uintptr_t)data + off;
  if (gen_target_hint) m->target = gen_target_hint;
  for (unsigned i = 0; i < 16; i += 8) mem_put(m->target + i, rng_value(g), 8);
}

/* Gives the address registers values that make the operand land on m->target (or, for
 * LEA, anything at all). */
static void assign_address(Case *k, Rng *g) {
  Mem *m = &k->s.m;
  if (k->f->x & X_LEA) { /* LEA ignores segments: the overrides stay, as noise */
    if (m->base == REG_NO) m->disp = (int32_t)rng_next(g);
    return; /* the random register values are the test */
  }
  int64_t iv = m->index == REG_NO ? 0 : (int64_t)rng_below(g, 129) - 64;
  uint64_t scaled = (uint64_t)iv << m->scale;
  uint64_t offset = m->target - seg_base(m->seg);
  if (m->base == REG_NO) m->disp = (int64_t)(offset - scaled);
  uint64_t bv = offset - (uint64_t)m->disp - scaled;
  if (m->rip_relative) return;
  if (m->addr32) {
    /* Only the low halves count; the upper ones are noise the CPU must drop. */
    if (m->index != REG_NO) k->in.r[m->index] = rng_next(g) << 32 | (uint32_t)iv;
    if (m->base != REG_NO) k->in.r[m->base] = rng_next(g) << 32 | (uint32_t)bv;
    if (m->base == REG_NO) m->disp = (int32_t)m->disp;
  } else {
    if (m->index != REG_NO) k->in.r[m->index] = (uint64_t)iv;
    if (m->base != REG_NO) k->in.r[m->base] = bv;
  }
}

/* A VEX-encoded form: no legacy prefix but a segment or 67 one (and 66 where the case
 * is #UD), VEX.W for 64 bits, and the vvvv register the form has. */
static void generic_vex(Case *k, Rng *g) {
  const Form *f = k->f;
  Spec *s = &k->s;
  memcpy(s->opc, f->opc, sizeof s->opc);
  s->opc_len = f->opc_len;
  s->opreg = REG_NO;
  s->rex_w = f->size == 8;
  s->vex_map = f->vex_map;
  s->vex_pp = f->vex_pp;
  s->vex_l = f->x & X_VEX_L1;
  s->vex_short = rng_chance(g, 50);
  s->modrm = true;
  unsigned avoid = f->fixed;
  if (f->enc == ENC_MODRM_DIGIT) {
    s->reg = f->digit;
  } else {
    s->reg = pick_gpr(g, 0, false);
    avoid |= 1u << s->reg;
  }
  s->vvvv = f->vv != VV_NONE || (f->x & X_VVVV_SET) ? pick_gpr(g, 0, false) : REG_NO;
  if (s->vvvv != REG_NO) avoid |= 1u << s->vvvv;
  if (f->x & X_VEX_66) s->legacy[s->n_legacy++] = 0x66;
  s->mem = f->where == WHERE_MEM || (f->where == WHERE_BOTH && rng_chance(g, 50));
  if (s->mem) {
    choose_address(k, g, avoid, false);
    if (s->m.seg) s->legacy[s->n_legacy++] = s->m.seg;
    if (s->m.addr32) s->legacy[s->n_legacy++] = 0x67;
  } else {
    s->rm = pick_gpr(g, 0, false);
  }
  s->imm_size = imm_bytes(f);
  if (s->imm_size) s->imm = rng_value(g) & ((1ull << (8 * s->imm_size)) - 1);
  if (f->prep) f->prep(k, g);
  if (k->reject) return;
  if (s->mem) assign_address(k, g);
  k->flag_mask = f->mask ? f->mask(k) : f->flags;
  case_emit(k, s);
}

static void generic(Case *k, Rng *g) {
  const Form *f = k->f;
  Spec *s = &k->s;
  if (f->vex_map) {
    generic_vex(k, g);
    return;
  }
  memcpy(s->opc, f->opc, sizeof s->opc);
  s->opc_len = f->opc_len;
  s->opreg = REG_NO;
  s->rex_w = f->size == 8;
  bool junk = !(f->x & X_NO_JUNK);
  bool bytes = f->reg_size == 1 || f->rm_size == 1;
  bool legacy = bytes && !s->rex_w && rng_chance(g, 35); /* AH..BH reachable, no REX */

  /* 66 sets 16 bits, except for byte operations and under REX.W, where it means nothing. */
  if (f->size == 2 || (junk && (f->size == 1 || f->size == 8) && rng_chance(g, 5)))
    s->legacy[s->n_legacy++] = 0x66;

  unsigned avoid = f->fixed;
  switch (f->enc) {
  case ENC_MODRM_REG:
    s->modrm = true;
    s->reg = f->reg_size == 1 ? pick_byte_reg(g, legacy) : pick_gpr(g, 0, legacy);
    if (f->x & X_REG_NOT_ADDR) avoid |= 1u << (s->reg >= HI_AH ? s->reg - HI_AH : s->reg);
    break;
  case ENC_MODRM_DIGIT:
    s->modrm = true;
    s->reg = f->digit;
    break;
  case ENC_OPREG:
    s->opreg = f->reg_size == 1 ? pick_byte_reg(g, legacy) : pick_gpr(g, 0, legacy);
    break;
  default:
    break;
  }
  bool locked = f->x & X_LOCK;
  if (s->modrm) {
    s->mem = f->where == WHERE_MEM || (f->where == WHERE_BOTH && rng_chance(g, 50));
    if (s->mem) {
      choose_address(k, g, avoid, legacy);
      if (s->m.seg) s->legacy[s->n_legacy++] = s->m.seg;
      if (s->m.addr32) s->legacy[s->n_legacy++] = 0x67;
      if ((f->x & X_LOCKABLE) && rng_chance(g, 20)) locked = true;
    } else {
      s->rm = f->rm_size == 1 ? pick_byte_reg(g, legacy) : pick_gpr(g, 0, legacy);
    }
  }
  if (locked) s->legacy[s->n_legacy++] = 0xF0;
  /* Segment prefixes other than FS/GS change nothing in 64-bit mode. */
  if (junk && !s->m.seg && rng_chance(g, 4)) s->legacy[s->n_legacy++] = (uint8_t[]){0x2E, 0x3E, 0x26, 0x36}[rng_below(g, 4)];
  /* REP/REPNE mean nothing to one-byte-map operations that are not strings (with LOCK
   * they would be HLE hints: left out); but F3 90 is PAUSE, whatever the REX. */
  if (junk && !locked && f->opc[0] != 0x0F && rng_chance(g, 4))
    s->legacy[s->n_legacy++] = rng_chance(g, 50) ? 0xF2 : 0xF3;
  if (f->mandatory) s->legacy[s->n_legacy++] = f->mandatory;
  /* SPL..DIL need a REX; a bare REX (40) on other forms must change nothing. */
  if (!legacy) {
    if (f->reg_size == 1 && s->modrm && s->reg >= 4 && s->reg < 8 && f->enc == ENC_MODRM_REG) s->force_rex = true;
    if (f->rm_size == 1 && s->modrm && !s->mem && s->rm >= 4 && s->rm < 8) s->force_rex = true;
    if (f->reg_size == 1 && s->opreg >= 4 && s->opreg < 8) s->force_rex = true;
    if (junk && rng_chance(g, 5)) s->force_rex = true;
    if (junk && f->size == 1 && rng_chance(g, 5)) s->rex_w = true; /* W means nothing to byte operations */
  }
  /* A REX followed by a legacy prefix or by another REX is ignored by the CPU (the one
   * before the opcode counts, so that one is forced: not with AH..BH operands). Capstone
   * 4.0.2, the decoder's length oracle, rejects F3 REX REX 0F B8 (POPCNT): no REX pairs
   * after a mandatory prefix. */
  bool rex_pair = !legacy && !f->mandatory;
  if (junk && (s->n_legacy || rex_pair) && s->n_legacy < sizeof s->legacy && rng_chance(g, 3)) {
    unsigned at = rng_below(g, s->n_legacy + rex_pair);
    if (at == s->n_legacy) s->force_rex = true;
    memmove(&s->legacy[at + 1], &s->legacy[at], s->n_legacy - at);
    s->legacy[at] = (uint8_t)(0x40 | rng_below(g, 16));
    s->n_legacy++;
  }
  s->imm_size = imm_bytes(f);
  if (s->imm_size) {
    uint64_t v = rng_value(g);
    s->imm = s->imm_size == 8 ? v : v & ((1ull << (8 * s->imm_size)) - 1);
  }
  if (f->prep) f->prep(k, g);
  if (k->reject) return;
  if (s->modrm && s->mem) assign_address(k, g);
  k->flag_mask = f->mask ? f->mask(k) : f->flags;
  case_emit(k, s);
}

/* Draws until the form accepts; registers and flags come from `start`, or are random. */
static void generate(Case *k, Rng *g, const Regs *start) {
  const Form *f = k->f;
  for (;;) {
    memset(k, 0, sizeof *k);
    k->f = f;
    if (start) {
      k->in = *start;
    } else {
      for (int i = 0; i < 16; i++) k->in.r[i] = rng_value(g);
      k->in.r[4] = 0;
      k->in.rflags = (rng_next(g) & ARITH6) | 0x202 | (rng_chance(g, 25) ? FL_DF : 0);
    }
    if (f->gen) f->gen(k, g);
    else generic(k, g);
    if (!k->reject) return;
  }
}

void case_generate(Case *k, Rng *g) { generate(k, g, NULL); }

void case_generate_from(Case *k, Rng *g, const Regs *start) { generate(k, g, start); }
