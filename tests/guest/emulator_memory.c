/* emulator_memory.c: what a guest can find and reach of memory that is not its own, probed
 * as an attacker or a buggy program would, where natively there is nothing but unmapped
 * memory (and under an emulator, the emulator's own): the guest's /proc/self/maps and
 * smaps list its own mappings only, every one of them usable as such through the kernel;
 * the gaps between them give EFAULT to system calls, EIO through /proc/self/mem, and
 * SIGSEGV when an alternate signal stack is put there; /proc/self/mem reads the guest's
 * memory and writes its code, which then runs as written. Only outcomes are printed
 * (addresses differ between runs). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct Map {
  uint64_t lo, hi, offset;
  char perms[5];
  char name[256];
} Map;
static Map maps[512];
static int nmaps;

static int read_maps(const char *file, int smaps) {
  FILE *f = fopen(file, "r");
  if (!f) return -1;
  char line[1024];
  int n = 0;
  while (fgets(line, sizeof line, f)) {
    unsigned long long lo, hi, offset = 0;
    char perms[5];
    int name_at = 0;
    if (sscanf(line, "%llx-%llx %4s %llx %*s %*s %n", &lo, &hi, perms, &offset, &name_at) < 3) {
      if (!smaps) n = -1000; /* maps has nothing but such lines */
      continue;
    }
    if (!smaps && n < 512) {
      Map *m = &maps[n];
      m->lo = lo, m->hi = hi, m->offset = offset;
      memcpy(m->perms, perms, 5);
      snprintf(m->name, sizeof m->name, "%s", name_at ? line + name_at : "");
      m->name[strcspn(m->name, "\n")] = 0;
    }
    n++;
  }
  fclose(f);
  return n;
}

static int has_name(const char *name) {
  for (int i = 0; i < nmaps; i++)
    if (strstr(maps[i].name, name)) return 1;
  return 0;
}

/* Addresses in the gaps between the shown mappings: the page after each one and the page
 * before the next, and pages spread over the gap, below the vsyscall page. Not the gap
 * below the stack, into which the kernel grows the stack (x64emu's is mapped whole). */
static int gap_probes(uint64_t *out, int cap) {
  int n = 0;
  for (int i = 0; i + 1 < nmaps && n + 18 <= cap; i++) {
    uint64_t lo = maps[i].hi, hi = maps[i + 1].lo;
    if (hi <= lo || hi > 0x800000000000ull || !strcmp(maps[i + 1].name, "[stack]")) continue;
    out[n++] = lo;
    out[n++] = hi - 4096;
    for (int k = 1; k <= 16; k++) out[n++] = lo + (hi - lo) / 17 * k / 4096 * 4096;
  }
  return n;
}

/* The files the process has loaded: the program and what dl_iterate_phdr lists. */
static char objects[64][PATH_MAX];
static int nobjects;
static int note_object(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size, (void)data;
  if (info->dlpi_name[0] && nobjects < 64 && realpath(info->dlpi_name, objects[nobjects])) nobjects++;
  return 0;
}

/* What the guest cannot account for: a file mapping of no file it loaded, or more
 * anonymous memory than the few pages of bss, TLS and the loader's own it has. */
static int unexplained(void) {
  ssize_t n = readlink("/proc/self/exe", objects[0], PATH_MAX - 1);
  nobjects = n > 0 ? 1 : 0;
  if (n > 0) objects[0][n] = 0;
  dl_iterate_phdr(note_object, NULL);
  int bad = 0;
  uint64_t anon = 0;
  for (int i = 0; i < nmaps; i++) {
    const char *name = maps[i].name;
    if (name[0] == '/') {
      int known = 0;
      for (int k = 0; k < nobjects; k++) known |= !strcmp(name, objects[k]);
      bad += !known;
    } else if (!name[0]) {
      anon += maps[i].hi - maps[i].lo;
    }
  }
  return bad + (anon > (16u << 20));
}

/* The files' mappings by name, permissions, offset and size, in that order (the kernel's
 * one mapping for each of a segment's parts with other permissions). */
static int by_text(const void *a, const void *b) { return strcmp(a, b); }

static void file_mappings(void) {
  static char lines[512][300];
  int n = 0;
  for (int i = 0; i < nmaps; i++) {
    if (maps[i].name[0] != '/') continue;
    const char *base = strrchr(maps[i].name, '/') + 1;
    snprintf(lines[n++], sizeof lines[0], "  %s %s %08llx %llu kB", base, maps[i].perms,
             (unsigned long long)maps[i].offset, (unsigned long long)(maps[i].hi - maps[i].lo) >> 10);
  }
  qsort(lines, (size_t)n, sizeof lines[0], by_text);
  printf("files' mappings:\n");
  for (int i = 0; i < n; i++) puts(lines[i]);
}

static void on_usr1(int sig) { (void)sig; }

static int __attribute__((noinline)) call(void *code) { return ((int (*)(void))code)(); }

int main(void) {
  int p[2];
  if (pipe(p) != 0) return 1;
  sbrk(100); /* a break inside a page: the heap is still named, up to that page's end */
  void *heap = malloc(1 << 16);
  nmaps = read_maps("/proc/self/maps", 0);
  int nsmaps = read_maps("/proc/self/smaps", 1);
  printf("maps readable and well formed: %d\n", nmaps > 3);
  printf("smaps lists the same mappings: %d\n", nsmaps == nmaps);
  printf("mappings the guest cannot account for: %d\n", unexplained());
  printf("names: program %d, [heap] %d, [stack] %d, [vdso] %d, [vsyscall] last %d\n",
         has_name("emulator_memory"), has_name("[heap]"), has_name("[stack]"), has_name("[vdso]"),
         nmaps > 0 && !strcmp(maps[nmaps - 1].name, "[vsyscall]"));
  file_mappings();

  /* Every mapping shown is the guest's: the kernel reads each readable one, and writes
   * each writable one (its first byte, written back as it was). */
  int readable = 0, read_ok = 0, writable = 0, write_ok = 0;
  for (int i = 0; i < nmaps; i++) {
    if (!strcmp(maps[i].name, "[vsyscall]")) continue;
    void *at = (void *)(uintptr_t)maps[i].lo;
    if (maps[i].perms[0] == 'r') {
      readable++;
      char b;
      if (write(p[1], at, 1) == 1 && read(p[0], &b, 1) == 1) read_ok++;
    }
    if (maps[i].perms[0] == 'r' && maps[i].perms[1] == 'w') {
      writable++;
      if (write(p[1], at, 1) == 1 && read(p[0], at, 1) == 1) write_ok++;
    }
  }
  printf("readable mappings the kernel read: all %d\n", readable == read_ok);
  printf("writable mappings the kernel wrote: all %d\n", writable == write_ok);
  char *code_page = NULL;
  for (int i = 0; i < nmaps && !code_page; i++)
    if (!strcmp(maps[i].perms, "r-xp")) code_page = (char *)(uintptr_t)maps[i].lo;
  errno = 0;
  (void)!write(p[1], "x", 1);
  int efault = read(p[0], code_page, 1) < 0 && errno == EFAULT;
  printf("read() into read-only code: %s\n", efault ? "EFAULT" : "no EFAULT");
  char drain;
  if (efault) (void)!read(p[0], &drain, 1);

  /* The gaps: nothing there for the kernel to read or write. */
  static uint64_t probe[4096];
  int np = gap_probes(probe, 4096), faulted = 0;
  for (int i = 0; i < np; i++) {
    errno = 0;
    if (write(p[1], (void *)(uintptr_t)probe[i], 1) < 0 && errno == EFAULT) faulted++;
    else {
      char b;
      (void)!read(p[0], &b, 1);
    }
  }
  printf("gap probes giving EFAULT: all %d (of some: %d)\n", faulted == np, np > 0);

  /* /proc/self/mem: the guest's memory, and nothing in the gaps. */
  int mem = open("/proc/self/mem", O_RDWR);
  static const char secret[16] = "the guest's own";
  char got[16] = {0};
  printf("/proc/self/mem opened: %d\n", mem >= 0);
  printf("pread of a variable: %d\n",
         pread(mem, got, sizeof got, (off_t)(uintptr_t)secret) == 16 && !memcmp(got, secret, 16));
  int eio = 0;
  for (int i = 0; i < np; i++) {
    errno = 0;
    if (pwrite(mem, secret, sizeof secret, (off_t)probe[i]) < 0 && errno == EIO) eio++;
  }
  printf("pwrite into the gaps gives EIO: all %d\n", eio == np);
  /* Code written through mem runs as written (the kernel writes past the page's
   * protection). */
  unsigned char *fn = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  static const unsigned char ret1[] = {0xb8, 1, 0, 0, 0, 0xc3}, ret2[] = {0xb8, 2, 0, 0, 0, 0xc3};
  int before = -1, after = -1;
  if (fn != MAP_FAILED && pwrite(mem, ret1, sizeof ret1, (off_t)(uintptr_t)fn) == sizeof ret1) {
    before = call(fn);
    if (pwrite(mem, ret2, sizeof ret2, (off_t)(uintptr_t)fn) == sizeof ret2) after = call(fn);
  }
  printf("code written through /proc/self/mem: returns %d, then %d\n", before, after);

  /* An alternate signal stack in a gap: the frame cannot be written, so SIGSEGV. */
  int killed = 0, tried = 0;
  for (int i = 0; i < np && tried < 24; i += 9, tried++) {
    pid_t child = fork();
    if (child == 0) {
      stack_t ss = {.ss_sp = (void *)(uintptr_t)probe[i], .ss_size = 65536};
      if (sigaltstack(&ss, NULL) != 0) _exit(3);
      struct sigaction sa = {.sa_handler = on_usr1, .sa_flags = SA_ONSTACK};
      sigaction(SIGUSR1, &sa, NULL);
      raise(SIGUSR1);
      _exit(0);
    }
    int status;
    waitpid(child, &status, 0);
    if (WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV) killed++;
  }
  printf("children with an alternate stack in a gap killed by SIGSEGV: all %d\n", killed == tried);
  free(heap);
  return 0;
}
