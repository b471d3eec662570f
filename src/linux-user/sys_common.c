/* sys_common.c: fault-safe guest copies, /proc/self/exe recognition, open flag translation. */
#define _GNU_SOURCE
#include "sys_common.h"

#include <fcntl.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
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

int guest_copy_out(uint64_t dst, const void *src, size_t n) {
  if (n && !dst) return -EFAULT;
  return copy_guarded(GUEST_PTR(dst), src, n);
}

int guest_copy_in(void *dst, uint64_t src, size_t n) {
  if (n && !src) return -EFAULT;
  return copy_guarded(dst, GUEST_PTR(src), n);
}

int64_t guest_read_str(char *dst, size_t cap, uint64_t src) {
  if (!src) return -EFAULT;
  sigjmp_buf here, *saved = fault_landing;
  volatile int64_t r = -ENAMETOOLONG;
  if (sigsetjmp(here, 0) == 0) {
    fault_landing = &here;
    const volatile char *s = GUEST_PTR(src);
    for (size_t i = 0; i < cap; i++) {
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

/* ---- /proc/self/exe ---- */

/* Matches /proc/{self,thread-self,<pid>}[/task/<tid>]/exe after lexical normalisation
 * ("//", ".", ".."): the names under which the kernel would show the emulator. */
static bool normalized_is_self_exe(const char *path) {
  char buf[4096];
  const char *comp[8];
  int n = 0;
  if (strlen(path) >= sizeof buf) return false;
  strcpy(buf, path);
  for (char *save = NULL, *tok = strtok_r(buf, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
    if (!strcmp(tok, ".")) continue;
    if (!strcmp(tok, "..")) {
      if (n) n--;
      continue;
    }
    if (n == 8) return false;
    comp[n++] = tok;
  }
  if (n < 3 || strcmp(comp[0], "proc") || strcmp(comp[n - 1], "exe")) return false;
  char pid[24], tid[24];
  snprintf(pid, sizeof pid, "%d", (int)getpid());
  snprintf(tid, sizeof tid, "%d", (int)gettid());
  bool self = !strcmp(comp[1], "self") || !strcmp(comp[1], pid);
  if (n == 3) return self || !strcmp(comp[1], "thread-self");
  return n == 5 && self && !strcmp(comp[2], "task") && !strcmp(comp[3], tid);
}

bool path_names_self_exe(int dirfd, uint64_t guest_path) {
  char path[4096], full[8192];
  if (guest_read_str(path, sizeof path, guest_path) < 0) return false;
  if (!strstr(path, "exe")) return false; /* the common case, without a getcwd */
  if (path[0] == '/') return normalized_is_self_exe(path);
  char base[4096];
  if (dirfd == X64_AT_FDCWD) {
    if (!getcwd(base, sizeof base)) return false;
  } else {
    char link[64];
    snprintf(link, sizeof link, "/proc/self/fd/%d", dirfd);
    ssize_t len = readlink(link, base, sizeof base - 1);
    if (len <= 0) return false;
    base[len] = 0;
  }
  snprintf(full, sizeof full, "%s/%s", base, path);
  return normalized_is_self_exe(full);
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
