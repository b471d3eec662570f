/* sites.c: the table of instruction addresses (sites.h), open addressing, doubled when
 * half full. */
#include "sites.h"

#include <stdlib.h>

static size_t slot_of(uint64_t rip, size_t size) {
  return (size_t)((rip * 0x9E3779B97F4A7C15ull) >> 20) & (size - 1);
}

static bool grow(Sites *s) {
  size_t size = s->size ? 2 * s->size : 4096;
  Site *v = calloc(size, sizeof *v);
  if (!v) return false;
  for (size_t i = 0; i < s->size; i++) {
    if (!s->v[i].rip) continue;
    size_t j = slot_of(s->v[i].rip, size);
    while (v[j].rip) j = (j + 1) & (size - 1);
    v[j] = s->v[i];
    v[j].next[0] = v[j].next[1] = NULL; /* they pointed into the old table */
  }
  free(s->v);
  s->v = v;
  s->size = size;
  return true;
}

bool sites_init(Sites *s) {
  *s = (Sites){0};
  return grow(s);
}

void sites_free(Sites *s) {
  free(s->v);
  *s = (Sites){0};
}

Site *sites_get(Sites *s, uint64_t rip, bool *fresh) {
  *fresh = false;
  size_t i = slot_of(rip, s->size);
  while (s->v[i].rip && s->v[i].rip != rip) i = (i + 1) & (s->size - 1);
  if (s->v[i].rip) return &s->v[i];
  if (2 * (s->used + 1) > s->size) return grow(s) ? sites_get(s, rip, fresh) : NULL;
  s->v[i] = (Site){.rip = rip};
  s->used++;
  *fresh = true;
  return &s->v[i];
}
