/* floor.c: what one guest instruction costs at least, for bench/floor.sh (x86-64 only).
 *
 *   floor host   measures the machine it runs on, natively: a threaded-code dispatch (the
 *                indirect jump from one handler to the next that an interpreter makes for
 *                every instruction), and a value carried from one instruction to the next
 *                through memory (a store, then a load of it), in an XMM and in a general
 *                register, as an interpreter's handlers carry the guest's registers.
 *   floor guest  times straight-line runs of one instruction, as a guest: run natively, under
 *                x64emu and under QEMU, it gives each one's nanoseconds per instruction.
 *
 * Each row is the best of five timings of a loop over 256 copies. It is a benchmark,
 * not a test. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define R4(x) x x x x
#define R16(x) R4(R4(x))
#define R256(x) R16(R16(x))
enum { COPIES = 256, BEST_OF = 5 };

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void row(const char *what, double seconds, long loops) {
  printf("%-58s %7.3f ns\n", what, seconds / ((double)loops * COPIES) * 1e9);
}

/* Times `loops` passes of the statement, the best of BEST_OF. */
#define TIMED(what, loops, stmt)                                  \
  do {                                                            \
    double best_ = 1e9;                                           \
    for (int k_ = 0; k_ < BEST_OF; k_++) {                        \
      double t0_ = now();                                         \
      for (long i_ = 0; i_ < (loops); i_++) stmt;                 \
      double t_ = now() - t0_;                                    \
      if (t_ < best_) best_ = t_;                                 \
    }                                                             \
    row(what, best_, loops);                                      \
  } while (0)

/* Threaded code: records are handler addresses; each handler moves on to the next record
 * (rsi) and jumps to its handler, as an interpreter's do; the last returns. Four handlers
 * with the same body, each at its own address, so that a record sequence can make the
 * host predict one jump site's several targets. */
void dispatch_a(void), dispatch_b(void), dispatch_c(void), dispatch_d(void), dispatch_end(void);
__asm__(".text\n"
        "dispatch_a: lea 8(%rsi), %rsi\n jmp *(%rsi)\n"
        "dispatch_b: lea 8(%rsi), %rsi\n jmp *(%rsi)\n"
        "dispatch_c: lea 8(%rsi), %rsi\n jmp *(%rsi)\n"
        "dispatch_d: lea 8(%rsi), %rsi\n jmp *(%rsi)\n"
        "dispatch_end: ret\n");

static void run_records(void *const *records) {
  __asm__ volatile("call *(%%rsi)" : "+S"(records) : : "memory");
}

static void host(long loops) {
  void *records[COPIES + 1];
  void (*const handlers[4])(void) = {dispatch_a, dispatch_b, dispatch_c, dispatch_d};
  records[COPIES] = (void *)dispatch_end;
  for (int i = 0; i < COPIES; i++) records[i] = (void *)dispatch_a;
  TIMED("threaded dispatch, one handler", loops, run_records(records));
  unsigned s = 1; /* a fixed sequence of the four */
  for (int i = 0; i < COPIES; i++) {
    s = s * 1103515245u + 12345u;
    records[i] = (void *)handlers[s >> 16 & 3];
  }
  TIMED("threaded dispatch, four handlers in a fixed mixed order", loops, run_records(records));

  static unsigned char cell[64] __attribute__((aligned(64)));
  TIMED("XMM through memory: load, PXOR, store, next load", loops,
        __asm__ volatile(R256("movdqa (%0), %%xmm0\n pxor 16(%0), %%xmm0\n movdqa %%xmm0, (%0)\n")
                         : : "r"(cell) : "xmm0", "memory"));
  TIMED("general register through memory: load, ADD, store, next load", loops,
        __asm__ volatile(R256("mov (%0), %%rax\n add $1, %%rax\n mov %%rax, (%0)\n")
                         : : "r"(cell) : "rax", "memory"));
}

static void guest(long loops) {
  TIMED("NOP", loops, __asm__ volatile(R256("nop\n")));
  TIMED("MOV rax, rbx", loops, __asm__ volatile(R256("mov %%rbx, %%rax\n") : : : "rax"));
  TIMED("ADD rax, 1 (each on the last)", loops, __asm__ volatile(R256("add $1, %%rax\n") : : : "rax", "cc"));
  TIMED("PXOR xmm1, xmm2 (each on the last)", loops,
        __asm__ volatile(R256("pxor %%xmm2, %%xmm1\n") : : : "xmm1"));
  TIMED("VPXOR xmm1, xmm2, xmm3 (independent)", loops,
        __asm__ volatile(R256("vpxor %%xmm3, %%xmm2, %%xmm1\n") : : : "xmm1"));
  TIMED("AESENC xmm1, xmm2 (each on the last)", loops,
        __asm__ volatile(R256("aesenc %%xmm2, %%xmm1\n") : : : "xmm1"));
  TIMED("VAESENC xmm1, xmm2, xmm3 (independent)", loops,
        __asm__ volatile(R256("vaesenc %%xmm3, %%xmm2, %%xmm1\n") : : : "xmm1"));
  TIMED("VPCLMULQDQ xmm1, xmm2, xmm3 (independent)", loops,
        __asm__ volatile(R256("vpclmulqdq $0x10, %%xmm3, %%xmm2, %%xmm1\n") : : : "xmm1"));
}

int main(int argc, char **argv) {
  long loops = argc > 2 ? atol(argv[2]) : 2000;
  if (argc > 1 && !strcmp(argv[1], "host")) {
    host(loops);
  } else if (argc > 1 && !strcmp(argv[1], "guest")) {
    guest(loops);
  } else {
    fprintf(stderr, "usage: floor host|guest [LOOPS]\n");
    return 2;
  }
  return 0;
}
