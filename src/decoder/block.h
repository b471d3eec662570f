/* block.h: decoded straight-line blocks, cached by guest address and chained. */
#ifndef X64EMU_BLOCK_H
#define X64EMU_BLOCK_H

#include <stdbool.h>
#include <stdint.h>

#include "../interp/insn.h"
#include "decode.h"

typedef struct Block {
  uint64_t start, end;    /* guest bytes [start, end) */
  struct Block *hnext;    /* hash chain */
  struct Block *fall;     /* successor when execution leaves at `end` */
  struct Block *taken;    /* the last other successor */
  uint32_t n;             /* instructions */
  Insn insns[];
} Block;

/* One machine's decoded code: a hash table of blocks in one arena, flushed whole. */
typedef struct BlockCache {
  Block **table;
  uint8_t *arena, *arena_top;
  uint64_t lo_addr, hi_addr; /* span of all cached code */
  uint64_t generation;       /* changes at each flush: older Block pointers are gone */
  uint64_t decoded;          /* blocks decoded since creation, for statistics and tests */
  const Decoder *dec;
} BlockCache;

/* Reserves the cache's memory; false if the host refuses. */
bool block_cache_init(BlockCache *bc, const Decoder *dec);
void block_cache_destroy(BlockCache *bc);

/* The block starting at rip, decoded on first use. Never NULL: a block that starts at
 * an unreadable address holds one instruction that raises the guest's SIGSEGV. */
Block *block_get(BlockCache *bc, uint64_t rip);

/* Drops every decoded block (code was unmapped, re-protected or written). */
void block_flush_all(BlockCache *bc);

/* Notes that guest memory [addr, addr+len) changed mapping or protection: drops the
 * cache if any decoded block overlaps it. Returns whether it did. */
int block_invalidate_range(BlockCache *bc, uint64_t addr, uint64_t len);

#endif
