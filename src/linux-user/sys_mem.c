/* sys_mem.c: mmap and friends on the shared address space, keeping the emulator's own memory out of reach. */
#define _GNU_SOURCE
#include "sys_mem.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "../decoder/block.h"
#include "../loader/brk.h"
#include "guest_pages.h"
#include "sys_common.h"

#define PAGE GUEST_PAGE
static inline uint64_t page_up(uint64_t v) { return (v + PAGE - 1) & ~(PAGE - 1); }

/* The guest's ranges are its machine's (Machine.mem). */
static RangeSet *guest_ranges(Process *p) { return &p->machine.mem; }

/* ---- the host's view: /proc/self/maps ---- */

typedef struct HostMap {
  uint64_t lo, hi;
  bool anon, none; /* no file behind it; PROT_NONE */
} HostMap;

static size_t read_host_maps(HostMap **out) {
  FILE *f = fopen("/proc/self/maps", "re");
  size_t n = 0, cap = 64;
  HostMap *m = malloc(cap * sizeof *m);
  if (!f || !m) {
    if (f) fclose(f);
    free(m);
    *out = NULL;
    return 0;
  }
  char line[4352];
  while (fgets(line, sizeof line, f)) {
    unsigned long long lo, hi, inode;
    char perms[8];
    int path_at = 0;
    if (sscanf(line, "%llx-%llx %7s %*s %*s %llu %n", &lo, &hi, perms, &inode, &path_at) < 4)
      continue;
    if (n == cap) {
      HostMap *bigger = realloc(m, (cap *= 2) * sizeof *m);
      if (!bigger) break;
      m = bigger;
    }
    const char *path = line + path_at;
    m[n++] = (HostMap){lo, hi, inode == 0 && (path[0] == '\n' || path[0] == 0),
                       !strncmp(perms, "---", 3)};
  }
  fclose(f);
  *out = m;
  return n;
}

/* Without notes from the loader: the image is the run of anonymous mappings that ends where
 * the heap starts, the stack the mapping holding rsp with its PROT_NONE guard below. */
static void guess_loader_mappings(Cpu *c) {
  Process *p = proc_of(c);
  RangeSet *ranges = guest_ranges(p);
  p->mem_guessed = true;
  HostMap *m;
  size_t n = read_host_maps(&m);
  for (size_t i = 0; i < n; i++) {
    if (m[i].hi == p->brk_start) {
      size_t j = i;
      while (j > 0 && m[j].anon && m[j - 1].hi == m[j].lo && m[j - 1].anon) j--;
      if (m[j].anon) ranges_add(ranges, m[j].lo, m[i].hi, GUEST_PROT_ALL);
    }
    uint64_t sp = c->r[RSP];
    if (sp >= m[i].lo && sp < m[i].hi && m[i].anon) {
      uint64_t lo = m[i].lo;
      if (i > 0 && m[i - 1].hi == lo && m[i - 1].anon && m[i - 1].none) lo = m[i - 1].lo;
      ranges_add(ranges, lo, m[i].hi, GUEST_PROT_ALL);
    }
  }
  free(m);
}

/* Before any change to the address space: the heap's reservation is the guest's, and so
 * is what the loader mapped. */
static void mem_init(Cpu *c) {
  Process *p = proc_of(c);
  if (!p->mem_guessed && !p->mem_noted) guess_loader_mappings(c);
  p->mem_guessed = true;
}

bool guest_mem_hits_emulator(Cpu *c, uint64_t lo, uint64_t len) {
  const RangeSet *ranges = guest_ranges(proc_of(c));
  uint64_t hi = lo + len;
  if (hi < lo) return true;
  if (ranges_cover(ranges, lo, hi)) return false;
  HostMap *m;
  size_t n = read_host_maps(&m);
  bool hit = false;
  for (size_t i = 0; i < n && !hit; i++) {
    uint64_t s = m[i].lo > lo ? m[i].lo : lo, e = m[i].hi < hi ? m[i].hi : hi;
    if (s < e && !ranges_cover(ranges, s, e)) hit = true;
  }
  free(m);
  return hit;
}

/* ---- vfork: the memory a child shares with its parent ---- */

/* The vfork child whose memory the parent reads: by process_vm_readv, or through the
 * child's /proc/PID/mem where that system call is refused (a seccomp filter, qemu-user). */
typedef struct ChildMemory {
  pid_t pid;
  int fd; /* /proc/PID/mem once opened, else -1 */
} ChildMemory;

static ssize_t child_read(ChildMemory *cm, void *buf, size_t len, uint64_t at) {
  if (cm->fd < 0) {
    struct iovec mine = {buf, len}, theirs = {GUEST_PTR(at), len};
    ssize_t got = process_vm_readv(cm->pid, &mine, 1, &theirs, 1, 0);
    if (got >= 0 || (errno != ENOSYS && errno != EPERM)) return got;
    char path[32];
    snprintf(path, sizeof path, "/proc/%d/mem", (int)cm->pid);
    if ((cm->fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) return -1;
  }
  return pread(cm->fd, buf, len, (off_t)at);
}

/* The child's notes: for each writable, private guest range at the fork, a hash of each
 * of its pages (0 for one not in memory then, which reads as zeros). */
typedef struct NotedRange {
  uint64_t lo, hi;
  uint64_t *hash;
} NotedRange;
static NotedRange *noted;
static size_t n_noted;

static uint64_t page_hash(const uint8_t *page) {
  uint64_t h = 0x9e3779b97f4a7c15ull, w;
  for (size_t i = 0; i < PAGE; i += 8) {
    memcpy(&w, page + i, 8);
    h = (h ^ w) * 0xff51afd7ed558ccdull;
    h ^= h >> 29;
  }
  return h | 1; /* never 0, which marks a page not in memory */
}

/* The hashes of [lo, hi)'s pages into hash: 0 for those mincore says are not in memory
 * (an anonymous page never touched: zeros), so that untouched memory is not read in. */
static void hash_pages(uint64_t lo, uint64_t hi, uint64_t *hash) {
  enum { CHUNK = 1 << 16 }; /* pages a mincore call */
  static unsigned char resident[CHUNK];
  for (uint64_t at = lo; at < hi;) {
    size_t n = (hi - at) / PAGE < CHUNK ? (size_t)((hi - at) / PAGE) : CHUNK;
    bool known = mincore(GUEST_PTR(at), n * PAGE, resident) == 0;
    for (size_t i = 0; i < n; i++, at += PAGE)
      *hash++ = !known || (resident[i] & 1) ? page_hash(GUEST_PTR(at)) : 0;
  }
}

void guest_mem_note_pages(Cpu *c) {
  mem_init(c);
  const RangeSet *ranges = guest_ranges(proc_of(c));
  free(noted); /* an outer vfork's, in a child that vforks again */
  noted = calloc(ranges->n ? ranges->n : 1, sizeof *noted);
  n_noted = 0;
  for (size_t j = 0; noted && j < ranges->n; j++) {
    const Range *r = &ranges->r[j];
    bool writable = (r->prot & GUEST_PROT_WRITE) && !(r->prot & (GUEST_PROT_RESERVED | GUEST_MAP_SHARED));
    uint64_t *hash = writable ? malloc((r->hi - r->lo) / PAGE * sizeof *hash) : NULL;
    if (!hash) continue; /* shared memory is the parent's already */
    hash_pages(r->lo, r->hi, hash);
    noted[n_noted++] = (NotedRange){r->lo, r->hi, hash};
  }
}

size_t guest_mem_changed_pages(Cpu *c, uint64_t **pages) {
  size_t n = 0, cap = 64;
  uint64_t *list = malloc(cap * sizeof *list), *now = NULL;
  for (size_t j = 0; list && j < n_noted; j++) {
    const NotedRange *r = &noted[j];
    /* Still the guest's, as it was (a child that unmapped or remapped it changed it all). */
    if (!ranges_mapped(&c->m->mem, r->lo, r->hi)) continue;
    uint64_t *grown = realloc(now, (r->hi - r->lo) / PAGE * sizeof *now);
    if (!grown) break;
    now = grown;
    hash_pages(r->lo, r->hi, now);
    for (uint64_t i = 0; i < (r->hi - r->lo) / PAGE; i++) {
      if (now[i] == r->hash[i] || (!now[i] && !r->hash[i])) continue;
      if (now[i] && !r->hash[i]) { /* in memory now: changed only if no longer zeros */
        static const uint8_t zeros[PAGE];
        if (now[i] == page_hash(zeros)) continue;
      }
      if (n == cap) {
        uint64_t *bigger = realloc(list, (cap *= 2) * sizeof *list);
        if (!bigger) break;
        list = bigger;
      }
      list[n++] = r->lo + i * PAGE;
    }
  }
  free(now);
  *pages = list;
  return list ? n : 0;
}

/* Copies the child's pages at pages[0..n) into ours where they differ. */
void guest_mem_take_pages(int child, const uint64_t *pages, size_t n) {
  ChildMemory cm = {child, -1};
  uint8_t buf[PAGE];
  for (size_t i = 0; i < n; i++)
    if (child_read(&cm, buf, PAGE, pages[i]) == (ssize_t)PAGE && memcmp(buf, GUEST_PTR(pages[i]), PAGE))
      memcpy(GUEST_PTR(pages[i]), buf, PAGE);
  if (cm.fd >= 0) close(cm.fd);
}

/* ---- the calls ---- */

_Static_assert(PROT_READ == GUEST_PROT_READ && PROT_WRITE == GUEST_PROT_WRITE &&
                   PROT_EXEC == GUEST_PROT_EXEC,
               "the host numbers PROT_* as x86-64 Linux does");

/* x86-64 MAP_* values (PROT_* are ranges.h's GUEST_PROT_*); the generic ones other hosts
 * use are equal, except that MAP_32BIT exists only on x86. */
enum {
  X64_MAP_PRIVATE = 2, X64_MAP_TYPE = 0xF, /* SHARED 1, PRIVATE 2, SHARED_VALIDATE 3 */
  X64_MAP_FIXED = 0x10, X64_MAP_ANONYMOUS = 0x20, X64_MAP_32BIT = 0x40,
  X64_MAP_FIXED_NOREPLACE = 0x100000,
  X64_MREMAP_MAYMOVE = 1, X64_MREMAP_FIXED = 2, X64_MREMAP_DONTUNMAP = 4,
};

static int64_t map_guest(Cpu *c, const uint64_t *a) {
  uint64_t addr = a[0], len = a[1], flags = a[3], off = a[5];
  mem_init(c);
  if (off & (PAGE - 1)) return -EINVAL;
  /* The kernel takes the file before it looks at the length: a bad descriptor's EBADF
   * comes first (asked only then, not on every mapping). */
  if (len == 0)
    return !(flags & X64_MAP_ANONYMOUS) && fcntl(arg_fd(a[4]), F_GETFD) < 0 ? -EBADF : -EINVAL;
  uint64_t span = page_up(len);
  if (span < len) return -ENOMEM;
  bool fixed = (flags & X64_MAP_FIXED) && !(flags & X64_MAP_FIXED_NOREPLACE);
  /* Past x86-64's user address space: the kernel's ENOMEM, whatever the host allows. */
  if ((flags & (X64_MAP_FIXED | X64_MAP_FIXED_NOREPLACE)) && (addr + span < addr || addr + span > GUEST_USER_TOP))
    return -ENOMEM;
  if (fixed) {
    if (addr & (PAGE - 1)) return -EINVAL;
    if (guest_mem_hits_emulator(c, addr, span)) return -ENOMEM;
  }
  int hflags = (int)flags;
#if !defined(__x86_64__)
  if (flags & X64_MAP_32BIT) {
    hflags &= ~X64_MAP_32BIT;
    if (!addr) addr = 0x40000000; /* a hint low in memory, as x86's MAP_32BIT gives */
  }
#endif
  int hprot = guest_prot_on_host(a[2]);
  if (host_page() > GUEST_PAGE) {
    int gflags = hflags & ~(X64_MAP_FIXED | X64_MAP_FIXED_NOREPLACE | X64_MAP_32BIT);
    if (fixed || (flags & X64_MAP_FIXED_NOREPLACE))
      return guest_pages_map_fixed(c, addr, span, (int)(a[2] & GUEST_PROT_ALL), gflags, arg_fd(a[4]),
                                   off, !fixed);
    bool low = flags & X64_MAP_32BIT; /* the first 2 GiB, as x86's MAP_32BIT gives */
    return guest_pages_map(c, low && !addr ? 0x40000000 : addr, span, low ? 0x80000000 : 0,
                           (int)(a[2] & GUEST_PROT_ALL), gflags, arg_fd(a[4]), off);
  }
  /* An exact address is the host's to give or refuse; any other the guest's space's. */
  bool exact = fixed || (flags & X64_MAP_FIXED_NOREPLACE) || (hflags & X64_MAP_32BIT);
  bool noreplace = flags & X64_MAP_FIXED_NOREPLACE;
  if (noreplace && ranges_meet(&c->m->mem, addr, addr + span)) return -EEXIST;
  void *r = exact ? mmap(GUEST_PTR(addr), len, hprot, hflags, arg_fd(a[4]), (off_t)off)
                  : guest_space_map(&proc_of(c)->space, addr, len, PAGE, 0, hprot, hflags,
                                    arg_fd(a[4]), (off_t)off);
  if (r == MAP_FAILED) return -errno;
  if (noreplace && r != GUEST_PTR(addr)) { /* a host that took the flag for a hint */
    munmap(r, len);
    return -EEXIST;
  }
  uint64_t got = (uint64_t)(uintptr_t)r;
  /* Code decoded from what was there before is gone. */
  if (fixed) block_invalidate_range(&c->m->code, got, span);
  bool shared = (flags & X64_MAP_TYPE) != X64_MAP_PRIVATE;
  if (!ranges_add(&c->m->mem, got, got + span, (int)(a[2] & GUEST_PROT_ALL) | (shared ? GUEST_MAP_SHARED : 0))) {
    munmap(r, span);
    return -ENOMEM;
  }
  return (int64_t)got;
}

int64_t sys_munmap(Cpu *c, const uint64_t *a) {
  uint64_t addr = a[0], span = page_up(a[1]);
  mem_init(c);
  if ((addr & (PAGE - 1)) || a[1] == 0 || span < a[1]) return -EINVAL;
  if (guest_mem_hits_emulator(c, addr, span)) return -EINVAL;
  if (host_page() > GUEST_PAGE) return guest_pages_unmap(c, addr, span);
  if (munmap(GUEST_PTR(addr), span) < 0) return -errno;
  block_invalidate_range(&c->m->code, addr, span);
  ranges_remove(&c->m->mem, addr, addr + span);
  return 0;
}

int64_t sys_mprotect(Cpu *c, const uint64_t *a) {
  uint64_t addr = a[0], span = page_up(a[1]);
  mem_init(c);
  if (addr & (PAGE - 1)) return -EINVAL;
  if (span < a[1]) return -ENOMEM;
  if (span && guest_mem_hits_emulator(c, addr, span)) return -ENOMEM;
  /* Nothing mapped there (the heap beyond the break): the kernel's ENOMEM. */
  if (span && proc_of(c)->mem_noted && !ranges_mapped(&c->m->mem, addr, addr + span))
    return -ENOMEM;
  if (host_page() > GUEST_PAGE) return guest_pages_protect(c, addr, span, (int)(a[2] & GUEST_PROT_ALL));
  if (mprotect(GUEST_PTR(addr), span, guest_prot_on_host(a[2])) < 0) return -errno;
  block_invalidate_range(&c->m->code, addr, span);
  ranges_protect(&c->m->mem, addr, addr + span, (int)(a[2] & GUEST_PROT_ALL));
  return 0;
}

/* mremap that may move the mapping: where it stands if it can (not with DONTUNMAP, which
 * always moves, nor for a second mapping of shared memory, old_size 0), else to a place
 * of the guest's space, reserved first so that nothing else is unmapped there. */
static void *remap_in_guest_space(Cpu *c, uint64_t old, uint64_t old_size, uint64_t new_size,
                                  int flags) {
  if (!(flags & X64_MREMAP_DONTUNMAP) && old_size) {
    void *r = mremap(GUEST_PTR(old), old_size, new_size, 0);
    if (r != MAP_FAILED || errno != ENOMEM) return r;
  }
  void *to = guest_space_map(&proc_of(c)->space, 0, new_size, PAGE, 0, PROT_NONE,
                             MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (to == MAP_FAILED) return MAP_FAILED;
  void *r = mremap(GUEST_PTR(old), old_size, new_size, flags | X64_MREMAP_FIXED, to);
  if (r == MAP_FAILED) {
    int e = errno;
    munmap(to, new_size);
    errno = e;
  }
  return r;
}

static int64_t remap_guest(Cpu *c, const uint64_t *a) {
  uint64_t old = a[0], old_len = page_up(a[1]), new_len = page_up(a[2]), flags = a[3], to = a[4];
  mem_init(c);
  if (old & (PAGE - 1)) return -EINVAL;
  if (old_len && guest_mem_hits_emulator(c, old, old_len)) return -EFAULT;
  if ((flags & X64_MREMAP_FIXED) && (to + new_len < to || to + new_len > GUEST_USER_TOP)) return -EINVAL;
  if ((flags & X64_MREMAP_FIXED) && guest_mem_hits_emulator(c, to, new_len)) return -ENOMEM;
  /* Pieces of host pages: x64emu moves them itself (a whole host page and more, and to a
   * host page, the host can). */
  const uint64_t hp = host_page();
  if (hp > GUEST_PAGE && ((old | old_len) & (hp - 1) || ((flags & X64_MREMAP_FIXED) && (to & (hp - 1))))) {
    if (old_len == 0 || new_len == 0) return -EINVAL;
    return guest_pages_remap(c, old, old_len, new_len, (int)flags);
  }
  int prot = ranges_prot(&c->m->mem, old); /* the moved pages keep theirs */
  void *r = (flags & X64_MREMAP_MAYMOVE) && !(flags & X64_MREMAP_FIXED)
                ? remap_in_guest_space(c, old, a[1], a[2], (int)flags)
                : mremap(GUEST_PTR(old), a[1], a[2], (int)flags, GUEST_PTR(to));
  if (r == MAP_FAILED) return -errno;
  uint64_t got = (uint64_t)(uintptr_t)r;
  block_invalidate_range(&c->m->code, old, old_len);
  if (got != old) block_invalidate_range(&c->m->code, got, new_len);
  if (!(flags & X64_MREMAP_DONTUNMAP)) {
    if (got != old) ranges_remove(&c->m->mem, old, old + old_len);
    else if (new_len < old_len) ranges_remove(&c->m->mem, old + new_len, old + old_len);
  }
  ranges_add(&c->m->mem, got, got + new_len, prot < 0 ? GUEST_PROT_READ | GUEST_PROT_WRITE : prot);
  return (int64_t)got;
}

/* Advice that discards or hides contents: refused on the emulator's memory. */
static bool advice_is_destructive(int advice) {
  switch (advice) {
  case MADV_DONTNEED: case MADV_FREE: case MADV_REMOVE: case MADV_DONTFORK:
  case MADV_WIPEONFORK: case MADV_HWPOISON: case 101 /* MADV_SOFT_OFFLINE */:
  case 24 /* MADV_DONTNEED_LOCKED */:
    return true;
  default:
    return false;
  }
}

int64_t sys_madvise(Cpu *c, const uint64_t *a) {
  uint64_t addr = a[0], span = page_up(a[1]);
  int advice = (int)a[2];
  mem_init(c);
  if (addr & (PAGE - 1)) return -EINVAL;
  if (advice_is_destructive(advice) && span && guest_mem_hits_emulator(c, addr, span))
    return -EINVAL;
  if (host_page() > GUEST_PAGE) {
    int64_t r = guest_pages_advise(c, addr, span, advice, advice_is_destructive(advice));
    if (r < 0) return r;
  } else if (madvise(GUEST_PTR(addr), a[1], advice) < 0) {
    return -errno;
  }
  if (advice_is_destructive(advice)) block_invalidate_range(&c->m->code, addr, span);
  return 0;
}

/* The host syncs from its page's start: on larger host pages, from the one holding a[0]. */
/* A hole in the guest's mappings is the kernel's ENOMEM, once the flags have passed its
 * checks: the host may have x64emu's own memory there (the break's reservation), or its
 * larger pages cover more than the guest's. */
int64_t sys_msync(Cpu *c, const uint64_t *a) {
  if (a[0] & (PAGE - 1)) return -EINVAL;
  bool hole = proc_of(c)->mem_noted && !ranges_mapped(&c->m->mem, a[0], a[0] + page_up(a[1]));
  uint64_t at = a[0] & ~(host_page() - 1);
  int64_t r = host_result(msync(GUEST_PTR(at), a[1] + (a[0] - at), (int)a[2]));
  return r == 0 && hole ? -ENOMEM : r;
}

/* One byte per page of the range goes into the guest's vector. */
int64_t sys_mincore(Cpu *c, const uint64_t *a) {
  void *vec;
  if (page_up(a[1]) < a[1]) return -ENOMEM;
  /* A vector not the guest's: the kernel's EINVAL and ENOMEM come first (refused). */
  bool ours = guest_area(c, a[2], page_up(a[1]) / PAGE, GUEST_PROT_WRITE, &vec) && a[2];
  if (host_page() > GUEST_PAGE && !(a[0] & (PAGE - 1))) {
    /* Any part not mapped: the kernel's ENOMEM, which the host's larger pages would hide. */
    if (!ranges_mapped(&c->m->mem, a[0], a[0] + page_up(a[1]))) return -ENOMEM;
    return ours ? guest_pages_mincore(a[0], a[1], vec) : -EFAULT;
  }
  return host_result(syscall(SYS_mincore, GUEST_PTR(a[0]), a[1], vec));
}

/* ---- mlockall ---- */

enum { X64_MCL_CURRENT = 1, X64_MCL_FUTURE = 2, X64_MCL_ONFAULT = 4 };
#define X64_MLOCK_ONFAULT 1

/* The host's lock of the guest's pages [addr, addr + len) as mlockall's flags say
 * (MCL_ONFAULT: as they are first touched). The raw calls: a sanitizer's runtime makes
 * libc's mlock and munlock do nothing. */
static int lock_pages(uint64_t addr, uint64_t len, int flags) {
  if (flags & X64_MCL_ONFAULT)
    return (int)syscall(SYS_mlock2, GUEST_PTR(addr), (size_t)len, X64_MLOCK_ONFAULT);
  return (int)syscall(SYS_mlock, GUEST_PTR(addr), (size_t)len);
}

static void unlock_pages(uint64_t addr, uint64_t len) {
  syscall(SYS_munlock, GUEST_PTR(addr), (size_t)len);
}

/* A new mapping of the guest's under MCL_FUTURE is locked, or, as the kernel refuses a
 * mapping it cannot lock, undone: EAGAIN. */
static int64_t lock_new(Cpu *c, int64_t got, uint64_t len) {
  int flags = proc_of(c)->mlock_future;
  if (got < 0 || !flags || !len || lock_pages((uint64_t)got, page_up(len), flags) == 0) return got;
  uint64_t undo[2] = {(uint64_t)got, len};
  sys_munmap(c, undo);
  return -EAGAIN;
}

int64_t sys_mmap(Cpu *c, const uint64_t *a) { return lock_new(c, map_guest(c, a), a[1]); }

/* A moved or grown mapping is locked as far as the host allows: the move cannot be undone. */
int64_t sys_mremap(Cpu *c, const uint64_t *a) {
  int64_t got = remap_guest(c, a);
  int future = proc_of(c)->mlock_future;
  if (got >= 0 && future) lock_pages((uint64_t)got, page_up(a[2]), future);
  return got;
}

/* Where the main stack's mapping starts as the kernel's would: x64emu maps all of it at
 * once, the kernel a grows-down mapping of what the program has touched (at least the
 * 132 KiB it starts with). Locking all of it would count 8 MiB against RLIMIT_MEMLOCK. */
static uint64_t stack_reach(Cpu *c, const Range *r) {
  uint64_t at = proc_of(c)->stack_at, start = 132 * 1024;
  if (!at || at < r->lo || at >= r->hi || r->hi - r->lo <= start) return r->lo;
  uint64_t hp = host_page(), pages = (r->hi - r->lo) / hp;
  unsigned char *in = malloc(pages);
  uint64_t low = r->hi - start;
  if (in && syscall(SYS_mincore, GUEST_PTR(r->lo), (size_t)(r->hi - r->lo), in) == 0)
    for (uint64_t i = 0; i < pages; i++)
      if (in[i] & 1) {
        if (r->lo + i * hp < low) low = r->lo + i * hp;
        break;
      }
  free(in);
  return low;
}

/* mlockall(flags) locks the guest's mappings, not the emulator's memory beside them, and
 * with MCL_FUTURE the guest's later ones (lock_new, the break as it grows). One the
 * host refuses (RLIMIT_MEMLOCK) undoes the rest: ENOMEM, as the kernel's check first. */
int64_t sys_mlockall(Cpu *c, const uint64_t *a) {
  int flags = (int)a[0];
  mem_init(c);
  if (!flags || (flags & ~(X64_MCL_CURRENT | X64_MCL_FUTURE | X64_MCL_ONFAULT)) ||
      flags == X64_MCL_ONFAULT)
    return -EINVAL;
  if (flags & X64_MCL_CURRENT) {
    const RangeSet *mem = &c->m->mem;
    for (size_t i = 0; i < mem->n; i++) {
      const Range *r = &mem->r[i];
      uint64_t lo = stack_reach(c, r);
      if ((r->prot & GUEST_PROT_RESERVED) || lock_pages(lo, r->hi - lo, flags) == 0) continue;
      int err = errno;
      for (size_t j = 0; j < i; j++) unlock_pages(mem->r[j].lo, mem->r[j].hi - mem->r[j].lo);
      return -err;
    }
  }
  proc_of(c)->mlock_future = flags & X64_MCL_FUTURE ? flags & ~X64_MCL_CURRENT : 0;
  return 0;
}

int64_t sys_munlockall(Cpu *c, const uint64_t *a) {
  mem_init(c);
  const RangeSet *mem = &c->m->mem;
  for (size_t i = 0; i < mem->n; i++)
    if (!(mem->r[i].prot & GUEST_PROT_RESERVED))
      unlock_pages(mem->r[i].lo, mem->r[i].hi - mem->r[i].lo);
  proc_of(c)->mlock_future = 0;
  return 0;
}

/* ---- System V shared memory: shmat and shmdt ---- */

enum { SHM_RDONLY_ = 010000, SHM_RND_ = 020000, SHM_REMAP_ = 040000, SHM_EXEC_ = 0100000 };

/* The attachment at addr in the process's list, or NULL. */
static struct ShmAttached *shm_find(Process *p, uint64_t addr) {
  for (unsigned i = 0; i < p->nshm; i++)
    if (p->shm[i].addr == addr) return &p->shm[i];
  return NULL;
}

static bool shm_note(Process *p, uint64_t addr, uint64_t len) {
  struct ShmAttached *old = shm_find(p, addr); /* a stale one the guest unmapped */
  if (old) return old->len = len, true;
  if (p->nshm == p->shm_cap) {
    unsigned cap = p->shm_cap ? 2 * p->shm_cap : 8;
    struct ShmAttached *bigger = realloc(p->shm, cap * sizeof *bigger);
    if (!bigger) return false;
    p->shm = bigger, p->shm_cap = cap;
  }
  p->shm[p->nshm++] = (struct ShmAttached){addr, len};
  return true;
}

/* shmat(id, addr, flags): the host attaches the segment where the guest says, or, with no
 * address, where the guest's space has room (reserved first, then taken over with
 * SHM_REMAP), never on the emulator's memory. Its pages are then the guest's, shared.
 * SHMLBA is the page, as on x86-64; on a host with larger pages the attachment takes
 * whole host pages, and an address must be a multiple of one. */
int64_t sys_shmat(Cpu *c, const uint64_t *a) {
  int id = (int)a[0], flags = (int)a[2];
  uint64_t addr = a[1], align = host_page();
  bool fixed = addr != 0;
  mem_init(c);
  if (addr & (align - 1)) {
    if (!(flags & SHM_RND_)) return -EINVAL;
    addr &= ~(align - 1);
  }
  if (!addr && (flags & SHM_REMAP_)) return -EINVAL;
  if (fixed && !addr) return -EPERM; /* rounded down to page 0, below mmap_min_addr */
  struct shmid_ds ds;
  if (shmctl(id, IPC_STAT, &ds) < 0) return -errno;
  uint64_t len = host_page_up(ds.shm_segsz);
  int hflags = flags & (SHM_RDONLY_ | SHM_REMAP_);
  void *at;
  if (fixed) {
    if (addr + len < addr || addr + len > GUEST_USER_TOP) return -EINVAL;
    if (guest_mem_hits_emulator(c, addr, len)) return -EINVAL;
    at = shmat(id, GUEST_PTR(addr), hflags);
    if (at == (void *)-1) return -errno;
  } else {
    void *room = guest_space_map(&proc_of(c)->space, 0, len, align, 0, PROT_NONE,
                                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (room == MAP_FAILED) return -errno;
    at = shmat(id, room, hflags | SHM_REMAP_);
    if (at == (void *)-1) {
      int err = errno;
      munmap(room, len);
      return -err;
    }
  }
  uint64_t got = (uint64_t)(uintptr_t)at;
  block_invalidate_range(&c->m->code, got, len);
  int prot = GUEST_PROT_READ | (flags & SHM_RDONLY_ ? 0 : GUEST_PROT_WRITE) |
             (flags & SHM_EXEC_ ? GUEST_PROT_EXEC : 0);
  if (!ranges_add(&c->m->mem, got, got + len, prot | GUEST_MAP_SHARED) ||
      !shm_note(proc_of(c), got, len)) {
    shmdt(at);
    ranges_remove(&c->m->mem, got, got + len);
    return -ENOMEM;
  }
  return lock_new(c, (int64_t)got, len);
}

/* shmdt(addr): the host detaches what is attached there; the guest's ranges forget the
 * length shmat noted. An address with nothing attached is the host's EINVAL. */
int64_t sys_shmdt(Cpu *c, const uint64_t *a) {
  Process *p = proc_of(c);
  uint64_t addr = a[0];
  if (addr & (PAGE - 1)) return -EINVAL;
  struct ShmAttached *att = shm_find(p, addr);
  if (!att) return -EINVAL;
  uint64_t len = att->len;
  *att = p->shm[--p->nshm];
  if (shmdt(GUEST_PTR(addr)) < 0) return -errno;
  block_invalidate_range(&c->m->code, addr, len);
  ranges_remove(&c->m->mem, addr, addr + len);
  return 0;
}

int64_t sys_mlock(Cpu *c, const uint64_t *a) { return host_result(lock_pages(a[0], a[1], 0)); }

/* MLOCK_ONFAULT is the same on every host; without flags the call is mlock (which
 * qemu-user, where the aarch64 build is tested, has, and mlock2 not). */
int64_t sys_mlock2(Cpu *c, const uint64_t *a) {
  if (!(unsigned)a[2]) return sys_mlock(c, a);
  return host_result(syscall(SYS_mlock2, GUEST_PTR(a[0]), (size_t)a[1], (unsigned)a[2]));
}

int64_t sys_munlock(Cpu *c, const uint64_t *a) {
  return host_result(syscall(SYS_munlock, GUEST_PTR(a[0]), (size_t)a[1]));
}

/* The heap lives in a reservation of its own (brk.c), which also drops decoded code when
 * the break shrinks. On a host with larger pages, the guest pages a shrink leaves in the
 * host page of the new break are zeroed, so that they read as zero when it grows again. */
int64_t sys_brk(Cpu *c, const uint64_t *a) {
  Process *p = proc_of(c);
  const uint64_t old_top = guest_page_up(p->brk_cur);
  const uint64_t now = brk_set(p, a[0]), new_top = guest_page_up(now);
  if (p->mlock_future && new_top > old_top) lock_pages(old_top, new_top - old_top, p->mlock_future);
  if (host_page() > GUEST_PAGE && new_top < old_top) {
    uint64_t host_top = host_page_up(new_top);
    uint64_t kept_end = host_top < old_top ? host_top : old_top;
    if (kept_end > new_top) guest_pages_advise(c, new_top, kept_end - new_top, MADV_DONTNEED, true);
  }
  return (int64_t)now;
}
