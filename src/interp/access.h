/* access.h: the only way handlers touch guest registers and guest memory.
 *
 * Guest addresses are host addresses (DESIGN.md, "guest_base = 0"): a load is a plain
 * host load, and a host fault on it becomes a guest SIGSEGV in run.c. */
#ifndef X64EMU_ACCESS_H
#define X64EMU_ACCESS_H

#include <stdint.h>
#include <string.h>
#ifdef __x86_64__
#include <emmintrin.h>
#endif

#include "cpu.h"
#include "insn.h"

/* ---- guest memory ---- */

static inline uint8_t ld8(uint64_t a) { return *(const volatile uint8_t *)(uintptr_t)a; }
static inline uint16_t ld16(uint64_t a) { uint16_t v; memcpy(&v, (const void *)(uintptr_t)a, 2); return v; }
static inline uint32_t ld32(uint64_t a) { uint32_t v; memcpy(&v, (const void *)(uintptr_t)a, 4); return v; }
static inline uint64_t ld64(uint64_t a) { uint64_t v; memcpy(&v, (const void *)(uintptr_t)a, 8); return v; }
static inline void st8(uint64_t a, uint8_t v) { *(volatile uint8_t *)(uintptr_t)a = v; }
static inline void st16(uint64_t a, uint16_t v) { memcpy((void *)(uintptr_t)a, &v, 2); }
static inline void st32(uint64_t a, uint32_t v) { memcpy((void *)(uintptr_t)a, &v, 4); }
static inline void st64(uint64_t a, uint64_t v) { memcpy((void *)(uintptr_t)a, &v, 8); }

/* Between two guest accesses of one instruction that may fault: the compiler keeps them in
 * this order, so that the fault reported is the one the CPU reports first. */
static inline void access_in_order(void) { __asm__ volatile("" ::: "memory"); }

static inline uint64_t ld(uint64_t a, unsigned size) {
  switch (size) {
  case 1: return ld8(a);
  case 2: return ld16(a);
  case 4: return ld32(a);
  default: return ld64(a);
  }
}

static inline void st(uint64_t a, uint64_t v, unsigned size) {
  switch (size) {
  case 1: st8(a, (uint8_t)v); break;
  case 2: st16(a, (uint16_t)v); break;
  case 4: st32(a, (uint32_t)v); break;
  default: st64(a, v); break;
  }
}

/* One 16-byte access where the host has one (volatile: the compiler may neither split it
 * nor narrow it to the bytes a handler reads), so that a fault is reported where the CPU
 * reports it, at the first unreadable byte. */
static inline void ld128(uint64_t a, Xmm *x) {
#ifdef __x86_64__
  _mm_store_si128((__m128i *)x, *(const volatile __m128i_u *)(uintptr_t)a);
#else
  memcpy(x, (const void *)(uintptr_t)a, 16);
#endif
}
static inline void st128(uint64_t a, const Xmm *x) { memcpy((void *)(uintptr_t)a, x, 16); }

/* 32-bit address arithmetic (67 prefix) and the FS/GS segment base, both rare. */
static inline uint64_t ea_adjust(const Cpu *c, const Insn *in, uint64_t a) {
  if (in->addr32) a = (uint32_t)a;
  if (in->seg == SEG_FS) a += c->fs_base;
  else if (in->seg == SEG_GS) a += c->gs_base;
  return a;
}

/* Effective address of the instruction's memory operand. An absent base or index is
 * REG_NONE, whose register reads 0, so the common case has no branch. */
static inline uint64_t ea(const Cpu *c, const Insn *in) {
  uint64_t a = (uint64_t)in->disp + c->r[in->base] + (c->r[in->index] << in->scale);
  if (__builtin_expect(in->addr32 || in->seg != SEG_NONE, 0)) a = ea_adjust(c, in, a);
  return a;
}

/* Whether a is a canonical address (bits 63..47 all equal). */
static inline bool canonical(uint64_t a) { return (uint64_t)((int64_t)(a << 16) >> 16) == a; }

/* ---- general registers ---- */

static inline uint64_t size_mask(unsigned size) {
  return size >= 8 ? ~0ull : (1ull << (size * 8)) - 1;
}

static inline uint64_t sign_extend(uint64_t v, unsigned size) {
  switch (size) {
  case 1: return (uint64_t)(int64_t)(int8_t)v;
  case 2: return (uint64_t)(int64_t)(int16_t)v;
  case 4: return (uint64_t)(int64_t)(int32_t)v;
  default: return v;
  }
}

static inline uint64_t reg_get(const Cpu *c, unsigned r, unsigned size) {
  switch (size) {
  case 1: return r >= REG_AH ? (uint8_t)(c->r[r - REG_AH] >> 8) : (uint8_t)c->r[r];
  case 2: return (uint16_t)c->r[r];
  case 4: return (uint32_t)c->r[r];
  default: return c->r[r];
  }
}

/* Writes with x86-64 semantics: 32-bit writes zero the upper half, 8/16-bit merge. */
static inline void reg_set(Cpu *c, unsigned r, uint64_t v, unsigned size) {
  switch (size) {
  case 1:
    if (r >= REG_AH) c->r[r - REG_AH] = (c->r[r - REG_AH] & ~0xff00ull) | ((v & 0xff) << 8);
    else c->r[r] = (c->r[r] & ~0xffull) | (v & 0xff);
    break;
  case 2: c->r[r] = (c->r[r] & ~0xffffull) | (v & 0xffff); break;
  case 4: c->r[r] = (uint32_t)v; break;
  default: c->r[r] = v; break;
  }
}

/* ---- the ModRM.rm operand, register or memory, at the instruction's size ---- */

static inline uint64_t rm_get(const Cpu *c, const Insn *in, unsigned size) {
  return in->mem ? ld(ea(c, in), size) : reg_get(c, in->rm, size);
}

static inline void rm_set(Cpu *c, const Insn *in, uint64_t v, unsigned size) {
  if (in->mem) st(ea(c, in), v, size);
  else reg_set(c, in->rm, v, size);
}

/* ---- stack ---- */

static inline void push64(Cpu *c, uint64_t v) {
  st64(c->r[RSP] - 8, v);
  c->r[RSP] -= 8;
}

static inline uint64_t pop64(Cpu *c) {
  uint64_t v = ld64(c->r[RSP]);
  c->r[RSP] += 8;
  return v;
}

#endif
