/* flags.h: lazy RFLAGS: record the last flag-setting operation, compute on demand. */
#ifndef X64EMU_FLAGS_H
#define X64EMU_FLAGS_H

#include <stdbool.h>
#include <stdint.h>

#include "cpu.h"

static inline void lazy_set(Cpu *c, enum LazyOp op, unsigned size, uint64_t res, uint64_t a,
                            uint64_t b) {
  c->lf.op = (uint8_t)op;
  c->lf.size = (uint8_t)size;
  c->lf.res = res;
  c->lf.a = a;
  c->lf.b = b;
}

bool flag_cf(const Cpu *c);
bool flag_zf(const Cpu *c);
bool flag_sf(const Cpu *c);
bool flag_of(const Cpu *c);
bool flag_pf(const Cpu *c);
bool flag_af(const Cpu *c);

/* The whole RFLAGS value, arithmetic flags included. */
uint64_t flags_get(const Cpu *c);
/* Replace RFLAGS; the arithmetic flags become concrete (LF_NONE). */
void flags_set(Cpu *c, uint64_t rflags);
/* Set only the bits in mask, keeping the others (materializes lazy flags first). */
void flags_update(Cpu *c, uint64_t mask, uint64_t bits);

/* Condition code cc (the low nibble of Jcc/SETcc/CMOVcc), for any recorded operation. */
bool cond_slow(const Cpu *c, unsigned cc);

/* The same, with the commonest cases inline: JE/JNE (and SETE, CMOVE...) after any lazily
 * recorded operation, where ZF is just a zero result, and JB/JAE after CMP or SUB, the
 * loop test of OpenSSL's assembly (`sub $0x80, %rdx; jnc`). */
static inline bool cond(const Cpu *c, unsigned cc) {
  const LazyFlags *f = &c->lf;
  uint64_t m = f->size >= 8 ? ~0ull : (1ull << (f->size * 8)) - 1;
  if (f->op != LF_NONE && (cc & ~1u) == 4) return ((f->res & m) == 0) ^ (cc & 1);
  if (f->op == LF_SUB && (cc & ~1u) == 2) return ((f->a & m) < (f->b & m)) ^ (cc & 1);
  return cond_slow(c, cc);
}

#endif
