/* access.h: the only way handlers touch guest registers and guest memory.
 *
 * Guest addresses are host addresses (DESIGN.md, "guest_base = 0"): a load is a plain
 * host load, and a host fault on it becomes a guest SIGSEGV in run.c.
 *
 * The handlers are compiled twice (CMakeLists.txt): as they are, and with
 * X64EMU_WATCH_MEMORY, where every load and store below is first checked for the
 * alignment EFLAGS.AC asks for, and then reported to the machine's memory hook (watch.h).
 * The decoder picks the second copy only while a memory hook exists or EFLAGS.AC is set,
 * so that other runs pay nothing for either.
 *
 * x86 keeps loads in order with loads and stores, and stores with stores (TSO); a host
 * whose own order is weaker (aarch64) does not, which threads running in parallel would
 * see. There, a third copy compiled with X64EMU_ORDERED (and the watched one) makes every
 * guest load an acquire and every store a release: one LDAR or STLR for an aligned
 * access of up to 8 bytes, a barrier after the load or before the store of any other.
 * The decoder takes that copy once a process runs threads in parallel, so that a
 * single-threaded program pays nothing for it (machine_order_memory). */
#ifndef X64EMU_ACCESS_H
#define X64EMU_ACCESS_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#ifdef __x86_64__
#include <emmintrin.h>
#endif

#include "cpu.h"
#include "fault.h"
#include "insn.h"

#ifdef X64EMU_WATCH_MEMORY
#include "watch.h"
#define ALIGNED(a, size) memory_align_check(a, size)
#define WATCHED(a, size, data, write) memory_watched(a, size, data, write)
#else
#define ALIGNED(a, size) ((void)0)
#define WATCHED(a, size, data, write) ((void)0)
#endif

#if defined(X64EMU_ORDERED) || (defined(X64EMU_WATCH_MEMORY) && defined(__aarch64__))
#define ORDERED_ACCESS 1
#endif

/* Where an access with no acquire or release of its own is kept in order (no-ops where
 * the host's order is x86's): after a load, before a store. */
static inline void after_load(void) {
#ifdef ORDERED_ACCESS
  __atomic_thread_fence(__ATOMIC_ACQUIRE);
#endif
}
static inline void before_store(void) {
#ifdef ORDERED_ACCESS
  __atomic_thread_fence(__ATOMIC_RELEASE);
#endif
}

/* ---- guest memory ---- */

/* Every access checks its address on a host other than x86-64: an aarch64 CPU ignores an
 * address's top byte (TBI), so a non-canonical guest address would reach the memory
 * below it, where the x86 CPU raises #GP (or #SS) before any access. An x86-64 host
 * raises its own #GP. */
#if !defined(__x86_64__)
_Noreturn void fault_noncanonical(void); /* fault.c */
#define HOST_ADDR_CHECK(a)                                                                     \
  do {                                                                                         \
    if (__builtin_expect((uint64_t)((int64_t)((uint64_t)(a) << 16) >> 16) != (uint64_t)(a), 0)) \
      fault_noncanonical();                                                                    \
  } while (0)
#else
#define HOST_ADDR_CHECK(a) ((void)0)
#endif

/* Between two guest accesses of one instruction that may fault: the compiler keeps them in
 * this order, so that the fault reported is the one the CPU reports first. */
static inline void access_in_order(void) { __asm__ volatile("" ::: "memory"); }

/* The bare accesses, reported to no hook: for the typed ones below, and for a probe that
 * makes a fault come where the CPU's does, before the instruction's real accesses. */
#ifdef ORDERED_ACCESS
static inline uint8_t probe8(uint64_t a) { HOST_ADDR_CHECK(a); return __atomic_load_n((uint8_t *)(uintptr_t)a, __ATOMIC_ACQUIRE); }
static inline void put8(uint64_t a, uint8_t v) { HOST_ADDR_CHECK(a); __atomic_store_n((uint8_t *)(uintptr_t)a, v, __ATOMIC_RELEASE); }
#else
static inline uint8_t probe8(uint64_t a) { HOST_ADDR_CHECK(a); return *(const volatile uint8_t *)(uintptr_t)a; }
static inline void put8(uint64_t a, uint8_t v) { HOST_ADDR_CHECK(a); *(volatile uint8_t *)(uintptr_t)a = v; }
#endif
/* A write that changes nothing, atomic so that no other thread's store is lost: where the
 * CPU checks that it may store, as ENTER does at its new stack pointer. Not an atomic OR
 * of 0 in C: clang turns that into a load, which faults on no read-only page. */
static inline void probe_write8(uint64_t a) {
  HOST_ADDR_CHECK(a);
  uint8_t *p = (uint8_t *)(uintptr_t)a;
#if defined(__x86_64__)
  __asm__ volatile("lock orb $0, %0" : "+m"(*p));
#else
  /* The load comes first here, and its fault would read as a read's. */
  fault_probing_write = true;
  uint8_t v = __atomic_load_n(p, __ATOMIC_RELAXED);
  while (!__atomic_compare_exchange_n(p, &v, v, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
  }
  fault_probing_write = false;
#endif
}
/* Faults as a store of the n bytes at a would, writing nothing: at a, or, when the store
 * runs into another page, at that page's first byte (what the CPU reports of a store that
 * straddles a page it may not write). For the stores made of several accesses that must
 * write nothing unless all of them can. */
static inline void probe_write_span(uint64_t a, unsigned n) {
  enum { GUEST_PAGE = 4096 };
  uint64_t last = a + n - 1;
  probe_write8(a);
  if ((last ^ a) & ~(uint64_t)(GUEST_PAGE - 1)) probe_write8(last & ~(uint64_t)(GUEST_PAGE - 1));
}
/* The probe of a byte-masked store (MASKMOVQ: n = 8, MASKMOVDQU: 16), which the CPU
 * aligns as 8 bytes and checks as a store of all n, whichever bytes the mask selects (an
 * empty mask too): in 8-byte halves, the high one first. Measured on an Intel Xeon. */
static inline void probe_masked(uint64_t a, unsigned n) {
  ALIGNED(a, 8);
  for (unsigned half = n / 8; half-- > 0;) probe_write_span(a + 8 * half, 8);
}

static inline uint8_t ld8(uint64_t a) { uint8_t v = probe8(a); WATCHED(a, 1, &v, false); return v; }
/* ld16/st16, ld32/st32, ld64/st64: an access of bits / 8 bytes. */
#ifdef ORDERED_ACCESS
#define TYPED_LOAD(bits, v, a)                                                      \
  do {                                                                              \
    if (((a) & (bits / 8 - 1)) == 0) {                                              \
      v = __atomic_load_n((uint##bits##_t *)(uintptr_t)(a), __ATOMIC_ACQUIRE);       \
    } else {                                                                        \
      memcpy(&v, (const void *)(uintptr_t)(a), bits / 8);                           \
      after_load();                                                                 \
    }                                                                               \
  } while (0)
#define TYPED_STORE(bits, a, v)                                                     \
  do {                                                                              \
    if (((a) & (bits / 8 - 1)) == 0) {                                              \
      __atomic_store_n((uint##bits##_t *)(uintptr_t)(a), v, __ATOMIC_RELEASE);       \
    } else {                                                                        \
      before_store();                                                               \
      memcpy((void *)(uintptr_t)(a), &v, bits / 8);                                 \
    }                                                                               \
  } while (0)
#else
#define TYPED_LOAD(bits, v, a) memcpy(&v, (const void *)(uintptr_t)(a), bits / 8)
#define TYPED_STORE(bits, a, v) memcpy((void *)(uintptr_t)(a), &v, bits / 8)
#endif
#define TYPED_ACCESS(bits)                                               \
  static inline uint##bits##_t ld##bits(uint64_t a) {                   \
    uint##bits##_t v;                                                    \
    HOST_ADDR_CHECK(a);                                                  \
    ALIGNED(a, bits / 8);                                                \
    TYPED_LOAD(bits, v, a);                                              \
    WATCHED(a, bits / 8, &v, false);                                     \
    return v;                                                            \
  }                                                                      \
  static inline void st##bits(uint64_t a, uint##bits##_t v) {           \
    HOST_ADDR_CHECK(a);                                                  \
    ALIGNED(a, bits / 8);                                                \
    TYPED_STORE(bits, a, v);                                             \
    WATCHED(a, bits / 8, &v, true);                                      \
  }
TYPED_ACCESS(16)
TYPED_ACCESS(32)
TYPED_ACCESS(64)
#undef TYPED_ACCESS
#undef TYPED_LOAD
#undef TYPED_STORE
static inline void st8(uint64_t a, uint8_t v) { put8(a, v); WATCHED(a, 1, &v, true); }

/* A 10-byte x87 operand, its low 8 bytes read first, as the CPU reads them (so that a
 * fault is where the CPU's is). */
static inline void ld80(uint64_t a, uint8_t b[10]) {
  uint64_t low;
  uint16_t high;
  HOST_ADDR_CHECK(a);
  ALIGNED(a, 10);
  memcpy(&low, (const void *)(uintptr_t)a, 8);
  access_in_order();
  memcpy(&high, (const void *)(uintptr_t)(a + 8), 2);
  after_load();
  memcpy(b, &low, 8);
  memcpy(b + 8, &high, 2);
  WATCHED(a, 10, b, false);
}

/* A 10-byte x87 operand stored, its low 8 bytes first as ld80 reads them: one memcpy's
 * stores come in whatever order the compiler picks (Clang's wrote the high 2 bytes first,
 * and a fault came 8 bytes past the CPU's). */
static inline void st80(uint64_t a, const uint8_t b[10]) {
  HOST_ADDR_CHECK(a);
  ALIGNED(a, 10);
  before_store();
  memcpy((void *)(uintptr_t)a, b, 8);
  access_in_order();
  memcpy((void *)(uintptr_t)(a + 8), b + 8, 2);
  WATCHED(a, 10, b, true);
}

/* Accesses of n bytes that the CPU makes as one: the x87's 10-byte operands, its
 * environment and state images, FXSAVE's. */
static inline void ld_bytes(uint64_t a, void *to, size_t n) {
  HOST_ADDR_CHECK(a);
  ALIGNED(a, (unsigned)n);
  memcpy(to, (const void *)(uintptr_t)a, n);
  after_load();
  WATCHED(a, (unsigned)n, to, false);
}
static inline void st_bytes(uint64_t a, const void *from, size_t n) {
  HOST_ADDR_CHECK(a);
  ALIGNED(a, (unsigned)n);
  before_store();
  memcpy((void *)(uintptr_t)a, from, n);
  WATCHED(a, (unsigned)n, from, true);
}

/* Faults as a read, or a write, of the byte at a would, reading or changing nothing: for
 * the instructions that check their operand's ends before they access it (x87_ctl.c's
 * and sse_state.c's state images). */
static inline void probe_access(uint64_t a, bool write) {
  if (write) probe_write8(a);
  else (void)probe8(a);
}

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

/* One 16-byte access where the host has one (volatile, or an asm LDR Q: the compiler may
 * neither split it nor narrow it to the half a handler reads, as PUNPCKHQDQ's), so that a
 * fault is reported where the CPU reports it, at the first unreadable byte; elsewhere two
 * volatile 8-byte loads, low first. */
static inline void ld128(uint64_t a, Xmm *x) {
#ifdef __x86_64__
  _mm_store_si128((__m128i *)x, *(const volatile __m128i_u *)(uintptr_t)a);
#elif defined(__aarch64__)
  HOST_ADDR_CHECK(a);
  __uint128_t v;
  __asm__ volatile("ldr %q0, [%1]" : "=w"(v) : "r"(a), "m"(*(const uint8_t(*)[16])(uintptr_t)a));
  memcpy(x, &v, 16);
  after_load();
#else
  HOST_ADDR_CHECK(a);
  const volatile uint64_t *p = (const volatile uint64_t *)(uintptr_t)a;
  uint64_t q[2] = {p[0], p[1]};
  memcpy(x, q, 16);
  after_load();
#endif
  WATCHED(a, 16, x, false);
}
static inline void st128(uint64_t a, const Xmm *x) { st_bytes(a, x, 16); }

/* 32-bit address arithmetic (67 prefix) and the FS/GS segment base, both rare. */
static inline uint64_t ea_adjust(const Cpu *c, const Insn *in, uint64_t a) {
  if (in->addr32) a = (uint32_t)a;
  if (in->seg == SEG_FS) a += c->fs_base;
  else if (in->seg == SEG_GS) a += c->gs_base;
  return a;
}

/* The effective address of the instruction's memory operand moved by extra bytes (BT's
 * bit-string offset; 0 for ea) as part of the address arithmetic, so that under a 67
 * prefix the sum wraps at 4 GiB as a whole. An absent base or index is REG_NONE, whose
 * register reads 0, so the common case has no branch. */
static inline uint64_t ea_plus(const Cpu *c, const Insn *in, int64_t extra) {
  uint64_t a = (uint64_t)in->disp + c->r[in->base] + (c->r[in->index] << in->scale) + (uint64_t)extra;
  if (__builtin_expect(in->addr32 || in->seg != SEG_NONE, 0)) a = ea_adjust(c, in, a);
  return a;
}

/* The effective address of the instruction's memory operand. */
static inline uint64_t ea(const Cpu *c, const Insn *in) { return ea_plus(c, in, 0); }

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

/* The signed bit offset in the register of BT/BTS/BTR/BTC with a memory operand, and the
 * byte offset, from the addressed operand, of the osz-sized word holding that bit: it may
 * lie outside the operand. */
static inline int64_t bit_string_offset(const Cpu *c, const Insn *in) {
  return (int64_t)sign_extend(reg_get(c, in->reg, in->osz), in->osz);
}
static inline int64_t bit_string_word(int64_t bit_offset, unsigned osz) {
  return (bit_offset >> (osz == 8 ? 6 : osz == 4 ? 5 : 4)) * (int64_t)osz;
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
