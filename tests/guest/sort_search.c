/* sort_search.c: qsort and bsearch on integers, strings and structures, checked in place. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t state = 88172645463325252ull;
static uint64_t next(void) {
  state ^= state << 13, state ^= state >> 7, state ^= state << 17;
  return state;
}

static int cmp_int(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

typedef struct {
  double key;
  int id;
} Record;

/* Ties broken by id, so the order is fully defined even though qsort is not stable. */
static int cmp_record(const void *a, const void *b) {
  const Record *x = a, *y = b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return (x->id > y->id) - (x->id < y->id);
}

static void ints(size_t n) {
  int *v = malloc(n * sizeof *v);
  uint64_t sum_before = 0, sum_after = 0;
  for (size_t i = 0; i < n; i++) v[i] = (int)(next() % 2001) - 1000, sum_before += (uint32_t)v[i];
  qsort(v, n, sizeof *v, cmp_int);
  int sorted = 1;
  uint64_t h = 0;
  for (size_t i = 0; i < n; i++) {
    sum_after += (uint32_t)v[i];
    if (i) sorted &= v[i - 1] <= v[i];
    h = h * 31 + (uint32_t)v[i];
  }
  int found = 0, missing = 0;
  for (int key = -1100; key <= 1100; key += 7) {
    int *p = bsearch(&key, v, n, sizeof *v, cmp_int);
    if (p) found += *p == key;
    else missing++;
  }
  printf("ints n=%zu: sorted %s, same elements %s, hash %016llx, bsearch found %d missing %d\n",
         n, sorted ? "yes" : "NO", sum_before == sum_after ? "yes" : "NO",
         (unsigned long long)h, found, missing);
  free(v);
}

static void strings(void) {
  enum { N = 500 };
  char *words[N];
  for (int i = 0; i < N; i++) {
    int len = 1 + next() % 12;
    words[i] = malloc(len + 1);
    for (int j = 0; j < len; j++) words[i][j] = 'a' + next() % 26;
    words[i][len] = 0;
  }
  qsort(words, N, sizeof words[0], cmp_str);
  int sorted = 1;
  for (int i = 1; i < N; i++) sorted &= strcmp(words[i - 1], words[i]) <= 0;
  printf("strings: sorted %s, first \"%s\", middle \"%s\", last \"%s\"\n", sorted ? "yes" : "NO",
         words[0], words[N / 2], words[N - 1]);
  char *key = words[123];
  char **hit = bsearch(&key, words, N, sizeof words[0], cmp_str);
  printf("bsearch \"%s\": %s\n", key, hit && !strcmp(*hit, key) ? "found" : "NOT FOUND");
  for (int i = 0; i < N; i++) free(words[i]);
}

static void records(void) {
  enum { N = 3000 };
  Record *r = malloc(N * sizeof *r);
  for (int i = 0; i < N; i++) r[i].key = (double)(next() % 100) / 8.0, r[i].id = i;
  qsort(r, N, sizeof *r, cmp_record);
  uint64_t h = 0;
  for (int i = 0; i < N; i++) h = h * 1000003 + (uint64_t)r[i].id;
  printf("records: first id %d key %g, last id %d key %g, order hash %016llx\n", r[0].id,
         r[0].key, r[N - 1].id, r[N - 1].key, (unsigned long long)h);
  free(r);
}

int main(void) {
  const size_t sizes[] = {0, 1, 2, 3, 7, 16, 100, 1000, 20000};
  for (unsigned i = 0; i < sizeof sizes / sizeof sizes[0]; i++) ints(sizes[i]);
  strings();
  records();
  return 0;
}
