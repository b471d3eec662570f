/* test_ranges.c: the placement queries of the guest's range set (ranges_meet,
 * ranges_gap_below), on random sets of ranges over a small space of pages, against a map
 * of which pages are taken, searched page by page. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "interp/ranges.h"
#include "test_seed.h"

enum { PAGES = 256, PG = 4096, BASE = 0x100000 };

static uint64_t page_at(unsigned p) { return BASE + (uint64_t)p * PG; }

/* The oracle: the highest page-multiple-of-align start whose len pages lie in [lo, hi)
 * and are all free, or 0. */
static uint64_t oracle_gap(const bool *taken, unsigned lo, unsigned hi, unsigned len,
                           uint64_t align) {
  for (unsigned start = hi >= len ? hi - len + 1 : 0; start-- > lo;) {
    if (page_at(start) % align) continue;
    bool free = true;
    for (unsigned p = start; p < start + len && free; p++) free = !taken[p];
    if (free) return page_at(start);
  }
  return 0;
}

static void gap_below_matches_a_page_search(void **state) {
  (void)state;
  uint64_t seed = test_seed(0x9a95eedull), rng = seed;
  for (unsigned round = 0; round < 2000; round++) {
    RangeSet set = {0};
    bool taken[PAGES] = {false};
    unsigned n = (unsigned)(test_random(&rng) % 12);
    for (unsigned i = 0; i < n; i++) {
      unsigned a = (unsigned)(test_random(&rng) % PAGES), len = 1 + (unsigned)(test_random(&rng) % 24);
      if (a + len > PAGES) len = PAGES - a;
      assert_true(ranges_add(&set, page_at(a), page_at(a + len), GUEST_PROT_READ + (int)(i % 3)));
      for (unsigned p = a; p < a + len; p++) taken[p] = true;
    }
    for (unsigned q = 0; q < 20; q++) {
      unsigned lo = (unsigned)(test_random(&rng) % PAGES);
      unsigned hi = lo + (unsigned)(test_random(&rng) % (PAGES - lo + 1));
      unsigned len = 1 + (unsigned)(test_random(&rng) % 32);
      uint64_t align = (uint64_t)PG << (test_random(&rng) % 4);
      uint64_t want = oracle_gap(taken, lo, hi, len, align);
      uint64_t got = ranges_gap_below(&set, page_at(lo), page_at(hi), (uint64_t)len * PG, align);
      if (got != want) {
        printf("round %u: gap of %u pages aligned %#llx in [%u, %u): %#llx, the page search %#llx\n"
               "  reproduce: X64EMU_DIFF_SEED=%#llx\n", round, len, (unsigned long long)align, lo, hi,
               (unsigned long long)got, (unsigned long long)want, (unsigned long long)seed);
        fail();
      }
      unsigned a = (unsigned)(test_random(&rng) % PAGES), b = a + (unsigned)(test_random(&rng) % 8);
      if (b > PAGES) b = PAGES;
      bool meets = false;
      for (unsigned p = a; p < b; p++) meets |= taken[p];
      assert_int_equal(ranges_meet(&set, page_at(a), page_at(b)), meets);
    }
    ranges_free(&set);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(gap_below_matches_a_page_search)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
