/* block.c: the block cache: hash tables of decoded blocks in one arena, end to end; a
 * change to guest memory drops the blocks decoded from it. */
#include "block.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "../interp/fault.h"
#include "../interp/ops_int.h"
#include "../interp/ranges.h"
#include "../interp/run.h"
#include "decode.h"
#include "fuse.h"

#define MAX_BLOCK_INSNS 64
#define HASH_BITS 16

static inline unsigned hash(uint64_t rip) {
  return (unsigned)((rip * 0x9E3779B97F4A7C15ull) >> (64 - HASH_BITS));
}

bool block_cache_init(BlockCache *bc, const Decoder *dec) {
  *bc = (BlockCache){.lo_addr = UINT64_MAX, .dec = dec};
  bc->table = calloc(2u << HASH_BITS, sizeof *bc->table);
  uint8_t *region = mmap(NULL, BLOCK_ARENA_SIZE + 2 * BLOCK_ARENA_GUARD, PROT_NONE,
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  uint8_t *arena = region == MAP_FAILED ? NULL : region + BLOCK_ARENA_GUARD;
  if (!bc->table || !arena || mprotect(arena, BLOCK_ARENA_SIZE, PROT_READ | PROT_WRITE) != 0) {
    free(bc->table);
    if (arena) munmap(region, BLOCK_ARENA_SIZE + 2 * BLOCK_ARENA_GUARD);
    bc->table = NULL;
    return false;
  }
  bc->single = bc->table + (1u << HASH_BITS);
  bc->arena = bc->arena_top = arena;
  return true;
}

void block_cache_destroy(BlockCache *bc) {
  if (bc->arena) munmap(bc->arena - BLOCK_ARENA_GUARD, BLOCK_ARENA_SIZE + 2 * BLOCK_ARENA_GUARD);
  free(bc->table);
  free(bc->breakpoints);
  bc->table = bc->single = NULL;
  bc->breakpoints = NULL;
  bc->arena = bc->arena_top = NULL;
}

static void next_generation(BlockCache *bc) {
  __atomic_store_n(&bc->generation, bc->generation + 1, __ATOMIC_SEQ_CST);
}

void block_flush_all(BlockCache *bc) {
  if (bc->before_flush) bc->before_flush(bc->flush_arg);
  next_generation(bc);
  bc->flushes++;
  memset(bc->table, 0, (sizeof *bc->table) << (HASH_BITS + 1));
  madvise(bc->arena, (size_t)(bc->arena_top - bc->arena), MADV_DONTNEED);
  bc->arena_top = bc->arena;
  bc->in_arena = bc->dead = 0;
  bc->lo_addr = UINT64_MAX;
  bc->hi_addr = 0;
}

static void unlink_block(BlockCache *bc, Block *dead) {
  Block **p = &(dead->single ? bc->single : bc->table)[hash(dead->start)];
  while (*p != dead) p = &(*p)->hnext;
  block_link_set(p, dead->hnext); /* a reader there goes on through dead's own link */
}

/* Unlinks the blocks decoded from [lo, hi) (and those whose decoding stopped at a fault
 * there, up to 15 bytes past their end), then clears every chain into them; they stay in
 * the arena, dead, until it is flushed whole. The rest of the cache stays decoded, so that
 * a JIT writing code, or a program unmapping some, does not pay for all of it again. */
static int drop_range(BlockCache *bc, uint64_t lo, uint64_t hi) {
  int dropped = 0;
  for (uint8_t *at = bc->arena; at < bc->arena_top; at += ((Block *)at)->size) {
    Block *b = (Block *)at;
    if (b->dead || b->start >= hi || b->end + 15 <= lo) continue;
    b->dead = 1;
    unlink_block(bc, b);
    bc->dead++;
    dropped = 1;
  }
  if (!dropped) return 0;
  /* Dead blocks lengthen every walk: once they are most of the arena, start it afresh
   * (a JIT rewriting code in a loop then pays a flush per few hundred rewrites); not while
   * a handler still reads its record (a memory hook runs). */
  if (bc->dead > 256 && 2 * bc->dead > bc->in_arena && !bc->holding) {
    block_flush_all(bc);
    return 1;
  }
  /* Block pointers held across the change are looked up again. The generation changes
   * before the links go, so that a CPU linking to a dead block meanwhile sees it has and
   * takes its link back (run.c). */
  next_generation(bc);
  for (uint8_t *at = bc->arena; at < bc->arena_top; at += ((Block *)at)->size) {
    Block *b = (Block *)at, *fall = block_link(&b->fall), *taken = block_link(&b->taken);
    if (fall && fall->dead) block_link_set(&b->fall, NULL);
    if (taken && taken->dead) block_link_set(&b->taken, NULL);
  }
  return 1;
}

int block_invalidate_range(BlockCache *bc, uint64_t addr, uint64_t len) {
  if (addr >= bc->hi_addr || addr + len <= bc->lo_addr) return 0;
  return drop_range(bc, addr, addr + len);
}

/* Blocks lie end to end in the arena, so that invalidation can walk them by their size
 * (a multiple of 16). */
static void *arena_alloc(BlockCache *bc, size_t size) {
  if ((size_t)(bc->arena_top - bc->arena) + size > BLOCK_ARENA_SIZE) block_flush_all(bc);
  void *p = bc->arena_top;
  bc->arena_top += size;
  return p;
}

bool block_breakpoint_at(const BlockCache *bc, uint64_t rip) {
  for (size_t i = 0; i < bc->n_breakpoints; i++)
    if (bc->breakpoints[i] == rip) return true;
  return false;
}

bool block_breakpoint_set(BlockCache *bc, uint64_t rip, bool on) {
  if (block_breakpoint_at(bc, rip) == on) return true;
  if (on) {
    uint64_t *more = realloc(bc->breakpoints, (bc->n_breakpoints + 1) * sizeof *more);
    if (!more) return false;
    bc->breakpoints = more;
    bc->breakpoints[bc->n_breakpoints++] = rip;
  } else {
    size_t i = 0;
    while (bc->breakpoints[i] != rip) i++;
    bc->breakpoints[i] = bc->breakpoints[--bc->n_breakpoints];
  }
  block_flush_all(bc); /* blocks say whether they hold one */
  return true;
}

void block_hooks_set(BlockCache *bc, Handler hook, uint64_t lo, uint64_t hi, bool rep_once) {
  if (!hook) lo = hi = 0;
  if (bc->hook == hook && bc->hook_lo == lo && bc->hook_hi == hi && bc->rep_once == rep_once) return;
  bc->hook = hook;
  bc->hook_lo = lo;
  bc->hook_hi = hi;
  bc->rep_once = rep_once;
  block_flush_all(bc);
}

/* How many bytes from pc (up to 15) lie in executable guest pages, and, when fewer, the
 * si_code of fetching the first byte past them. */
static unsigned executable_bytes(const BlockCache *bc, uint64_t pc, int *code) {
  if (!bc->exec_map) return 15;
  unsigned n = 0;
  for (uint64_t page = pc & ~0xfffull; n < 15; page += 0x1000) {
    int prot = ranges_prot(bc->exec_map, page);
    if (prot < 0 || !(prot & GUEST_PROT_EXEC)) {
      *code = prot < 0 || (prot & GUEST_PROT_RESERVED) ? SEGV_MAPERR : SEGV_ACCERR;
      return n;
    }
    n += (unsigned)(page + 0x1000 - (pc + n));
  }
  return 15;
}

/* A record that raises the fault of fetching at fault_at (the instructions before it
 * run; reaching it faults). */
static void fetch_fault(Insn *in, uint64_t pc, uint64_t fault_at, int code) {
  *in = (Insn){.rip = pc, .disp = (int64_t)fault_at, .fn = op_fetch_fault, .op = (uint8_t)code,
               .flags_use = FL_ALL /* the signal frame shows every flag */, .ends = 1,
               .base = REG_NONE, .index = REG_NONE};
}

/* Decodes one instruction at pc into in: its record, or one that faults. */
static void decode_one(BlockCache *bc, uint64_t pc, Insn *in) {
  uint64_t fault_at = 0;
  int code = SEGV_MAPERR;
  unsigned exec = executable_bytes(bc, pc, &code);
  if (exec == 0) {
    fetch_fault(in, pc, pc, code);
  } else if (decode_insn(bc->dec, pc, in, &fault_at) == 0) {
    fetch_fault(in, pc, fault_at, SEGV_MAPERR);
  } else if (in->len > exec) {
    fetch_fault(in, pc, pc + exec, code); /* runs into a page it may not be fetched from */
  }
}

/* An atomic instruction, decoded at in: the op_atomic record that runs it goes first
 * (atomic.c), at in, a copy of it (its address, length and operand, for faults) with its
 * own handler and details; the instruction follows. Returns where it now is. */
static Insn *atomic_record(const BlockCache *bc, Insn *in) {
  Insn *op = in + 1;
  *op = *in;
  in->fn = bc->dec->watch_memory ? watched_op_atomic : op_atomic;
  in->aux = (uint8_t)(op->fn == op_cmpxchg16b ? 2 * op->osz : op->osz);
  in->flags_use = in->flags_def = 0; /* the instruction's own are on its record */
  in->rm = 0;
  in->op = ATOMIC_CAS;
  /* The common ones on the host's atomic operation, which another thread cannot make
   * fail and run again. */
  static const uint8_t alu_kinds[8] = {
      [ALU_ADD] = ATOMIC_FETCH_ADD, [ALU_OR] = ATOMIC_FETCH_OR, [ALU_AND] = ATOMIC_FETCH_AND,
      [ALU_SUB] = ATOMIC_FETCH_SUB, [ALU_XOR] = ATOMIC_FETCH_XOR};
  if (op->fn == op_alu_rm_r || op->fn == op_alu_rm_imm) {
    in->op = alu_kinds[op->op & 7];
    in->rm = op->fn == op_alu_rm_r;
  } else if (op->fn == op_xadd || op->fn == op_xchg || op->fn == op_cmpxchg) {
    in->op = op->fn == op_xadd ? ATOMIC_FETCH_ADD : op->fn == op_xchg ? ATOMIC_EXCHANGE : ATOMIC_COMPARE;
    in->rm = 1;
  } else if (op->fn == op_inc || op->fn == op_dec || op->fn == op_not) {
    in->op = op->fn == op_inc ? ATOMIC_FETCH_ADD : op->fn == op_dec ? ATOMIC_FETCH_SUB : ATOMIC_FETCH_XOR;
    in->imm = op->fn == op_not ? ~0ull : 1;
  } else if (op->fn == op_bt_rm_r) {
    in->op = ATOMIC_BIT_OFFSET;
  }
  return op;
}

/* Whether the bytes at a may change without a system call the cache sees: writable, or
 * shared with another mapping or process. */
static bool may_change(const RangeSet *map, uint64_t a) {
  int prot = ranges_prot(map, a);
  return prot >= 0 && (prot & (GUEST_PROT_WRITE | GUEST_MAP_SHARED));
}

/* The block at rip: up to MAX_BLOCK_INSNS instructions, or one when single. */
static Block *decode_block(BlockCache *bc, uint64_t rip, bool single) {
  Insn buf[4 * MAX_BLOCK_INSNS]; /* with a stop check, a hook record and an atomic record
                                    per instruction */
  unsigned n = 0, ninsn = 0;
  bool has_rep = false, has_bp = false;
  bool watch_memory = bc->dec->watch_memory;
  uint64_t pc = rip;
  while (ninsn < (single ? 1 : MAX_BLOCK_INSNS)) {
    if (watch_memory && ninsn > 0) {
      /* A memory hook stops the run after its instruction. */
      buf[n++] = (Insn){.fn = op_stop_check, .rip = pc, .nth = (uint8_t)ninsn, .flags_use = FL_ALL,
                        .base = REG_NONE, .index = REG_NONE};
    }
    if (pc >= bc->hook_lo && pc < bc->hook_hi) {
      /* The hook sees every flag as the instruction before left it. */
      buf[n++] = (Insn){.fn = bc->hook, .rip = pc, .nth = (uint8_t)ninsn, .flags_use = FL_ALL,
                        .base = REG_NONE, .index = REG_NONE};
    }
    Insn *in = &buf[n++];
    decode_one(bc, pc, in);
    in->nth = (uint8_t)ninsn++;
    if (in->lock) {
      in = atomic_record(bc, in);
      n++;
    }
    if (in->rep != REP_NONE) { /* a REP string instruction */
      has_rep = true;
      if (single || bc->rep_once || watch_memory) in->rep_once = in->ends = 1;
    }
    if (block_breakpoint_at(bc, pc)) has_bp = true;
    pc += in->len;
    if (in->ends) break;
  }
  for (unsigned i = 0; i < n; i++) /* a hook record puts RIP back at the block's end */
    if (buf[i].fn == bc->hook) buf[i].imm = pc;
  if (!single) fuse_runs(buf, n);
  /* Flag liveness, backwards from the block's end, where every flag may be read. */
  uint8_t live = FL_ALL;
  for (unsigned i = n; i-- > 0;) {
    buf[i].flags_live = live;
    live = (uint8_t)((live & ~buf[i].flags_def) | buf[i].flags_use);
  }
  for (unsigned i = 0; i + 1 < n; i++) buf[i].chain = 1;
  bool watched = pc > rip && (!bc->exec_map || may_change(bc->exec_map, rip) ||
                              may_change(bc->exec_map, pc - 1)); /* a block spans two pages at most */
  /* A rejected instruction was judged on the bytes after it too (up to 15 from its start,
   * those readable): other bytes there may decode. */
  uint8_t tail_bytes[15];
  unsigned tail = 0;
  const Insn *last = &buf[n - 1];
  if (watched && (last->fn == op_undefined || last->fn == op_ud)) {
    unsigned seen = fault_copy_in(tail_bytes, last->rip, 15);
    tail = seen > last->len ? seen - last->len : 0;
    memmove(tail_bytes, tail_bytes + last->len, tail);
  }
  size_t copy = watched ? (size_t)(pc - rip) + tail : 0;
  size_t bytes = (sizeof(Block) + n * sizeof(Insn) + copy + 15) & ~(size_t)15;
  Block *b = arena_alloc(bc, bytes);
  b->size = (uint32_t)bytes;
  bc->in_arena++;
  b->single = single;
  b->start = rip;
  b->end = pc;
  b->fall = b->taken = NULL;
  b->n = n;
  b->ninsn = ninsn;
  b->has_rep = has_rep;
  b->has_bp = has_bp;
  b->watched = watched;
  b->dead = 0;
  b->tail = (uint8_t)tail;
  memcpy(b->insns, buf, n * sizeof(Insn));
  if (watched) { /* decoded, so readable */
    memcpy(&b->insns[n], (const void *)(uintptr_t)rip, (size_t)(pc - rip));
    memcpy((uint8_t *)&b->insns[n] + (pc - rip), tail_bytes, tail);
  }
  if (rip < bc->lo_addr) bc->lo_addr = rip;
  if (pc + 15 > bc->hi_addr) bc->hi_addr = pc + 15;
  bc->decoded++;
  return b;
}

static Block *search(const BlockCache *bc, uint64_t rip, bool single) {
  for (Block *b = block_link(&(single ? bc->single : bc->table)[hash(rip)]); b; b = block_link(&b->hnext))
    if (b->start == rip) return b;
  return NULL;
}

Block *block_find(BlockCache *bc, uint64_t rip, bool single) {
  __atomic_fetch_add(&bc->lookups, 1, __ATOMIC_RELAXED);
  return search(bc, rip, single);
}

static Block *lookup(BlockCache *bc, uint64_t rip, bool single) {
  Block *b = search(bc, rip, single);
  if (b) return b;
  Block **head = &(single ? bc->single : bc->table)[hash(rip)];
  b = decode_block(bc, rip, single);
  b->hnext = *head;
  block_link_set(head, b); /* published whole */
  return b;
}

Block *block_get(BlockCache *bc, uint64_t rip) { return lookup(bc, rip, false); }

Block *block_get_single(BlockCache *bc, uint64_t rip) { return lookup(bc, rip, true); }
