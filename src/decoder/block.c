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

static Block *table[1u << HASH_BITS];
static uint8_t *arena, *arena_top;
static uint64_t lo_addr = UINT64_MAX, hi_addr; /* span of all cached code */
static uint64_t decoded;
uint64_t block_generation;

static inline unsigned hash(uint64_t rip) {
  return (unsigned)((rip * 0x9E3779B97F4A7C15ull) >> (64 - HASH_BITS));
}

void block_flush_all(void) {
  block_generation++;
  memset(table, 0, sizeof table);
  if (arena) madvise(arena, (size_t)(arena_top - arena), MADV_DONTNEED);
  arena_top = arena;
  lo_addr = UINT64_MAX;
  hi_addr = 0;
}

int block_invalidate_range(uint64_t addr, uint64_t len) {
  if (addr >= hi_addr || addr + len <= lo_addr) return 0;
  block_flush_all();
  return 1;
}

uint64_t block_decode_count(void) { return decoded; }

static void *arena_alloc(size_t size) {
  if (!arena) {
    arena = mmap(NULL, ARENA_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                 -1, 0);
    if (arena == MAP_FAILED) {
      fprintf(stderr, "x64emu: cannot reserve the block cache\n");
      exit(127);
    }
    arena_top = arena;
  }
  size = (size + 15) & ~(size_t)15;
  if ((size_t)(arena_top - arena) + size > ARENA_SIZE) block_flush_all();
  void *p = arena_top;
  arena_top += size;
  return p;
}

static Block *decode_block(uint64_t rip) {
  Insn buf[MAX_BLOCK_INSNS];
  unsigned n = 0;
  uint64_t pc = rip;
  while (n < MAX_BLOCK_INSNS) {
    uint64_t fault_at = 0;
    Insn *in = &buf[n];
    int len = decode_insn(pc, in, &fault_at);
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
  Block *b = arena_alloc(sizeof(Block) + n * sizeof(Insn));
  b->start = rip;
  b->end = pc;
  b->fall = b->taken = NULL;
  b->n = n;
  memcpy(b->insns, buf, n * sizeof(Insn));
  if (rip < lo_addr) lo_addr = rip;
  if (pc + 15 > hi_addr) hi_addr = pc + 15;
  decoded++;
  return b;
}

Block *block_get(uint64_t rip) {
  unsigned h = hash(rip);
  for (Block *b = table[h]; b; b = b->hnext)
    if (b->start == rip) return b;
  Block *b = decode_block(rip);
  b->hnext = table[h];
  table[h] = b;
  return b;
}
