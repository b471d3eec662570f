/* ranges.c: sorted, disjoint, merged address ranges. */
#include "ranges.h"

#include <stdlib.h>
#include <string.h>

static bool reserve(RangeSet *s, size_t n) {
  if (n <= s->cap) return true;
  size_t cap = n < 16 ? 16 : 2 * n;
  Range *r = realloc(s->r, cap * sizeof *r);
  if (!r) return false;
  s->r = r;
  s->cap = cap;
  return true;
}

static void drop(RangeSet *s, size_t i) {
  memmove(&s->r[i], &s->r[i + 1], (s->n - i - 1) * sizeof *s->r);
  s->n--;
}

bool ranges_remove(RangeSet *s, uint64_t lo, uint64_t hi) {
  for (size_t i = 0; i < s->n; i++) {
    Range r = s->r[i];
    if (r.hi <= lo || r.lo >= hi) continue;
    if (r.lo < lo && r.hi > hi) { /* a hole in the middle: one range becomes two */
      if (!reserve(s, s->n + 1)) return false;
      memmove(&s->r[i + 2], &s->r[i + 1], (s->n - i - 1) * sizeof *s->r);
      s->r[i] = (Range){r.lo, lo};
      s->r[i + 1] = (Range){hi, r.hi};
      s->n++;
      return true;
    }
    if (r.lo < lo) {
      s->r[i].hi = lo;
    } else if (r.hi > hi) {
      s->r[i].lo = hi;
    } else {
      drop(s, i);
      i--;
    }
  }
  return true;
}

bool ranges_add(RangeSet *s, uint64_t lo, uint64_t hi) {
  if (lo >= hi) return true;
  /* Room first, so that failing changes nothing: the new range may take one more slot. */
  if (!reserve(s, s->n + 1)) return false;
  ranges_remove(s, lo, hi); /* a split here fits the room: its halves merge back below */
  size_t i = 0;
  while (i < s->n && s->r[i].hi < lo) i++;
  /* Merge with touching neighbours on either side. */
  if (i < s->n && s->r[i].hi == lo) {
    lo = s->r[i].lo;
    drop(s, i);
  }
  if (i < s->n && s->r[i].lo == hi) {
    hi = s->r[i].hi;
    drop(s, i);
  }
  memmove(&s->r[i + 1], &s->r[i], (s->n - i) * sizeof *s->r);
  s->r[i] = (Range){lo, hi};
  s->n++;
  return true;
}

bool ranges_cover(const RangeSet *s, uint64_t lo, uint64_t hi) {
  for (size_t i = 0; i < s->n && lo < hi; i++) {
    if (s->r[i].hi <= lo) continue;
    if (s->r[i].lo > lo) return false;
    lo = s->r[i].hi;
  }
  return lo >= hi;
}

bool ranges_touch(const RangeSet *s, uint64_t lo, uint64_t hi) {
  for (size_t i = 0; i < s->n; i++)
    if (s->r[i].lo < hi && s->r[i].hi > lo) return true;
  return false;
}

void ranges_free(RangeSet *s) {
  free(s->r);
  *s = (RangeSet){0};
}
