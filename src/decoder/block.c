/* block.c: the block cache: a hash table of decoded blocks in one arena, flushed whole. */
#include "block.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "../interp/ops_int.h"
#include "decode.h"

#define MAX_BLOCK_INSNS 64
#define HASH_BITS 16
#define ARENA_SIZE (256u << 20) /* reserved, touched only as used */

static inline unsigned hash(uint64_t rip) {
  return (unsigned)((rip * 0x9E3779B97F4A7C15ull) >> (64 - HASH_BITS));
}

bool block_cache_init(BlockCache *bc, const Decoder *dec) {
  *bc = (BlockCache){.lo_addr = UINT64_MAX, .dec = dec};
  bc->table = calloc(1u << HASH_BITS, sizeof *bc->table);
  void *arena = mmap(NULL, ARENA_SIZE, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (!bc->table || arena == MAP_FAILED) {
    free(bc->table);
    if (arena != MAP_FAILED) munmap(arena, ARENA_SIZE);
    bc->table = NULL;
    return false;
  }
  bc->arena = bc->arena_top = arena;
  return true;
}

void block_cache_destroy(BlockCache *bc) {
  if (bc->arena) munmap(bc->arena, ARENA_SIZE);
  free(bc->table);
  bc->table = NULL;
  bc->arena = bc->arena_top = NULL;
}

void block_flush_all(BlockCache *bc) {
  bc->generation++;
  memset(bc->table, 0, (sizeof *bc->table) << HASH_BITS);
  madvise(bc->arena, (size_t)(bc->arena_top - bc->arena), MADV_DONTNEED);
  bc->arena_top = bc->arena;
  bc->lo_addr = UINT64_MAX;
  bc->hi_addr = 0;
}

int block_invalidate_range(BlockCache *bc, uint64_t addr, uint64_t len) {
  if (addr >= bc->hi_addr || addr + len <= bc->lo_addr) return 0;
  block_flush_all(bc);
  return 1;
}

static void *arena_alloc(BlockCache *bc, size_t size) {
  size = (size + 15) & ~(size_t)15;
  if ((size_t)(bc->arena_top - bc->arena) + size > ARENA_SIZE) block_flush_all(bc);
  void *p = bc->arena_top;
  bc->arena_top += size;
  return p;
}

static Block *decode_block(BlockCache *bc, uint64_t rip) {
  Insn buf[MAX_BLOCK_INSNS];
  unsigned n = 0;
  uint64_t pc = rip;
  while (n < MAX_BLOCK_INSNS) {
    uint64_t fault_at = 0;
    Insn *in = &buf[n];
    int len = decode_insn(bc->dec, pc, in, &fault_at);
    if (len == 0) {
      /* Unreadable bytes: the instructions before them run; reaching them faults. */
      in->rip = pc;
      in->len = 0;
      in->disp = (int64_t)fault_at;
      in->fn = op_fetch_fault;
      in->flags_use = FL_ALL; /* the signal frame shows every flag */
      in->ends = 1;
      n++;
      break;
    }
    n++;
    pc += in->len;
    if (in->ends) break;
  }
  /* Flag liveness, backwards from the block's end, where every flag may be read. */
  uint8_t live = FL_ALL;
  for (unsigned i = n; i-- > 0;) {
    buf[i].flags_live = live;
    live = (uint8_t)((live & ~buf[i].flags_def) | buf[i].flags_use);
  }
  for (unsigned i = 0; i + 1 < n; i++) buf[i].chain = 1;
  Block *b = arena_alloc(bc, sizeof(Block) + n * sizeof(Insn));
  b->start = rip;
  b->end = pc;
  b->fall = b->taken = NULL;
  b->n = n;
  memcpy(b->insns, buf, n * sizeof(Insn));
  if (rip < bc->lo_addr) bc->lo_addr = rip;
  if (pc + 15 > bc->hi_addr) bc->hi_addr = pc + 15;
  bc->decoded++;
  return b;
}

Block *block_get(BlockCache *bc, uint64_t rip) {
  unsigned h = hash(rip);
  for (Block *b = bc->table[h]; b; b = b->hnext)
    if (b->start == rip) return b;
  Block *b = decode_block(bc, rip);
  b->hnext = bc->table[h];
  bc->table[h] = b;
  return b;
}
