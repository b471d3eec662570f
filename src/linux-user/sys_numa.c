/* sys_numa.c: NUMA memory policy (set_mempolicy, get_mempolicy, mbind, migrate_pages,
 * move_pages, set_mempolicy_home_node), the host kernel's own: the guest's threads are
 * host threads and its pages host pages.
 *
 * Node masks pass through buffers of the emulator's, read and written as many bytes as
 * the kernel's get_nodes and copy_nodes_to_user do, with x86-64's 4 KiB page bounding
 * their length on every host. Addresses must be the guest's own mappings: the emulator's
 * memory beside them is a hole to the guest, as unmapped memory is natively. Where the
 * guest's answer is a fault the host would give for its own, the host is handed an address
 * it faults on (FAULTS), so that its other checks come first, in its order. On a host
 * with larger pages a policy set on a range reaches the whole host pages that hold it. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../interp/ranges.h"
#include "../loader/guest_space.h"
#include "determinism.h"
#include "sys_common.h"

/* A page-aligned address no mapping takes: non-canonical on x86-64 with 4-level paging,
 * above the 47-bit space Linux maps in unless asked on a 5-level one, and beyond aarch64's
 * 48- and 52-bit spaces (a kernel address there once its top byte is dropped). */
#define FAULTS ((void *)(uintptr_t)0x00ffffffffff0000ull)
#define FAULTS_ADDR ((uint64_t)(uintptr_t)FAULTS)

enum { X64_PAGE = 4096, MASK_BYTES = X64_PAGE, MASK_BITS = MASK_BYTES * 8 };
enum { X64_MPOL_F_ADDR = 2 };
#ifndef SYS_set_mempolicy_home_node
#define SYS_set_mempolicy_home_node 450 /* the same on x86-64 and asm-generic */
#endif

/* The guest's node mask of maxnode bits at `at`, for the host: NULL for none, buf, or
 * FAULTS where the guest cannot read it. The kernel reads maxnode - 1 bits in whole
 * longs, and refuses more than a page's bits (EINVAL, as its flags' and mode's checks: no
 * other error comes before it). */
static int mask_in(Cpu *c, uint64_t at, uint64_t maxnode, uint64_t buf[MASK_BYTES / 8],
                   void **host) {
  *host = NULL;
  if (maxnode <= 1 || !at) return 0;
  if (maxnode - 1 > MASK_BITS) return -EINVAL;
  size_t bytes = (size_t)((maxnode - 1 + 63) / 64 * 8);
  *host = guest_copy_in(c, buf, at, bytes) < 0 ? FAULTS : buf;
  return 0;
}

/* Whether [lo, hi) is all the guest's mappings (not its reservations). */
static bool guest_mapped(Cpu *c, uint64_t lo, uint64_t hi) {
  return ranges_mapped(&c->m->mem, lo, hi);
}

int64_t sys_set_mempolicy(Cpu *c, const uint64_t *a) {
  uint64_t buf[MASK_BYTES / 8];
  void *mask;
  int r = mask_in(c, a[1], a[2], buf, &mask);
  if (r < 0) return r;
  return host_result(syscall(SYS_set_mempolicy, (int)a[0], mask, (unsigned long)a[2]));
}

/* get_mempolicy(mode, nodemask, maxnode, addr, flags): with MPOL_F_ADDR, addr must lie in
 * a guest mapping. The mode is written before the mask, and a mask of more than a page's
 * bytes is EINVAL after the mode, as the kernel's copy_nodes_to_user does. */
int64_t sys_get_mempolicy(Cpu *c, const uint64_t *a) {
  uint64_t maxnode = a[2], addr = a[3], flags = a[4];
  uint64_t buf[MASK_BYTES / 8];
  uint64_t copy = a[1] ? (maxnode - 1 + 63) / 64 * 8 : 0; /* what the kernel writes */
  bool too_long = a[1] && maxnode > 0 && copy > MASK_BYTES;
  if (too_long) maxnode = MASK_BITS + 1, copy = MASK_BYTES;
  if ((flags & X64_MPOL_F_ADDR) && !guest_mapped(c, addr & ~(uint64_t)(X64_PAGE - 1),
                                                 (addr & ~(uint64_t)(X64_PAGE - 1)) + X64_PAGE))
    addr = FAULTS_ADDR;
  int mode;
  int64_t r = host_result(syscall(SYS_get_mempolicy, a[0] ? &mode : NULL, a[1] ? buf : NULL,
                                  (unsigned long)maxnode, (void *)(uintptr_t)addr,
                                  (unsigned long)flags));
  if (r < 0) return r;
  if (a[0] && guest_copy_out(c, a[0], &mode, sizeof mode) < 0) return -EFAULT;
  if (too_long) return -EINVAL;
  if (a[1] && guest_copy_out(c, a[1], buf, (size_t)copy) < 0) return -EFAULT;
  return r;
}

/* A call on a range: the host's number and its arguments, the range's two first. */
typedef struct RangeCall {
  long nr;
  long args[6];
} RangeCall;

static int64_t range_call(RangeCall *call, uint64_t lo, uint64_t n) {
  call->args[0] = (long)lo, call->args[1] = (long)n;
  long *x = call->args;
  return host_result(syscall(call->nr, x[0], x[1], x[2], x[3], x[4], x[5]));
}

/* Makes the call on each piece of [start, end) that the guest has mapped, extended to
 * whole host pages, until one fails: its result, or 1 when the range holds no piece. */
static int64_t on_mapped_pieces(Cpu *c, RangeCall *call, uint64_t start, uint64_t end) {
  Range *r;
  size_t count = ranges_snapshot(&c->m->mem, &r);
  if (!r) return -ENOMEM;
  int64_t res = 1;
  for (size_t i = 0; i < count && res >= 0; i++) {
    uint64_t from = r[i].lo > start ? r[i].lo : start, to = r[i].hi < end ? r[i].hi : end;
    if (from >= to || (r[i].prot & GUEST_PROT_RESERVED)) continue;
    from = host_page_down(from), to = host_page_up(to);
    res = range_call(call, from, to - from);
  }
  free(r);
  return res;
}

/* The range [start, start + len) rounded to pages, as the kernel takes it: false when it
 * refuses it with EINVAL before looking at memory (a start not on a page, an end that
 * wraps). */
static bool range_valid(uint64_t start, uint64_t len, uint64_t *end) {
  *end = start + ((len + X64_PAGE - 1) & ~(uint64_t)(X64_PAGE - 1));
  return !(start & (X64_PAGE - 1)) && *end >= start;
}

/* mbind: the kernel binds a range whose every page is mapped, and EFAULTs on a hole,
 * except that MPOL_DEFAULT skips the holes (EFAULT only when nothing is mapped). Here the
 * guest's mappings alone count as mapped; what the host refuses is refused at FAULTS
 * (EINVAL one byte past it), after the host's other checks. */
int64_t sys_mbind(Cpu *c, const uint64_t *a) {
  enum { MPOL_MODE_FLAGS = 0xe000 }; /* MPOL_F_STATIC_NODES, RELATIVE_NODES, NUMA_BALANCING */
  uint64_t buf[MASK_BYTES / 8], end;
  void *mask;
  int r = mask_in(c, a[3], a[4], buf, &mask);
  if (r < 0) return r;
  RangeCall call = {SYS_mbind, {0, 0, (long)a[2], (long)mask, (long)a[4], (long)(unsigned)a[5]}};
  uint64_t start = a[0];
  if (!range_valid(start, a[1], &end)) return range_call(&call, FAULTS_ADDR + 1, X64_PAGE);
  if (end == start) return range_call(&call, FAULTS_ADDR, 0);
  if (guest_mapped(c, start, end))
    return range_call(&call, host_page_down(start), host_page_up(end) - host_page_down(start));
  bool skips_holes = ((unsigned)a[2] & ~MPOL_MODE_FLAGS) == 0; /* MPOL_DEFAULT */
  int64_t res = skips_holes ? on_mapped_pieces(c, &call, start, end) : 1;
  return res == 1 ? range_call(&call, FAULTS_ADDR, X64_PAGE) : res;
}

/* The kernel sets the home node on each mapping in the range and skips the holes: here
 * on each of the guest's (the first refusal ends the walk, as the kernel's does), or,
 * when the range holds none, on a range at FAULTS for the host's checks alone. */
int64_t sys_set_mempolicy_home_node(Cpu *c, const uint64_t *a) {
  RangeCall call = {SYS_set_mempolicy_home_node, {0, 0, (long)a[2], (long)a[3]}};
  uint64_t start = a[0], end;
  if (!range_valid(start, a[1], &end)) return range_call(&call, FAULTS_ADDR + 1, X64_PAGE);
  int64_t res = end == start ? 1 : on_mapped_pieces(c, &call, start, end);
  return res == 1 ? range_call(&call, FAULTS_ADDR, end == start ? 0 : X64_PAGE) : res;
}

/* migrate_pages(pid, maxnode, old_nodes, new_nodes) moves a whole process's pages, the
 * emulator's with the guest's when it is this one. */
int64_t sys_migrate_pages(Cpu *c, const uint64_t *a) {
  uint64_t old_buf[MASK_BYTES / 8], new_buf[MASK_BYTES / 8];
  void *old_mask, *new_mask;
  int r = mask_in(c, a[2], a[1], old_buf, &old_mask);
  if (r == 0) r = mask_in(c, a[3], a[1], new_buf, &new_mask);
  if (r < 0) return r;
  return host_result(syscall(SYS_migrate_pages, (int)det_pid_in(c, (int)a[0]), (unsigned long)a[1],
                             old_mask, new_mask));
}

/* Reads n elements of size bytes at addr into buf: buf, or FAULTS (for the host's EFAULT
 * after its own checks) where the guest cannot read them. */
static void *array_in(Cpu *c, void *buf, uint64_t addr, uint64_t n, size_t size) {
  return guest_copy_in(c, buf, addr, n * size) < 0 ? FAULTS : buf;
}

/* move_pages(pid, count, pages, nodes, status, flags), in chunks through the emulator's
 * buffers, the arrays read and written a chunk at a time as the kernel's own loop does:
 * in this process a page that is not the guest's reads as unmapped (status -EFAULT, as
 * the kernel gives for one). The pages not moved of each chunk add up. */
int64_t sys_move_pages(Cpu *c, const uint64_t *a) {
  enum { CHUNK = 256 };
  int pid = (int)det_pid_in(c, (int)a[0]);
  bool self = pid == 0 || pid == getpid();
  uint64_t count = a[1], done = 0;
  int64_t not_moved = 0;
  do {
    uint64_t n = count - done < CHUNK ? count - done : CHUNK;
    uint64_t pages[CHUNK];
    int nodes[CHUNK], status[CHUNK];
    void *pages_in = array_in(c, pages, a[2] + done * 8, n, 8);
    void *nodes_in = a[3] ? array_in(c, nodes, a[3] + done * 4, n, 4) : NULL;
    for (uint64_t i = 0; self && pages_in == pages && i < n; i++) {
      uint64_t page = pages[i] & ~(uint64_t)(X64_PAGE - 1);
      if (!guest_mapped(c, page, page + X64_PAGE)) pages[i] = FAULTS_ADDR;
    }
    int64_t r = host_result(syscall(SYS_move_pages, pid, (unsigned long)n, pages_in, nodes_in,
                                    status, (int)a[5]));
    if (r < 0) return r;
    if (guest_copy_out(c, a[4] + done * 4, status, n * 4) < 0) return -EFAULT;
    not_moved += r;
    done += n;
  } while (done < count);
  return not_moved;
}
