/* decode.h: turning guest bytes into Insn records: the instruction table chooses the
 * handler and, by its shape, the length; Capstone the length of bytes no row takes (and
 * the disassembly text). */
#ifndef X64EMU_DECODE_H
#define X64EMU_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../interp/cpuid.h"
#include "../interp/insn.h"
#include "../interp/ops_fast.h"
#include "form_map.h"

struct DecoderCapstone;

/* One machine's decoder: the CPU model that says which instructions exist, the
 * instruction table's per-opcode row lists, and its Capstone handle once it needs one. */
typedef struct Decoder {
  struct DecoderCapstone *capstone; /* opened at the first question (capstone_lib.h) */
  const CpuModel *model;
  FormMap maps[TABLES];
  bool watch_memory; /* handlers from the table's watched copy (access.h) */
  bool ordered_memory; /* else from its ordered copy: threads run in parallel */
  bool fp_exceptions; /* a floating-point exception has been unmasked (MXCSR or the x87
                         control word): SSE and x87 instructions may fault, so no flag is
                         left unrecorded (block.c's liveness pass is off) */
  bool capstone_lengths; /* every length from Capstone, as the reference the table's own
                            lengths are tested against (unit.test_decode_length) */
} Decoder;

/* Indexes the table; false without memory. */
bool decoder_open(Decoder *dec, const CpuModel *model);
void decoder_close(Decoder *dec);

/* The pairing (ops_fast.h) of the copy of the handlers the decoder takes them from now,
 * or NULL while it watches memory: a stop check then stands between every two records of
 * a block (block.c), and reads every flag. */
const FastPairing *decoder_pairing(const Decoder *dec);

/* What the decoder knows about one instruction while choosing its handler. Prefixes and
 * opcode come from the raw bytes (Capstone's prefix[] misses mandatory F2/F3); the
 * length from the row (shape_length). */
typedef struct DecodeCtx {
  const uint8_t *bytes; /* the instruction's bytes (a copy) */
  unsigned len;         /* the instruction's length (the bytes available, until known) */
  uint64_t rip;
  const CpuModel *model; /* which instruction sets exist */
  /* Legacy prefixes. */
  bool p66, p67, lock;
  uint8_t rep;   /* 0, 0xF2 or 0xF3: the last of them, as the CPU takes it */
  uint8_t pfx_class; /* the mandatory-prefix class, CLASS_* of table.h */
  uint8_t seg;   /* SEG_NONE / SEG_FS / SEG_GS */
  /* REX, or the same bits from a VEX prefix. */
  bool rex, rex_w, rex_r, rex_x, rex_b;
  /* VEX (C4, C5): its vector length bit and its extra register (vvvv, un-inverted);
   * vex_refused: a prefix before it (66, F2, F3, LOCK) or its map field makes it #UD. */
  bool vex, vex_l, vex_refused;
  uint8_t vvvv;
  /* Opcode. */
  unsigned map;  /* 0: one byte, 1: 0F, 2: 0F 38, 3: 0F 3A */
  uint8_t opcode;
  unsigned modrm_at; /* offset of the byte after the opcode */
  /* ModRM, valid once decode_modrm() ran. */
  uint8_t mod, modrm_reg, modrm_rm;
  bool has_modrm_byte; /* the instruction is long enough to have one at modrm_at */
} DecodeCtx;

enum { MAP_ONE, MAP_0F, MAP_0F38, MAP_0F3A };

/* Fills in->reg/rm/mem/base/index/scale/disp/seg from ModRM (and SIB, displacement).
 * byte_regs: register operands are 8-bit, so 4..7 without REX name AH..BH;
 * always_register: the mod field is ignored, rm names a register. */
void decode_modrm(DecodeCtx *d, Insn *in, bool byte_regs, bool always_register);
/* Reads an immediate of n bytes (1, 2, 4, 8) from the end of the instruction,
 * skipping the last `after` bytes, sign-extended to 64 bits. */
uint64_t decode_imm(const DecodeCtx *d, unsigned n, unsigned after);
/* Decodes the operands of row f into in (osz, registers, memory operand, immediate), as
 * its shape and width say (operands.c). */
void decode_operands(DecodeCtx *d, Insn *in, const Form *f);
/* The length of an instruction of row f, from its prefixes, opcode, ModRM operand and
 * immediate; 0 when the bytes available (d->len) end before its ModRM or SIB byte. */
unsigned shape_length(const DecodeCtx *d, const Form *f);
/* The bytes of the ModRM operand at bytes[at] (ModRM, SIB, displacement); 0 when the
 * ModRM or SIB byte is at or past avail. */
unsigned modrm_operand_length(const uint8_t *bytes, unsigned at, unsigned avail);
/* Whether shape s has a ModRM byte. */
bool shape_has_modrm(unsigned s);

/* Decodes one instruction at rip. Returns its length, 0 at an unreadable address
 * (*fault_addr says where), or -1 for bytes that are invalid or not implemented;
 * in that case `in` runs the guest SIGILL handler. */
int decode_insn(const Decoder *dec, uint64_t rip, Insn *in, uint64_t *fault_addr);

/* The same for bytes already read from rip: avail (at most 15) of them were readable. */
int decode_insn_bytes(const Decoder *dec, uint64_t rip, const uint8_t *bytes, unsigned avail,
                      Insn *in, uint64_t *fault_addr);

/* Capstone's disassembly of the bytes at rip into buf ("(bad)" when it cannot); returns
 * the instruction's length, or 0. */
unsigned decode_text(const Decoder *dec, uint64_t rip, const uint8_t *bytes, unsigned n, char *buf,
                     unsigned size);

#endif
