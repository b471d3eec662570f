/* vdso.c: the vDSO the process is given (AT_SYSINFO_EHDR), read as musl and Go read it (its
 * SysV hash table, dynamic symbols and their versions), each function called and compared
 * with the system call it stands for; then, through the C library, that dl_iterate_phdr
 * lists it and that the unwinder finds each function's frame description. With the
 * argument "protect" the vDSO's page is made inaccessible and the C library's
 * clock_gettime called: it faults (SIGSEGV) only if the library calls through the vDSO. */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static const char *strtab;
static const Elf64_Sym *symtab;
static const uint32_t *hashtab;
static const Elf64_Half *versym;
static const Elf64_Verdef *verdef;
static uintptr_t load_offset;
static size_t image_size; /* of its PT_LOAD, in whole pages */

static int open_vdso(uintptr_t base) {
  const Elf64_Ehdr *eh = (const Elf64_Ehdr *)base;
  if (memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64) return 0;
  const Elf64_Phdr *ph = (const Elf64_Phdr *)(base + eh->e_phoff);
  const Elf64_Dyn *dyn = NULL;
  int loads = 0;
  for (int i = 0; i < eh->e_phnum; i++) {
    if (ph[i].p_type == PT_LOAD && !loads++) {
      load_offset = base + ph[i].p_offset - ph[i].p_vaddr;
      image_size = (ph[i].p_memsz + 4095) & ~(size_t)4095;
    }
    if (ph[i].p_type == PT_DYNAMIC) dyn = (const Elf64_Dyn *)(base + ph[i].p_offset);
  }
  if (!dyn || !loads) return 0;
  for (; dyn->d_tag != DT_NULL; dyn++) {
    const void *at = (const void *)(load_offset + dyn->d_un.d_ptr);
    switch (dyn->d_tag) {
    case DT_STRTAB: strtab = at; break;
    case DT_SYMTAB: symtab = at; break;
    case DT_HASH: hashtab = at; break;
    case DT_VERSYM: versym = at; break;
    case DT_VERDEF: verdef = at; break;
    }
  }
  return strtab && symtab && hashtab;
}

static uint32_t elf_hash(const char *s) {
  uint32_t h = 0;
  for (; *s; s++) {
    h = (h << 4) + (unsigned char)*s;
    uint32_t g = h & 0xf0000000u;
    if (g) h ^= g >> 24;
    h &= ~g;
  }
  return h;
}

static const char *version_of(uint32_t sym) {
  if (!versym || !verdef) return "(none)";
  unsigned ndx = versym[sym] & 0x7fff;
  for (const Elf64_Verdef *d = verdef;; d = (const Elf64_Verdef *)((const char *)d + d->vd_next)) {
    if (d->vd_ndx == ndx && !(d->vd_flags & VER_FLG_BASE))
      return strtab + ((const Elf64_Verdaux *)((const char *)d + d->vd_aux))->vda_name;
    if (!d->vd_next) return "(undefined)";
  }
}

/* The symbol's address, found through the hash table as musl's __vdsosym does. */
static void *lookup(const char *name) {
  uint32_t nbucket = hashtab[0];
  const uint32_t *bucket = hashtab + 2, *chain = bucket + nbucket;
  for (uint32_t i = bucket[elf_hash(name) % nbucket]; i; i = chain[i]) {
    const Elf64_Sym *s = &symtab[i];
    if (strcmp(strtab + s->st_name, name) || s->st_shndx == SHN_UNDEF) continue;
    if (ELF64_ST_TYPE(s->st_info) != STT_FUNC) continue;
    printf("%-22s function, %s, version %s", name,
           ELF64_ST_BIND(s->st_info) == STB_WEAK ? "weak" : "global", version_of(i));
    return (void *)(load_offset + s->st_value);
  }
  printf("%-22s missing\n", name);
  return NULL;
}

static void *find(const char *name) {
  char vdso_name[64];
  snprintf(vdso_name, sizeof vdso_name, "__vdso_%s", name);
  void *f = lookup(vdso_name);
  if (f) printf("\n");
  void *alias = lookup(name);
  if (alias) printf(", the same function: %d\n", alias == f);
  return f;
}

static long long ns(struct timespec t) { return t.tv_sec * 1000000000ll + t.tv_nsec; }

static int listed_by_libc(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  if (!strcmp(info->dlpi_name, "linux-vdso.so.1"))
    printf("dl_iterate_phdr lists linux-vdso.so.1 at the auxv's address: %d\n",
           info->dlpi_addr == *(uintptr_t *)data);
  return 0;
}

#ifdef __GLIBC__
struct dwarf_eh_bases {
  void *tbase, *dbase, *func;
};
extern const void *_Unwind_Find_FDE(void *pc, struct dwarf_eh_bases *bases);
#endif

int main(int argc, char **argv) {
  uintptr_t base = getauxval(AT_SYSINFO_EHDR);
  printf("AT_SYSINFO_EHDR given: %d, page-aligned: %d\n", base != 0, base % 4096 == 0);
  if (!base || !open_vdso(base)) return 1;
  printf("DT_SONAME and versions readable: %d\n", versym && verdef);

  if (argc > 1 && !strcmp(argv[1], "protect")) {
    struct timespec t;
    fflush(stdout);
    if (mprotect((void *)base, image_size, PROT_NONE) != 0) perror("mprotect");
    clock_gettime(CLOCK_MONOTONIC, &t);
    printf("clock_gettime did not call the vDSO\n");
    return 0;
  }

  int (*vgettime)(clockid_t, struct timespec *) = find("clock_gettime");
  int (*vgettimeofday)(struct timeval *, void *) = find("gettimeofday");
  time_t (*vtime)(time_t *) = find("time");
  long (*vgetcpu)(unsigned *, unsigned *, void *) = find("getcpu");
  int (*vgetres)(clockid_t, struct timespec *) = find("clock_getres");
  if (!vgettime || !vgettimeofday || !vtime || !vgetcpu || !vgetres) return 1;

  struct timespec before, got, after;
  syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &before);
  int rc = vgettime(CLOCK_MONOTONIC, &got);
  syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &after);
  printf("clock_gettime(CLOCK_MONOTONIC): %d, between two system calls: %d\n", rc,
         ns(before) <= ns(got) && ns(got) <= ns(after));
  printf("clock_gettime of an invalid clock: %d\n", vgettime((clockid_t)12345, &got) == -EINVAL);

  struct timeval tv, tv_sys;
  rc = vgettimeofday(&tv, NULL);
  syscall(SYS_gettimeofday, &tv_sys, NULL);
  printf("gettimeofday: %d, within a second of the system call's: %d\n", rc,
         tv_sys.tv_sec - tv.tv_sec <= 1 && tv_sys.tv_sec >= tv.tv_sec);

  time_t stored = 0, t = vtime(&stored), t_sys = syscall(SYS_time, NULL);
  printf("time: stored as returned: %d, within a second of the system call's: %d\n",
         stored == t, t_sys - t <= 1 && t_sys >= t);

  unsigned cpu = ~0u, node = ~0u;
  long cpus = sysconf(_SC_NPROCESSORS_CONF);
  rc = (int)vgetcpu(&cpu, &node, NULL);
  printf("getcpu: %d, a CPU of this machine: %d, node set: %d\n", rc, cpu < (unsigned)cpus,
         node != ~0u);

  struct timespec res, res_sys;
  rc = vgetres(CLOCK_MONOTONIC, &res);
  syscall(SYS_clock_getres, CLOCK_MONOTONIC, &res_sys);
  printf("clock_getres(CLOCK_MONOTONIC): %d, as the system call's: %d\n", rc,
         res.tv_sec == res_sys.tv_sec && res.tv_nsec == res_sys.tv_nsec);

  dl_iterate_phdr(listed_by_libc, &base);
#ifdef __GLIBC__
  void *fns[] = {vgettime, vgettimeofday, vtime, vgetcpu, vgetres};
  int described = 0;
  for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++) {
    struct dwarf_eh_bases bases;
    described += _Unwind_Find_FDE((char *)fns[i] + 1, &bases) && bases.func == fns[i];
  }
  printf("functions the unwinder finds a frame description for: %d\n", described);
#endif
  return 0;
}
