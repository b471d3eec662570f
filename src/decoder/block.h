/* block.h: decoded straight-line blocks, cached by guest address and chained. */
#ifndef X64EMU_BLOCK_H
#define X64EMU_BLOCK_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "../interp/insn.h"
#include "code_pages.h"
#include "decode.h"

typedef struct Block {
  uint64_t start, end;    /* guest bytes [start, end) */
  struct Block *hnext;    /* hash chain */
  struct Block *fall;     /* successor when execution leaves at `end` */
  struct Block *taken;    /* the last other successor */
  struct Block *page_next[2]; /* the next block in the lists of its pages (code_pages.h) */
  uint32_t n;             /* records: the instructions, a hook record before each
                             instruction an instruction hook watches, and one first while
                             a block hook exists; an end record (insn.h: insn_end) follows
                             them */
  uint32_t ninsn;         /* guest instructions */
  uint8_t has_rep;        /* holds a REP string instruction (its iterations count) */
  uint8_t has_bp;         /* holds a breakpoint address */
  uint8_t watched;        /* decoded from a page the guest may write: the bytes it was
                             decoded from follow the end record, and each entry compares
                             them (the block's first record, op_code_check; run_single for
                             a one-instruction block) */
  uint8_t dead;           /* dropped by block_invalidate_range: in no table any more, and
                             links to it are not followed (block_live) */
  uint8_t single;         /* in the table of one-instruction blocks */
  uint8_t tail;           /* watched bytes past `end`: those that made its last instruction
                             one x64emu rejects (#UD is decided from up to 15 bytes) */
  uint32_t size;          /* bytes it takes in the arena, where blocks lie end to end */
  const Insn *last;       /* insns + n - 1 */
  Insn insns[];
} Block;

/* Whether the guest wrote over the code b was decoded from (self-modifying code, or a JIT
 * reusing its buffer): checked before each run of a watched block, so that the next
 * instruction from there runs what memory holds, as after a jump on the CPU. Code from
 * pages the guest cannot write is never compared. */
bool block_code_changed(const Block *b);
static inline bool block_stale(const Block *b) { return b->watched && block_code_changed(b); }

/* The arena's size unless set (block_cache_set_size): decoded code is bounded by it, and
 * when it is full the arena is emptied and used again. About 64 bytes a guest instruction:
 * 64 MiB hold a million, more than most programs ever run. */
#define BLOCK_ARENA_DEFAULT (64u << 20)
#define BLOCK_ARENA_MIN (1u << 20)
/* Inaccessible pages on both sides of the arena: a run of stores from a neighbouring
 * mapping (a guest's, placed there by the host) faults before it reaches a block. */
#define BLOCK_ARENA_GUARD (64u << 10)

/* One machine's decoded code: hash tables of blocks in one arena of a bounded size,
 * emptied whole when full. Blocks run whole; runs that must stop at an exact instruction
 * (a count, a breakpoint inside a block, a stop address) take one-instruction blocks from
 * a table of their own. */
typedef struct BlockCache {
  Block **table;
  Block **single; /* one-instruction blocks */
  uint8_t *arena, *arena_top;
  size_t arena_size;         /* the bound on decoded code */
  uint8_t *arena_touched;    /* the end of the arena's part used since it was made: the
                                memory it holds (recycled, not given back) */
  CodePages pages;           /* the blocks of each guest page */
  uint64_t lo_addr, hi_addr; /* span of all cached code */
  uint64_t generation;       /* changes at each flush: older Block pointers are gone */
  uint64_t decoded;          /* blocks decoded since creation, for statistics and tests */
  uint64_t lookups, flushes; /* block_get calls (the rest follow links between blocks),
                                flushes of the whole cache: for statistics */
  const Decoder *dec;
  /* What decoding puts into blocks: breakpoint addresses (Block.has_bp), a hook record
   * running hook before each instruction in [hook_lo, hook_hi), and one running
   * block_hook before the first of every block but a one-instruction one. Changing them
   * flushes the cache. */
  uint64_t *breakpoints;
  size_t n_breakpoints;
  uint64_t hook_lo, hook_hi;
  Handler hook, block_hook;
  bool rep_once; /* every REP string instruction runs an iteration per dispatch */
  bool side_exits; /* forward conditional jumps go on in their blocks (block.c): the
                      default; off, every jump ends its block, for tests of both forms */
  /* When set, the guest's memory and its protection: code is fetched only from its
   * executable pages (an instruction elsewhere is the kernel's SIGSEGV: SEGV_ACCERR on a
   * mapping without PROT_EXEC, SEGV_MAPERR outside every mapping). */
  const struct RangeSet *exec_map;
  /* Called before the arena is emptied (a flush), when set: the OS layer of a machine
   * whose CPUs run in parallel brings them out of the blocks about to go (machine.h). */
  void (*before_flush)(void *arg);
  void *flush_arg;
  /* fast_without_flags' answers, by handler (a slot each): its search is linear, and most
   * instructions decoded ask it. */
  struct {
    Handler with, without;
  } without_flags[256];
} BlockCache;

/* Readers that run beside the thread decoding and dropping blocks (Machine.parallel):
 * links between blocks, hash chains and the generation are read and written as atomics,
 * and a block is complete before any of them points to it. */
static inline Block *block_link(Block *const *link) {
  return __atomic_load_n(link, __ATOMIC_ACQUIRE);
}
static inline void block_link_set(Block **link, Block *to) {
  __atomic_store_n(link, to, __ATOMIC_SEQ_CST);
}
static inline uint64_t block_generation(const BlockCache *bc) {
  return __atomic_load_n(&bc->generation, __ATOMIC_SEQ_CST);
}
/* Whether a block a link leads to may run: a dropped block stays in the arena, and links
 * to it, until the arena is emptied. */
static inline bool block_live(const Block *b) { return !__atomic_load_n(&b->dead, __ATOMIC_ACQUIRE); }

/* Reserves the cache's memory (BLOCK_ARENA_DEFAULT); false if the host refuses. */
bool block_cache_init(BlockCache *bc, const Decoder *dec);
void block_cache_destroy(BlockCache *bc);

/* Empties the cache and bounds it to size bytes (at least BLOCK_ARENA_MIN); false, the
 * cache as it was, if the host refuses the memory. */
bool block_cache_set_size(BlockCache *bc, size_t size);

/* The block starting at rip, decoded on first use. Never NULL: a block that starts at
 * an unreadable address holds one instruction that raises the guest's SIGSEGV. With
 * CPUs in parallel, called under the machine's lock. */
Block *block_get(BlockCache *bc, uint64_t rip);

/* The one-instruction block at rip (a REP string instruction runs one iteration). */
Block *block_get_single(BlockCache *bc, uint64_t rip);

/* The block at rip (one-instruction when single) if it is decoded, else NULL: needs no
 * lock. Counted as a lookup (statistics); block_get and block_get_single are not. */
Block *block_find(BlockCache *bc, uint64_t rip, bool single);

/* Whether a breakpoint is set at rip. */
bool block_breakpoint_at(const BlockCache *bc, uint64_t rip);

/* Sets or clears the breakpoint at rip; false if memory runs out. */
bool block_breakpoint_set(BlockCache *bc, uint64_t rip, bool on);

/* What hooks need of decoding: a hook record running `hook` before every instruction in
 * [lo, hi) (lo == hi: none), one running block_hook (unless NULL) first in every block
 * of more than one instruction (a one-instruction block is run alone by a precise run,
 * which calls the block hook itself), and with rep_once each iteration of a REP string
 * instruction dispatched alone (a block of its own, as a jump to itself), as hooks count
 * them. A hook record's imm is its block's end. */
void block_hooks_set(BlockCache *bc, Handler hook, uint64_t lo, uint64_t hi, Handler block_hook,
                     bool rep_once);
/* Whether forward conditional jumps go on in their blocks (BlockCache.side_exits);
 * changing it flushes the cache. */
void block_side_exits_set(BlockCache *bc, bool on);

/* Drops every decoded block (code was unmapped, re-protected or written). */
void block_flush_all(BlockCache *bc);

/* Notes that guest memory [addr, addr+len) changed (mapping, protection or contents):
 * drops the blocks decoded from it, and changes the generation if there were any.
 * Returns whether there were. */
int block_invalidate_range(BlockCache *bc, uint64_t addr, uint64_t len);

#endif
