/* elf.c: checking an x86-64 ELF executable and mapping it, and its dynamic loader, into
 * the guest. */
#define _GNU_SOURCE
#include "elf.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../interp/run.h"
#include "../linux-user/determinism.h"
#include "../linux-user/sysroot.h"
#include "../linux-user/vdso.h"
#include "brk.h"
#include "stack.h"

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

#define ABI_PAGE 4096ull           /* x86-64's page size: what file offsets must honour */
#define USER_TOP 0x800000000000ull /* end of the 47-bit user address space */
#define MAX_PHNUM (65536 / sizeof(Elf64_Phdr)) /* the kernel's limit on the table's size */
#define MAX_PIE_ALIGN (1ull << 30) /* larger p_align values are not worth the address space */

/* One executable file being checked and loaded. */
typedef struct Loader {
  const char *path;
  int fd;
  uint64_t size; /* of the file */
  Elf *elf;
  GElf_Ehdr eh;
  GElf_Phdr *ph; /* all e_phnum program headers */
  unsigned phnum;
  RangeSet *mapped; /* gets each segment's pages */
  char *interp;     /* PT_INTERP's path (ElfImage.interp) */
  char *err;
  size_t errlen;
} Loader;

static int fail(Loader *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(Loader *l, const char *fmt, ...) {
  int n = snprintf(l->err, l->errlen, "%s: ", l->path);
  if (n < 0 || (size_t)n >= l->errlen) return -1;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(l->err + n, l->errlen - (size_t)n, fmt, ap);
  va_end(ap);
  return -1;
}

static uint64_t host_page(void) { return (uint64_t)sysconf(_SC_PAGESIZE); }
static uint64_t page_down(uint64_t a) { return a & ~(host_page() - 1); }
static uint64_t page_up(uint64_t a) { return (a + host_page() - 1) & ~(host_page() - 1); }

/* Whether [off, off + len) lies inside the file. */
static bool in_file(const Loader *l, uint64_t off, uint64_t len) {
  return off <= l->size && len <= l->size - off;
}

static const char *machine_name(unsigned m) {
  switch (m) {
  case EM_386: return "Intel 80386";
  case EM_ARM: return "ARM";
  case EM_AARCH64: return "AArch64";
  case EM_RISCV: return "RISC-V";
  case EM_PPC: return "PowerPC";
  case EM_PPC64: return "PowerPC64";
  case EM_S390: return "IBM S/390";
  case EM_MIPS: return "MIPS";
  case EM_SPARCV9: return "SPARC v9";
  case EM_LOONGARCH: return "LoongArch";
  default: return "unknown machine";
  }
}

/* The file itself: exists, is a regular file we may execute. */
static int open_file(Loader *l) {
  l->fd = open(l->path, O_RDONLY | O_CLOEXEC);
  if (l->fd < 0) return fail(l, "%s", strerror(errno));
  struct stat st;
  if (fstat(l->fd, &st) != 0) return fail(l, "%s", strerror(errno));
  if (S_ISDIR(st.st_mode)) return fail(l, "%s", strerror(EISDIR));
  if (!S_ISREG(st.st_mode)) return fail(l, "not a regular file");
  /* execve's rule, effective ids included. */
  if (faccessat(AT_FDCWD, l->path, X_OK, AT_EACCESS) != 0) return fail(l, "%s", strerror(errno));
  l->size = (uint64_t)st.st_size;
  return 0;
}

/* e_ident and the header, read by hand so that each kind of foreign file gets its own
 * message, then parsed by libelf. */
static int check_header(Loader *l) {
  unsigned char ident[sizeof(Elf64_Ehdr)];
  ssize_t n;
  do n = pread(l->fd, ident, sizeof ident, 0);
  while (n < 0 && errno == EINTR);
  if (n < 0) return fail(l, "%s", strerror(errno));
  if (n == 0) return fail(l, "not an ELF file (the file is empty)");
  if (n < SELFMAG || memcmp(ident, ELFMAG, SELFMAG) != 0)
    return fail(l, "not an ELF file (no ELF magic number)");
  if (n <= EI_DATA) return fail(l, "truncated ELF header (%zd of %zu bytes)", n, sizeof(Elf64_Ehdr));
  if (ident[EI_CLASS] == ELFCLASS32)
    return fail(l, "32-bit ELF (ELFCLASS32) is not supported: x64emu runs 64-bit x86-64 programs");
  if (ident[EI_CLASS] != ELFCLASS64) return fail(l, "invalid ELF class %u", ident[EI_CLASS]);
  if (ident[EI_DATA] != ELFDATA2LSB)
    return fail(l, "not a little-endian ELF (EI_DATA %u): x64emu runs x86-64 programs",
                ident[EI_DATA]);
  if ((size_t)n < sizeof(Elf64_Ehdr))
    return fail(l, "truncated ELF header (%zd of %zu bytes)", n, sizeof(Elf64_Ehdr));
  if (ident[EI_VERSION] != EV_CURRENT)
    return fail(l, "invalid ELF version %u", ident[EI_VERSION]);

  if (elf_version(EV_CURRENT) == EV_NONE) return fail(l, "libelf: %s", elf_errmsg(-1));
  l->elf = elf_begin(l->fd, ELF_C_READ, NULL);
  if (!l->elf || elf_kind(l->elf) != ELF_K_ELF || !gelf_getehdr(l->elf, &l->eh))
    return fail(l, "invalid ELF file: %s", elf_errmsg(-1));

  const GElf_Ehdr *eh = &l->eh;
  if (eh->e_machine != EM_X86_64)
    return fail(l, "ELF machine is %s (e_machine %u), not x86-64", machine_name(eh->e_machine),
                eh->e_machine);
  if (eh->e_version != EV_CURRENT) return fail(l, "invalid ELF version %u", (unsigned)eh->e_version);
  switch (eh->e_type) {
  case ET_EXEC:
  case ET_DYN: break;
  case ET_REL: return fail(l, "a relocatable object (ET_REL), not an executable");
  case ET_CORE: return fail(l, "a core dump (ET_CORE), not an executable");
  default: return fail(l, "ELF type %u is not an executable", eh->e_type);
  }
  if (eh->e_phnum == 0) return fail(l, "inconsistent ELF: no program headers");
  if (eh->e_phentsize != sizeof(Elf64_Phdr))
    return fail(l, "inconsistent ELF: program header size %u (expected %zu)", eh->e_phentsize,
                sizeof(Elf64_Phdr));
  if (eh->e_phnum > MAX_PHNUM)
    return fail(l, "inconsistent ELF: %u program headers (at most %zu)", eh->e_phnum, MAX_PHNUM);
  if (!in_file(l, eh->e_phoff, (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr)))
    return fail(l,
                "truncated ELF: the program header table (offset %#" PRIx64 ", %u entries) "
                "extends past the end of the file (%" PRIu64 " bytes)",
                (uint64_t)eh->e_phoff, eh->e_phnum, l->size);

  l->phnum = eh->e_phnum;
  l->ph = calloc(l->phnum, sizeof *l->ph);
  if (!l->ph) return fail(l, "%s", strerror(ENOMEM));
  for (unsigned i = 0; i < l->phnum; i++)
    if (!gelf_getphdr(l->elf, (int)i, &l->ph[i]))
      return fail(l, "invalid ELF program header %u: %s", i, elf_errmsg(-1));
  return 0;
}

/* The program headers make sense: what the kernel needs, and nothing that could make us
 * read or write outside the file or the image. */
static int check_segments(Loader *l) {
  for (unsigned i = 0; i < l->phnum; i++) {
    const GElf_Phdr *ph = &l->ph[i];
    if (ph->p_type != PT_INTERP) continue;
    const size_t room = sizeof ((ElfImage *)0)->interp;
    if (ph->p_filesz < 2 || ph->p_filesz > room || !in_file(l, ph->p_offset, ph->p_filesz) ||
        pread(l->fd, l->interp, ph->p_filesz, (off_t)ph->p_offset) != (ssize_t)ph->p_filesz ||
        l->interp[ph->p_filesz - 1] != 0 || strlen(l->interp) != ph->p_filesz - 1)
      return fail(l, "inconsistent ELF: PT_INTERP is not a path of fewer than %zu bytes", room);
  }

  const GElf_Phdr *prev = NULL;
  unsigned prev_i = 0, loads = 0;
  bool entry_ok = false;
  for (unsigned i = 0; i < l->phnum; i++) {
    const GElf_Phdr *ph = &l->ph[i];
    if (ph->p_type != PT_LOAD) continue;
    if (ph->p_filesz > ph->p_memsz)
      return fail(l,
                  "inconsistent ELF: segment %u has p_filesz %#" PRIx64 " > p_memsz %#" PRIx64, i,
                  (uint64_t)ph->p_filesz, (uint64_t)ph->p_memsz);
    if (ph->p_filesz && !in_file(l, ph->p_offset, ph->p_filesz))
      return fail(l,
                  "truncated ELF: segment %u (file offset %#" PRIx64 ", %#" PRIx64
                  " bytes) extends past the end of the file (%" PRIu64 " bytes)",
                  i, (uint64_t)ph->p_offset, (uint64_t)ph->p_filesz, l->size);
    if (ph->p_align > 1 && (ph->p_align & (ph->p_align - 1)))
      return fail(l, "inconsistent ELF: segment %u has p_align %#" PRIx64 ", not a power of two",
                  i, (uint64_t)ph->p_align);
    if ((ph->p_vaddr - ph->p_offset) % ABI_PAGE)
      return fail(l,
                  "inconsistent ELF: segment %u is unaligned: p_vaddr %#" PRIx64
                  " and p_offset %#" PRIx64 " differ modulo the page size",
                  i, (uint64_t)ph->p_vaddr, (uint64_t)ph->p_offset);
    if (ph->p_memsz == 0) continue;
    if (ph->p_vaddr >= USER_TOP || ph->p_memsz > USER_TOP - ph->p_vaddr)
      return fail(l,
                  "inconsistent ELF: segment %u (%#" PRIx64 ", %#" PRIx64
                  " bytes) lies outside the user address space",
                  i, (uint64_t)ph->p_vaddr, (uint64_t)ph->p_memsz);
    if (prev && ph->p_vaddr < prev->p_vaddr)
      return fail(l, "inconsistent ELF: segment %u comes before segment %u in memory", i, prev_i);
    if (prev && ph->p_vaddr < prev->p_vaddr + prev->p_memsz)
      return fail(l,
                  "inconsistent ELF: segments %u and %u overlap (%#" PRIx64 "-%#" PRIx64
                  " and %#" PRIx64 "-%#" PRIx64 ")",
                  prev_i, i, (uint64_t)prev->p_vaddr, (uint64_t)(prev->p_vaddr + prev->p_memsz),
                  (uint64_t)ph->p_vaddr, (uint64_t)(ph->p_vaddr + ph->p_memsz));
    if ((ph->p_flags & PF_X) && l->eh.e_entry >= ph->p_vaddr &&
        l->eh.e_entry - ph->p_vaddr < ph->p_memsz)
      entry_ok = true;
    prev = ph;
    prev_i = i;
    loads++;
  }
  if (loads == 0) return fail(l, "inconsistent ELF: no loadable segment");
  if (!entry_ok)
    return fail(l, "inconsistent ELF: entry point %#" PRIx64 " is not in an executable segment",
                (uint64_t)l->eh.e_entry);
  return 0;
}

static int prot_of(const GElf_Phdr *ph) {
  return (ph->p_flags & PF_R ? PROT_READ : 0) | (ph->p_flags & PF_W ? PROT_WRITE : 0) |
         (ph->p_flags & PF_X ? PROT_EXEC : 0);
}

/* A host page shared by two segments (possible when the host page is larger than the
 * ABI's, or with tightly packed segments) gets the permissions of both. */
static int prot_of_page(const Loader *l, uint64_t page, uint64_t bias) {
  int prot = 0;
  for (unsigned i = 0; i < l->phnum; i++) {
    const GElf_Phdr *ph = &l->ph[i];
    if (ph->p_type != PT_LOAD || ph->p_memsz == 0) continue;
    uint64_t s = page_down(ph->p_vaddr + bias), e = page_up(ph->p_vaddr + bias + ph->p_memsz);
    if (page >= s && page < e) prot |= prot_of(ph);
  }
  return prot;
}

static bool read_fully(int fd, void *dst, uint64_t len, uint64_t off) {
  while (len) {
    ssize_t n = pread(fd, dst, len > (1u << 30) ? (1u << 30) : len, (off_t)off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = EIO; /* the file shrank after it was checked */
      return false;
    }
    dst = (char *)dst + n;
    len -= (uint64_t)n;
    off += (uint64_t)n;
  }
  return true;
}

static int map_error(Loader *l, uint64_t lo, uint64_t hi, int err) {
  if (err == EEXIST)
    return fail(l,
                "cannot load at %#" PRIx64 "-%#" PRIx64 ": the range is already in use by x64emu",
                lo, hi);
  if (err == EPERM || err == EACCES)
    return fail(l,
                "cannot load at %#" PRIx64 "-%#" PRIx64
                ": below the lowest address allowed (vm.mmap_min_addr)",
                lo, hi);
  return fail(l, "cannot load at %#" PRIx64 "-%#" PRIx64 ": %s", lo, hi, strerror(err));
}

/* Reserves the address range of the image and sets img->bias: where the ELF says for
 * ET_EXEC, anywhere free (aligned as the segments ask) for a static PIE, followed by
 * brk_room bytes for its heap. The image part is read-write, the heap part PROT_NONE. */
static int reserve(Loader *l, ElfImage *img, uint64_t lo, uint64_t hi, uint64_t brk_room) {
  const uint64_t span = hi - lo;
  if (l->eh.e_type == ET_EXEC) {
    void *want = (void *)(uintptr_t)lo;
    void *got = mmap(want, span, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    if (got == MAP_FAILED) return map_error(l, lo, hi, errno);
    if (got != want) { /* a kernel older than MAP_FIXED_NOREPLACE took it as a hint */
      munmap(got, span);
      return map_error(l, lo, hi, EEXIST);
    }
    img->bias = 0;
    img->room_end = hi;
    return 0;
  }

  uint64_t align = host_page();
  for (unsigned i = 0; i < l->phnum; i++)
    if (l->ph[i].p_type == PT_LOAD && l->ph[i].p_align > align && l->ph[i].p_align <= MAX_PIE_ALIGN)
      align = l->ph[i].p_align;
  brk_room = page_up(brk_room);
  for (;; brk_room = brk_room > host_page() ? page_down(brk_room / 2) : 0) {
    uint64_t total = span + (align - host_page()) + brk_room;
    void *got = mmap(NULL, total, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (got == MAP_FAILED) {
      if (brk_room) continue;
      return fail(l, "cannot find %#" PRIx64 " bytes of free address space: %s", span,
                  strerror(errno));
    }
    uint64_t start = (uint64_t)(uintptr_t)got, base = (start + align - 1) & ~(align - 1);
    if (base > start) munmap(got, base - start);
    uint64_t end = start + total, keep_end = base + span + brk_room;
    if (end > keep_end) munmap((void *)(uintptr_t)keep_end, end - keep_end);
    /* The image gets ordinary (accounted) memory; the range is already ours. */
    if (mmap((void *)(uintptr_t)base, span, PROT_READ | PROT_WRITE,
             MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED) {
      int e = errno;
      munmap((void *)(uintptr_t)base, span + brk_room);
      return fail(l, "cannot map %#" PRIx64 " bytes: %s", span, strerror(e));
    }
    img->bias = base - lo;
    img->room_end = base + span + brk_room;
    return 0;
  }
}

/* Copies the segments' file bytes in (the rest is already zero: bss, the tail of the last
 * page), sets each segment's permissions and returns the gaps between them to the system. */
static int map_segments(Loader *l, ElfImage *img) {
  const uint64_t b = img->bias;
  for (unsigned i = 0; i < l->phnum; i++) {
    const GElf_Phdr *ph = &l->ph[i];
    if (ph->p_type != PT_LOAD || ph->p_memsz == 0 || ph->p_filesz == 0) continue;
    if (!read_fully(l->fd, (void *)(uintptr_t)(ph->p_vaddr + b), ph->p_filesz, ph->p_offset))
      return fail(l, "cannot read segment %u: %s", i, strerror(errno));
  }
  uint64_t prev_end = img->lo;
  for (unsigned i = 0; i < l->phnum; i++) {
    const GElf_Phdr *ph = &l->ph[i];
    if (ph->p_type != PT_LOAD || ph->p_memsz == 0) continue;
    uint64_t s = page_down(ph->p_vaddr + b), e = page_up(ph->p_vaddr + b + ph->p_memsz);
    const uint64_t pg = host_page();
    if (mprotect((void *)(uintptr_t)s, e - s, prot_of(ph)) != 0 ||
        mprotect((void *)(uintptr_t)s, pg, prot_of_page(l, s, b)) != 0 ||
        mprotect((void *)(uintptr_t)(e - pg), pg, prot_of_page(l, e - pg, b)) != 0)
      return fail(l, "cannot set the permissions of segment %u: %s", i, strerror(errno));
    if (!ranges_add(l->mapped, s, e, prot_of(ph)) ||
        !ranges_add(l->mapped, s, s + pg, prot_of_page(l, s, b)) ||
        !ranges_add(l->mapped, e - pg, e, prot_of_page(l, e - pg, b)))
      return fail(l, "out of memory");
    if (s > prev_end) munmap((void *)(uintptr_t)prev_end, s - prev_end);
    if (e > prev_end) prev_end = e;
    if (ph->p_filesz && img->nseg < IMAGE_MAX_SEGMENTS)
      img->seg[img->nseg++] = (ImageSegment){s, page_up(ph->p_vaddr + b + ph->p_filesz),
                                              page_down(ph->p_offset)};
  }
  return 0;
}

/* AT_PHDR: PT_PHDR when it lies in a loaded segment, else the segment holding e_phoff. */
static uint64_t phdr_address(const Loader *l, uint64_t bias) {
  for (unsigned i = 0; i < l->phnum; i++) {
    if (l->ph[i].p_type != PT_PHDR) continue;
    for (unsigned j = 0; j < l->phnum; j++) {
      const GElf_Phdr *ld = &l->ph[j];
      if (ld->p_type == PT_LOAD && l->ph[i].p_vaddr >= ld->p_vaddr &&
          l->ph[i].p_vaddr - ld->p_vaddr < ld->p_memsz)
        return l->ph[i].p_vaddr + bias;
    }
  }
  const uint64_t off = l->eh.e_phoff;
  for (unsigned j = 0; j < l->phnum; j++) {
    const GElf_Phdr *ld = &l->ph[j];
    if (ld->p_type == PT_LOAD && off >= ld->p_offset && off - ld->p_offset < ld->p_filesz)
      return off - ld->p_offset + ld->p_vaddr + bias;
  }
  return 0;
}

int elf_map(const char *path, ElfImage *img, uint64_t brk_room, RangeSet *mapped, char *err,
            size_t errlen) {
  memset(img, 0, sizeof *img);
  Loader l = {.path = path, .fd = -1, .mapped = mapped, .interp = img->interp, .err = err,
              .errlen = errlen};
  int rc = open_file(&l);
  if (rc == 0) rc = check_header(&l);
  if (rc == 0) rc = check_segments(&l);
  if (rc == 0) {
    uint64_t lo = UINT64_MAX, hi = 0;
    img->exec_stack = true; /* x86-64 without PT_GNU_STACK: executable, as the kernel says */
    for (unsigned i = 0; i < l.phnum; i++) {
      const GElf_Phdr *ph = &l.ph[i];
      if (ph->p_type == PT_GNU_STACK) img->exec_stack = (ph->p_flags & PF_X) != 0;
      if (ph->p_type != PT_LOAD || ph->p_memsz == 0) continue;
      if (page_down(ph->p_vaddr) < lo) lo = page_down(ph->p_vaddr);
      if (page_up(ph->p_vaddr + ph->p_memsz) > hi) hi = page_up(ph->p_vaddr + ph->p_memsz);
    }
    rc = reserve(&l, img, lo, hi, brk_room);
    if (rc == 0) {
      img->lo = lo + img->bias;
      img->hi = hi + img->bias;
      rc = map_segments(&l, img);
      if (rc != 0) munmap((void *)(uintptr_t)img->lo, img->room_end - img->lo);
    }
    if (rc == 0) {
      img->entry = l.eh.e_entry + img->bias;
      img->phdr = phdr_address(&l, img->bias);
      img->phnum = (uint16_t)l.phnum;
    }
  }
  free(l.ph);
  if (l.elf) elf_end(l.elf);
  if (l.fd >= 0) close(l.fd);
  return rc;
}

/* What /proc/self/maps names the image's segments by: the file's path, device and inode. */
static void note_image(GuestImage *g, const char *path, const ElfImage *img) {
  struct stat st;
  if (!realpath(path, g->path)) snprintf(g->path, sizeof g->path, "%s", path);
  g->dev = g->ino = 0;
  if (stat(g->path, &st) == 0) g->dev = st.st_dev, g->ino = st.st_ino;
  memcpy(g->seg, img->seg, sizeof g->seg);
  g->nseg = img->nseg;
}

int elf_load(Process *p, const char *path, char *const argv[], char *const envp[], char *err,
             size_t errlen) {
  ElfImage img;
  /* The image and the stack are the guest's: it may map over, unmap and re-protect them,
   * unlike the emulator's own memory. */
  p->mem_noted = true;
  p->machine.code.exec_map = &p->machine.mem; /* and code runs only from executable pages */
  if (elf_map(path, &img, BRK_RESERVE, &p->machine.mem, err, errlen) != 0) return -1;

  if (img.room_end > img.hi) brk_adopt(p, img.hi, img.room_end);
  else brk_init(p, img.hi);

  /* The dynamic loader runs first and loads the rest (the program's libraries) itself. */
  ElfImage loader = {.entry = img.entry};
  char in_sysroot[PATH_MAX];
  const char *loader_path = img.interp;
  if (img.interp[0]) {
    char why[PATH_MAX + 256];
    const char *interp = sysroot_lookup(p->opt.sysroot, img.interp, in_sysroot) ? in_sysroot : img.interp;
    loader_path = interp;
    if (elf_map(interp, &loader, 0, &p->machine.mem, why, sizeof why) != 0) {
      bool missing = access(interp, F_OK) != 0;
      snprintf(err, errlen, "%s: its dynamic loader: %s%s", path, why,
               missing ? " (x86-64 libraries elsewhere: -L DIR or X64EMU_LD_PREFIX=DIR)" : "");
      return -1;
    }
    if (loader.interp[0]) {
      snprintf(err, errlen, "%s: its dynamic loader %s names a loader of its own", path, img.interp);
      return -1;
    }
  }

  /* As the kernel's exec maps it (arch_setup_additional_pages), before the stack's tables. */
  p->vdso = vdso_map(&p->machine.mem, err, errlen);
  if (!p->vdso) return -1;

  StackArgs sa = {
      .vdso = p->vdso,
      .argv = argv,
      .envp = envp,
      .execfn = path,
      .phdr = img.phdr,
      .phnum = img.phnum,
      .entry = img.entry,
      .base = img.interp[0] ? loader.bias : 0, /* AT_BASE */
  };
  stack_args_from_host(&sa, &p->machine.model);
  if (p->opt.deterministic) det_random(p, sa.random, sizeof sa.random); /* AT_RANDOM */
  uint64_t rsp = stack_create(&sa, img.exec_stack, &p->machine.mem, err, errlen);
  if (!rsp) return -1;

  if (!realpath(path, p->exe_path)) {
    snprintf(err, errlen, "%s: %s", path, strerror(errno));
    return -1;
  }
  note_image(&p->images[0], p->exe_path, &img);
  if (img.interp[0]) note_image(&p->images[1], loader_path, &loader);
  Cpu *c = &p->main.cpu;
  cpu_reset(c);
  memset(c->xmm, 0, sizeof c->xmm); /* the kernel starts a process with clean SSE state */
  c->rip = loader.entry;
  c->r[RSP] = rsp;
  p->stack_at = rsp; /* the main stack's: [stack] in the guest's maps */
  c->r[RDX] = 0; /* no function for atexit from a dynamic loader */
  c->fs_base = c->gs_base = 0;
  return 0;
}
