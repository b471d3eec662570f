/* move_pairs.c: a register copy (MOV r, r, the 89 form compilers emit) followed by a
 * register operation, which x64emu runs as one record (fast.c, fast_after_move): every
 * operation it pairs, at both sizes, with its flags read (PUSHF) and with them dropped (a
 * CMP after it), on edge and random operands; and a pair that ends a 64-instruction block.
 * Each line is a hash of the results and of the flags the SDM defines. (%{load%}: the
 * 03/2B/33 encodings, G op= E, where the assembler would pick 01/29/31.) */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>

static uint64_t state = 0x9e3779b97f4a7c15ull;
static uint64_t next(void) {
  state ^= state << 13, state ^= state >> 7, state ^= state << 17;
  return state;
}

static uint64_t hash = 14695981039346656037ull;
static void fold(uint64_t v) { hash = (hash ^ v) * 1099511628211ull; }

static uint64_t operand(int i) {
  static const uint64_t edges[] = {0, 1, 2, 0x7f, 0x80, 0xff, 0x7fffffff, 0x80000000, 0xffffffff,
                                   0x100000000ull, 0x7fffffffffffffffull, 0x8000000000000000ull,
                                   0xffffffffffffffffull};
  const int n = sizeof edges / sizeof edges[0];
  return i < n ? edges[i] : next() >> (next() % 64);
}

enum { CF = 1, PF = 4, AF = 16, ZF = 64, SF = 128, OF = 2048 };
/* The flags each operation defines (AF after a logical operation or a shift, and OF after
 * a shift or rotate by more than one, are undefined); KEPT: those the CMP before set. */
enum {
  ARITH = CF | PF | AF | ZF | SF | OF,
  LOGIC = CF | PF | ZF | SF | OF,
  SHIFT = CF | PF | ZF | SF,
  INCDEC = PF | AF | ZF | SF | OF,
  ROTATE = CF,
  KEPT = ARITH,
};

/* MOV s into x (COPY: "mov %k[s], %k[x]" or the 64-bit one), then CODE on x and t; the
 * flags as PUSHF finds them, those MASK names kept. A CMP before sets flags the pair's
 * operations may keep. */
#define PAIR(NAME, COPY, CODE, MASK)                                                      \
  static void NAME(void) {                                                                \
    for (int i = 0; i < 200; i++) {                                                       \
      uint64_t x = operand(i), t = operand(i + 5), s = operand(i + 11), f;                \
      __asm__ volatile("cmp %[t], %[s]\n\t" COPY "\n\t" CODE "\n\tpushfq\n\tpop %[f]"     \
                       : [x] "+r"(x), [t] "+r"(t), [f] "=r"(f)                            \
                       : [s] "r"(s)                                                       \
                       : "cc");                                                           \
      fold(x), fold(t), fold(f & (MASK));                                                 \
    }                                                                                     \
    printf("%-24s %016" PRIx64 "\n", #NAME, hash);                                        \
    hash = 14695981039346656037ull;                                                       \
  }
#define C32 "mov %k[s], %k[x]"
#define C64 "mov %[s], %[x]"
/* Each operation with its flags read, and with them dropped (the CMP after it). */
#define BOTH(NAME, CODE32, CODE64, MASK)                                                  \
  PAIR(NAME##32, C32, CODE32, MASK)                                                       \
  PAIR(NAME##64, C64, CODE64, MASK)                                                       \
  PAIR(NAME##32_dropped, C32, CODE32 "\n\tcmp %k[x], %k[t]", ARITH)                       \
  PAIR(NAME##64_dropped, C64, CODE64 "\n\tcmp %[x], %[t]", ARITH)

BOTH(add_rr, "add %k[t], %k[x]", "add %[t], %[x]", ARITH)
BOTH(add_rm, "%{load%} add %k[t], %k[x]", "%{load%} add %[t], %[x]", ARITH)
BOTH(add_ri, "add $0x7ffffff1, %k[x]", "add $-5, %[x]", ARITH)
BOTH(sub_rr, "sub %k[t], %k[x]", "sub %[t], %[x]", ARITH)
BOTH(sub_rm, "%{load%} sub %k[x], %k[t]", "%{load%} sub %[x], %[t]", ARITH)
BOTH(sub_ri, "sub $1, %k[x]", "sub $0x80, %[x]", ARITH)
BOTH(and_rr, "and %k[t], %k[x]", "and %[t], %[x]", LOGIC)
BOTH(and_ri, "and $0xff00ff, %k[x]", "and $-256, %[x]", LOGIC)
BOTH(or_rr, "or %k[x], %k[t]", "or %[x], %[t]", LOGIC)
BOTH(or_ri, "or $1, %k[x]", "or $0x40000000, %[x]", LOGIC)
BOTH(xor_rr, "xor %k[t], %k[x]", "xor %[t], %[x]", LOGIC)
BOTH(xor_rm, "%{load%} xor %k[x], %k[t]", "%{load%} xor %[x], %[t]", LOGIC)
BOTH(xor_ri, "xor $-1, %k[x]", "xor $0x5a5a, %[x]", LOGIC)
BOTH(cmp_rr, "cmp %k[t], %k[x]", "cmp %[t], %[x]", ARITH)
BOTH(cmp_ri, "cmp $0x80000000, %k[x]", "cmp $-1, %[x]", ARITH)
BOTH(test_rr, "test %k[t], %k[x]", "test %[t], %[x]", LOGIC)
BOTH(test_ri, "test $0x80000001, %k[x]", "test $0x7f, %[x]", LOGIC)
BOTH(inc, "inc %k[x]", "inc %[x]", INCDEC | CF)
BOTH(dec, "dec %k[x]", "dec %[x]", INCDEC | CF)
BOTH(shl, "shl $5, %k[x]", "shl $63, %[x]", SHIFT)
BOTH(shl1, "shl $1, %k[x]", "shl $1, %[x]", SHIFT | OF)
BOTH(shr, "shr $31, %k[x]", "shr $7, %[x]", SHIFT)
BOTH(sar, "sar $3, %k[x]", "sar $62, %[x]", SHIFT)
BOTH(rol, "rol $13, %k[x]", "rol $33, %[x]", ROTATE)
BOTH(ror, "ror $11, %k[x]", "ror $17, %[x]", ROTATE)
BOTH(ror1, "ror $1, %k[x]", "ror $1, %[x]", ROTATE | OF)
BOTH(mov, "mov %k[x], %k[t]", "mov %[x], %[t]", KEPT)
BOTH(lea_base, "lea 8(%q[x]), %q[x]", "lea -3(%[x]), %[x]", KEPT)
BOTH(lea_index, "lea 3(%q[x],%q[t],4), %q[x]", "lea 0x100(%[t],%[x],8), %[x]", KEPT)
BOTH(lea32, "lea 3(%q[x],%q[t],2), %k[x]", "lea (%[x],%[t]), %k[t]", KEPT)

/* The pair as the last two of the 64 instructions a block holds (the JMP starts one). */
#define NOPS62 ".rept 62\n\tnop\n\t.endr\n\t"
PAIR(block_end32, "jmp 1f\n1:\n\t" NOPS62 C32, "add %k[t], %k[x]", ARITH)
PAIR(block_end64, "jmp 1f\n1:\n\t" NOPS62 C64, "ror $9, %[x]", ROTATE)

int main(void) {
  static void (*const pairs[])(void) = {
#define BOTH_OF(NAME) NAME##32, NAME##64, NAME##32_dropped, NAME##64_dropped,
      BOTH_OF(add_rr) BOTH_OF(add_rm) BOTH_OF(add_ri) BOTH_OF(sub_rr) BOTH_OF(sub_rm)
      BOTH_OF(sub_ri) BOTH_OF(and_rr) BOTH_OF(and_ri) BOTH_OF(or_rr) BOTH_OF(or_ri)
      BOTH_OF(xor_rr) BOTH_OF(xor_rm) BOTH_OF(xor_ri) BOTH_OF(cmp_rr) BOTH_OF(cmp_ri)
      BOTH_OF(test_rr) BOTH_OF(test_ri) BOTH_OF(inc) BOTH_OF(dec) BOTH_OF(shl) BOTH_OF(shl1)
      BOTH_OF(shr) BOTH_OF(sar) BOTH_OF(rol) BOTH_OF(ror) BOTH_OF(ror1) BOTH_OF(mov) BOTH_OF(lea_base)
      BOTH_OF(lea_index) BOTH_OF(lea32) block_end32, block_end64,
  };
  for (unsigned i = 0; i < sizeof pairs / sizeof pairs[0]; i++) pairs[i]();
  return 0;
}
