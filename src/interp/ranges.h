/* ranges.h: a set of guest address ranges, kept sorted, disjoint and merged: which
 * memory belongs to a machine's guest. */
#ifndef X64EMU_RANGES_H
#define X64EMU_RANGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct Range {
  uint64_t lo, hi; /* [lo, hi) */
} Range;

typedef struct RangeSet {
  Range *r;
  size_t n, cap;
} RangeSet;

/* Adds [lo, hi); false (the set unchanged) when memory for it runs out. */
bool ranges_add(RangeSet *s, uint64_t lo, uint64_t hi);
/* Removes [lo, hi); false (unchanged) when splitting a range needs memory there is not. */
bool ranges_remove(RangeSet *s, uint64_t lo, uint64_t hi);
/* Whether [lo, hi) lies entirely inside the set. */
bool ranges_cover(const RangeSet *s, uint64_t lo, uint64_t hi);
/* Whether any part of [lo, hi) is in the set. */
bool ranges_touch(const RangeSet *s, uint64_t lo, uint64_t hi);
void ranges_free(RangeSet *s);

#endif
