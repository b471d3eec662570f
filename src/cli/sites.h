/* sites.h: the instruction or block addresses a run reached, in a hash table (a program
 * runs a few distinct addresses many times), each with what the command's tools keep of
 * it. */
#ifndef X64EMU_SITES_H
#define X64EMU_SITES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "symbols.h"

typedef struct Site {
  uint64_t rip;     /* 0: an empty slot */
  uint64_t runs;    /* --stats: how often it ran */
  /* --profile, whose sites are blocks: the function of its first instruction and its
   * count, and the function of each instruction when they differ (else NULL); its
   * instructions and bytes; whether its last instruction calls or returns. */
  const Symbol *fn;
  uint64_t *own;
  const Symbol **each;
  uint32_t n, len;
  uint8_t kind;
  /* The sites that followed it last, the latest first (NULL: none yet, or the table
   * moved): a branch's two ways. */
  struct Site *next[2];
} Site;

typedef struct Sites {
  Site *v;
  size_t size, used; /* size a power of two, used < size / 2 */
} Sites;

bool sites_init(Sites *s);
void sites_free(Sites *s);

/* The site of rip; *fresh says it was made now (rip set, the rest zero). Making one may
 * move the others. NULL without memory. */
Site *sites_get(Sites *s, uint64_t rip, bool *fresh);

#endif
