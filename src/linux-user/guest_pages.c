/* guest_pages.c: the guest's 4 KiB pages on larger host pages (guest_pages.h). */
#define _GNU_SOURCE
#include "guest_pages.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../decoder/block.h"
#include "../loader/guest_space.h"
#include "sys_common.h"


/* What host page `at` needs: the union of its guest pages' host protections, or -1 when
 * no guest page is in it. Reserved guest memory (the heap beyond the break) counts as
 * present and needs nothing. */
static int host_prot_of(const RangeSet *mem, uint64_t at) {
  int prot = -1;
  for (uint64_t g = at; g < at + host_page(); g += GUEST_PAGE) {
    int p = ranges_prot(mem, g);
    if (p < 0) continue;
    if (prot < 0) prot = PROT_NONE;
    if (!(p & GUEST_PROT_RESERVED)) prot |= guest_prot_on_host((unsigned)(p & GUEST_PROT_ALL));
  }
  return prot;
}

/* Brings the host pages that [lo, hi) touches in line with the guest's ranges (a system
 * call a run of pages that need the same): 0 or -errno. */
static int settle(const RangeSet *mem, uint64_t lo, uint64_t hi) {
  const uint64_t page = host_page();
  for (uint64_t at = host_page_down(lo), end = host_page_up(hi); at < end;) {
    int prot = host_prot_of(mem, at);
    uint64_t run = at + page;
    while (run < end && host_prot_of(mem, run) == prot) run += page;
    void *p = (void *)(uintptr_t)at;
    if (prot < 0 ? munmap(p, run - at) : mprotect(p, run - at, prot)) return -errno;
    at = run;
  }
  return 0;
}

/* Reads len bytes of fd from off into the guest's memory at to (zeros past the file's
 * end, which stay as they are): 0 or -errno. */
static int read_into(uint64_t to, uint64_t len, int fd, uint64_t off) {
  for (uint64_t done = 0; done < len;) {
    ssize_t r = pread(fd, GUEST_PTR(to + done), len - done, (off_t)(off + done));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return -errno;
    if (r == 0) break;
    done += (uint64_t)r;
  }
  return 0;
}

int64_t guest_pages_map_fixed(Cpu *c, uint64_t addr, uint64_t len, int prot, int flags, int fd,
                              uint64_t off, bool noreplace) {
  const uint64_t page = host_page(), lo = host_page_down(addr), hi = host_page_up(addr + len);
  RangeSet *mem = &c->m->mem;
  if (noreplace && ranges_meet(mem, addr, addr + len)) return -EEXIST;
  const bool anon = flags & MAP_ANONYMOUS, shared = (flags & MAP_TYPE) != MAP_PRIVATE;
  /* The host pages at either end that hold other guest pages are kept. */
  const bool head_kept = addr != lo && ranges_meet(mem, lo, addr);
  const bool tail_kept = addr + len != hi && ranges_meet(mem, addr + len, hi);
  const uint64_t lead = addr - lo; /* the file's offset at lo would be off - lead */
  if (!head_kept && !tail_kept && (anon || (off >= lead && (off - lead) % page == 0))) {
    /* The host's pages are this mapping's alone, and the file in step with them. */
    void *r = mmap((void *)(uintptr_t)lo, hi - lo, guest_prot_on_host((unsigned)prot),
                   flags | MAP_FIXED, fd, anon ? 0 : (off_t)(off - lead));
    if (r == MAP_FAILED) return -errno;
  } else {
    /* Put together from anonymous memory: sharing cannot be kept so. */
    if (shared) return -EINVAL;
    uint64_t mid_lo = head_kept ? lo + page : lo, mid_hi = tail_kept ? hi - page : hi;
    if (mid_lo < mid_hi && mmap((void *)(uintptr_t)mid_lo, mid_hi - mid_lo, PROT_READ | PROT_WRITE,
                                MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
      return -errno;
    if ((head_kept && mprotect((void *)(uintptr_t)lo, page, PROT_READ | PROT_WRITE)) ||
        (tail_kept && mprotect((void *)(uintptr_t)(hi - page), page, PROT_READ | PROT_WRITE)))
      return -errno;
    if (head_kept) memset(GUEST_PTR(addr), 0, (lo + page < addr + len ? lo + page : addr + len) - addr);
    if (tail_kept) {
      uint64_t from = hi - page > addr ? hi - page : addr;
      memset(GUEST_PTR(from), 0, addr + len - from);
    }
    int r = anon ? 0 : read_into(addr, len, fd, off);
    if (r < 0) {
      settle(mem, lo, hi);
      return r;
    }
  }
  if (!ranges_add(mem, addr, addr + len, prot | (shared ? GUEST_MAP_SHARED : 0))) return -ENOMEM;
  block_invalidate_range(&c->m->code, addr, len);
  int r = settle(mem, lo, hi);
  return r < 0 ? r : (int64_t)addr;
}

int64_t guest_pages_map(Cpu *c, uint64_t hint, uint64_t len, uint64_t top, int prot, int flags,
                        int fd, uint64_t off) {
  const uint64_t page = host_page();
  const bool anon = flags & MAP_ANONYMOUS, shared = (flags & MAP_TYPE) != MAP_PRIVATE;
  /* The host maps a file from a host page boundary: the mapping starts that much early. */
  const uint64_t lead = anon ? 0 : off % page, span = host_page_up(len + lead);
  if (span < len) return -ENOMEM;
  uint64_t at = hint >= lead && (hint - lead) % page == 0 ? hint - lead : host_page_down(hint);
  void *r = guest_space_map(&proc_of(c)->space, at, span, page, top, guest_prot_on_host((unsigned)prot),
                            flags, fd, (off_t)(off - lead));
  if (r == MAP_FAILED) return -errno;
  uint64_t got = (uint64_t)(uintptr_t)r + lead;
  if (!ranges_add(&c->m->mem, got, got + len, prot | (shared ? GUEST_MAP_SHARED : 0))) {
    munmap(r, span);
    return -ENOMEM;
  }
  return (int64_t)got;
}

int64_t guest_pages_unmap(Cpu *c, uint64_t addr, uint64_t len) {
  if (!ranges_remove(&c->m->mem, addr, addr + len)) return -ENOMEM;
  block_invalidate_range(&c->m->code, addr, len);
  return settle(&c->m->mem, addr, addr + len);
}

int64_t guest_pages_protect(Cpu *c, uint64_t addr, uint64_t len, int prot) {
  if (!ranges_protect(&c->m->mem, addr, addr + len, prot)) return -ENOMEM;
  block_invalidate_range(&c->m->code, addr, len);
  return settle(&c->m->mem, addr, addr + len);
}

int64_t guest_pages_remap(Cpu *c, uint64_t old, uint64_t old_len, uint64_t new_len, int flags) {
  enum { MAYMOVE = 1, FIXED = 2, DONTUNMAP = 4 };
  if (new_len <= old_len) { /* shrunk where it stands */
    int64_t r = new_len < old_len ? guest_pages_unmap(c, old + new_len, old_len - new_len) : 0;
    return r < 0 ? r : (int64_t)old;
  }
  if (!(flags & MAYMOVE)) return -ENOMEM; /* as when the pages after it are taken */
  int prot = ranges_prot(&c->m->mem, old);
  if ((flags & (FIXED | DONTUNMAP)) || prot < 0 || (prot & GUEST_MAP_SHARED)) return -EINVAL;
  int64_t to = guest_pages_map(c, 0, new_len, 0, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (to < 0) return to;
  if (mprotect(GUEST_PTR(host_page_down(old)), host_page_up(old + old_len) - host_page_down(old), PROT_READ) != 0) {
    int e = -errno;
    guest_pages_unmap(c, (uint64_t)to, new_len);
    settle(&c->m->mem, old, old + old_len);
    return e;
  }
  memcpy(GUEST_PTR(to), GUEST_PTR(old), old_len);
  int64_t r = guest_pages_unmap(c, old, old_len);
  if (r == 0) r = guest_pages_protect(c, (uint64_t)to, new_len, prot & GUEST_PROT_ALL);
  return r < 0 ? r : to;
}

int64_t guest_pages_advise(Cpu *c, uint64_t addr, uint64_t len, int advice, bool destructive) {
  const uint64_t whole_lo = host_page_up(addr), whole_hi = host_page_down(addr + len);
  if (whole_lo < whole_hi && madvise(GUEST_PTR(whole_lo), whole_hi - whole_lo, advice) != 0) return -errno;
  if (!destructive) return 0; /* advice on pieces of host pages: taken as given, and left */
  /* The pieces read back as zeros, as discarded private memory does. */
  uint64_t pieces[2][2] = {{addr, whole_lo < addr + len ? whole_lo : addr + len},
                           {whole_hi > addr ? whole_hi : addr, addr + len}};
  if (whole_lo >= whole_hi) pieces[1][0] = pieces[1][1]; /* one piece: the first */
  for (int i = 0; i < 2; i++) {
    uint64_t lo = pieces[i][0], hi = pieces[i][1];
    if (lo >= hi) continue;
    if (mprotect(GUEST_PTR(host_page_down(lo)), host_page_up(hi) - host_page_down(lo), PROT_READ | PROT_WRITE) != 0) return -errno;
    memset(GUEST_PTR(lo), 0, hi - lo);
    int r = settle(&c->m->mem, lo, hi);
    if (r < 0) return r;
  }
  return 0;
}

int64_t guest_pages_mincore(uint64_t addr, uint64_t len, uint8_t *vec) {
  const uint64_t page = host_page(), n = (len + GUEST_PAGE - 1) / GUEST_PAGE;
  uint8_t host[256];
  for (uint64_t i = 0; i < n;) { /* a host page's byte for each guest page in it */
    uint64_t at = addr + i * GUEST_PAGE, first = host_page_down(at);
    uint64_t pages = (host_page_up(addr + len) - first) / page;
    if (pages > sizeof host) pages = sizeof host;
    if (mincore(GUEST_PTR(first), pages * page, host) != 0) return -errno;
    for (; i < n && host_page_down(addr + i * GUEST_PAGE) < first + pages * page; i++)
      vec[i] = host[(host_page_down(addr + i * GUEST_PAGE) - first) / page];
  }
  return 0;
}
