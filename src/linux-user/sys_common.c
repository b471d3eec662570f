/* sys_common.c: fault-safe guest copies, /proc/self/exe recognition, open flag translation. */
#define _GNU_SOURCE
#include "sys_common.h"

#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include "../interp/fault.h"

/* A host fault inside these copies lands here instead of becoming a guest SIGSEGV. */
static int copy_guarded(void *dst, const void *src, size_t n) {
  sigjmp_buf here, *saved = fault_landing;
  int r = 0;
  if (sigsetjmp(here, 0) == 0) {
    fault_landing = &here;
    memcpy(dst, src, n);
  } else {
    r = -EFAULT;
  }
  fault_landing = saved;
  return r;
}

uint64_t guest_prefix(Cpu *c, uint64_t addr, uint64_t len, int access) {
  /* A process whose memory the loader did not note has none to tell from the emulator's. */
  if (!proc_of(c)->mem_noted) return len;
  return ranges_span(&c->m->mem, addr, len, access);
}

/* 1 MiB: the kernel's copies start at a buffer's start, or at a struct's field. */
#define REFUSED_SIZE (1u << 20)

void *refused_by_kernel(uint64_t addr) {
  static void *area;
  if (addr >> 63) return (void *)(uintptr_t)addr; /* the kernel's half, on every host */
  const uintptr_t within = addr & 0xfff; /* the address's alignment, which calls check */
  void *a = __atomic_load_n(&area, __ATOMIC_ACQUIRE);
  if (a) return (char *)a + within;
  a = mmap(NULL, REFUSED_SIZE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (a == MAP_FAILED) return (void *)~(uintptr_t)0xfff; /* the kernel's half, refused early */
  void *none = NULL;
  if (!__atomic_compare_exchange_n(&area, &none, a, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
    munmap(a, REFUSED_SIZE); /* another thread's came first */
    a = none;
  }
  return (char *)a + within;
}

void *guest_transfer(Cpu *c, uint64_t addr, uint64_t len, int access, size_t *room) {
  if (len > INT64_MAX) len = INT64_MAX; /* the kernel's MAX_RW_COUNT cuts it further */
  *room = len ? guest_prefix(c, addr, len, access) : 0;
  if (len && !*room) {
    *room = len;
    return refused_by_kernel(addr);
  }
  return GUEST_PTR(addr);
}

bool guest_area(Cpu *c, uint64_t addr, uint64_t len, int access, void **host) {
  *host = GUEST_PTR(addr);
  if (!addr || !len || guest_prefix(c, addr, len, access) == len) return true;
  *host = refused_by_kernel(addr);
  return false;
}

const struct iovec *guest_iovec(Cpu *c, uint64_t addr, uint64_t cnt, int access,
                                struct iovec *out, uint64_t *n) {
  *n = cnt;
  if (cnt > IOV_MAX || guest_copy_in(c, out, addr, (size_t)cnt * sizeof *out) < 0)
    return refused_by_kernel(addr);
  uint64_t before = 0;
  for (uint64_t i = 0; i < cnt; i++) {
    uint64_t base = (uint64_t)(uintptr_t)out[i].iov_base, len = out[i].iov_len;
    if ((int64_t)len < 0) break; /* the kernel's EINVAL for the total: it is given this one */
    uint64_t got = base ? guest_prefix(c, base, len, access) : 0;
    if (got < len) {
      if (before == 0 && got == 0) {
        out[i].iov_base = refused_by_kernel(base);
        *n = i + 1;
      } else {
        out[i].iov_len = got;
        *n = got ? i + 1 : i;
      }
      break;
    }
    before += len;
  }
  return out;
}

int guest_copy_out(Cpu *c, uint64_t dst, const void *src, size_t n) {
  if (n && (!dst || guest_prefix(c, dst, n, GUEST_PROT_WRITE) != n)) return -EFAULT;
  return copy_guarded(GUEST_PTR(dst), src, n);
}

int guest_copy_in(Cpu *c, void *dst, uint64_t src, size_t n) {
  if (n && (!src || guest_prefix(c, src, n, GUEST_PROT_READ) != n)) return -EFAULT;
  return copy_guarded(dst, GUEST_PTR(src), n);
}

void *recv_buf_open(Cpu *c, RecvBuf *b, uint64_t addr, size_t *len, size_t most) {
  void *in_place;
  b->guest = addr;
  b->bounce = NULL;
  if (guest_area(c, addr, *len, GUEST_PROT_WRITE, &in_place) && in_place) return in_place;
  if (*len > most) *len = most;
  return b->bounce = malloc(*len ? *len : 1);
}

int64_t recv_buf_done(Cpu *c, RecvBuf *b, int64_t n) {
  if (n >= 0 && b->bounce && guest_copy_out(c, b->guest, b->bounce, (size_t)n) < 0) n = -EFAULT;
  free(b->bounce);
  return n;
}

int64_t guest_strlen(Cpu *c, uint64_t addr, size_t max) {
  size_t room = addr ? (size_t)guest_prefix(c, addr, max, GUEST_PROT_READ) : 0;
  sigjmp_buf here, *saved = fault_landing;
  volatile int64_t r = room < max ? -EFAULT : -E2BIG;
  if (sigsetjmp(here, 0) == 0) {
    fault_landing = &here;
    const char *end = room ? memchr(GUEST_PTR(addr), 0, room) : NULL;
    if (end) r = end - (const char *)GUEST_PTR(addr);
  } else {
    r = -EFAULT;
  }
  fault_landing = saved;
  return r;
}

int64_t guest_read_str(Cpu *c, char *dst, size_t cap, uint64_t src) {
  if (cap) dst[0] = 0;
  if (!src) return -EFAULT;
  /* As far as the guest's readable memory goes, and no further than cap. */
  size_t room = (size_t)guest_prefix(c, src, cap, GUEST_PROT_READ);
  sigjmp_buf here, *saved = fault_landing;
  volatile int64_t r = room < cap ? -EFAULT : -ENAMETOOLONG;
  if (sigsetjmp(here, 0) == 0) {
    fault_landing = &here;
    const volatile char *s = GUEST_PTR(src);
    for (size_t i = 0; i < room; i++) {
      dst[i] = s[i];
      if (!dst[i]) {
        r = (int64_t)i;
        break;
      }
    }
  } else {
    r = -EFAULT;
  }
  fault_landing = saved;
  if (r < 0 && cap) dst[0] = 0;
  return r;
}

/* ---- open(2) flags ---- */

/* The kernel's own O_LARGEFILE: glibc defines O_LARGEFILE as 0 on 64-bit hosts, but
 * F_GETFL reports the kernel's bit. */
#if defined(__aarch64__)
#define HOST_O_LARGEFILE 0400000
#else
#define HOST_O_LARGEFILE 0100000
#endif

static const struct {
  uint32_t x64;
  int host;
} open_flag_map[] = {
    {00000100, O_CREAT},     {00000200, O_EXCL},
    {00000400, O_NOCTTY},    {00001000, O_TRUNC},
    {00002000, O_APPEND},    {00004000, O_NONBLOCK},
    {00010000, O_DSYNC},     {00020000, O_ASYNC},
    {00040000, O_DIRECT},    {00100000, HOST_O_LARGEFILE},
    {00200000, O_DIRECTORY}, {00400000, O_NOFOLLOW},
    {01000000, O_NOATIME},   {02000000, O_CLOEXEC},
    {04000000, O_SYNC & ~O_DSYNC}, {010000000, O_PATH},
    {020000000, O_TMPFILE & ~O_DIRECTORY},
};
#define N_OPEN_FLAGS (sizeof open_flag_map / sizeof open_flag_map[0])

int open_flags_to_host(uint64_t x64) {
  int host = (int)(x64 & O_ACCMODE);
  uint32_t known = O_ACCMODE;
  for (size_t i = 0; i < N_OPEN_FLAGS; i++) {
    known |= open_flag_map[i].x64;
    if (x64 & open_flag_map[i].x64) host |= open_flag_map[i].host;
  }
  /* Bits x86-64 does not define go on unchanged, so the host kernel judges them. */
  return host | (int)(x64 & ~(uint64_t)known & 0xffffffffu);
}

uint64_t open_flags_from_host(int host) {
  uint64_t x64 = (uint64_t)(host & O_ACCMODE);
  int known = O_ACCMODE;
  for (size_t i = 0; i < N_OPEN_FLAGS; i++) {
    known |= open_flag_map[i].host;
    if ((host & open_flag_map[i].host) == open_flag_map[i].host && open_flag_map[i].host)
      x64 |= open_flag_map[i].x64;
  }
  return x64 | (uint64_t)(uint32_t)(host & ~known);
}
