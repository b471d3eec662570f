/* ranges.c: sorted, disjoint address ranges with their protection. */
#include "ranges.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>

/* ---- the lock: readers share it, a writer has it alone; held for a few hundred
 * instructions at most, so a waiter spins ---- */

enum { WRITER = 1, READER = 2 };

static void read_lock(const RangeSet *cs) {
  uint32_t *l = (uint32_t *)&cs->lock; /* the lock is the one part a reader changes */
  for (;;) {
    uint32_t v = __atomic_load_n(l, __ATOMIC_RELAXED);
    if (!(v & WRITER) &&
        __atomic_compare_exchange_n(l, &v, v + READER, true, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
      return;
    sched_yield();
  }
}
static void read_unlock(const RangeSet *cs) {
  __atomic_fetch_sub((uint32_t *)&cs->lock, READER, __ATOMIC_RELEASE);
}
static void write_lock(RangeSet *s) {
  for (;;) {
    uint32_t v = 0;
    if (__atomic_compare_exchange_n(&s->lock, &v, WRITER, true, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
      return;
    sched_yield();
  }
}
static void write_unlock(RangeSet *s) { __atomic_store_n(&s->lock, 0, __ATOMIC_RELEASE); }

void ranges_forked(RangeSet *s) { __atomic_store_n(&s->lock, 0, __ATOMIC_RELAXED); }

/* ---- the set, its lock held ---- */

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

static bool remove_locked(RangeSet *s, uint64_t lo, uint64_t hi) {
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

static bool add_locked(RangeSet *s, uint64_t lo, uint64_t hi, int prot) {
  if (lo >= hi) return true;
  /* Room first, so that failing changes nothing: a split and the new range. */
  if (!reserve(s, s->n + 2)) return false;
  remove_locked(s, lo, hi);
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

static bool protect_locked(RangeSet *s, uint64_t lo, uint64_t hi, int prot) {
  for (size_t i = 0; i < s->n; i++) {
    Range r = s->r[i];
    int want = prot | (r.prot & GUEST_MAP_SHARED);
    if (r.hi <= lo || r.lo >= hi || r.prot == want) continue;
    uint64_t a = r.lo > lo ? r.lo : lo, b = r.hi < hi ? r.hi : hi;
    if (!add_locked(s, a, b, want)) return false;
    i = (size_t)-1; /* the array changed: look again from the start */
  }
  return true;
}

static bool cover_locked(const RangeSet *s, uint64_t lo, uint64_t hi) {
  for (size_t i = 0; i < s->n && lo < hi; i++) {
    if (s->r[i].hi <= lo) continue;
    if (s->r[i].lo > lo) return false;
    lo = s->r[i].hi;
  }
  return lo >= hi;
}

static bool mapped_locked(const RangeSet *s, uint64_t lo, uint64_t hi) {
  if (!cover_locked(s, lo, hi)) return false;
  for (size_t i = 0; i < s->n; i++)
    if (s->r[i].lo < hi && s->r[i].hi > lo && (s->r[i].prot & GUEST_PROT_RESERVED)) return false;
  return true;
}

/* The index of the range holding a, or of the first above it. */
static size_t find(const RangeSet *s, uint64_t a) {
  size_t lo = 0, hi = s->n; /* binary search: the decoder asks at every page it reads */
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (s->r[mid].hi <= a) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

static int prot_locked(const RangeSet *s, uint64_t a) {
  size_t i = find(s, a);
  return i < s->n && s->r[i].lo <= a ? s->r[i].prot : -1;
}

static uint64_t span_locked(const RangeSet *s, uint64_t lo, uint64_t len, int need) {
  uint64_t at = lo, end = lo + len < lo ? UINT64_MAX : lo + len;
  for (size_t i = find(s, lo); i < s->n && at < end; i++) {
    const Range *r = &s->r[i];
    int prot = r->prot | (r->prot & GUEST_PROT_EXEC ? GUEST_PROT_READ : 0); /* as on x86-64 */
    if (r->lo > at || (prot & GUEST_PROT_RESERVED) || (prot & need) != need) break;
    at = r->hi;
  }
  return (at < end ? at : end) - lo;
}

static bool meet_locked(const RangeSet *s, uint64_t lo, uint64_t hi) {
  size_t i = find(s, lo);
  return lo < hi && i < s->n && s->r[i].lo < hi;
}

/* Downward from hi: each gap between ranges, its bottom lifted to lo, is tried for the
 * highest multiple of align that leaves len bytes under its top. */
static uint64_t gap_below_locked(const RangeSet *s, uint64_t lo, uint64_t hi, uint64_t len,
                                 uint64_t align) {
  size_t i = find(s, hi);
  if (i < s->n && s->r[i].lo < hi) i++; /* the ranges below i start below hi */
  for (uint64_t top = hi; top > lo;) {
    while (i > 0 && s->r[i - 1].lo >= top) i--;
    uint64_t floor = i > 0 && s->r[i - 1].hi > lo ? s->r[i - 1].hi : lo;
    if (top > floor && top - floor >= len) {
      uint64_t at = (top - len) & ~(align - 1);
      if (at >= floor && at) return at;
    }
    if (i == 0) break;
    top = s->r[--i].lo;
  }
  return 0;
}

/* ---- each call under the lock ---- */

bool ranges_add(RangeSet *s, uint64_t lo, uint64_t hi, int prot) {
  write_lock(s);
  bool ok = add_locked(s, lo, hi, prot);
  write_unlock(s);
  return ok;
}
bool ranges_remove(RangeSet *s, uint64_t lo, uint64_t hi) {
  write_lock(s);
  bool ok = remove_locked(s, lo, hi);
  write_unlock(s);
  return ok;
}
bool ranges_protect(RangeSet *s, uint64_t lo, uint64_t hi, int prot) {
  write_lock(s);
  bool ok = protect_locked(s, lo, hi, prot);
  write_unlock(s);
  return ok;
}
bool ranges_cover(const RangeSet *s, uint64_t lo, uint64_t hi) {
  read_lock(s);
  bool ok = cover_locked(s, lo, hi);
  read_unlock(s);
  return ok;
}
bool ranges_mapped(const RangeSet *s, uint64_t lo, uint64_t hi) {
  read_lock(s);
  bool ok = mapped_locked(s, lo, hi);
  read_unlock(s);
  return ok;
}
int ranges_prot(const RangeSet *s, uint64_t a) {
  read_lock(s);
  int prot = prot_locked(s, a);
  read_unlock(s);
  return prot;
}
uint64_t ranges_span(const RangeSet *s, uint64_t lo, uint64_t len, int need) {
  read_lock(s);
  uint64_t n = span_locked(s, lo, len, need);
  read_unlock(s);
  return n;
}

bool ranges_meet(const RangeSet *s, uint64_t lo, uint64_t hi) {
  read_lock(s);
  bool met = meet_locked(s, lo, hi);
  read_unlock(s);
  return met;
}
uint64_t ranges_gap_below(const RangeSet *s, uint64_t lo, uint64_t hi, uint64_t len, uint64_t align) {
  read_lock(s);
  uint64_t at = gap_below_locked(s, lo, hi, len, align);
  read_unlock(s);
  return at;
}

size_t ranges_snapshot(const RangeSet *s, Range **out) {
  read_lock(s);
  size_t n = s->n;
  *out = n ? malloc(n * sizeof **out) : NULL;
  if (*out) memcpy(*out, s->r, n * sizeof **out);
  read_unlock(s);
  return n;
}

void ranges_free(RangeSet *s) {
  free(s->r);
  *s = (RangeSet){0};
}
