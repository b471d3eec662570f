/* code_pages.c: the index of decoded blocks by guest page. */
#include "code_pages.h"

#include <stdlib.h>
#include <string.h>

#include "block.h"

#define FIRST_CAP 1024

static uint64_t first_page(const Block *b) { return b->start >> 12; }
static uint64_t last_page(const Block *b) { return (b->end + 14) >> 12; }

/* The link that follows b in the list of page. */
static Block **next_in(Block *b, uint64_t page) {
  return &b->page_next[page == first_page(b) ? 0 : 1];
}

static size_t slot_of(const CodePages *cp, uint64_t page) {
  size_t i = (size_t)((page * 0x9E3779B97F4A7C15ull) >> 20) & (cp->cap - 1);
  while (cp->slots[i].page && cp->slots[i].page != page + 1) i = (i + 1) & (cp->cap - 1);
  return i;
}

static bool grow(CodePages *cp) {
  CodePages bigger = {.cap = cp->cap ? 2 * cp->cap : FIRST_CAP, .used = cp->used};
  bigger.slots = calloc(bigger.cap, sizeof *bigger.slots);
  if (!bigger.slots) return false;
  for (size_t i = 0; i < cp->cap; i++)
    if (cp->slots[i].page) bigger.slots[slot_of(&bigger, cp->slots[i].page - 1)] = cp->slots[i];
  free(cp->slots);
  *cp = bigger;
  return true;
}

static bool list_under(CodePages *cp, Block *b, uint64_t page) {
  if (2 * (cp->used + 1) > cp->cap && !grow(cp)) return false;
  struct PageList *s = &cp->slots[slot_of(cp, page)];
  if (!s->page) {
    s->page = page + 1;
    cp->used++;
  }
  *next_in(b, page) = s->head;
  s->head = b;
  return true;
}

bool code_pages_init(CodePages *cp) {
  *cp = (CodePages){0};
  return grow(cp);
}

bool code_pages_add(CodePages *cp, Block *b) {
  b->page_next[0] = b->page_next[1] = NULL;
  if (!list_under(cp, b, first_page(b))) return false;
  return last_page(b) == first_page(b) || list_under(cp, b, last_page(b));
}

void code_pages_clear(CodePages *cp) {
  if (cp->slots) memset(cp->slots, 0, cp->cap * sizeof *cp->slots);
  cp->used = 0;
}

void code_pages_free(CodePages *cp) {
  free(cp->slots);
  *cp = (CodePages){0};
}

static size_t drop_listed(struct PageList *s, uint64_t lo, uint64_t hi,
                          void (*drop)(void *arg, Block *b), void *arg) {
  size_t dropped = 0;
  uint64_t page = s->page - 1;
  for (Block **link = &s->head; *link;) {
    Block *b = *link;
    bool meets = b->start < hi && b->end + 15 > lo;
    if (!b->dead && !meets) {
      link = next_in(b, page);
      continue;
    }
    if (!b->dead) {
      drop(arg, b);
      dropped++;
    }
    *link = *next_in(b, page); /* out of this page's list; a dead block in another page's
                                  list leaves it when that one is walked */
  }
  return dropped;
}

size_t code_pages_drop(CodePages *cp, uint64_t lo, uint64_t hi,
                       void (*drop)(void *arg, Block *b), void *arg) {
  if (!cp->used || hi <= lo) return 0;
  uint64_t first = lo >> 12, last = (hi - 1) >> 12;
  size_t dropped = 0;
  if (last - first >= cp->used) { /* a wide range: visit the listed pages instead */
    for (size_t i = 0; i < cp->cap; i++) {
      uint64_t page = cp->slots[i].page - 1;
      if (cp->slots[i].page && page >= first && page <= last)
        dropped += drop_listed(&cp->slots[i], lo, hi, drop, arg);
    }
    return dropped;
  }
  for (uint64_t page = first; page <= last; page++) {
    struct PageList *s = &cp->slots[slot_of(cp, page)];
    if (s->page) dropped += drop_listed(s, lo, hi, drop, arg);
  }
  return dropped;
}
