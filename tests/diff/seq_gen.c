/* seq_gen.c: draws straight-line sequences from the form table for the block tester, and
 * follows which arithmetic flags stay defined (SDM) from one instruction to the next.
 *
 * Each instruction is generated on the registers the sequence really holds at that point
 * (the native run of the sequence so far tells them); what the form's generator changes
 * there (address registers, shift counts, dividends...) becomes MOV r, imm (and CLD/STD)
 * set-up instructions in front of it. Moves change no flags, so they also test that flags
 * flow through them. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "model.h"
#include "seq.h"

#define SZAPC (FL_SF | FL_ZF | FL_AF | FL_PF | FL_CF)

/* ---- what each form does to the arithmetic flags ---- */

/* Flags read by condition code cc >> 1 (SETcc, CMOVcc). */
static const unsigned cc_reads[8] = {FL_OF, FL_CF, FL_ZF, FL_CF | FL_ZF, FL_SF, FL_PF,
                                     FL_SF | FL_OF, FL_ZF | FL_SF | FL_OF};

enum { RCL = 2, RCR = 3 };

static bool is_alu(uint8_t op) { return op < 0x40 && (op & 7) < 6; }
static bool is_alu_imm(uint8_t op) { return op == 0x80 || op == 0x81 || op == 0x83; }
static bool is_shift(uint8_t op) { return op == 0xC0 || op == 0xC1 || (op >= 0xD0 && op <= 0xD3); }
static bool is_string(const Form *f) { return f->gen && f->opc[0] >= 0xA4 && f->opc[0] <= 0xAF; }
static bool is_moffs(const Form *f) { return f->gen && f->opc[0] >= 0xA0 && f->opc[0] <= 0xA3; }
static bool is_double_shift(const Form *f) {
  uint8_t op = f->opc[1];
  return f->opc[0] == 0x0F && (op == 0xA4 || op == 0xA5 || op == 0xAC || op == 0xAD);
}
static bool is_bt_reg(const Form *f) {
  uint8_t op = f->opc[1];
  return f->opc[0] == 0x0F && (op == 0xA3 || op == 0xAB || op == 0xB3 || op == 0xBB);
}

/* The shift count after the CPU's masking (forms.c keeps the drawn one in k->count). */
static unsigned masked_count(const Form *f, const Case *k) {
  return (unsigned)k->count & (f->size == 8 ? 63 : 31);
}

/* The string's repeat count (RCX, or ECX with a 67 prefix); 1 without REP. */
static uint64_t string_count(const Case *k) {
  if (!k->f->mandatory) return 1;
  bool a32 = memchr(k->s.legacy, 0x67, k->s.n_legacy) != NULL;
  return a32 ? (uint32_t)k->in.r[1] : k->in.r[1];
}

/* Flags the instruction reads (k NULL: may read, whatever its operands). */
static unsigned flags_read(const Form *f, const Case *k) {
  uint8_t op = f->opc[0];
  if (f->vex_map) return 0; /* BMI1, BMI2 */
  if (op == 0x0F && f->opc[1] == 0x38 && f->opc[2] == 0xF6) /* ADCX, ADOX */
    return f->mandatory == 0x66 ? FL_CF : FL_OF;
  if (op == 0x0F) {
    uint8_t op1 = f->opc[1] & 0xF0;
    return op1 == 0x40 || op1 == 0x90 ? cc_reads[(f->opc[1] & 15) >> 1] : 0;
  }
  if (f->gen) return 0;
  if (is_alu(op) && (op >> 3 == 2 || op >> 3 == 3)) return FL_CF; /* ADC, SBB */
  if (is_alu_imm(op) && (f->digit == 2 || f->digit == 3)) return FL_CF;
  if (is_shift(op) && (f->digit == RCL || f->digit == RCR)) return !k || masked_count(f, k) ? FL_CF : 0;
  if (op == 0x9F) return SZAPC; /* LAHF */
  if (op == 0xF5) return FL_CF; /* CMC */
  return 0;
}

/* Flags the instruction leaves as they were (SDM "unaffected"); k NULL: for a non-zero
 * count. With forms.c's mask (the flags defined after it when all were defined before),
 * this gives what is defined after it in a sequence. */
static unsigned flags_kept(const Form *f, const Case *k) {
  uint8_t op = f->opc[0];
  if (f->vex_map) /* ANDN, BLS*, BEXTR, BZHI write them all; the other BMI2 forms none */
    return f->flags == ARITH6 ? ARITH6 : 0;
  if (op == 0x0F && f->opc[1] == 0x38 && f->opc[2] == 0xF6) /* ADCX, ADOX */
    return ARITH6 & ~(f->mandatory == 0x66 ? FL_CF : FL_OF);
  if (op == 0x0F) {
    if (is_double_shift(f)) return k && masked_count(f, k) == 0 ? ARITH6 : 0;
    switch (f->opc[1]) {
    case 0xA3: case 0xAB: case 0xB3: case 0xBB: case 0xBA: return FL_ZF; /* BT* */
    case 0xC7: return ARITH6 & ~FL_ZF;                                    /* CMPXCHG8B/16B */
    case 0xAF: case 0xB0: case 0xB1: case 0xB8: case 0xBC: case 0xBD: case 0xC0: case 0xC1:
      return 0; /* IMUL, CMPXCHG, POPCNT, BSF, BSR/LZCNT, XADD */
    default: return ARITH6; /* CMOVcc, SETcc, MOVZX/MOVSX, BSWAP, MOVBE */
    }
  }
  if (is_string(f)) {
    bool compares = op == 0xA6 || op == 0xA7 || op == 0xAE || op == 0xAF;
    return compares && (!k || string_count(k) != 0) ? 0 : ARITH6;
  }
  if (f->gen) return ARITH6; /* MOV with an absolute address */
  if (is_alu(op) || is_alu_imm(op)) return 0;
  switch (op) {
  case 0x84: case 0x85: case 0xA8: case 0xA9: case 0x69: case 0x6B: return 0; /* TEST, IMUL */
  case 0xF6: case 0xF7: return f->digit == 2 ? ARITH6 : 0;                   /* NOT keeps all */
  case 0xFE: case 0xFF: return FL_CF;                                        /* INC, DEC */
  case 0x9E: return FL_OF;                                                   /* SAHF */
  case 0xF5: case 0xF8: case 0xF9: return ARITH6 & ~FL_CF;                   /* CMC CLC STC */
  default: break;
  }
  if (is_shift(op)) {
    if (k && masked_count(f, k) == 0) return ARITH6;
    return f->digit < 4 ? ARITH6 & ~(FL_CF | FL_OF) : 0; /* rotates: only CF and OF */
  }
  return ARITH6; /* moves, XCHG, LEA, CBW, CWD, LAHF, CLD, STD */
}

/* ---- the form lists the draws come from ---- */

/* Forms whose handlers skip work for flags that are not live (liveness matters most). */
static bool skips_dead_flags(const Form *f) {
  uint8_t op = f->opc[0];
  if (f->gen || f->vex_map) return false;
  if (op == 0x0F) {
    uint8_t op1 = f->opc[1];
    return is_double_shift(f) || is_bt_reg(f) || op1 == 0xBA || op1 == 0xAF || op1 == 0xBC || op1 == 0xBD;
  }
  /* ADD, OR, AND, SUB and XOR (ALU ops 0, 1, 4, 5, 6) have forms that record no flags. */
  unsigned alu = is_alu(op) ? op >> 3u : is_alu_imm(op) ? f->digit : 8;
  return (alu < 8 && (0x73u >> alu & 1)) || is_shift(op) || ((op == 0xFE || op == 0xFF) && f->digit < 2) ||
         ((op == 0xF6 || op == 0xF7) && (f->digit == 4 || f->digit == 5)) || op == 0x69 || op == 0x6B;
}

/* Flag readers, the writers that skip dead flags, the other writers, the rest; and the
 * subtractions, ANDs, compares, tests, increments and decrements that may end a sequence
 * before its Jcc. */
enum { READERS, SKIPPERS, WRITERS, OTHERS, N_LISTS, COMPARES = N_LISTS };
static const Form **lists[N_LISTS + 1];
static unsigned list_size[N_LISTS + 1];
static const unsigned list_percent[N_LISTS] = {30, 30, 25, 15};

static bool usable(const Form *f) {
  if (f->x & X_LOCK) return false;                     /* the #UD forms */
  if (!strncmp(f->name, "pair:", 5)) return false;     /* already sequences */
  return true;
}

/* SUB, AND, CMP (ALU ops 5, 4, 7, also with an immediate), TEST, INC and DEC. */
static bool compares(const Form *f) {
  uint8_t op = f->opc[0];
  if (f->gen || f->vex_map || op == 0x0F) return false;
  if (is_alu(op)) return op >> 3 == 4 || op >> 3 == 5 || op >> 3 == 7;
  if (is_alu_imm(op)) return f->digit == 4 || f->digit == 5 || f->digit == 7;
  if (op == 0xFE || op == 0xFF) return f->digit < 2;
  return op == 0x84 || op == 0x85 || op == 0xA8 || op == 0xA9;
}

static void sort_forms(void) {
  if (lists[0]) return;
  for (unsigned i = 0; i <= N_LISTS; i++) lists[i] = calloc(n_forms, sizeof *lists[i]);
  for (unsigned i = 0; i < n_forms; i++) {
    const Form *f = &forms[i];
    if (!usable(f)) continue;
    if (compares(f)) lists[COMPARES][list_size[COMPARES]++] = f;
    unsigned l = flags_read(f, NULL)                ? READERS
                 : skips_dead_flags(f)              ? SKIPPERS
                 : flags_kept(f, NULL) != ARITH6    ? WRITERS
                                                    : OTHERS;
    lists[l][list_size[l]++] = f;
  }
}

static const Form *draw_form(Rng *g, bool compare) {
  if (compare) return lists[COMPARES][rng_below(g, list_size[COMPARES])];
  unsigned p = rng_below(g, 100), l = 0;
  while (p >= list_percent[l]) p -= list_percent[l++];
  return lists[l][rng_below(g, list_size[l])];
}

/* ---- code ---- */

static uint64_t code_rip(unsigned at) { return (uint64_t)(uintptr_t)code_page + at; }

uint64_t seq_stop_rip(void) { return code_rip(SEQ_STOP_OFFSET); }

void seq_place(const Seq *q, unsigned n) {
  unsigned end = n < q->n ? q->insn[n].at : q->len;
  memcpy(code_page, q->code, end);
  uint8_t *j = code_page + end;
  if (n >= q->n && q->end_cc >= 0) { /* Jcc stop; NOT R15 */
    int32_t rel = (int32_t)(SEQ_STOP_OFFSET - (end + 6));
    const uint8_t not_r15[3] = {0x49, 0xF7, 0xD7};
    j[0] = 0x0F;
    j[1] = (uint8_t)(0x80 | q->end_cc);
    memcpy(j + 2, &rel, 4);
    memcpy(j + 6, not_r15, 3);
    j += 9;
    end += 9;
  }
  int32_t rel = (int32_t)(SEQ_STOP_OFFSET - (end + 5));
  j[0] = 0xE9;
  memcpy(j + 1, &rel, 4);
  code_page[SEQ_STOP_OFFSET] = 0xC3;
  uint16_t at[SEQ_MAX_INSNS];
  uint8_t len[SEQ_MAX_INSNS];
  unsigned placed = n < q->n ? n : q->n;
  for (unsigned i = 0; i < placed; i++) {
    at[i] = q->insn[i].at;
    len[i] = q->insn[i].len;
  }
  model_sites_set(at, len, placed);
}

static bool append(Seq *q, const uint8_t *bytes, unsigned len, const Form *f, unsigned defined) {
  if (q->n >= SEQ_MAX_INSNS || q->len + len > SEQ_CODE_MAX) return false;
  q->insn[q->n++] = (SeqInsn){.f = f, .at = (uint16_t)q->len, .len = (uint8_t)len, .defined = defined};
  memcpy(q->code + q->len, bytes, len);
  q->len += len;
  return true;
}

/* MOV that turns register r from `old` into v, as short as the changed bits allow (AH..BH
 * and 8/16-bit moves keep the rest of the register). */
static bool set_reg(Seq *q, int r, uint64_t old, uint64_t v, unsigned defined) {
  uint64_t diff = old ^ v;
  uint8_t b[12];
  unsigned n = 0, low = (unsigned)r & 7, rex_b = r >= 8;
  unsigned imm = 0;
  if (!(diff & ~0xffull)) {
    if (r >= 4) b[n++] = (uint8_t)(0x40 | rex_b); /* SIL.., R8B..: REX */
    b[n++] = (uint8_t)(0xB0 | low);
    imm = 1;
  } else if (r < 4 && !(diff & ~0xff00ull)) {
    b[n++] = (uint8_t)(0xB4 | low); /* AH, CH, DH, BH */
    v >>= 8;
    imm = 1;
  } else if (!(diff & ~0xffffull)) {
    b[n++] = 0x66;
    if (rex_b) b[n++] = 0x41;
    b[n++] = (uint8_t)(0xB8 | low);
    imm = 2;
  } else if (v >> 32 == 0) {
    if (rex_b) b[n++] = 0x41;
    b[n++] = (uint8_t)(0xB8 | low);
    imm = 4;
  } else if ((int64_t)v == (int32_t)v) {
    b[n++] = (uint8_t)(0x48 | rex_b);
    b[n++] = 0xC7;
    b[n++] = (uint8_t)(0xC0 | low);
    imm = 4;
  } else {
    b[n++] = (uint8_t)(0x48 | rex_b);
    b[n++] = (uint8_t)(0xB8 | low);
    imm = 8;
  }
  for (unsigned i = 0; i < imm; i++) b[n++] = (uint8_t)(v >> (8 * i));
  return append(q, b, n, NULL, defined);
}

/* ---- memory the sequence already depends on ---- */

/* Bytes of the data area an accepted instruction reads or writes: the image there must
 * not change any more, or the sequence so far would run differently. */
static uint8_t touched[DATA_SIZE];
static uint8_t image_before[DATA_SIZE];

static void touch(uint64_t lo, uint64_t hi) {
  uint64_t base = (uint64_t)(uintptr_t)data;
  lo = lo < base ? 0 : lo - base;
  hi = hi < base ? 0 : hi - base;
  for (uint64_t i = lo; i < hi && i < DATA_SIZE; i++) touched[i] = 1;
}

static uint64_t sign_extend(uint64_t v, unsigned size) {
  unsigned sh = 64 - 8 * size;
  return (uint64_t)((int64_t)(v << sh) >> sh);
}

static void touch_operands(const Case *k) {
  const Form *f = k->f;
  const Spec *s = &k->s;
  if (is_moffs(f)) {
    uint64_t at = s->imm_size == 4 ? (uint32_t)s->imm : s->imm;
    touch(at, at + 8);
  } else if (is_string(f)) { /* either direction, a repeat count of elements */
    bool a32 = memchr(s->legacy, 0x67, s->n_legacy) != NULL;
    uint8_t seg = memchr(s->legacy, 0x64, s->n_legacy) ? 0x64 : memchr(s->legacy, 0x65, s->n_legacy) ? 0x65 : 0;
    uint64_t si = seg_base(seg) + (a32 ? (uint32_t)k->in.r[6] : k->in.r[6]);
    uint64_t di = a32 ? (uint32_t)k->in.r[7] : k->in.r[7];
    uint64_t span = (string_count(k) + 1) * f->size;
    touch(si - span, si + span);
    touch(di - span, di + span);
  } else if (s->mem && !(f->x & X_LEA)) {
    touch(s->m.target, s->m.target + 16);
    if (is_bt_reg(f)) { /* the bit offset reaches beyond the operand */
      int64_t off = (int64_t)sign_extend(k->in.r[s->reg], f->size), bits = 8 * f->size;
      int64_t unit = off >= 0 ? off / bits : -((-off + bits - 1) / bits);
      uint64_t at = s->m.target + (uint64_t)(unit * f->size);
      touch(at, at + f->size);
    }
  }
}

/* ---- drawing ---- */

/* Where a sequence being drawn stands. */
typedef struct Drawing {
  Seq *q;
  Regs now;         /* the registers before the next instruction (native run) */
  unsigned defined; /* the arithmetic flags defined there */
  uint64_t targets[SEQ_MAX_MAIN]; /* memory operands so far */
  unsigned n_targets;
} Drawing;

static Outcome probe;

/* Sometimes aims the next memory operand at an earlier one, exactly or overlapping. */
static void aim(Drawing *d, Rng *g) {
  gen_target_hint = 0;
  if (!d->n_targets || !rng_chance(g, 40)) return;
  int64_t off = (int64_t)(d->targets[rng_below(g, d->n_targets)] - (uint64_t)(uintptr_t)data);
  off += (int64_t)rng_below(g, 17) - 8;
  if (off < DATA_LO) off = DATA_LO;
  if (off > DATA_HI - 16) off = DATA_HI - 16;
  gen_target_hint = (uint64_t)(uintptr_t)data + (uint64_t)off;
}

/* Appends the set-up moves and the instruction k; false when the sequence is full. */
static bool append_case(Drawing *d, const Case *k, bool lahf) {
  Seq *q = d->q;
  for (int r = 0; r < 16; r++)
    if (k->in.r[r] != d->now.r[r] && !set_reg(q, r, d->now.r[r], k->in.r[r], d->defined)) return false;
  if ((k->in.rflags ^ d->now.rflags) & FL_DF) {
    uint8_t direction = k->in.rflags & FL_DF ? 0xFD : 0xFC; /* STD, CLD */
    if (!append(q, &direction, 1, NULL, d->defined)) return false;
  }
  uint8_t bytes[16];
  unsigned len = encode(&k->s, bytes, code_rip(q->len));
  unsigned kept = flags_kept(k->f, k);
  unsigned after = (d->defined & kept) | (k->flag_mask & ~kept & ARITH6);
  if (len > 15 || !append(q, bytes, len, k->f, after)) return false;
  if (lahf) q->rax_undefined = (uint64_t)(SZAPC & ~d->defined) << 8; /* AH bit = flag bit */
  return true;
}

/* Draws one instruction on the current state and appends it with its set-up moves; false
 * (nothing changed) when the draw does not fit: a flag it reads is undefined, the sequence
 * is full, or the native run traps. LAHF may read undefined flags as the last instruction:
 * the AH bits they land in are left out of the comparison. */
static bool draw_one(Drawing *d, Rng *g, bool last, bool compare) {
  Seq *q = d->q;
  const Form *f = draw_form(g, compare);
  bool lahf = f->opc[0] == 0x9F && !f->gen;
  if ((flags_read(f, NULL) & ~d->defined) && !(lahf && last)) return false;

  memcpy(image_before, data_init, DATA_SIZE);
  aim(d, g);
  Case k;
  k.f = f;
  case_generate_from(&k, g, &d->now);
  gen_target_hint = 0;
  for (unsigned i = 0; i < DATA_SIZE; i++)
    if (touched[i]) data_init[i] = image_before[i];

  unsigned n_before = q->n, len_before = q->len;
  bool ok = k.n_insn == 1 && k.in.r[4] == d->now.r[4] && (lahf || !(flags_read(f, &k) & ~d->defined)) &&
            append_case(d, &k, lahf);
  if (ok) {
    seq_place(q, q->n);
    run_native(&q->in, &probe);
    ok = probe.sig == 0;
  }
  if (!ok) {
    q->n = n_before;
    q->len = len_before;
    q->rax_undefined = 0;
    memcpy(data_init, image_before, DATA_SIZE);
    return false;
  }
  d->now = probe.regs;
  d->defined = q->insn[q->n - 1].defined;
  touch_operands(&k);
  if (k.s.mem && !(f->x & X_LEA) && d->n_targets < SEQ_MAX_MAIN) d->targets[d->n_targets++] = k.s.m.target;
  return true;
}

void seq_generate(Seq *q, Rng *g, unsigned n_main) {
  sort_forms();
  memset(q, 0, sizeof *q);
  q->end_cc = -1;
  for (unsigned j = 0; j < DATA_SIZE; j += 8) {
    uint64_t v = rng_next(g);
    memcpy(&data_init[j], &v, 8);
  }
  memset(touched, 0, sizeof touched);
  for (int i = 0; i < 16; i++) q->in.r[i] = rng_value(g);
  q->in.r[4] = 0;
  q->in.rflags = (rng_next(g) & ARITH6) | 0x202 | (rng_chance(g, 25) ? FL_DF : 0);
  Drawing d = {.q = q, .now = q->in, .defined = ARITH6};
  /* Half the sequences end with a Jcc, mostly after a SUB, AND, CMP, TEST, INC or DEC:
   * the block's last compare and jump, which the decoder fuses (fuse.c). */
  bool jcc = rng_chance(g, 50), compare_last = jcc && rng_chance(g, 75);
  for (unsigned i = 0; i < n_main; i++) {
    unsigned tries = 0;
    bool last = i + 1 == n_main;
    while (!draw_one(&d, g, last, last && compare_last && tries < 500))
      if (++tries == 1000) return; /* full: shorter than asked */
    q->n_main++;
  }
  if (jcc && q->n) {
    unsigned cc = compare_last ? 2 + rng_below(g, 14) : rng_below(g, 16);
    if (!(cc_reads[cc >> 1] & ~q->insn[q->n - 1].defined)) q->end_cc = (int)cc;
  }
}
