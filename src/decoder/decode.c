/* decode.c: prefixes, ModRM/SIB and immediates from the raw bytes; length and text from
 * Capstone; the handler from the per-map decoders. */
#include "decode.h"

#include <capstone/capstone.h>
#include <stdio.h>
#include <string.h>

#include "../interp/access.h"
#include "../interp/fault.h"
#include "../interp/ops_fast.h"
#include "../interp/ops_int.h"

_Static_assert(sizeof(csh) == sizeof(size_t), "Decoder.cs holds a csh");

bool decoder_open(Decoder *dec, const CpuModel *model) {
  csh cs;
  *dec = (Decoder){.model = model};
  if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK) return false;
  dec->cs = cs;
  dec->scratch = cs_malloc(cs);
  if (!dec->scratch) decoder_close(dec);
  return dec->scratch != NULL;
}

void decoder_close(Decoder *dec) {
  if (dec->scratch) cs_free(dec->scratch, 1);
  csh cs = dec->cs;
  if (cs) cs_close(&cs);
  dec->cs = 0;
  dec->scratch = NULL;
}

/* Capstone's length for the instruction in bytes[0..n), 0 if it rejects them. */
static unsigned cs_length(const Decoder *dec, uint64_t rip, const uint8_t *bytes, unsigned n) {
  const uint8_t *p = bytes;
  size_t size = n;
  uint64_t addr = rip;
  return cs_disasm_iter(dec->cs, &p, &size, &addr, dec->scratch) ? dec->scratch->size : 0;
}

unsigned decode_text(const Decoder *dec, uint64_t rip, const uint8_t *bytes, unsigned n, char *buf,
                     unsigned size) {
  unsigned len = cs_length(dec, rip, bytes, n);
  if (len)
    snprintf(buf, size, "%s%s%s", dec->scratch->mnemonic, dec->scratch->op_str[0] ? " " : "",
             dec->scratch->op_str);
  else
    snprintf(buf, size, "(bad)");
  return len;
}

unsigned decode_opreg(const DecodeCtx *d, bool byte_regs) {
  unsigned r = (d->opcode & 7) | (d->rex_b ? 8 : 0);
  if (byte_regs && !d->rex && r >= 4 && r < 8) return REG_AH + r - 4;
  return r;
}

void decode_modrm(DecodeCtx *d, Insn *in, bool byte_regs) {
  const uint8_t *p = d->bytes + d->modrm_at;
  uint8_t modrm = *p++;
  d->mod = modrm >> 6;
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

static bool is_legacy_prefix(uint8_t b) {
  switch (b) {
  case 0x66: case 0x67: case 0xF0: case 0xF2: case 0xF3:
  case 0x26: case 0x2E: case 0x36: case 0x3E: case 0x64: case 0x65:
    return true;
  default:
    return false;
  }
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
    else if (b == 0x26 || b == 0x2E || b == 0x36 || b == 0x3E) d->seg = SEG_NONE;
    else break;
  }
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
  return true;
}

/* Register forms Capstone 4.0.2 rejects though the CPU runs them, all ModRM-only (no
 * displacement, no immediate): the hint NOPs 0F 0D and 0F 18..1F (with 0F 1E's CET hints,
 * rdsspq...: NOPs while shadow stacks are off; 0F 0D and 0F 18 with a register are
 * Intel's reserved NOPs, the CPU model's), and LFENCE/MFENCE/SFENCE (0F AE /5../7) with
 * any ModRM.rm. */
static unsigned rejected_register_form_length(const DecodeCtx *d, unsigned avail) {
  if (d->map != MAP_0F || d->modrm_at >= avail) return 0;
  uint8_t modrm = d->bytes[d->modrm_at];
  if ((modrm >> 6) != 3) return 0;
  bool hint_nop = d->opcode == 0x0D || (d->opcode >= 0x18 && d->opcode <= 0x1F);
  bool fence = d->opcode == 0xAE && ((modrm >> 3) & 7) >= 5 && !d->rep && !d->p66;
  return hint_nop || fence ? d->modrm_at + 1 : 0;
}

int decode_insn(const Decoder *dec, uint64_t rip, Insn *in, uint64_t *fault_at) {
  uint8_t buf[16];
  unsigned avail = fault_copy_in(buf, rip, 15);
  memset(in, 0, sizeof *in);
  in->rip = rip;
  in->base = in->index = REG_NONE;
  if (avail == 0) {
    *fault_at = rip;
    return 0;
  }
  DecodeCtx d = {.bytes = buf, .rip = rip, .len = avail, .model = dec->model};
  bool prefixes_ok = parse_prefixes(&d);
  unsigned len = cs_length(dec, rip, buf, avail);
  if (!len && prefixes_ok) len = rejected_register_form_length(&d, avail);
  if (!len) {
    if (avail < 15) { /* the instruction may run into an unreadable page */
      *fault_at = rip + avail;
      return 0;
    }
    in->len = 1;
    in->fn = op_undefined;
    in->ends = 1;
    return -1;
  }
  d.len = len;
  in->len = (uint8_t)len;
  bool ok = false;
  if (prefixes_ok) {
    if (d.map == MAP_ONE && d.opcode >= 0xD8 && d.opcode <= 0xDF) {
      ok = decode_x87(&d, in);
      in->flags_use = FL_ALL; /* FCMOVcc reads flags, FCOMI writes some */
    } else if (d.map == MAP_ONE ? decode_onebyte(&d, in) : decode_0f(&d, in)) {
      ok = true; /* the 0F 38 map holds MOVBE among the SSE forms */
      decode_flag_effects(in); /* reads the generic handler, so before specialising */
      fast_specialize(in);
    } else if (d.map != MAP_ONE && decode_sse(&d, in)) {
      ok = true;
      in->flags_use = 0; /* SSE reads no arithmetic flags (COMISS writes them: def 0 is safe) */
    }
  }
  if (!ok) {
    Insn keep = {.rip = rip, .len = (uint8_t)len, .fn = op_undefined, .ends = 1,
                 .flags_use = FL_ALL};
    *in = keep;
    return -1;
  }
  in->flags_live = FL_ALL; /* until the block's liveness pass knows better */
  return (int)len;
}
