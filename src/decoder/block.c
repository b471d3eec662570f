/* block.c: the block cache: hash tables of decoded blocks in one arena, end to end; a
 * change to guest memory drops the blocks decoded from it. */
#include "block.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../interp/fault.h"
#include "../interp/ops_fast.h"
#include "../interp/ops_int.h"
#include "../interp/ranges.h"
#include "../interp/run.h"
#include "decode.h"
#include "fuse.h"

#define MAX_BLOCK_INSNS 64
#define HASH_BITS 16

/* Nearby code goes to nearby slots, so that a short run touches few of the table's pages
 * (the first touch of each is a page fault, 1/20 of a hello world's start-up); code
 * 1 MiB apart folds onto the same slots only where the upper bits agree too. */
static inline unsigned hash(uint64_t rip) {
  return (unsigned)((rip >> 4) ^ (rip >> (4 + HASH_BITS)) ^ (rip >> (4 + 2 * HASH_BITS))) &
         ((1u << HASH_BITS) - 1);
}

/* The cache's memory is first touched one page at a time as blocks are decoded, and each
 * first touch is a fault (11 us on a paravirtualised host: half of a static hello world's
 * start-up went to 119 of them). Where the host's pages are 4 KiB, its transparent huge
 * pages are 2 MiB, and the kernel fills an aligned 2 MiB of a region advised so at one
 * fault. */
#define HUGE_PAGE (2u << 20)

static bool huge_pages(void) { return sysconf(_SC_PAGESIZE) == 4096; }

/* size bytes at a huge-page boundary where huge pages are used, between guard bytes of
 * PROT_NONE on both sides (which may be 0), read-write; or NULL. */
static uint8_t *map_guarded(size_t size, size_t guard) {
  const size_t slack = huge_pages() ? HUGE_PAGE : 0, total = size + 2 * guard + slack;
  uint8_t *region = mmap(NULL, total, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (region == MAP_FAILED) return NULL;
  uint8_t *at = region + guard;
  if (slack) at = (uint8_t *)(((uintptr_t)at + slack - 1) & ~(uintptr_t)(slack - 1));
  if (at - guard > region) munmap(region, (size_t)(at - guard - region));
  uint8_t *end = at + size + guard;
  if (end < region + total) munmap(end, (size_t)(region + total - end));
  if (mprotect(at, size, PROT_READ | PROT_WRITE) != 0) {
    munmap(at - guard, size + 2 * guard);
    return NULL;
  }
  if (slack) madvise(at, size, MADV_HUGEPAGE); /* only advice: the cache works without */
  return at;
}

/* A fresh arena of size bytes between guard pages, or NULL. */
static uint8_t *arena_map(size_t size) { return map_guarded(size, BLOCK_ARENA_GUARD); }

static void arena_unmap(uint8_t *arena, size_t size) {
  if (arena) munmap(arena - BLOCK_ARENA_GUARD, size + 2 * BLOCK_ARENA_GUARD);
}

/* The two hash tables (blocks, single instructions), 1 MiB: mapped, not allocated, so
 * that the pages a short run never looks at are never touched (a sanitizer's allocator
 * would clear them all, for every machine), or one huge page touched at once. */
enum { TABLE_BYTES = (2u << HASH_BITS) * sizeof(Block *) };
_Static_assert(TABLE_BYTES <= HUGE_PAGE, "the tables fit in one huge page");
static size_t table_span(void) { return huge_pages() ? HUGE_PAGE : TABLE_BYTES; }

static Block **table_map(void) { return (Block **)map_guarded(table_span(), 0); }

static void table_unmap(Block **table) {
  if (table) munmap(table, table_span());
}

bool block_cache_init(BlockCache *bc, const Decoder *dec) {
  *bc = (BlockCache){.lo_addr = UINT64_MAX, .dec = dec, .arena_size = BLOCK_ARENA_DEFAULT,
                     .side_exits = true};
  bc->table = table_map();
  bc->arena = arena_map(bc->arena_size);
  if (!bc->table || !bc->arena || !code_pages_init(&bc->pages)) {
    table_unmap(bc->table);
    arena_unmap(bc->arena, bc->arena_size);
    code_pages_free(&bc->pages);
    *bc = (BlockCache){0};
    return false;
  }
  bc->single = bc->table + (1u << HASH_BITS);
  bc->arena_top = bc->arena_touched = bc->arena;
  return true;
}

void block_cache_destroy(BlockCache *bc) {
  arena_unmap(bc->arena, bc->arena_size);
  table_unmap(bc->table);
  free(bc->breakpoints);
  code_pages_free(&bc->pages);
  bc->table = bc->single = NULL;
  bc->breakpoints = NULL;
  bc->arena = bc->arena_top = bc->arena_touched = NULL;
}

static void next_generation(BlockCache *bc) {
  __atomic_store_n(&bc->generation, bc->generation + 1, __ATOMIC_SEQ_CST);
}

/* The arena is used again from its start: its pages stay, so that a cache that fills
 * again and again does not fault them in each time; the bound is on what it holds. */
void block_flush_all(BlockCache *bc) {
  if (bc->before_flush) bc->before_flush(bc->flush_arg);
  next_generation(bc);
  bc->flushes++;
  memset(bc->table, 0, TABLE_BYTES);
  code_pages_clear(&bc->pages);
  if (bc->arena_top > bc->arena_touched) bc->arena_touched = bc->arena_top;
  bc->arena_top = bc->arena;
  bc->lo_addr = UINT64_MAX;
  bc->hi_addr = 0;
}

bool block_cache_set_size(BlockCache *bc, size_t size) {
  if (size < BLOCK_ARENA_MIN) size = BLOCK_ARENA_MIN;
  size = (size + 4095) & ~(size_t)4095;
  uint8_t *arena = arena_map(size);
  if (!arena) return false;
  block_flush_all(bc);
  arena_unmap(bc->arena, bc->arena_size);
  bc->arena = bc->arena_top = bc->arena_touched = arena;
  bc->arena_size = size;
  return true;
}

static void unlink_block(BlockCache *bc, Block *dead) {
  Block **p = &(dead->single ? bc->single : bc->table)[hash(dead->start)];
  while (*p != dead) p = &(*p)->hnext;
  block_link_set(p, dead->hnext); /* a reader there goes on through dead's own link */
}

typedef struct Dropping {
  BlockCache *bc;
  bool any;
} Dropping;

/* Out of its hash table, and dead: links to it are no longer followed. It stays in the
 * arena until the arena is emptied. Before the first, block pointers held across the
 * change are to be looked up again: the generation changes before a block dies, so that
 * a CPU linking to one meanwhile sees it has and takes its link back (run.c). */
static void drop_block(void *arg, Block *b) {
  Dropping *d = arg;
  if (!d->any) next_generation(d->bc);
  d->any = true;
  __atomic_store_n(&b->dead, 1, __ATOMIC_RELEASE);
  unlink_block(d->bc, b);
}

/* Drops the blocks decoded from [lo, hi) (and those whose decoding stopped at a fault
 * there, up to 15 bytes past their end), found by their pages; the rest of the cache
 * stays decoded, so that a JIT writing code, or a program unmapping some, pays for
 * nothing else. */
static int drop_range(BlockCache *bc, uint64_t lo, uint64_t hi) {
  Dropping d = {.bc = bc};
  code_pages_drop(&bc->pages, lo, hi, drop_block, &d);
  return d.any;
}

int block_invalidate_range(BlockCache *bc, uint64_t addr, uint64_t len) {
  if (addr >= bc->hi_addr || addr + len <= bc->lo_addr) return 0;
  return drop_range(bc, addr, addr + len);
}

/* Blocks lie end to end in the arena, each a multiple of 16 bytes; a full arena is
 * emptied. */
static void *arena_alloc(BlockCache *bc, size_t size) {
  if ((size_t)(bc->arena_top - bc->arena) + size > bc->arena_size) block_flush_all(bc);
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

void block_hooks_set(BlockCache *bc, Handler hook, uint64_t lo, uint64_t hi, Handler block_hook,
                     bool rep_once) {
  if (!hook) lo = hi = 0;
  if (bc->hook == hook && bc->hook_lo == lo && bc->hook_hi == hi && bc->block_hook == block_hook &&
      bc->rep_once == rep_once)
    return;
  bc->hook = hook;
  bc->block_hook = block_hook;
  bc->hook_lo = lo;
  bc->hook_hi = hi;
  bc->rep_once = rep_once;
  block_flush_all(bc);
}

void block_side_exits_set(BlockCache *bc, bool on) {
  if (bc->side_exits == on) return;
  bc->side_exits = on;
  block_flush_all(bc);
}

/* What decoding one block reads of guest memory: a window of its bytes, read once rather
 * than an instruction at a time, and the protection of the last page looked up. */
typedef struct Fetch {
  uint64_t at;        /* the window holds the bytes at [at, at + len) */
  unsigned len;
  bool cut;           /* the byte at at + len could not be read */
  uint64_t prot_page; /* the page whose protection prot is, + 1 (0: none yet) */
  int prot;
  uint8_t bytes[256];
} Fetch;

/* The guest's protection of the page at page (ranges_prot), or, without a map of guest
 * memory, all of it. */
static int page_prot(const BlockCache *bc, Fetch *f, uint64_t page) {
  if (f->prot_page != page + 1) {
    f->prot = ranges_prot(bc->exec_map, page);
    f->prot_page = page + 1;
  }
  return f->prot;
}

/* How many bytes from pc (up to 15) lie in executable guest pages, and, when fewer, the
 * si_code of fetching the first byte past them. */
static unsigned executable_bytes(const BlockCache *bc, Fetch *f, uint64_t pc, int *code) {
  if (!bc->exec_map) return 15;
  unsigned n = 0;
  for (uint64_t page = pc & ~0xfffull; n < 15; page += 0x1000) {
    int prot = page_prot(bc, f, page);
    if (prot < 0 || !(prot & GUEST_PROT_EXEC)) {
      *code = prot < 0 || (prot & GUEST_PROT_RESERVED) ? SEGV_MAPERR : SEGV_ACCERR;
      return n;
    }
    n += (unsigned)(page + 0x1000 - (pc + n));
  }
  return 15;
}

/* The bytes at pc in the window, read anew when it does not hold the next 15 (or all
 * that are readable); returns how many of them, at most 15, there are at *bytes. */
static unsigned fetch_bytes(Fetch *f, uint64_t pc, const uint8_t **bytes) {
  uint64_t end = f->at + f->len;
  if (!(pc >= f->at && pc <= end && (pc + 15 <= end || f->cut))) {
    f->at = pc;
    f->len = fault_copy_in(f->bytes, pc, sizeof f->bytes);
    f->cut = f->len < sizeof f->bytes;
    end = pc + f->len;
  }
  *bytes = f->bytes + (pc - f->at);
  return end - pc < 15 ? (unsigned)(end - pc) : 15;
}

/* A record that raises the fault of fetching at fault_at (the instructions before it
 * run; reaching it faults). */
static void fetch_fault(Insn *in, uint64_t pc, uint64_t fault_at, int code) {
  *in = (Insn){.rip = pc, .disp = (int64_t)fault_at, .fn = op_fetch_fault, .op = (uint8_t)code,
               .flags_use = FL_ALL /* the signal frame shows every flag */, .ends = 1,
               .base = REG_NONE, .index = REG_NONE};
}

/* Decodes one instruction at pc into in: its record, or one that faults. */
static void decode_one(BlockCache *bc, Fetch *f, uint64_t pc, Insn *in) {
  uint64_t fault_at = 0;
  int code = SEGV_MAPERR;
  unsigned exec = executable_bytes(bc, f, pc, &code);
  const uint8_t *bytes;
  unsigned avail = exec ? fetch_bytes(f, pc, &bytes) : 0;
  if (exec == 0) {
    fetch_fault(in, pc, pc, code);
  } else if (decode_insn_bytes(bc->dec, pc, bytes, avail, in, &fault_at) == 0) {
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
static bool may_change(const BlockCache *bc, Fetch *f, uint64_t a) {
  int prot = page_prot(bc, f, a & ~0xfffull);
  return prot >= 0 && (prot & (GUEST_PROT_WRITE | GUEST_MAP_SHARED));
}

/* The pairing's without_flags(fn), remembered in the cache's slot for fn (each copy's
 * handlers are its own, so fn says which pairing answered). */
static Handler without_flags(BlockCache *bc, const FastPairing *p, Handler fn) {
  uintptr_t a = (uintptr_t)fn;
  size_t n = sizeof bc->without_flags / sizeof bc->without_flags[0];
  __typeof__(bc->without_flags[0]) *slot = &bc->without_flags[((a >> 4) ^ (a >> 12)) & (n - 1)];
  if (slot->with != fn) {
    slot->with = fn;
    slot->without = p->without_flags(fn);
  }
  return slot->without;
}

/* A conditional jump forward goes on in its block as a side exit (Insn.side_exit): when
 * it is not taken, the instructions after it run without a block's end and the chaining
 * of another (a third of the conditional jumps busybox gzip runs are not taken). Jumps
 * backward, mostly loops that go round again, still end their blocks, which keeps loops
 * short and exact (fuse_round_loop). */
static bool side_exit(const FastPairing *p, Insn *in) {
  Handler exit = in->imm > in->rip ? p->side_exit(in) : NULL;
  if (!exit) return false;
  in->fn = exit;
  in->ends = 0;
  in->side_exit = 1;
  in->exit = NULL;
  return true;
}

/* A record between instructions that is none (a hook's, a stop check), at pc after nth of
 * them: it reads every flag, so that the liveness pass keeps them as the instruction
 * before left them. */
static Insn between(Handler fn, uint64_t pc, unsigned nth) {
  return (Insn){.fn = fn, .rip = pc, .nth = (uint8_t)nth, .flags_use = FL_ALL, .base = REG_NONE,
                .index = REG_NONE};
}

/* The block at rip: up to MAX_BLOCK_INSNS instructions, or one when single. */
static Block *decode_block(BlockCache *bc, uint64_t rip, bool single) {
  Insn buf[4 * MAX_BLOCK_INSNS + 2]; /* with a stop check, a hook record and an atomic
                                        record per instruction, a block hook's, and a
                                        code check */
  unsigned n = 0, ninsn = 0;
  bool has_rep = false, has_bp = false;
  bool watch_memory = bc->dec->watch_memory;
  const FastPairing *pairs = decoder_pairing(bc->dec);
  uint64_t pc = rip;
  Fetch fetch;
  fetch.at = fetch.prot_page = 0;
  fetch.len = 0;
  fetch.cut = false;
  if (bc->block_hook && !single) buf[n++] = between(bc->block_hook, pc, 0);
  while (ninsn < (single ? 1 : MAX_BLOCK_INSNS)) {
    /* A memory hook stops the run after its instruction. */
    if (watch_memory && ninsn > 0) buf[n++] = between(op_stop_check, pc, ninsn);
    if (pc >= bc->hook_lo && pc < bc->hook_hi) buf[n++] = between(bc->hook, pc, ninsn);
    Insn *in = &buf[n++];
    decode_one(bc, &fetch, pc, in);
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
    if (in->ends && !(!single && bc->side_exits && pairs && side_exit(pairs, in))) break;
  }
  for (unsigned i = 0; i < n; i++) /* a hook record puts RIP back at the block's end */
    if (buf[i].fn == bc->hook || buf[i].fn == bc->block_hook) buf[i].imm = pc;
  if (!single && pairs) {
    fuse_runs(buf, n, pairs);
    fuse_branch(buf, n, pairs);
  }
  /* Flag liveness, backwards from the block's end, where every flag may be read. An
   * instruction that may fault reads them all (decode.c); while a floating-point
   * exception is unmasked, which SSE and x87 instructions may raise, none is dropped. */
  uint8_t live = FL_ALL;
  for (unsigned i = bc->dec->fp_exceptions ? 0 : n; i-- > 0;) {
    if (buf[i].side_exit) live = FL_ALL; /* where it jumps to, any may be */
    buf[i].flags_live = live;
    live = (uint8_t)((live & ~buf[i].flags_def) | buf[i].flags_use);
  }
  for (unsigned i = 0; i < n; i++) { /* flags nothing reads are not recorded */
    Handler without = buf[i].flags_live || !pairs ? NULL : without_flags(bc, pairs, buf[i].fn);
    if (without) buf[i].fn = without;
  }
  if (!single && pairs) {
    fuse_moves(buf, n, pairs);
    fuse_round_loop(buf, n, pairs);
  }
  bool watched = pc > rip && (!bc->exec_map || may_change(bc, &fetch, rip) ||
                              may_change(bc, &fetch, pc - 1)); /* a block spans two pages at most */
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
  if (watched && !single) { /* first, the check of its code (op_code_check) */
    memmove(buf + 1, buf, n * sizeof *buf);
    buf[0] = between(op_code_check, rip, 0);
    n++;
  }
  size_t copy = watched ? (size_t)(pc - rip) + tail : 0;
  size_t bytes = (sizeof(Block) + (n + 1) * sizeof(Insn) + copy + 15) & ~(size_t)15;
  Block *b = arena_alloc(bc, bytes);
  b->size = (uint32_t)bytes;
  b->single = single;
  b->start = rip;
  b->end = pc;
  b->fall = b->taken = NULL;
  b->n = n;
  b->last = b->insns + n - 1;
  b->ninsn = ninsn;
  b->has_rep = has_rep;
  b->has_bp = has_bp;
  b->watched = watched;
  b->dead = 0;
  b->tail = (uint8_t)tail;
  memcpy(b->insns, buf, n * sizeof(Insn));
  b->insns[n] = insn_end(pc, ninsn);
  if (watched) { /* decoded, so readable */
    memcpy(&b->insns[n + 1], (const void *)(uintptr_t)rip, (size_t)(pc - rip));
    memcpy((uint8_t *)&b->insns[n + 1] + (pc - rip), tail_bytes, tail);
  }
  if (!code_pages_add(&bc->pages, b)) { /* no memory for a bigger index: start afresh
                                           (an empty one always takes a block) */
    block_flush_all(bc);
    return decode_block(bc, rip, single);
  }
  if (rip < bc->lo_addr) bc->lo_addr = rip;
  if (pc + 15 > bc->hi_addr) bc->hi_addr = pc + 15;
  bc->decoded++;
  return b;
}

/* In words, the last one overlapping the one before: a block is tens of bytes, and
 * this runs at every entry into a JIT's code, where memcmp's call took a tenth of the
 * time (the JVM, measured with perf). */
bool block_code_changed(const Block *b) {
  const uint8_t *now = (const uint8_t *)(uintptr_t)b->start;
  const uint8_t *then = (const uint8_t *)&b->insns[b->n + 1];
  size_t n = (size_t)(b->end - b->start) + b->tail;
  if (n < 8) return memcmp(now, then, n) != 0;
  uint64_t x, y, diff = 0;
  for (size_t i = 0; i + 8 < n; i += 8) {
    memcpy(&x, now + i, 8), memcpy(&y, then + i, 8);
    diff |= x ^ y;
  }
  memcpy(&x, now + n - 8, 8), memcpy(&y, then + n - 8, 8);
  return (diff | (x ^ y)) != 0;
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
