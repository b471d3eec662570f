/* ranges.c: sorted, disjoint address ranges with their protection. */
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

static void insert(RangeSet *s, size_t i, Range r) {
  memmove(&s->r[i + 1], &s->r[i], (s->n - i) * sizeof *s->r);
  s->r[i] = r;
  s->n++;
}

bool ranges_remove(RangeSet *s, uint64_t lo, uint64_t hi) {
  for (size_t i = 0; i < s->n; i++) {
    Range r = s->r[i];
    if (r.hi <= lo || r.lo >= hi) continue;
    if (r.lo < lo && r.hi > hi) { /* a hole in the middle: one range becomes two */
      if (!reserve(s, s->n + 1)) return false;
      s->r[i].hi = lo;
      insert(s, i + 1, (Range){hi, r.hi, r.prot});
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

bool ranges_add(RangeSet *s, uint64_t lo, uint64_t hi, int prot) {
  if (lo >= hi) return true;
  /* Room first, so that failing changes nothing: a split and the new range. */
  if (!reserve(s, s->n + 2)) return false;
  ranges_remove(s, lo, hi);
  size_t i = 0;
  while (i < s->n && s->r[i].hi < lo) i++;
  /* Merge with touching neighbours of the same protection. */
  if (i < s->n && s->r[i].hi == lo && s->r[i].prot == prot) {
    lo = s->r[i].lo;
    drop(s, i);
  } else if (i < s->n && s->r[i].hi == lo) {
    i++;
  }
  if (i < s->n && s->r[i].lo == hi && s->r[i].prot == prot) {
    hi = s->r[i].hi;
    drop(s, i);
  }
  insert(s, i, (Range){lo, hi, prot});
  return true;
}

bool ranges_protect(RangeSet *s, uint64_t lo, uint64_t hi, int prot) {
  for (size_t i = 0; i < s->n; i++) {
    Range r = s->r[i];
    int want = prot | (r.prot & GUEST_MAP_SHARED);
    if (r.hi <= lo || r.lo >= hi || r.prot == want) continue;
    uint64_t a = r.lo > lo ? r.lo : lo, b = r.hi < hi ? r.hi : hi;
    if (!ranges_add(s, a, b, want)) return false;
    i = (size_t)-1; /* the array changed: look again from the start */
  }
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

bool ranges_mapped(const RangeSet *s, uint64_t lo, uint64_t hi) {
  if (!ranges_cover(s, lo, hi)) return false;
  for (size_t i = 0; i < s->n; i++)
    if (s->r[i].lo < hi && s->r[i].hi > lo && (s->r[i].prot & GUEST_PROT_RESERVED)) return false;
  return true;
}

int ranges_prot(const RangeSet *s, uint64_t a) {
  size_t lo = 0, hi = s->n; /* binary search: the decoder asks at every page it reads */
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (s->r[mid].hi <= a) lo = mid + 1;
    else if (s->r[mid].lo > a) hi = mid;
    else return s->r[mid].prot;
  }
  return -1;
}

void ranges_free(RangeSet *s) {
  free(s->r);
  *s = (RangeSet){0};
}
