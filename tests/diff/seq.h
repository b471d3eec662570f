/* seq.h: straight-line sequences of instructions drawn from the forms, with the moves
 * that set up their operands, and which arithmetic flags are defined after each. */
#ifndef X64EMU_DIFF_SEQ_H
#define X64EMU_DIFF_SEQ_H

#include "diff.h"

#define SEQ_MAX_MAIN 12
/* Drawn instructions plus the moves before them; with the final JMP the whole sequence
 * stays within one decoded block (64 instructions). */
#define SEQ_MAX_INSNS 60
#define SEQ_CODE_MAX 1536
/* The RET the sequence's final JMP goes to: the native harness returns through it, the
 * interpreter stops there. */
#define SEQ_STOP_OFFSET 4080u

typedef struct SeqInsn {
  const Form *f;    /* NULL for a set-up move (MOV r, imm; CLD; STD) */
  uint16_t at;      /* offset in the code */
  uint8_t len;
  unsigned defined; /* arithmetic flags (FL_*) whose value is defined after it */
} SeqInsn;

typedef struct Seq {
  Regs in;
  uint8_t code[SEQ_CODE_MAX];
  unsigned len;
  SeqInsn insn[SEQ_MAX_INSNS];
  unsigned n, n_main;
  /* RAX bits left undefined at the end (LAHF of undefined flags, always last). */
  uint64_t rax_undefined;
  /* The whole sequence ends with a Jcc of this condition code (on flags defined there)
   * to the stop, and falls through to NOT R15 and the JMP there, so that which way it
   * went shows in R15; -1: with the JMP alone. */
  int end_cc;
} Seq;

/* Draws a sequence of n_main (1..SEQ_MAX_MAIN) instructions that runs natively without a
 * trap, and the data image (data_init) it starts from. Uses the code page. */
void seq_generate(Seq *q, Rng *g, unsigned n_main);

/* Writes the first n instructions of q to the code page, then a JMP to the stop address
 * (all of them: end_cc's Jcc first). */
void seq_place(const Seq *q, unsigned n);
uint64_t seq_stop_rip(void);

#endif
