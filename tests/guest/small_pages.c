/* small_pages.c: mappings at x86-64's 4 KiB granularity, which a host with 16 or 64 KiB
 * pages must put together (guest_pages.h): a file mapped at 4 KiB offsets, placed and at
 * a fixed address inside another mapping; anonymous memory over part of a file mapping;
 * one page's protection or mapping changed in the middle of a mapping, as /proc/self/maps,
 * the kernel's checks of system call buffers, mincore and msync see it; mremap of a few
 * pages; MADV_DONTNEED on one page; MAP_FIXED_NOREPLACE on a taken page; the break moved
 * by a page at a time. The output is
 * compared with the native run's. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

enum { PAGE = 4096, FILE_PAGES = 12 };

/* Page n of the file: its bytes are n * 16 + i % 16, so each page reads differently. */
static uint8_t file_byte(unsigned page, unsigned i) { return (uint8_t)(page * 16 + i % 16); }

static int make_file(void) {
  char path[] = "/tmp/x64emu-small-pages.XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0) exit(2);
  unlink(path);
  static uint8_t buf[FILE_PAGES * PAGE];
  for (unsigned p = 0; p < FILE_PAGES; p++)
    for (unsigned i = 0; i < PAGE; i++) buf[p * PAGE + i] = file_byte(p, i);
  if (write(fd, buf, sizeof buf) != (ssize_t)sizeof buf) exit(2);
  return fd;
}

/* Whether `pages` pages at p hold file pages first, first + 1, ... */
static int holds_file(const uint8_t *p, unsigned first, unsigned pages) {
  for (unsigned n = 0; n < pages; n++)
    for (unsigned i = 0; i < PAGE; i += 511)
      if (p[n * PAGE + i] != file_byte(first + n, i)) return 0;
  return 1;
}

static int zeros(const uint8_t *p, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (p[i]) return 0;
  return 1;
}

/* What /proc/self/maps says of [p, p + len), in pages and permissions, neighbours with
 * the same permissions joined (where the kernel splits its areas is its own affair). */
static void maps_of(const char *what, const uint8_t *p, size_t len) {
  FILE *f = fopen("/proc/self/maps", "r");
  char line[512], last[8] = "";
  unsigned long start = 0, end = 0;
  printf("%s:", what);
  uintptr_t lo = (uintptr_t)p, hi = lo + len;
  while (f && fgets(line, sizeof line, f)) {
    unsigned long s, e;
    char perms[8];
    if (sscanf(line, "%lx-%lx %7s", &s, &e, perms) != 3 || e <= lo || s >= hi) continue;
    s = (s < lo ? lo : s) - lo;
    e = (e > hi ? hi : e) - lo;
    if (s == end && !strcmp(perms, last)) {
      end = e;
      continue;
    }
    if (*last) printf(" [%lu,%lu) %s", start / PAGE, end / PAGE, last);
    start = s, end = e;
    strcpy(last, perms);
  }
  if (*last) printf(" [%lu,%lu) %s", start / PAGE, end / PAGE, last);
  if (f) fclose(f);
  printf("\n");
}

/* A system call's result and its errno's name where it failed. */
static void result(const char *what, long r) {
  printf("%s: %ld%s\n", what, r, r >= 0 ? "" : errno == EFAULT ? " EFAULT" : errno == ENOMEM ? " ENOMEM" : " (another error)");
}

int main(void) {
  int fd = make_file();
  /* A file at 4 KiB offsets, where the system places it. */
  for (unsigned first = 1; first < 8; first += 3) {
    uint8_t *m = mmap(NULL, 3 * PAGE, PROT_READ, MAP_PRIVATE, fd, (off_t)first * PAGE);
    printf("file at page %u: %s\n", first, m != MAP_FAILED && holds_file(m, first, 3) ? "its bytes" : "wrong");
    if (m != MAP_FAILED) munmap(m, 3 * PAGE);
  }

  /* Eight anonymous pages, then pieces of them replaced and changed. */
  uint8_t *a = mmap(NULL, 8 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (a == MAP_FAILED) return 1;
  memset(a, 0x5a, 8 * PAGE);
  uint8_t *f = mmap(a + 2 * PAGE, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, fd, 5 * PAGE);
  printf("file at page 5 over pages 2-3: %s, page 1 kept: %s, page 4 kept: %s\n",
         f == a + 2 * PAGE && holds_file(f, 5, 2) ? "its bytes" : "wrong", a[PAGE + 7] == 0x5a ? "yes" : "no",
         a[4 * PAGE] == 0x5a ? "yes" : "no");
  f[3] = 1; /* private: a copy */
  uint8_t *z = mmap(a + 3 * PAGE, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
  printf("anonymous over page 3: zeros %s, page 2 still the file's: %s\n",
         z == a + 3 * PAGE && zeros(z, PAGE) ? "yes" : "no", a[2 * PAGE + 100] == file_byte(5, 100) ? "yes" : "no");
  void *taken = mmap(a + 5 * PAGE, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
  printf("MAP_FIXED_NOREPLACE on page 5: %s\n", taken == MAP_FAILED && errno == EEXIST ? "EEXIST" : "taken");

  result("mprotect page 6 read-only", mprotect(a + 6 * PAGE, PAGE, PROT_READ));
  maps_of("maps", a, 8 * PAGE);
  int p[2];
  if (pipe(p) != 0 || write(p[1], "abcd", 4) != 4) return 1;
  result("read() into the read-only page", read(p[0], a + 6 * PAGE, 4));
  result("write() from it", write(p[1], a + 6 * PAGE, 4));

  result("munmap page 1", munmap(a + PAGE, PAGE));
  maps_of("maps", a, 8 * PAGE);
  result("write() from the unmapped page", write(p[1], a + PAGE, 4));
  unsigned char vec[8];
  result("mincore of pages 0-2", mincore(a, 3 * PAGE, vec));
  result("mincore of pages 2-5", mincore(a + 2 * PAGE, 4 * PAGE, vec));
  result("msync of page 1", msync(a + PAGE, PAGE, MS_SYNC));
  result("msync of page 2", msync(a + 2 * PAGE, PAGE, MS_SYNC));

  memset(a + 7 * PAGE, 0x77, PAGE);
  result("MADV_DONTNEED on page 7", madvise(a + 7 * PAGE, PAGE, MADV_DONTNEED));
  printf("page 7 zeros: %s, page 6 kept: %s\n", zeros(a + 7 * PAGE, PAGE) ? "yes" : "no",
         a[6 * PAGE + 9] == 0x5a ? "yes" : "no");

  /* Three pages grown to five (moved if it must be), and shrunk to two. */
  uint8_t *r = mmap(NULL, 3 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  memset(r, 0x33, 3 * PAGE);
  uint8_t *g = mremap(r, 3 * PAGE, 5 * PAGE, MREMAP_MAYMOVE);
  printf("mremap 3 -> 5 pages: %s, contents kept: %s, new pages zero: %s\n", g == MAP_FAILED ? "failed" : "done",
         g != MAP_FAILED && g[3 * PAGE - 1] == 0x33 && g[0] == 0x33 ? "yes" : "no",
         g != MAP_FAILED && zeros(g + 3 * PAGE, 2 * PAGE) ? "yes" : "no");
  uint8_t *s = mremap(g, 5 * PAGE, 2 * PAGE, 0);
  printf("mremap 5 -> 2 pages in place: %s\n", s == g ? "yes" : "no");
  maps_of("after mremap", s, 5 * PAGE);

  /* The break moves by 4 KiB pages: shrunk by one and grown again, that page is zero. */
  uint8_t *top = sbrk(0), *edge = (uint8_t *)(((uintptr_t)top + PAGE - 1) & ~(uintptr_t)(PAGE - 1));
  if (sbrk(edge - top + 3 * PAGE) == (void *)-1) return 1;
  memset(edge, 0x44, 3 * PAGE);
  sbrk(-2 * PAGE);
  maps_of("heap after shrinking by 2 pages", edge, 3 * PAGE);
  sbrk(2 * PAGE);
  printf("heap grown again: page kept %s, pages given back zero %s\n", edge[PAGE - 1] == 0x44 ? "yes" : "no",
         zeros(edge + PAGE, 2 * PAGE) ? "yes" : "no");
  return 0;
}
