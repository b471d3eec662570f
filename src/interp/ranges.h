/* ranges.h: the guest's memory of a machine: address ranges with their protection, kept
 * sorted and disjoint, neighbours of equal protection merged. Any thread may read a set
 * while another changes it: each function takes the set's lock (a zeroed set is ready). */
#ifndef X64EMU_RANGES_H
#define X64EMU_RANGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Guest protections: PROT_READ, PROT_WRITE and PROT_EXEC as x86-64 Linux numbers them;
 * RESERVED for the guest's address space where nothing is mapped (the heap beyond the
 * break, the stack's guard): the guest may map there, and a fault there is SEGV_MAPERR;
 * and SHARED for a shared mapping, which another mapping of the same object or another
 * process may write (mprotect keeps it). */
enum {
  GUEST_PROT_READ = 1, GUEST_PROT_WRITE = 2, GUEST_PROT_EXEC = 4, GUEST_PROT_ALL = 7,
  GUEST_PROT_RESERVED = 8, GUEST_MAP_SHARED = 16,
};

/* The host protection for guest memory of protection prot: executable becomes readable,
 * since the decoder reads guest code and the host never runs it; other bits (PROT_READ,
 * PROT_WRITE, and flags such as PROT_GROWSDOWN) are the host's own. */
static inline int guest_prot_on_host(uint64_t prot) {
  return (int)(prot & ~(uint64_t)GUEST_PROT_EXEC) | (prot & GUEST_PROT_EXEC ? GUEST_PROT_READ : 0);
}

typedef struct Range {
  uint64_t lo, hi; /* [lo, hi) */
  int prot;
} Range;

typedef struct RangeSet {
  Range *r;
  size_t n, cap;
  uint32_t lock; /* 2 per reader, plus 1 while a thread changes the set */
} RangeSet;

/* Makes [lo, hi) guest memory with prot, whatever was there; false (the set unchanged)
 * when memory for it runs out. */
bool ranges_add(RangeSet *s, uint64_t lo, uint64_t hi, int prot);
/* Removes [lo, hi); false (unchanged) when splitting a range needs memory there is not. */
bool ranges_remove(RangeSet *s, uint64_t lo, uint64_t hi);
/* Gives the parts of [lo, hi) that are in the set protection prot; false without memory
 * (part of it may then be done). */
bool ranges_protect(RangeSet *s, uint64_t lo, uint64_t hi, int prot);
/* Whether [lo, hi) lies entirely inside the set. */
bool ranges_cover(const RangeSet *s, uint64_t lo, uint64_t hi);
/* Whether it does, and none of it is only RESERVED. */
bool ranges_mapped(const RangeSet *s, uint64_t lo, uint64_t hi);
/* The protection at address a, or -1 where the set has nothing. */
int ranges_prot(const RangeSet *s, uint64_t a);
/* How much of [lo, lo + len), from lo on without a gap, lies in ranges that have every
 * protection bit of need and are not only RESERVED: the length of that prefix. */
uint64_t ranges_span(const RangeSet *s, uint64_t lo, uint64_t len, int need);
/* Whether any of [lo, hi) lies in the set. */
bool ranges_meet(const RangeSet *s, uint64_t lo, uint64_t hi);
/* The highest multiple of align (a power of two) at which len bytes fit between lo and hi
 * outside every range of the set, or 0 when none does. */
uint64_t ranges_gap_below(const RangeSet *s, uint64_t lo, uint64_t hi, uint64_t len, uint64_t align);
/* A copy of the ranges in *out (malloc'd; the caller frees it): their number, with *out
 * NULL when memory ran out. */
size_t ranges_snapshot(const RangeSet *s, Range **out);
/* In the child of a fork: no other thread holds the set's lock any more. */
void ranges_forked(RangeSet *s);
void ranges_free(RangeSet *s);

#endif
