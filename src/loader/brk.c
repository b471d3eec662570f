/* brk.c: the guest's program break, emulated in a reservation of its own. */
#define _GNU_SOURCE
#include "brk.h"

#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "../decoder/block.h"

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

/* The break's page is the guest's 4 KiB one (as /proc/self/maps and the guest's accesses
 * see it); the host maps and protects whole host pages around it. */

void brk_adopt(Process *p, uint64_t start, uint64_t end) {
  p->brk_start = p->brk_cur = start;
  p->brk_end = end;
  /* The guest's: it may map there; nothing is until the break grows. */
  ranges_add(&p->machine.mem, start, end, GUEST_PROT_RESERVED);
}

void brk_init(Process *p, uint64_t start) {
  /* Halve the size until the range is free: the heap is only as large as the hole after
   * the image (the kernel would refuse to grow brk into another mapping too). */
  for (uint64_t size = BRK_RESERVE; size >= host_page(); size /= 2) {
    if (start + size > GUEST_USER_TOP) continue;
    void *want = (void *)(uintptr_t)start;
    void *got = mmap(want, size, PROT_NONE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
    if (got == want) {
      brk_adopt(p, start, start + size);
      return;
    }
    /* A kernel without MAP_FIXED_NOREPLACE takes it as a hint and maps elsewhere. */
    if (got != MAP_FAILED) munmap(got, size);
  }
  brk_adopt(p, start, start);
}

/* The heap's limit, as the kernel's brk checks it (its data segment left out). */
static bool within_rlimit(const Process *p, uint64_t new_top) {
  struct rlimit data;
  return getrlimit(RLIMIT_DATA, &data) != 0 || data.rlim_cur == RLIM_INFINITY ||
         new_top - p->brk_start <= data.rlim_cur;
}

/* Past the reservation, the heap grows as the kernel's does: into free address space only
 * (never over another mapping, the guest's or the emulator's). */
static bool reserve_more(Process *p, uint64_t new_top) {
  if (new_top > GUEST_USER_TOP) return false;
  void *want = (void *)(uintptr_t)p->brk_end;
  size_t len = new_top - p->brk_end;
  void *got = mmap(want, len, PROT_NONE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
  if (got != want) {
    if (got != MAP_FAILED) munmap(got, len); /* taken as a hint by an old kernel */
    return false;
  }
  ranges_add(&p->machine.mem, p->brk_end, new_top, GUEST_PROT_RESERVED);
  p->brk_end = new_top;
  return true;
}

uint64_t brk_set(Process *p, uint64_t want) {
  const uint64_t old = p->brk_cur;
  if (want < p->brk_start) return old;
  const uint64_t new_top = guest_page_up(want), old_top = guest_page_up(old);
  const uint64_t host_new = host_page_up(new_top), host_old = host_page_up(old_top);
  if (host_new < want) return old;
  if (new_top > old_top && !within_rlimit(p, new_top)) return old;
  if (host_new > p->brk_end && !reserve_more(p, host_new)) return old;
  if (new_top > old_top) {
    /* Pages beyond the break were dropped or zeroed when it last shrank, so they read as
     * zero. */
    if ((host_new > host_old && mprotect((void *)(uintptr_t)host_old, host_new - host_old,
                                         PROT_READ | PROT_WRITE) != 0) ||
        !ranges_add(&p->machine.mem, old_top, new_top, GUEST_PROT_READ | GUEST_PROT_WRITE))
      return old;
  } else if (new_top < old_top) {
    /* Replace whole host pages with fresh PROT_NONE ones: frees the memory, and growing
     * again exposes zeros as the kernel's brk does. The range is our own reservation.
     * Guest pages in a host page that stays are the caller's to zero (brk.h). */
    if (host_new < host_old &&
        mmap((void *)(uintptr_t)host_new, host_old - host_new, PROT_NONE,
             MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0) == MAP_FAILED)
      return old;
    block_invalidate_range(&p->machine.code, new_top, old_top - new_top);
    ranges_add(&p->machine.mem, new_top, old_top, GUEST_PROT_RESERVED);
  }
  p->brk_cur = want;
  return want;
}
