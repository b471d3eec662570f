/* test_loader.c: the initial stack and auxv layout, loading real static binaries, and brk. */
#define _GNU_SOURCE
#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "proc_maps.h"

#include "interp/cpuid.h"
#include "loader/brk.h"
#include "loader/elf.h"
#include "loader/stack.h"
#include "test_machine.h"

#define BUSYBOX "/bin/busybox"

/* ---- helpers independent of the loader ---- */

static uint64_t page(void) { return (uint64_t)sysconf(_SC_PAGESIZE); }
static uint64_t pg_down(uint64_t a) { return a & ~(page() - 1); }
static uint64_t pg_up(uint64_t a) { return (a + page() - 1) & ~(page() - 1); }


static const char *perms_of_flags(uint32_t f) {
  static char s[5];
  s[0] = f & PF_R ? 'r' : '-';
  s[1] = f & PF_W ? 'w' : '-';
  s[2] = f & PF_X ? 'x' : '-';
  s[3] = 'p';
  s[4] = 0;
  return s;
}

/* An executable read with plain <elf.h> structures: the oracle for what the loader did. */
typedef struct RawElf {
  uint8_t *bytes;
  size_t size;
  Elf64_Ehdr eh;
  Elf64_Phdr ph[64];
} RawElf;

static void raw_read(const char *path, RawElf *r) {
  int fd = open(path, O_RDONLY);
  assert_true(fd >= 0);
  struct stat st;
  assert_int_equal(fstat(fd, &st), 0);
  r->size = (size_t)st.st_size;
  r->bytes = malloc(r->size);
  assert_non_null(r->bytes);
  assert_int_equal(pread(fd, r->bytes, r->size, 0), (ssize_t)r->size);
  close(fd);
  memcpy(&r->eh, r->bytes, sizeof r->eh);
  assert_true(r->eh.e_phnum <= 64);
  memcpy(r->ph, r->bytes + r->eh.e_phoff, r->eh.e_phnum * sizeof(Elf64_Phdr));
}

/* AT_PHDR as the ELF spec defines it: PT_PHDR, else where the PT_LOAD holding e_phoff maps. */
static uint64_t raw_phdr_vaddr(const RawElf *r) {
  for (int i = 0; i < r->eh.e_phnum; i++)
    if (r->ph[i].p_type == PT_PHDR) return r->ph[i].p_vaddr;
  for (int i = 0; i < r->eh.e_phnum; i++) {
    const Elf64_Phdr *p = &r->ph[i];
    if (p->p_type == PT_LOAD && r->eh.e_phoff >= p->p_offset &&
        r->eh.e_phoff < p->p_offset + p->p_filesz)
      return r->eh.e_phoff - p->p_offset + p->p_vaddr;
  }
  return 0;
}

/* Each PT_LOAD is mapped at vaddr + bias with the file's bytes, zeros up to the end of its
 * last page, and the segment's permissions. */
static void check_segments_mapped(const RawElf *r, uint64_t bias) {
  int loads = 0;
  for (int i = 0; i < r->eh.e_phnum; i++) {
    const Elf64_Phdr *p = &r->ph[i];
    if (p->p_type != PT_LOAD) continue;
    loads++;
    uint64_t at = p->p_vaddr + bias;
    const char *want = perms_of_flags(p->p_flags);
    assert_string_equal(maps_perms(pg_down(at)), want);
    assert_string_equal(maps_perms(pg_down(at + p->p_memsz - 1)), want);
    if (p->p_flags & PF_R) {
      assert_memory_equal((void *)(uintptr_t)at, r->bytes + p->p_offset, p->p_filesz);
      const uint8_t *z = (const uint8_t *)(uintptr_t)(at + p->p_filesz);
      const uint8_t *zend = (const uint8_t *)(uintptr_t)pg_up(at + p->p_memsz);
      for (; z < zend; z++)
        if (*z) fail_msg("segment %d: byte at %p should be zero (bss)", i, (void *)z);
    }
  }
  assert_true(loads > 0);
}

/* ---- the stack layout, from inputs we choose ---- */

static char *const t_argv[] = {"prog", "hello world", "", "--flag=x", NULL};
static char *const t_envp[] = {"A=1", "LONGER_NAME=some value with spaces", "EMPTY=", NULL};
static const char t_execfn[] = "/some/dir/prog";

static StackArgs sample_args(void) {
  StackArgs a = {
      .argv = t_argv,
      .envp = t_envp,
      .execfn = t_execfn,
      .phdr = 0x400040,
      .phnum = 10,
      .entry = 0x401bc0,
      .base = 0,
      .hwcap = 0x178bfbff,
      .uid = 1000,
      .euid = 1001,
      .gid = 100,
      .egid = 101,
      .secure = 0,
  };
  for (int i = 0; i < 16; i++) a.random[i] = (uint8_t)(0xA0 + i);
  return a;
}

typedef struct Aux {
  uint64_t type, val;
} Aux;

/* Reads the auxv that starts at *p; returns the number of entries before AT_NULL. */
static int read_auxv(const uint64_t *p, Aux *out, int max) {
  int n = 0;
  for (; p[0] != AT_NULL; p += 2) {
    assert_true(n < max);
    out[n].type = p[0];
    out[n].val = p[1];
    n++;
  }
  return n;
}

static uint64_t aux_get(const Aux *a, int n, uint64_t type) {
  int found = -1;
  for (int i = 0; i < n; i++)
    if (a[i].type == type) {
      if (found >= 0) fail_msg("auxv type %lu appears twice", (unsigned long)type);
      found = i;
    }
  if (found < 0) fail_msg("auxv type %lu missing", (unsigned long)type);
  return a[found].val;
}

static void stack_layout_matches_linux(void **state) {
  (void)state;
  const size_t size = 64 * 1024;
  uint8_t *mem = aligned_alloc(4096, size);
  assert_non_null(mem);
  memset(mem, 0xCC, size);
  const uint64_t lo = (uint64_t)(uintptr_t)mem, top = lo + size;
  StackArgs a = sample_args();

  uint64_t rsp = stack_build(mem, size, &a);
  assert_true(rsp > lo && rsp < top);
  assert_int_equal(rsp % 16, 0); /* the ABI: rsp 16-byte aligned at process entry */

  const uint64_t *sp = (const uint64_t *)(uintptr_t)rsp;
  assert_int_equal(sp[0], 4);
  const uint64_t *argv = sp + 1;
  for (int i = 0; i < 4; i++) {
    assert_true(argv[i] > rsp && argv[i] < top);
    assert_string_equal((const char *)(uintptr_t)argv[i], t_argv[i]);
  }
  assert_int_equal(argv[4], 0);
  const uint64_t *envp = argv + 5;
  for (int i = 0; i < 3; i++) {
    assert_true(envp[i] > rsp && envp[i] < top);
    assert_string_equal((const char *)(uintptr_t)envp[i], t_envp[i]);
  }
  assert_int_equal(envp[3], 0);

  Aux aux[64];
  const uint64_t *auxv = envp + 4;
  int n = read_auxv(auxv, aux, 64);
  assert_int_equal(aux_get(aux, n, AT_PHDR), a.phdr);
  assert_int_equal(aux_get(aux, n, AT_PHENT), sizeof(Elf64_Phdr));
  assert_int_equal(aux_get(aux, n, AT_PHNUM), a.phnum);
  assert_int_equal(aux_get(aux, n, AT_PAGESZ), 4096);
  assert_int_equal(aux_get(aux, n, AT_BASE), 0);
  assert_int_equal(aux_get(aux, n, AT_FLAGS), 0);
  assert_int_equal(aux_get(aux, n, AT_ENTRY), a.entry);
  assert_int_equal(aux_get(aux, n, AT_UID), 1000);
  assert_int_equal(aux_get(aux, n, AT_EUID), 1001);
  assert_int_equal(aux_get(aux, n, AT_GID), 100);
  assert_int_equal(aux_get(aux, n, AT_EGID), 101);
  assert_int_equal(aux_get(aux, n, AT_SECURE), 0);
  assert_int_equal(aux_get(aux, n, AT_HWCAP), 0x178bfbff);
  assert_int_equal(aux_get(aux, n, AT_HWCAP2), 0);
  assert_int_equal(aux_get(aux, n, AT_CLKTCK), 100);

  uint64_t random = aux_get(aux, n, AT_RANDOM);
  assert_true(random > rsp && random + 16 <= top);
  assert_memory_equal((const void *)(uintptr_t)random, a.random, 16);
  uint64_t platform = aux_get(aux, n, AT_PLATFORM);
  assert_true(platform > rsp && platform < top);
  assert_string_equal((const char *)(uintptr_t)platform, "x86_64");
  uint64_t execfn = aux_get(aux, n, AT_EXECFN);
  assert_string_equal((const char *)(uintptr_t)execfn, t_execfn);

  /* The vectors end below the data they point to: auxv's AT_NULL pair, then the random
   * bytes no lower. */
  const uint64_t vectors_end = (uint64_t)(uintptr_t)(auxv + 2 * n + 2);
  assert_true(vectors_end <= random);

  /* fs/exec.c's string area: argv strings, then envp strings, in ascending order and
   * packed, then the file name, then 8 zero bytes at the very top. */
  uint64_t next = argv[0];
  for (int i = 0; i < 4; i++) {
    assert_int_equal(argv[i], next);
    next += strlen(t_argv[i]) + 1;
  }
  for (int i = 0; i < 3; i++) {
    assert_int_equal(envp[i], next);
    next += strlen(t_envp[i]) + 1;
  }
  assert_int_equal(execfn, next);
  assert_int_equal(execfn + sizeof t_execfn, top - 8);
  assert_int_equal(*(const uint64_t *)(uintptr_t)(top - 8), 0);
  /* The platform string and random bytes sit below the strings, 16-byte aligned block. */
  assert_true(platform + 7 <= (argv[0] & ~15ull));
  assert_int_equal(random + 16, platform);
  free(mem);
}

static void stack_alignment_for_every_parity(void **state) {
  /* rsp stays 16-aligned whatever the number of pointers and string lengths. */
  (void)state;
  const size_t size = 16 * 1024;
  uint8_t *mem = aligned_alloc(4096, size);
  assert_non_null(mem);
  char *args[8] = {"a", "bb", "ccc", "dddd", "eeeee", "ffffff", "ggggggg", NULL};
  for (int argc = 0; argc <= 7; argc++) {
    char *saved = args[argc];
    args[argc] = NULL;
    for (int envc = 0; envc <= 3; envc++) {
      char *env[4] = {NULL, NULL, NULL, NULL};
      for (int e = 0; e < envc; e++) env[e] = args[e] ? args[e] : "X=1";
      StackArgs a = sample_args();
      a.argv = args;
      a.envp = env;
      a.execfn = argc & 1 ? "x" : "/a/longer/name";
      uint64_t rsp = stack_build(mem, size, &a);
      assert_int_not_equal(rsp, 0);
      assert_int_equal(rsp % 16, 0);
      assert_int_equal(*(const uint64_t *)(uintptr_t)rsp, (uint64_t)argc);
      const uint64_t *argv = (const uint64_t *)(uintptr_t)rsp + 1;
      assert_int_equal(argv[argc], 0);
      const uint64_t *envp = argv + argc + 1;
      assert_int_equal(envp[envc], 0);
    }
    args[argc] = saved;
  }
  free(mem);
}

static void stack_too_small_writes_nothing(void **state) {
  (void)state;
  uint8_t buf[4096 + 512];
  memset(buf, 0x5A, sizeof buf);
  StackArgs a = sample_args();
  /* The region [buf + 256, buf + 256 + 200) cannot hold the sample's stack. */
  assert_int_equal(stack_build(buf + 256, 200, &a), 0);
  for (size_t i = 0; i < sizeof buf; i++)
    if (buf[i] != 0x5A) fail_msg("byte %zu was written", i);
}

/* ---- loading real binaries ---- */

static void busybox_maps_like_the_kernel(void **state) {
  (void)state;
  RawElf r;
  raw_read(BUSYBOX, &r);
  assert_int_equal(r.eh.e_type, ET_EXEC);

  ElfImage img;
  char err[512] = "";
  RangeSet mapped = {0};
  GuestSpace space;
  guest_space_init(&space, &mapped);
  assert_int_equal(elf_map(BUSYBOX, &img, 0, &space, err, sizeof err), 0);
  /* The segments are noted as the guest's: the entry point and the program headers. */
  assert_true(ranges_cover(&mapped, img.entry, img.entry + 1));
  assert_true(ranges_cover(&mapped, img.phdr, img.phdr + img.phnum * sizeof(Elf64_Phdr)));
  assert_int_equal(img.bias, 0);
  assert_int_equal(img.entry, r.eh.e_entry);
  assert_int_equal(img.phnum, r.eh.e_phnum);
  assert_int_equal(img.phdr, raw_phdr_vaddr(&r));
  assert_int_not_equal(img.phdr, 0);
  /* AT_PHDR really points at the program headers. */
  assert_memory_equal((void *)(uintptr_t)img.phdr, r.bytes + r.eh.e_phoff,
                      r.eh.e_phnum * sizeof(Elf64_Phdr));
  check_segments_mapped(&r, 0);
  for (int i = 0; i < r.eh.e_phnum; i++)
    if (r.ph[i].p_type == PT_GNU_STACK)
      assert_int_equal(img.exec_stack, (r.ph[i].p_flags & PF_X) != 0);

  /* Loading it again must not clobber the first copy: a clear clash error. */
  ElfImage again;
  RangeSet none = {0};
  GuestSpace none_space;
  guest_space_init(&none_space, &none);
  assert_int_equal(elf_map(BUSYBOX, &again, 0, &none_space, err, sizeof err), ELF_FATAL);
  assert_non_null(strstr(err, "already in use"));
  assert_int_equal(none.n, 0);
  check_segments_mapped(&r, 0);
  ranges_free(&mapped);

  assert_int_equal(munmap((void *)(uintptr_t)img.lo, img.room_end - img.lo), 0);
  free(r.bytes);
}

/* ---- elf_load: the process as the guest starts it, and brk ---- */

static Process proc;

static void busybox_process_start_state(void **state) {
  (void)state;
  RawElf r;
  raw_read(BUSYBOX, &r);
  char *const argv[] = {"busybox", "echo", "hi", NULL};
  char *const envp[] = {"PATH=/bin", "HOME=/root", NULL};
  char err[512] = "";
  assert_true(process_init(&proc, BUSYBOX));
  assert_int_equal(elf_load(&proc, BUSYBOX, argv, envp, err, sizeof err), 0);

  const Cpu *c = &proc.main.cpu;
  assert_ptr_equal(proc_of(c), &proc);
  assert_int_equal(c->rip, r.eh.e_entry);
  assert_int_equal(c->r[RDX], 0);
  for (int i = 0; i < 16; i++)
    if (i != RSP) assert_int_equal(c->r[i], 0);
  assert_int_equal(c->r[RSP] % 16, 0);
  char real[PATH_MAX];
  assert_non_null(realpath(BUSYBOX, real));
  assert_string_equal(proc.exe_path, real);

  /* The stack as the guest sees it. */
  const uint64_t *sp = (const uint64_t *)(uintptr_t)c->r[RSP];
  assert_string_equal(maps_perms(c->r[RSP]), "rw-p");
  assert_int_equal(sp[0], 3);
  for (int i = 0; i < 3; i++) assert_string_equal((const char *)(uintptr_t)sp[1 + i], argv[i]);
  assert_int_equal(sp[4], 0);
  for (int i = 0; i < 2; i++) assert_string_equal((const char *)(uintptr_t)sp[5 + i], envp[i]);
  assert_int_equal(sp[7], 0);
  Aux aux[64];
  int n = read_auxv(sp + 8, aux, 64);
  assert_int_equal(aux_get(aux, n, AT_PHDR), raw_phdr_vaddr(&r));
  assert_int_equal(aux_get(aux, n, AT_PHNUM), r.eh.e_phnum);
  assert_int_equal(aux_get(aux, n, AT_ENTRY), r.eh.e_entry);
  assert_int_equal(aux_get(aux, n, AT_UID), getuid());
  assert_int_equal(aux_get(aux, n, AT_EUID), geteuid());
  assert_int_equal(aux_get(aux, n, AT_GID), getgid());
  assert_int_equal(aux_get(aux, n, AT_EGID), getegid());
  assert_int_equal(aux_get(aux, n, AT_HWCAP), cpuid_query(&test_machine()->model, 1, 0).edx);
  assert_string_equal((const char *)(uintptr_t)aux_get(aux, n, AT_EXECFN), BUSYBOX);
  check_segments_mapped(&r, 0);

  /* The heap starts on the page after the highest segment. */
  uint64_t end = 0;
  for (int i = 0; i < r.eh.e_phnum; i++)
    if (r.ph[i].p_type == PT_LOAD && r.ph[i].p_vaddr + r.ph[i].p_memsz > end)
      end = r.ph[i].p_vaddr + r.ph[i].p_memsz;
  assert_int_equal(proc.brk_start, pg_up(end));
  assert_int_equal(proc.brk_cur, proc.brk_start);
  assert_true(proc.brk_end - proc.brk_start >= (64u << 20));
  free(r.bytes);
}

static void brk_follows_kernel_semantics(void **state) {
  (void)state;
  Process *p = &proc; /* loaded by the previous test */
  const uint64_t start = p->brk_start;
  assert_int_not_equal(start, 0);
  assert_int_equal(brk_set(p, 0), start); /* brk(0) asks for the current break */
  assert_string_equal(maps_perms(start), "---p");

  /* Grow to an unaligned break: the whole last page is usable, and zero. */
  uint64_t want = start + 3 * page() + 123;
  assert_int_equal(brk_set(p, want), want);
  assert_string_equal(maps_perms(start), "rw-p");
  assert_string_equal(maps_perms(want), "rw-p");
  assert_string_equal(maps_perms(pg_up(want)), "---p");
  for (uint64_t a = start; a < pg_up(want); a++)
    if (*(uint8_t *)(uintptr_t)a) fail_msg("new heap byte at %#lx is not zero", (unsigned long)a);
  memset((void *)(uintptr_t)start, 0x77, pg_up(want) - start);

  /* Below the start: refused, the break stays. */
  assert_int_equal(brk_set(p, start - 1), want);
  /* Beyond the user address space: refused. Beyond the reservation, into free address
   * space: the reservation grows, as the kernel's heap would (and shrinks back below). */
  assert_int_equal(brk_set(p, UINT64_MAX - 5), want);
  const uint64_t end = p->brk_end;
  assert_int_equal(brk_set(p, end + 1), end + 1);
  assert_string_equal(maps_perms(end), "rw-p");
  assert_int_equal(brk_set(p, want), want);
  /* Into another mapping: refused, the mapping untouched. */
  void *other = mmap((void *)(uintptr_t)p->brk_end, page(), PROT_READ,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
  assert_true(other != MAP_FAILED);
  assert_int_equal(brk_set(p, p->brk_end + page() + 1), want);
  assert_string_equal(maps_perms(p->brk_end), "r--p");
  munmap(other, page());
  /* Past RLIMIT_DATA: refused. */
  struct rlimit old, small = {want - start + 2 * page(), RLIM_INFINITY};
  getrlimit(RLIMIT_DATA, &old);
  assert_int_equal(setrlimit(RLIMIT_DATA, &small), 0);
  assert_int_equal(brk_set(p, p->brk_end + 4 * page()), want);
  setrlimit(RLIMIT_DATA, &old);

  /* Shrink within the same page: nothing changes but the value. */
  assert_int_equal(brk_set(p, want - 100), want - 100);
  assert_string_equal(maps_perms(want), "rw-p");
  /* Shrink to one page: the rest becomes inaccessible ... */
  assert_int_equal(brk_set(p, start + 10), start + 10);
  assert_string_equal(maps_perms(start), "rw-p");
  assert_string_equal(maps_perms(start + page()), "---p");
  assert_int_equal(*(uint8_t *)(uintptr_t)(start + 10), 0x77);
  /* ... and reads as zero when it comes back, like fresh pages from the kernel. */
  assert_int_equal(brk_set(p, want), want);
  for (uint64_t a = start + page(); a < pg_up(want); a++)
    if (*(uint8_t *)(uintptr_t)a) fail_msg("regrown heap byte at %#lx is not zero", (unsigned long)a);

  /* The top of the reservation is reachable exactly. */
  assert_int_equal(brk_set(p, p->brk_end), p->brk_end);
  assert_string_equal(maps_perms(p->brk_end - 1), "rw-p");
  assert_int_equal(brk_set(p, start), start);
  assert_string_equal(maps_perms(start), "---p");
}

/* ---- static PIE ---- */

static char pie_path[PATH_MAX];

static int build_static_pie(void **state) {
  (void)state;
  char dir[] = "/tmp/x64emu-loader-XXXXXX";
  if (!mkdtemp(dir)) return 0;
  char src[PATH_MAX + 16], cmd[3 * PATH_MAX];
  snprintf(src, sizeof src, "%s/pie.c", dir);
  snprintf(pie_path, sizeof pie_path, "%s/pie", dir);
  FILE *f = fopen(src, "w");
  if (!f) return 0;
  fputs("#include <stdio.h>\nint main(void) { puts(\"pie\"); return 0; }\n", f);
  fclose(f);
  snprintf(cmd, sizeof cmd, "cc -static-pie -O1 -o %s %s 2>/dev/null", pie_path, src);
  if (system(cmd) != 0) pie_path[0] = 0; /* no compiler or no static-pie libc: skipped */
  return 0;
}

static void static_pie_is_relocated(void **state) {
  (void)state;
  if (!pie_path[0]) skip();
  RawElf r;
  raw_read(pie_path, &r);
  assert_int_equal(r.eh.e_type, ET_DYN);
  uint64_t align = page();
  for (int i = 0; i < r.eh.e_phnum; i++)
    if (r.ph[i].p_type == PT_LOAD && r.ph[i].p_align > align) align = r.ph[i].p_align;

  ElfImage img;
  char err[512] = "";
  const uint64_t room = 16u << 20;
  RangeSet mapped = {0};
  GuestSpace space;
  guest_space_init(&space, &mapped);
  assert_int_equal(elf_map(pie_path, &img, room, &space, err, sizeof err), 0);
  assert_true(ranges_cover(&mapped, img.entry, img.entry + 1));
  ranges_free(&mapped);
  assert_int_not_equal(img.bias, 0);
  assert_int_equal(img.bias % align, 0);
  assert_int_equal(img.entry, r.eh.e_entry + img.bias);
  assert_int_equal(img.phdr, raw_phdr_vaddr(&r) + img.bias);
  assert_memory_equal((void *)(uintptr_t)img.phdr, r.bytes + r.eh.e_phoff,
                      r.eh.e_phnum * sizeof(Elf64_Phdr));
  check_segments_mapped(&r, img.bias);
  /* The heap room follows the image, reserved and inaccessible. */
  assert_int_equal(img.room_end, img.hi + room);
  assert_string_equal(maps_perms(img.hi), "---p");
  assert_string_equal(maps_perms(img.room_end - 1), "---p");
  assert_int_equal(munmap((void *)(uintptr_t)img.lo, img.room_end - img.lo), 0);
  free(r.bytes);
}

static int remove_static_pie(void **state) {
  (void)state;
  if (pie_path[0]) {
    char cmd[PATH_MAX + 32];
    snprintf(cmd, sizeof cmd, "rm -rf \"$(dirname '%s')\"", pie_path);
    if (system(cmd) != 0) return -1;
  }
  return 0;
}

int main(void) {
  if (access(BUSYBOX, R_OK) != 0) {
    fprintf(stderr, "test_loader: %s is missing (Debian: busybox-static)\n", BUSYBOX);
    return 1;
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(stack_layout_matches_linux),
      cmocka_unit_test(stack_alignment_for_every_parity),
      cmocka_unit_test(stack_too_small_writes_nothing),
      cmocka_unit_test(busybox_maps_like_the_kernel),
      cmocka_unit_test(busybox_process_start_state),
      cmocka_unit_test(brk_follows_kernel_semantics),
      cmocka_unit_test(static_pie_is_relocated),
  };
  return cmocka_run_group_tests(tests, build_static_pie, remove_static_pie);
}
