/* table.h: the instruction table. One row per instruction form, in one .def file per
 * opcode map (table_onebyte.def, table_0f.def, table_0f38.def, table_0f3a.def; the x87
 * escapes D8..DF of the one-byte map have table_x87.def); the decoder reads nothing else
 * to choose a handler, the flags an instruction touches or its specialised forms.
 *
 * A row says which encodings it covers (opcode pattern, mandatory prefix, ModRM pattern,
 * REX.W and friends), how its operands are encoded (shape and width), the handlers for a
 * register and a memory ModRM.rm, the sub-operation, the CPUID feature it needs, the
 * arithmetic flags it reads and always writes, and a picker of specialised handlers.
 * Rows of an opcode are tried in file order and the first that fits wins, so a special
 * case comes before the general row it narrows. A row whose handler for this ModRM.mod
 * is NULL, or whose feature --cpu removed, does not fit; when no row fits the
 * instruction is #UD. Adding an instruction is one row plus its handler.
 *
 * Only the decoder's files include this header: its short names are for the rows. */
#ifndef X64EMU_TABLE_H
#define X64EMU_TABLE_H

#include <stdbool.h>
#include <stdint.h>

#include "../interp/insn.h"
#include "form_map.h"

/* A picker of a specialised handler for one decoded instance (fast.c), or NULL to keep
 * the row's handler. It may set the fields its handler relies on. */
typedef Handler (*FastPick)(Insn *in);

struct Form {
  Handler reg, mem; /* for a register / memory ModRM.rm (rows without ModRM use reg) */
  FastPick fast;
  uint16_t feature; /* a CpuFeature, or BASE */
  uint32_t attrs;   /* A_* */
  uint8_t opcode, opcode_mask;
  uint8_t modrm, modrm_mask; /* the ModRM byte b fits when (b & mask) == modrm */
  uint8_t prefixes;          /* the mandatory-prefix classes it accepts (NP, P66...) */
  uint8_t shape, width;
  uint8_t op, aux; /* Insn.op and Insn.aux; with A_OPC or A_EXT op names a bit field */
  uint8_t use, def;
};

/* Mandatory-prefix classes, as the CPU takes them: the last F2/F3 if any, else 66. For
 * general-purpose rows (ANY) 66 is the operand size and F2/F3 are REP or ignored. */
enum { CLASS_NP, CLASS_66, CLASS_F3, CLASS_F2 };
enum {
  NP = 1 << CLASS_NP, P66 = 1 << CLASS_66, PF3 = 1 << CLASS_F3, PF2 = 1 << CLASS_F2,
  ANY = NP | P66 | PF3 | PF2,
  NOREP = NP | P66, /* neither F2 nor F3 */
};

/* How the operands are encoded (operands.c). */
enum {
  S_NONE,      /* nothing after the opcode */
  S_MODRM,     /* ModRM (SIB, displacement): Insn.reg, and Insn.rm or the memory operand */
  S_MODRM_EB,  /* ModRM whose rm alone follows the byte-register rule (MOVZX, CRC32) */
  S_MODRM_IB,  /* ModRM, then an imm8 sign-extended */
  S_MODRM_UB,  /* ModRM, then an imm8 zero-extended */
  S_MODRM_1,   /* ModRM, and a count of 1 in Insn.imm (D0, D1) */
  S_MODRM_IZ,  /* ModRM, then imm8/16/32 for an operand of 1/2/4+ bytes, sign-extended */
  S_ACC_IZ,    /* AL/AX/EAX/RAX (Insn.rm) and an imm as S_MODRM_IZ */
  S_OPREG,     /* a register in the opcode's low bits (with REX.B): Insn.reg */
  S_OPREG_IMM, /* that register and an immediate of the operand's full size */
  S_OPREG_RAX, /* that register (Insn.reg) and RAX (Insn.rm) */
  S_IB,        /* an imm8 sign-extended */
  S_UB,        /* an imm8 zero-extended */
  S_UW,        /* an imm16 zero-extended */
  S_IZ,        /* imm16/32 for an operand of 2/4+ bytes, sign-extended */
  S_REL8,      /* a branch target, Insn.imm = next rip + rel8 */
  S_REL32,     /* a branch target, Insn.imm = next rip + rel32 */
  S_MOFFS,     /* A0..A3: RAX and an absolute 64-bit (32 with 67) address */
  S_ENTER,     /* C8: imm16 in Insn.imm, the nesting level in Insn.aux */
  S_MASKMOV,   /* MASKMOVDQU: two XMM registers, the memory operand at [rdi] */
  S_X87,       /* ModRM; a register rm is ST(i), untouched by REX */
  S_MODRM_R,   /* ModRM whose mod the CPU ignores: rm is always a register (MOV to and
                  from control and debug registers), so no SIB or displacement follows */
  S_VSIB,      /* a memory ModRM with a SIB whose index is a vector register (the AVX2
                  gathers): Insn.index is its number; register forms, a missing SIB, or
                  the destination, index and VEX.vvvv not all different are #UD */
  SHAPES
};

/* The operand size in Insn.osz. */
enum {
  W_NONE, /* 0: no sized operand */
  W_B,    /* 1, with the byte registers (AH..BH without REX) */
  W_V,    /* 4; 8 with REX.W; 2 with 66 */
  W_D64,  /* 8; 2 with 66 and no REX.W (stack operations and near branches) */
  W_Y,    /* 4; 8 with REX.W (no 16-bit form) */
  W_X,    /* 16: an XMM register or m128 */
  W_2, W_4, W_8, W_10, /* fixed */
};

/* Row attributes. */
enum {
  A_END = 1 << 0,     /* control may leave straight-line order: the block ends here */
  A_LOCK = 1 << 1,    /* LOCK is allowed with a memory operand (else LOCK is #UD) */
  A_OPC = 1 << 2,     /* Insn.op = the bits of the opcode that the op column selects */
  A_EXT = 1 << 3,     /* Insn.op = the bits of ModRM that the op column selects */
  A_W0 = 1 << 4,      /* only without REX.W */
  A_W1 = 1 << 5,      /* only with REX.W */
  A_O16 = 1 << 6,     /* only with 66 */
  A_NO_O16 = 1 << 7,  /* only without 66 */
  A_NO_REXB = 1 << 8, /* only without REX.B */
  A_ADDR = 1 << 9,    /* implicit memory operands: Insn.seg and Insn.addr32 from prefixes */
  A_REP = 1 << 10,    /* a string instruction: Insn.rep from F2/F3 */
  A_COND = 1 << 11,   /* reads the flags of the condition code in Insn.op (use column 0) */
  A_COUNTED = 1 << 12, /* writes its def flags only when the imm8 count is not 0 */
  A_ONCE = 1 << 13,   /* writes its def flags only without REP (a count of 0 writes none) */
  A_MMX = 1 << 14,    /* uses MMX registers: needs the MMX feature too (SSSE3's MMX forms) */
  A_NO_REXR = 1 << 15, /* only without REX.R */
  A_STACK = 1 << 16,  /* implicit accesses through the stack segment at RBP (ENTER, LEAVE) */
  A_ATOMIC = 1 << 17, /* atomic with a memory operand even without LOCK (XCHG) */
  A_VEX = 1 << 18,    /* VEX-encoded (the only rows a VEX encoding fits): the prefix
                         column is VEX.pp, A_W0/A_W1 test VEX.W, Insn.vreg is VEX.vvvv */
  A_L0 = 1 << 19,     /* only with VEX.L 0 (scalar and 128-bit forms) */
  A_NO_VVVV = 1 << 20, /* only with VEX.vvvv 1111 (no register there) */
  A_L1 = 1 << 21,     /* only with VEX.L 1 (256-bit forms) */
  A_AVX = 1 << 22,    /* needs AVX too (the VEX forms of AES-NI, PCLMULQDQ, VAES...) */
  A_FAULTS = 1 << 23, /* may fault without a memory operand: the stack (PUSH, POP), #DE */
  A_NO_ACCESS = 1 << 24, /* its memory operand is an address, never accessed (LEA) */
  A_RMW = 1 << 25,    /* reads its memory operand to write it back, as the lockable rows
                         (A_LOCK) do too: shifts, rotates, SHLD, SHRD */
};

/* A row needs no CPUID feature beyond the x86-64 baseline. */
#define BASE 0xFFFF

/* ---- shorthands for the columns of FORM(opcode, opcode_mask, prefixes, modrm,
 * modrm_mask, shape, width, reg, mem, op, aux, attrs, feature, use, def, fast) ---- */

#define ALL_RM 0, 0 /* any ModRM, or none */
#define DIGIT(n) (n) << 3, 0x38
#define MODRM_IS(b) b, 0xFF
#define MODRM(value, mask) value, mask
#define H(name) op_##name, op_##name                 /* one handler for both */
#define HRM(name) op_##name, op_##name##_m           /* register and memory handlers */
#define HPAIR(r, m) op_##r, op_##m
#define HREG(name) op_##name, NULL                   /* register forms only */
#define HMEM(name) NULL, op_##name                   /* memory forms only */
#define OPC(field) field                             /* with A_OPC */
#define EXT(field) field                             /* with A_EXT */
#define FAST(name) fast_##name
#define NOFAST NULL

/* SSE forms: ModRM with an XMM register or m128 (W_X), or a general register (W_Y);
 * no flags read; LOCK is #UD. */
#define SSE(opc, pfx, handlers, feature) \
  FORM(opc, 0xFF, pfx, ALL_RM, S_MODRM, W_X, handlers, 0, 0, 0, feature, 0, 0, NOFAST)
#define SSE_I(opc, pfx, handlers, feature) \
  FORM(opc, 0xFF, pfx, ALL_RM, S_MODRM_UB, W_X, handlers, 0, 0, 0, feature, 0, 0, NOFAST)
/* Crypto forms: SSE ones whose handler the host tier picks (ops_crypto.h), the byte
 * shuffles among them. */
#define CRYPTO(opc, pfx, handlers, feature) \
  FORM(opc, 0xFF, pfx, ALL_RM, S_MODRM, W_X, handlers, 0, 0, 0, feature, 0, 0, FAST(crypto_tier))
#define CRYPTO_I(opc, pfx, handlers, feature) \
  FORM(opc, 0xFF, pfx, ALL_RM, S_MODRM_UB, W_X, handlers, 0, 0, 0, feature, 0, 0, FAST(crypto_tier))
#define SSE_Y(opc, pfx, handlers, feature) \
  FORM(opc, 0xFF, pfx, ALL_RM, S_MODRM, W_Y, handlers, 0, 0, 0, feature, 0, 0, NOFAST)
#define SSE_YI(opc, pfx, handlers, feature) \
  FORM(opc, 0xFF, pfx, ALL_RM, S_MODRM_UB, W_Y, handlers, 0, 0, 0, feature, 0, 0, NOFAST)
/* ...and those that write all six arithmetic flags (COMISS, PTEST, PCMPxSTRx). */
#define SSE_FL(opc, pfx, handlers, feature) \
  FORM(opc, 0xFF, pfx, ALL_RM, S_MODRM, W_X, handlers, 0, 0, 0, feature, 0, FL_ALL, NOFAST)
#define SSE_FLI(opc, pfx, handlers, feature) \
  FORM(opc, 0xFF, pfx, ALL_RM, S_MODRM_UB, W_X, handlers, 0, 0, 0, feature, 0, FL_ALL, NOFAST)
#define SSE_FLYI(opc, pfx, handlers, feature) \
  FORM(opc, 0xFF, pfx, ALL_RM, S_MODRM_UB, W_Y, handlers, 0, 0, 0, feature, 0, FL_ALL, NOFAST)

/* AVX forms of SSE operations (sse_operand.h's AVX_RM and AVX_128): VEX.128 rows with
 * feature f128 and VEX.256 rows with f256 (AVX for floating point, AVX2 for integers);
 * scalar ones ignore VEX.L. _NV: no vvvv register (VEX.vvvv must be 1111). _FAST: with
 * the picker `fast` (the byte shuffles: FAST(crypto_tier)). */
#define VEX_RM_FAST(opc, pfx, name, f128, f256, fast)                                       \
  FORM(opc, 0xFF, pfx, ALL_RM, S_MODRM, W_X, HRM(v##name), 0, 0, A_VEX | A_L0, f128, 0, 0, fast) \
  FORM(opc, 0xFF, pfx, ALL_RM, S_MODRM, W_X, HPAIR(v##name##_256, v##name##_256_m), 0, 0, A_VEX | A_L1, f256, 0, 0, fast)
#define VEX_RM(opc, pfx, name, f128, f256) VEX_RM_FAST(opc, pfx, name, f128, f256, NOFAST)
#define VEX_SCALAR(opc, pfx, name) \
  FORM(opc, 0xFF, pfx, ALL_RM, S_MODRM, W_X, HRM(v##name), 0, 0, A_VEX, CPU_FEATURE_AVX, 0, 0, NOFAST)
#define VEX_NV(opc, pfx, r128, m128, r256, m256, f128, f256)                                 \
  FORM(opc, 0xFF, pfx, ALL_RM, S_MODRM, W_X, r128, m128, 0, 0, A_VEX | A_L0 | A_NO_VVVV, f128, 0, 0, NOFAST) \
  FORM(opc, 0xFF, pfx, ALL_RM, S_MODRM, W_X, r256, m256, 0, 0, A_VEX | A_L1 | A_NO_VVVV, f256, 0, 0, NOFAST)
/* ...and those with an imm8 (_I). */
#define VEX_RM_I_FAST(opc, pfx, name, f128, f256, fast)                                     \
  FORM(opc, 0xFF, pfx, ALL_RM, S_MODRM_UB, W_X, HRM(v##name), 0, 0, A_VEX | A_L0, f128, 0, 0, fast) \
  FORM(opc, 0xFF, pfx, ALL_RM, S_MODRM_UB, W_X, HPAIR(v##name##_256, v##name##_256_m), 0, 0, A_VEX | A_L1, f256, 0, 0, fast)
#define VEX_RM_I(opc, pfx, name, f128, f256) VEX_RM_I_FAST(opc, pfx, name, f128, f256, NOFAST)
#define VEX_NV_I_FAST(opc, pfx, name, f128, f256, fast)                                     \
  FORM(opc, 0xFF, pfx, ALL_RM, S_MODRM_UB, W_X, HRM(v##name), 0, 0, A_VEX | A_L0 | A_NO_VVVV, f128, 0, 0, fast) \
  FORM(opc, 0xFF, pfx, ALL_RM, S_MODRM_UB, W_X, HPAIR(v##name##_256, v##name##_256_m), 0, 0, A_VEX | A_L1 | A_NO_VVVV, f256, 0, 0, fast)
#define VEX_NV_I(opc, pfx, name, f128, f256) VEX_NV_I_FAST(opc, pfx, name, f128, f256, NOFAST)

/* MMX forms: ModRM with an MMX register or m64; feature BASE or the SSE-era set that
 * added the form (MMX itself is A_MMX). */
#define MMX(opc, handlers, feature) \
  FORM(opc, 0xFF, NP, ALL_RM, S_MODRM, W_8, handlers, 0, 0, A_MMX, feature, 0, 0, NOFAST)
#define MMX_I(opc, handlers, feature) \
  FORM(opc, 0xFF, NP, ALL_RM, S_MODRM_UB, W_8, handlers, 0, 0, A_MMX, feature, 0, 0, NOFAST)
/* ...whose handler the host tier picks (the byte shuffles). */
#define MMX_CRYPTO(opc, handlers, feature) \
  FORM(opc, 0xFF, NP, ALL_RM, S_MODRM, W_8, handlers, 0, 0, A_MMX, feature, 0, 0, FAST(crypto_tier))
#define MMX_CRYPTO_I(opc, handlers, feature) \
  FORM(opc, 0xFF, NP, ALL_RM, S_MODRM_UB, W_8, handlers, 0, 0, A_MMX, feature, 0, 0, FAST(crypto_tier))

/* The rows of table t, for tests that walk them; *n is their number. */
const Form *form_rows(unsigned t, unsigned *n);

/* The rows of table t in the copy of the table and its handlers compiled with
 * X64EMU_WATCH_MEMORY, whose loads and stores report to the memory hook (access.h):
 * CMakeLists.txt renames every global of that copy watched_*, form_rows included. */
const Form *watched_form_rows(unsigned t, unsigned *n);

/* The same for the copy compiled with X64EMU_ORDERED (ordered_*), on hosts whose memory
 * order is weaker than x86's (X64EMU_HAS_ORDERED_COPY). */
const Form *ordered_form_rows(unsigned t, unsigned *n);

#endif
