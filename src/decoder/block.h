/* block.h: decoded straight-line blocks, cached by guest address and chained. */
#ifndef X64EMU_BLOCK_H
#define X64EMU_BLOCK_H

#include <stdint.h>

#include "../interp/insn.h"

typedef struct Block {
  uint64_t start, end;    /* guest bytes [start, end) */
  struct Block *hnext;    /* hash chain */
  struct Block *fall;     /* successor when execution leaves at `end` */
  struct Block *taken;    /* the last other successor */
  uint32_t n;             /* instructions */
  Insn insns[];
} Block;

/* The block starting at rip, decoded on first use. Never NULL: a block that starts at
 * an unreadable address holds one instruction that raises the guest's SIGSEGV. */
Block *block_get(uint64_t rip);

/* Drops every decoded block (code was unmapped, re-protected or written). */
void block_flush_all(void);

/* Notes that guest memory [addr, addr+len) changed mapping or protection: drops the
 * cache if any decoded block overlaps it. Returns whether it did. */
int block_invalidate_range(uint64_t addr, uint64_t len);

/* Changes whenever the cache is flushed: a Block pointer from an older generation is gone. */
extern uint64_t block_generation;

/* Blocks decoded since start-up, for statistics and tests. */
uint64_t block_decode_count(void);

#endif
