/* decode.c: prefixes from the raw bytes, the row of the instruction table that fits the
 * encoding, and the length its shape gives; Capstone for the length of bytes no row
 * takes and for the disassembly text; operands.c reads the operands. */
#include "decode.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../interp/fault.h"
#include "../interp/ops_int.h"
#include "capstone_lib.h"
#include "table.h"

/* A decoder's Capstone handle and the record its answers go to. */
struct DecoderCapstone {
  csh cs;
  cs_insn *insn;
};

bool decoder_open(Decoder *dec, const CpuModel *model) {
  *dec = (Decoder){.model = model};
  if (!form_maps_build(dec->maps)) return false;
  for (unsigned t = 0; t < TABLES; t++) {
    unsigned n;
    dec->maps[t].watched = watched_form_rows(t, &n);
#ifdef X64EMU_HAS_ORDERED_COPY
    dec->maps[t].ordered = ordered_form_rows(t, &n);
#else
    dec->maps[t].ordered = dec->maps[t].rows; /* the host keeps x86's order itself */
#endif
  }
  return true;
}

static void capstone_close(struct DecoderCapstone *c) {
  const CapstoneLib *lib = capstone_lib();
  if (c->insn) lib->free(c->insn, 1);
  if (c->cs) lib->close(&c->cs);
  free(c);
}

void decoder_close(Decoder *dec) {
  if (dec->capstone) capstone_close(dec->capstone);
  dec->capstone = NULL;
  form_maps_free(dec->maps);
}

/* The decoder's Capstone handle, opened now if it has none (any thread may be first: one
 * handle is kept), or NULL when Capstone cannot be had. */
static struct DecoderCapstone *capstone_of(const Decoder *dec) {
  struct DecoderCapstone *c = __atomic_load_n(&dec->capstone, __ATOMIC_ACQUIRE);
  const CapstoneLib *lib;
  if (c || !(lib = capstone_lib()) || !(c = calloc(1, sizeof *c))) return c;
  if (lib->open(CS_ARCH_X86, CS_MODE_64, &c->cs) != CS_ERR_OK || !(c->insn = lib->malloc(c->cs))) {
    capstone_close(c);
    return NULL;
  }
  struct DecoderCapstone *none = NULL;
  /* The cache of a const decoder: the handle is found, not part of what it decodes. */
  if (!__atomic_compare_exchange_n(&((Decoder *)dec)->capstone, &none, c, false,
                                   __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
    capstone_close(c);
    return none;
  }
  return c;
}

/* Capstone's answer for the instruction in bytes[0..n) (its record), NULL if it rejects
 * them or cannot be had. */
static const cs_insn *cs_decode(const Decoder *dec, uint64_t rip, const uint8_t *bytes, unsigned n) {
  struct DecoderCapstone *c = capstone_of(dec);
  const uint8_t *p = bytes;
  size_t size = n;
  uint64_t addr = rip;
  return c && capstone_lib()->disasm_iter(c->cs, &p, &size, &addr, c->insn) ? c->insn : NULL;
}

/* Capstone's length for the instruction in bytes[0..n), 0 if it rejects them. */
static unsigned cs_length(const Decoder *dec, uint64_t rip, const uint8_t *bytes, unsigned n) {
  const cs_insn *insn = cs_decode(dec, rip, bytes, n);
  return insn ? insn->size : 0;
}

unsigned decode_text(const Decoder *dec, uint64_t rip, const uint8_t *bytes, unsigned n, char *buf,
                     unsigned size) {
  const cs_insn *insn = cs_decode(dec, rip, bytes, n);
  unsigned len = insn ? insn->size : 0;
  if (len)
    snprintf(buf, size, "%s%s%s", insn->mnemonic, insn->op_str[0] ? " " : "", insn->op_str);
  else
    snprintf(buf, size, "(bad)");
  return len;
}

static bool is_legacy_prefix(uint8_t b) {
  switch (b) {
  case 0x66: case 0x67: case 0xF0: case 0xF2: case 0xF3:
  case 0x26: case 0x2E: case 0x36: case 0x3E: case 0x64: case 0x65:
    return true;
  default:
    return false;
  }
}

/* A VEX prefix at i (in 64-bit mode C4 and C5 always are one): its map, the mandatory
 * prefix its pp field stands for, REX's bits (inverted in the prefix), W, L and vvvv;
 * then the opcode. False if the bytes run out. */
static bool parse_vex(DecodeCtx *d, unsigned i) {
  bool three = d->bytes[i] == 0xC4;
  if (i + (three ? 3u : 2u) >= d->len) return false;
  /* 66, F2, F3 or LOCK before VEX: #UD. (After a REX, C4 and C5 are no VEX: LES and
   * LDS, #UD in 64-bit mode, which no row has.) */
  d->vex_refused = d->p66 || d->rep || d->lock;
  uint8_t b1 = d->bytes[i + 1], last = d->bytes[i + (three ? 2 : 1)];
  d->vex = true;
  d->rex_r = !(b1 & 0x80);
  if (three) {
    d->rex_x = !(b1 & 0x40);
    d->rex_b = !(b1 & 0x20);
    d->rex_w = last & 0x80;
    unsigned mmmmm = b1 & 0x1F;
    d->map = mmmmm == 1 ? MAP_0F : mmmmm == 2 ? MAP_0F38 : mmmmm == 3 ? MAP_0F3A : MAP_ONE;
    if (d->map == MAP_ONE) d->vex_refused = true; /* a reserved map */
  } else {
    d->map = MAP_0F;
  }
  d->vvvv = (~last >> 3) & 15;
  d->vex_l = last & 4;
  static const uint8_t pp_class[4] = {CLASS_NP, CLASS_66, CLASS_F3, CLASS_F2};
  d->pfx_class = pp_class[last & 3];
  i += three ? 3 : 2;
  d->opcode = d->bytes[i];
  d->modrm_at = i + 1;
  return true;
}

/* Legacy prefixes, REX and the opcode map; false if the bytes run out. */
static bool parse_prefixes(DecodeCtx *d) {
  unsigned i = 0;
  for (; i < d->len; i++) {
    uint8_t b = d->bytes[i];
    /* A REX counts only right before the opcode; one followed by a prefix or another REX
     * is ignored. */
    if ((b & 0xF0) == 0x40 && i + 1 < d->len &&
        (is_legacy_prefix(d->bytes[i + 1]) || (d->bytes[i + 1] & 0xF0) == 0x40))
      continue;
    if (b == 0x66) d->p66 = true;
    else if (b == 0x67) d->p67 = true;
    else if (b == 0xF0) d->lock = true;
    else if (b == 0xF2 || b == 0xF3) d->rep = b;
    else if (b == 0x64) d->seg = SEG_FS;
    else if (b == 0x65) d->seg = SEG_GS;
    else if (b == 0x26 || b == 0x2E || b == 0x36 || b == 0x3E) continue; /* ignored in 64-bit
                                                   mode: they do not undo an FS or GS */
    else break;
  }
  if (i < d->len && (d->bytes[i] == 0xC4 || d->bytes[i] == 0xC5)) return parse_vex(d, i);
  if (i < d->len && (d->bytes[i] & 0xF0) == 0x40) {
    uint8_t rex = d->bytes[i++];
    d->rex = true;
    d->rex_w = rex & 8;
    d->rex_r = rex & 4;
    d->rex_x = rex & 2;
    d->rex_b = rex & 1;
  }
  if (i >= d->len) return false;
  d->map = MAP_ONE;
  if (d->bytes[i] == 0x0F) {
    i++;
    d->map = MAP_0F;
    if (i < d->len && d->bytes[i] == 0x38) { d->map = MAP_0F38; i++; }
    else if (i < d->len && d->bytes[i] == 0x3A) { d->map = MAP_0F3A; i++; }
  }
  if (i >= d->len) return false;
  d->opcode = d->bytes[i];
  d->modrm_at = i + 1;
  d->pfx_class = d->rep == 0xF3 ? CLASS_F3 : d->rep == 0xF2 ? CLASS_F2 : d->p66 ? CLASS_66 : CLASS_NP;
  return true;
}

/* Forms Capstone 4.0.2 rejects though the CPU runs them, all without an immediate: the
 * hint NOPs 0F 0D and 0F 18..1F with any operand (with 0F 1E's CET hints, rdsspq...: NOPs
 * while shadow stacks are off; 0F 0D /2../7 and 0F 18 with a register are Intel's
 * reserved NOPs, the CPU model's), and LFENCE/MFENCE/SFENCE (0F AE /5../7) with any
 * ModRM.rm; and MOV to and from segment registers with a REX.R, which the CPU ignores. */
static unsigned rejected_form_length(const DecodeCtx *d, unsigned avail) {
  if (d->vex || d->modrm_at >= avail) return 0;
  unsigned n = modrm_operand_length(d->bytes, d->modrm_at, avail);
  if (!n || d->modrm_at + n > avail) return 0;
  if (d->map == MAP_ONE && (d->opcode == 0x8C || d->opcode == 0x8E)) return d->modrm_at + n;
  if (d->map != MAP_0F) return 0;
  uint8_t modrm = d->bytes[d->modrm_at];
  bool hint_nop = d->opcode == 0x0D || (d->opcode >= 0x18 && d->opcode <= 0x1F);
  bool fence = (modrm >> 6) == 3 && d->opcode == 0xAE && ((modrm >> 3) & 7) >= 5 && !d->rep &&
               !d->p66;
  return hint_nop || fence ? d->modrm_at + n : 0;
}

/* The bits of byte b that field selects, packed to the right (as x86's PEXT). */
static uint8_t bit_field(uint8_t b, uint8_t field) {
  unsigned v = 0, out = 0;
  for (unsigned bit = 0; bit < 8; bit++) {
    if (!(field >> bit & 1)) continue;
    v |= (unsigned)(b >> bit & 1) << out++;
  }
  return (uint8_t)v;
}

/* Whether the REX.W, 66 and REX.B conditions of a row's attributes hold. */
static bool conditions_hold(unsigned attrs, const DecodeCtx *d) {
  if ((attrs & A_W0) && d->rex_w) return false;
  if ((attrs & A_W1) && !d->rex_w) return false;
  if ((attrs & A_O16) && !d->p66) return false;
  if ((attrs & A_NO_O16) && d->p66) return false;
  if ((attrs & A_NO_REXB) && d->rex_b) return false;
  if ((attrs & A_NO_REXR) && d->rex_r) return false;
  if ((attrs & A_L0) && d->vex_l) return false;
  if ((attrs & A_L1) && !d->vex_l) return false;
  if ((attrs & A_NO_VVVV) && d->vvvv) return false;
  return true;
}

/* A VSIB operand (the gathers): memory with a SIB byte, and the destination, the index
 * vector and the mask (VEX.vvvv) three different registers. */
static bool vsib_fits(const DecodeCtx *d, uint8_t modrm) {
  if ((modrm >> 6) == 3 || (modrm & 7) != 4 || d->modrm_at + 1 >= d->len) return false;
  unsigned reg = (modrm >> 3 & 7) | (d->rex_r ? 8 : 0);
  unsigned index = (d->bytes[d->modrm_at + 1] >> 3 & 7) | (d->rex_x ? 8 : 0);
  return reg != index && reg != d->vvvv && index != d->vvvv;
}

/* The first row of the instruction's map that fits its encoding, or NULL (#UD);
 * *lock_refused says whether that is because of a LOCK prefix the row does not take. */
static const Form *find_form(const Decoder *dec, const DecodeCtx *d, bool *lock_refused) {
  if (d->vex_refused) return NULL;
  const FormMap *m = &dec->maps[d->map];
  uint8_t modrm = d->has_modrm_byte ? d->bytes[d->modrm_at] : 0;
  for (unsigned k = m->first[d->opcode]; k < m->first[d->opcode + 1]; k++) {
    const Form *f = &m->rows[m->order[k]];
    bool uses_modrm = shape_has_modrm(f->shape), mem = (modrm >> 6) != 3 && f->shape != S_MODRM_R;
    if (!(f->prefixes >> d->pfx_class & 1)) continue;
    if (uses_modrm && !d->has_modrm_byte) continue;
    if ((modrm & f->modrm_mask) != f->modrm) continue;
    if (!(uses_modrm && mem ? f->mem : f->reg)) continue;
    if (f->shape == S_VSIB && !vsib_fits(d, modrm)) continue;
    if (!(f->attrs & A_VEX) != !d->vex) continue; /* VEX rows for VEX encodings only */
    if (!conditions_hold(f->attrs, d)) continue;
    if (f->feature != BASE && !cpu_feature_enabled(d->model, (CpuFeature)f->feature)) continue;
    if ((f->attrs & A_MMX) && !cpu_feature_enabled(d->model, CPU_FEATURE_MMX)) continue;
    if ((f->attrs & A_AVX) && !cpu_feature_enabled(d->model, CPU_FEATURE_AVX)) continue;
    /* This is the instruction; LOCK makes it #UD unless it is lockable and has a memory
     * destination. */
    if (d->lock && !((f->attrs & A_LOCK) && uses_modrm && mem)) {
      *lock_refused = true;
      return NULL;
    }
    return f;
  }
  return NULL;
}

/* Flags read by condition code cc (Jcc, SETcc, CMOVcc, FCMOVcc), by cc >> 1. */
static const uint8_t cond_use[8] = {
    FL_OF, FL_CF, FL_ZF, FL_CF | FL_ZF, FL_SF, FL_PF, FL_SF | FL_OF, FL_ZF | FL_SF | FL_OF,
};

const FastPairing *decoder_pairing(const Decoder *dec) { /* as apply_form picks the rows */
  if (dec->watch_memory) return NULL;
#ifdef X64EMU_HAS_ORDERED_COPY
  if (dec->ordered_memory) return &ordered_fast_pairing;
#endif
  return &fast_pairing;
}

/* Fills in from row f: handler, sub-operation, operands, flags, specialisation; the
 * handlers from its twin in the table's watched copy when the decoder watches memory,
 * or in its ordered copy when it orders memory. */
static void apply_form(const Decoder *dec, DecodeCtx *d, Insn *in, const Form *f) {
  unsigned attrs = f->attrs;
  in->op = f->op;
  if (attrs & A_OPC) in->op = bit_field(d->opcode, f->op);
  if (attrs & A_EXT) in->op = bit_field(d->bytes[d->modrm_at], f->op);
  in->aux = f->aux;
  decode_operands(d, in, f);
  in->lock = d->lock || ((attrs & A_ATOMIC) && in->mem);
  /* An atomic instruction's handler runs on a copy of its operand (atomic.c), whose
   * accesses are no guest's: the record before it reports the real ones. */
  const FormMap *m = &dec->maps[d->map];
  const Form *h = in->lock             ? f
                  : dec->watch_memory  ? &m->watched[f - m->rows]
                  : dec->ordered_memory ? &m->ordered[f - m->rows]
                                       : f;
  in->fn = in->mem ? h->mem : h->reg;
  in->ends = (attrs & A_END) != 0;
  in->stack = (attrs & A_STACK) != 0;
  in->rmw = in->mem && (attrs & (A_LOCK | A_RMW));
  if (attrs & A_ADDR) {
    in->seg = d->seg;
    in->addr32 = d->p67;
  }
  if (attrs & A_REP) in->rep = d->rep == 0xF3 ? REP_E : d->rep == 0xF2 ? REP_NE : REP_NONE;
  unsigned use = (attrs & A_COND) ? cond_use[(in->op & 15) >> 1] : f->use, def = f->def;
  if ((attrs & A_COUNTED) && (in->imm & (in->osz == 8 ? 63 : 31)) == 0) def = 0;
  if ((attrs & A_ONCE) && in->rep != REP_NONE) def = 0;
  /* A fault shows the flags as the instructions before it left them, in the signal frame:
   * for the liveness pass (block.c), an instruction that may fault reads every flag, so
   * that none before it is dropped. (Unmasked #XM and x87 exceptions turn the pass off:
   * Decoder.fp_exceptions.) */
  if ((in->mem && !(attrs & A_NO_ACCESS)) || (attrs & (A_FAULTS | A_ADDR | A_STACK))) use = FL_ALL;
  in->flags_use = (uint8_t)use;
  in->flags_def = (uint8_t)def;
  in->flags_live = FL_ALL; /* until the block's liveness pass knows better */
  Handler fast = h->fast ? h->fast(in) : NULL;
  if (fast) in->fn = fast;
}

/* The instruction's bytes less the prefixes drop() names, into rest; their number. */
static unsigned without_prefixes(const DecodeCtx *d, bool (*drop)(uint8_t), uint8_t rest[16]) {
  unsigned n = 0, i = 0;
  for (; i < d->len && (is_legacy_prefix(d->bytes[i]) || (d->bytes[i] & 0xF0) == 0x40); i++)
    if (!drop(d->bytes[i])) rest[n++] = d->bytes[i];
  for (; i < d->len; i++) rest[n++] = d->bytes[i];
  return n;
}

static bool is_lock(uint8_t b) { return b == 0xF0; }

/* Capstone 4.0.2 rejects some forms with more prefixes than they need (66 3E 0F 7D,
 * 66 65 REX 0F 6D, 66 66 67 0F 3A 0A...), though none of them changes the length: the
 * length is that of the instruction with one of each prefix it has (and no 67, which
 * changes the length only of A0..A3), plus the others. */
static unsigned length_with_extra_prefixes(const Decoder *dec, const DecodeCtx *d) {
  if (d->vex) return 0;
  unsigned escape = d->map == MAP_ONE ? 0 : d->map == MAP_0F ? 1 : 2;
  unsigned opcode_at = d->modrm_at - 1 - escape, prefixes = opcode_at - (d->rex ? 1 : 0);
  uint8_t rest[16];
  unsigned n = 0;
  /* Beyond the one-byte map 66 changes no length; with F2/F3 it is not the mandatory
   * prefix either. */
  if (d->p66 && (d->map == MAP_ONE || !d->rep)) rest[n++] = 0x66;
  bool moffs = d->map == MAP_ONE && d->opcode >= 0xA0 && d->opcode <= 0xA3;
  if (d->p67 && moffs) rest[n++] = 0x67;
  if (d->lock) rest[n++] = 0xF0;
  if (d->rep) rest[n++] = d->rep;
  if (n == prefixes) return 0; /* nothing to take away */
  for (unsigned i = prefixes; i < d->len; i++) rest[n++] = d->bytes[i];
  unsigned len = cs_length(dec, d->rip, rest, n);
  return len ? len + (d->len - n) : 0;
}

/* For bytes Capstone rejects (66 F2 A1...): the length of a row without a ModRM, which its
 * prefixes, opcode and immediate decide. */
static unsigned length_without_modrm(const Decoder *dec, DecodeCtx *d) {
  d->has_modrm_byte = false;
  bool lock_refused = false;
  const Form *f = find_form(dec, d, &lock_refused);
  return f ? shape_length(d, f) : 0;
}

/* Capstone rejects LOCK where the CPU refuses it. Without the prefix it tells the length,
 * and the table whether the rest is an instruction, which the LOCK makes #UD. */
static bool lock_misused(const Decoder *dec, const DecodeCtx *d) {
  if (!d->lock) return false;
  uint8_t rest[16];
  unsigned n = without_prefixes(d, is_lock, rest);
  DecodeCtx plain = {.bytes = rest, .rip = d->rip, .len = n, .model = d->model};
  if (!parse_prefixes(&plain) || !(plain.len = cs_length(dec, d->rip, rest, n))) return false;
  plain.has_modrm_byte = plain.modrm_at < plain.len;
  plain.lock = true;
  bool refused = false;
  return !find_form(dec, &plain, &refused) && refused;
}

enum { MAX_INSN_LEN = 15 };

/* The CPU's length decoder for an encoding no row takes whose opcode has rows with a
 * ModRM: with the ModRM past the bytes read, more than them; else (an undefined
 * ModRM.reg of a group, as C7 /7 with memory) the length of the first such row, whose
 * immediate every reg of the group shares. 0 if the opcode has no such row. */
static unsigned group_length(const Decoder *dec, const DecodeCtx *d) {
  if (d->vex) return 0;
  const FormMap *m = &dec->maps[d->map];
  bool mem = d->has_modrm_byte && (d->bytes[d->modrm_at] >> 6) != 3;
  for (unsigned k = m->first[d->opcode]; k < m->first[d->opcode + 1]; k++) {
    const Form *f = &m->rows[m->order[k]];
    if (!shape_has_modrm(f->shape) || f->shape == S_VSIB || (f->attrs & A_VEX)) continue;
    if (!d->has_modrm_byte) return d->modrm_at + 1;
    if (mem ? f->mem != NULL && f->shape != S_MODRM_R : f->reg != NULL) return shape_length(d, f);
  }
  return 0;
}

/* The CPU's length decoder for a VEX encoding no row takes (after a 66, F2, F3 or LOCK,
 * with a reserved map, or undefined): its ModRM with the address bytes, and an immediate
 * byte in map 0F3A and where the 0F map has one (70-73, A4, AC, BA, C2, C4-C6; measured
 * on AMD, which also counts one for 0F 0F and 0F 78, its 3DNow! and SSE4a bytes). 0 if
 * the bytes run out first. */
static unsigned vex_length(const DecodeCtx *d, unsigned avail) {
  if (d->modrm_at >= avail) return 0;
  unsigned n = modrm_operand_length(d->bytes, d->modrm_at, avail);
  if (!n) return 0;
  uint8_t op = d->opcode;
  bool imm = d->map == MAP_0F3A ||
             (d->map == MAP_0F && ((op >= 0x70 && op <= 0x73) || op == 0xA4 || op == 0xAC ||
                                   op == 0xBA || op == 0xC2 || (op >= 0xC4 && op <= 0xC6)));
  return d->modrm_at + n + imm;
}

/* A record that raises the CPU's fault for bytes it does not run (fn), ending its block;
 * -1, decode_insn's answer for it. */
static int refused(Insn *in, uint64_t rip, unsigned len, Handler fn) {
  *in = (Insn){.rip = rip, .len = (uint8_t)len, .fn = fn, .ends = 1, .flags_use = FL_ALL,
               .flags_live = FL_ALL, .base = REG_NONE, .index = REG_NONE};
  return -1;
}

/* An instruction longer than 15 bytes: #GP, which the CPU raises before it asks what the
 * instruction is (so also for UD2 or an undefined opcode behind enough prefixes). */
static int too_long(const DecodeCtx *d, Insn *in) { return refused(in, d->rip, MAX_INSN_LEN, op_too_long); }

/* decode_insn for bytes the table gives no length for within the bytes available: an
 * instruction with no row (#UD, or Capstone's length of a form it knows), one longer
 * than 15 bytes, or one that runs into an unreadable page. Capstone tells the length of
 * what has a ModRM, with the fix-ups above for its mistakes. */
static int decode_by_capstone(const Decoder *dec, DecodeCtx *d, unsigned avail, Insn *in,
                              uint64_t *fault_at) {
  uint64_t rip = d->rip;
  bool prefixes_ok = parse_prefixes(d);
  unsigned len = cs_length(dec, rip, d->bytes, avail);
  if (!len && prefixes_ok) len = rejected_form_length(d, avail);
  if (!len && prefixes_ok) len = length_with_extra_prefixes(dec, d);
  if (!len && prefixes_ok) len = length_without_modrm(dec, d);
  bool lock_refused = false;
  if (!len && prefixes_ok && lock_misused(dec, d)) {
    len = 1;
    lock_refused = true;
    prefixes_ok = false;
  }
  if (!len) {
    if (avail < MAX_INSN_LEN) { /* the instruction may run into an unreadable page */
      *fault_at = rip + avail;
      return 0;
    }
    /* Prefixes to the 15th byte, or a group's member no row takes that would be longer. */
    d->has_modrm_byte = d->modrm_at < avail;
    if (!prefixes_ok || group_length(dec, d) > MAX_INSN_LEN) return too_long(d, in);
    len = 1;
    prefixes_ok = false;
  }
  d->len = len;
  d->has_modrm_byte = d->modrm_at < len;
  const Form *f = prefixes_ok ? find_form(dec, d, &lock_refused) : NULL;
  if (!f && d->vex && vex_length(d, avail) > MAX_INSN_LEN) return too_long(d, in);
  if (!f) /* #UD: one the CPU defines, or an instruction x64emu does not have */
    return refused(in, rip, len, lock_refused ? op_ud : op_undefined);
  /* Without a ModRM the row knows the length: Capstone 4.0.2 misreads some prefix mixes
   * (a rel16 for 66 E9 and 67 REX.W E8, where the CPU ignores both; 67 REX.W C2 iw as 7
   * bytes). */
  unsigned own = shape_has_modrm(f->shape) ? 0 : shape_length(d, f);
  if (own) {
    len = own;
    if (len > avail) {
      *fault_at = rip + avail;
      return 0;
    }
    d->len = len;
  }
  in->len = (uint8_t)len;
  apply_form(dec, d, in, f);
  return (int)len;
}

/* Takes the first row of the table that fits the bytes: its shape gives the length
 * (Capstone is not asked: decoding is most of the cost of code that runs once). */
int decode_insn_bytes(const Decoder *dec, uint64_t rip, const uint8_t *bytes, unsigned avail,
                      Insn *in, uint64_t *fault_at) {
  uint8_t buf[16];
  memcpy(buf, bytes, avail);
  memset(in, 0, sizeof *in);
  in->rip = rip;
  in->base = in->index = REG_NONE;
  if (avail == 0) {
    *fault_at = rip;
    return 0;
  }
  DecodeCtx d = {.bytes = buf, .rip = rip, .len = avail, .model = dec->model};
  if (!dec->capstone_lengths && parse_prefixes(&d)) {
    d.has_modrm_byte = d.modrm_at < avail;
    bool lock_refused = false;
    const Form *f = find_form(dec, &d, &lock_refused);
    unsigned len = f ? shape_length(&d, f) : 0;
    if (len > MAX_INSN_LEN && avail == MAX_INSN_LEN) return too_long(&d, in);
    if (len && len <= avail) {
      d.len = len;
      in->len = (uint8_t)len;
      apply_form(dec, &d, in, f);
      return (int)len;
    }
    if (len) { /* its immediate or displacement is past the readable bytes */
      *fault_at = rip + avail;
      return 0;
    }
  }
  d = (DecodeCtx){.bytes = buf, .rip = rip, .len = avail, .model = dec->model};
  return decode_by_capstone(dec, &d, avail, in, fault_at);
}

int decode_insn(const Decoder *dec, uint64_t rip, Insn *in, uint64_t *fault_at) {
  uint8_t buf[MAX_INSN_LEN];
  return decode_insn_bytes(dec, rip, buf, fault_copy_in(buf, rip, MAX_INSN_LEN), in, fault_at);
}
