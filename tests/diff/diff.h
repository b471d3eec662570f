/* diff.h: the differential tester's shared types: register state, instruction spec, form
 * table entry and one generated test case. */
#ifndef X64EMU_DIFF_H
#define X64EMU_DIFF_H

#include <stdbool.h>
#include <stdint.h>

/* The state the native harness loads and saves (native.S relies on this layout). */
typedef struct Regs {
  uint64_t r[16];
  uint64_t rflags;
} Regs;

/* Runs code (instruction bytes followed by RET) on the host CPU with regs loaded into
 * every general register but RSP, and saves the registers and RFLAGS back. */
void diff_native_call(Regs *regs, const void *code);

/* ---- random numbers (xoshiro256**) ---- */

typedef struct Rng {
  uint64_t s[4];
} Rng;

void rng_seed(Rng *g, uint64_t seed);
uint64_t rng_next(Rng *g);
static inline unsigned rng_below(Rng *g, unsigned n) { return (unsigned)(rng_next(g) % n); }
static inline bool rng_chance(Rng *g, unsigned percent) { return rng_below(g, 100) < percent; }
/* An operand value that favours the edges: 0, ±1, sign boundaries, small numbers. */
uint64_t rng_value(Rng *g);

/* ---- memory the tested instructions may touch ---- */

#define DATA_SIZE 8192u
/* Memory operands land in [DATA_LO, DATA_HI) so that a bit offset or a string run of a
 * few hundred bytes either way stays inside the data area. */
#define DATA_LO 2048u
#define DATA_HI 6144u

extern uint8_t *code_page;   /* RWX, below 2 GiB (32-bit addressing reaches it) */
extern uint8_t *data;        /* DATA_SIZE bytes just after the code page */
extern uint8_t data_init[DATA_SIZE]; /* the image both runs start from */
/* The host's FS base (the C library's TLS) and a GS base the tester sets; the emulated
 * CPU gets the same, so FS/GS overrides can be compared. */
extern uint64_t fs_base, gs_base;
uint64_t seg_base(uint8_t prefix);

/* What one run left: registers, a trap (signal number and si_code; 0 when none) and the
 * data area. */
typedef struct Outcome {
  Regs regs;
  int sig, code;
  uint8_t mem[DATA_SIZE];
} Outcome;

/* ---- one instruction to encode ---- */

enum { REG_NO = -1 };
/* Register numbers 0..15 are the GPRs; 16..19 name AH, CH, DH, BH (byte operands without
 * REX), as in src/interp/cpu.h. */
enum { HI_AH = 16 };

typedef struct Mem {
  int base, index;   /* REG_NO when absent */
  unsigned scale;    /* 0..3 */
  int64_t disp;
  unsigned disp_size; /* 0, 1 or 4 */
  bool rip_relative;
  bool addr32;        /* 67 prefix */
  uint8_t seg;        /* 0x64 (FS), 0x65 (GS) or 0 */
  uint64_t target;    /* the effective address the generator aims at */
} Mem;

typedef struct Spec {
  uint8_t legacy[8];  /* prefixes in emission order (66, 67, F0, segment, F2/F3) */
  unsigned n_legacy;
  bool rex_w, force_rex;
  uint8_t opc[3];
  unsigned opc_len;
  bool modrm;
  int reg;            /* ModRM.reg: a register, or the /digit */
  bool mem;
  int rm;             /* register operand when !mem */
  Mem m;
  int opreg;          /* register in the opcode's low bits (REG_NO when none) */
  uint64_t imm;
  unsigned imm_size;
  /* A VEX prefix instead of REX and the mandatory prefix: map (1: 0F, 2: 0F 38, 3: 0F 3A;
   * 0: no VEX), pp (0: none, 1: 66, 2: F3, 3: F2), L, the vvvv register (REG_NO: 1111),
   * and the two-byte C5 form where it can say as much. */
  uint8_t vex_map, vex_pp;
  bool vex_l, vex_short;
  int vvvv;
} Spec;

/* Encodes s at address rip into out; returns the length. */
unsigned encode(const Spec *s, uint8_t *out, uint64_t rip);

/* ---- forms ---- */

typedef struct Case Case;
typedef struct Form Form;

enum Enc {
  ENC_MODRM_REG,   /* ModRM with a register operand in reg (Gv, Gb) */
  ENC_MODRM_DIGIT, /* ModRM with an opcode extension in reg (/digit) */
  ENC_OPREG,       /* register in the opcode's low three bits (+r) */
  ENC_ACC,         /* accumulator implied (04 ib, A9 iz...) */
  ENC_NONE,        /* no operands encoded */
};

enum { WHERE_REG = 1, WHERE_MEM = 2, WHERE_BOTH = 3 };
enum { IMM_NONE = 0, IMM_B = 1, IMM_W = 2, IMM_D = 4, IMM_Q = 8, IMM_Z = 0x10 /* 2 or 4 */,
       IMM_V = 0x20 /* 2, 4 or 8 (B8+r) */ };

/* Form.x: details of how to generate a form. */
enum {
  X_REG_NOT_ADDR = 1 << 0, /* the reg operand's value matters: never an address register */
  X_LOCKABLE = 1 << 1,     /* LOCK is valid with a memory destination */
  X_MAY_FAULT = 1 << 2,    /* the instruction may trap natively (checked both sides) */
  X_LEA = 1 << 3,          /* the memory operand is only an address: any register values */
  X_NO_JUNK = 1 << 4,      /* no redundant prefixes */
  X_LOCK = 1 << 5,         /* always LOCK (forms where it is invalid: #UD) */
  X_VEX_L1 = 1 << 6,       /* VEX.L 1 (BMI forms: #UD) */
  X_VVVV_SET = 1 << 7,     /* a register in VEX.vvvv where the form has none (#UD) */
  X_VEX_66 = 1 << 8,       /* a 66 prefix before VEX (#UD) */
};

/* What VEX.vvvv is to a form (Form.vv). */
enum { VV_NONE, VV_SRC, VV_DEST };

struct Form {
  char name[40];
  uint8_t opc[3];
  unsigned opc_len;
  uint8_t mandatory; /* F2/F3 that is part of the opcode, or 0 */
  uint8_t enc;
  uint8_t digit;
  uint8_t size;      /* operand size in bytes (0: none) */
  uint8_t reg_size;  /* size of the register in ModRM.reg / opcode (1: byte registers) */
  uint8_t rm_size;   /* size of the ModRM.rm operand */
  uint8_t where;
  uint8_t imm;       /* IMM_* */
  uint16_t fixed;    /* implicit input registers (bit n: GPR n): never address registers */
  uint16_t x;        /* X_* */
  unsigned flags;    /* arithmetic flags compared, unless mask() says otherwise */
  uint8_t op;        /* a small parameter for the hooks (ALU kind, condition, shift op) */
  uint8_t vex_map, vex_pp, vv; /* VEX-encoded forms: Spec's fields, and VV_* */
  /* Shapes operand values after the random draw; may set k->reject to draw again. */
  void (*prep)(Case *k, Rng *g);
  /* Arithmetic flags compared for this case (the SDM leaves the others undefined). */
  unsigned (*mask)(const Case *k);
  /* Generates the whole case itself (strings, instruction pairs). */
  void (*gen)(Case *k, Rng *g);
};

#define MAX_CODE 48
#define CASE_MAX_INSNS 4

struct Case {
  const Form *f;
  Regs in;
  Spec s;                 /* the instruction under test (the last one for pairs) */
  uint8_t code[MAX_CODE];
  unsigned len;
  unsigned n_insn;
  uint16_t insn_at[CASE_MAX_INSNS]; /* where each instruction starts, and its length */
  uint8_t insn_len[CASE_MAX_INSNS];
  unsigned flag_mask;     /* arithmetic flags compared */
  uint64_t count;         /* shift/rotate count, for the mask and the report */
  uint64_t ignore[16];    /* register bits the SDM leaves undefined for this case */
  bool reject;
};

/* Form table (forms.c). */
extern Form *forms;
extern unsigned n_forms;
void forms_build(void);

/* Case generation (gen.c). */
void case_generate(Case *k, Rng *g);
/* The same from given registers and flags: what the generator changes in k->in (address
 * registers, shaped operands) is what the instruction needs there. */
void case_generate_from(Case *k, Rng *g, const Regs *start);
/* When not 0, the address every memory operand aims at (the sequence generator makes
 * instructions meet in memory with it). */
extern uint64_t gen_target_hint;
/* Writes an operand: register (with byte-register rules) or the memory image. */
void case_set_reg(Case *k, int reg, uint64_t v, unsigned size);
uint64_t case_get_reg(const Case *k, int reg, unsigned size);
void case_set_rm(Case *k, uint64_t v, unsigned size);
uint64_t case_get_rm(const Case *k, unsigned size);
void mem_put(uint64_t addr, uint64_t v, unsigned size);
uint64_t mem_get(uint64_t addr, unsigned size);
/* Picks a general register other than RSP and those in `avoid` (bit mask). */
int pick_gpr(Rng *g, unsigned avoid, bool low8_only);
/* Appends one encoded instruction to the case. */
void case_emit(Case *k, const Spec *s);

#define ARITH6 0x8d5u /* CF PF AF ZF SF OF */
#define FL_CF 0x001u
#define FL_PF 0x004u
#define FL_AF 0x010u
#define FL_ZF 0x040u
#define FL_SF 0x080u
#define FL_DF 0x400u
#define FL_OF 0x800u

#endif
