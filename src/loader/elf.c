/* elf.c: checking an x86-64 ELF executable and mapping it, and its dynamic loader, into
 * the guest. */
#define _GNU_SOURCE
#include "elf.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
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
#define MAX_PHDRS_SIZE 4096ull /* the kernel's limit on the table's size (ELF_MIN_ALIGN) */
#define MAX_PIE_ALIGN (1ull << 30) /* larger p_align values are not worth the address space */

/* One executable file being checked and loaded. */
typedef struct Loader {
  const char *path;
  int fd;
  uint64_t size; /* of the file */
  Elf64_Ehdr eh;
  Elf64_Phdr *ph; /* all e_phnum program headers */
  unsigned phnum;
  const GuestSpace *space; /* where an image without a fixed address goes */
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

/* Reads len bytes at file offset off to dst, which may be any address of the guest's,
 * 0 included (hence the arithmetic on integers). */
static bool read_fully(int fd, void *dst, uint64_t len, uint64_t off) {
  uintptr_t at = (uintptr_t)dst;
  while (len) {
    ssize_t n = pread(fd, (void *)at, len > (1u << 30) ? (1u << 30) : len, (off_t)off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = EIO; /* the file shrank after it was checked */
      return false;
    }
    at += (uintptr_t)n;
    len -= (uint64_t)n;
    off += (uint64_t)n;
  }
  return true;
}

/* Puts the len file bytes at off to address at: the whole host pages among them mapped
 * from the file where file and address agree modulo the page, so that only the pages the
 * guest touches are read, from the page cache, and not copied up front (a hello world's
 * start-up faulted 160 pages in for it); the partial pages at either end read. */
static bool load_file_bytes(int fd, uint64_t at, uint64_t len, uint64_t off) {
  const uint64_t lo = host_page_up(at), hi = host_page_down(at + len);
  if (((at - off) & (host_page() - 1)) == 0 && lo < hi &&
      mmap((void *)(uintptr_t)lo, hi - lo, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, fd,
           (off_t)(off + (lo - at))) != MAP_FAILED)
    return read_fully(fd, (void *)(uintptr_t)at, lo - at, off) &&
           read_fully(fd, (void *)(uintptr_t)hi, at + len - hi, off + (hi - at));
  return read_fully(fd, (void *)(uintptr_t)at, len, off);
}

/* The kernel's checks before it gives up the old image (load_elf_binary() up to
 * begin_new_exec(), fs/binfmt_elf.c): what fails here is refused, and nothing else is.
 * The kernel reads the header as the 64-bit little-endian one it must be, whatever
 * EI_CLASS, EI_DATA and the versions say; so does x64emu. A file shorter than the header
 * reads as zeros past its end. */
static int check_header(Loader *l) {
  unsigned char buf[sizeof(Elf64_Ehdr)] = {0};
  ssize_t n;
  do n = pread(l->fd, buf, sizeof buf, 0);
  while (n < 0 && errno == EINTR);
  if (n < 0) return fail(l, "%s", strerror(errno));
  if (n == 0) return fail(l, "not an ELF file (the file is empty)");
  if (n < SELFMAG || memcmp(buf, ELFMAG, SELFMAG) != 0)
    return fail(l, "not an ELF file (no ELF magic number)");
  memcpy(&l->eh, buf, sizeof l->eh);
  const Elf64_Ehdr *eh = &l->eh;
  if (eh->e_type != ET_EXEC && eh->e_type != ET_DYN) {
    if ((size_t)n < sizeof buf)
      return fail(l, "truncated ELF header (%zd of %zu bytes)", n, sizeof buf);
    if (eh->e_type == ET_REL) return fail(l, "a relocatable object (ET_REL), not an executable");
    if (eh->e_type == ET_CORE) return fail(l, "a core dump (ET_CORE), not an executable");
    return fail(l, "ELF type %u is not an executable", eh->e_type);
  }
  if (eh->e_machine != EM_X86_64) {
    unsigned m = eh->e_machine;
    if (buf[EI_DATA] == ELFDATA2MSB) m = (m >> 8 | m << 8) & 0xffff; /* for the message */
    if (m == EM_386 && buf[EI_CLASS] == ELFCLASS32)
      return fail(l, "32-bit ELF (ELFCLASS32) is not supported: x64emu runs 64-bit x86-64 programs");
    return fail(l, "ELF machine is %s (e_machine %u), not x86-64", machine_name(m), m);
  }
  if ((size_t)n < sizeof buf && (eh->e_phentsize != sizeof(Elf64_Phdr) || eh->e_phnum == 0))
    return fail(l, "truncated ELF header (%zd of %zu bytes)", n, sizeof buf);
  if (eh->e_phentsize != sizeof(Elf64_Phdr))
    return fail(l, "inconsistent ELF: program header size %u (expected %zu)", eh->e_phentsize,
                sizeof(Elf64_Phdr));
  if (eh->e_phnum == 0) return fail(l, "inconsistent ELF: no program headers");
  if ((uint64_t)eh->e_phnum * sizeof(Elf64_Phdr) > MAX_PHDRS_SIZE)
    return fail(l, "inconsistent ELF: %u program headers (at most %llu)", eh->e_phnum,
                (unsigned long long)(MAX_PHDRS_SIZE / sizeof(Elf64_Phdr)));
  if (!in_file(l, eh->e_phoff, (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr)))
    return fail(l,
                "truncated ELF: the program header table (offset %#" PRIx64 ", %u entries) "
                "extends past the end of the file (%" PRIu64 " bytes)",
                (uint64_t)eh->e_phoff, eh->e_phnum, l->size);
  l->phnum = eh->e_phnum;
  l->ph = calloc(l->phnum, sizeof *l->ph);
  if (!l->ph) return fail(l, "%s", strerror(ENOMEM));
  if (!read_fully(l->fd, l->ph, l->phnum * sizeof *l->ph, eh->e_phoff))
    return fail(l, "cannot read the program headers: %s", strerror(errno));
  return 0;
}

/* The first PT_INTERP, as the kernel reads it: 2 to PATH_MAX bytes in the file, the last a
 * NUL; the path is what comes before the first NUL. */
static int check_interp(Loader *l) {
  for (unsigned i = 0; i < l->phnum; i++) {
    const Elf64_Phdr *ph = &l->ph[i];
    if (ph->p_type != PT_INTERP) continue;
    if (ph->p_filesz < 2 || ph->p_filesz > PATH_MAX || !in_file(l, ph->p_offset, ph->p_filesz) ||
        !read_fully(l->fd, l->interp, ph->p_filesz, ph->p_offset) || l->interp[ph->p_filesz - 1])
      return fail(l, "inconsistent ELF: PT_INTERP is not a path of at most %d bytes", PATH_MAX);
    return 0;
  }
  return 0;
}

/* What the kernel finds wrong only while it maps the segments, after it gave up the old
 * image (the process then dies of SIGSEGV): a segment with more file bytes than memory,
 * one whose file offset is not congruent with its address modulo the page (the mmap of
 * it fails), one outside the user address space. Nothing to map at all is the same here,
 * where the kernel would start the program at an unmapped entry point. Segments may come
 * in any order and overlap, as for the kernel (later ones over earlier ones). */
static int check_segments(Loader *l) {
  unsigned loads = 0;
  for (unsigned i = 0; i < l->phnum; i++) {
    const Elf64_Phdr *ph = &l->ph[i];
    if (ph->p_type != PT_LOAD) continue;
    if (ph->p_filesz > ph->p_memsz)
      return fail(l,
                  "inconsistent ELF: segment %u has p_filesz %#" PRIx64 " > p_memsz %#" PRIx64, i,
                  (uint64_t)ph->p_filesz, (uint64_t)ph->p_memsz);
    if (ph->p_filesz && (ph->p_vaddr - ph->p_offset) % ABI_PAGE)
      return fail(l,
                  "inconsistent ELF: segment %u is unaligned: p_vaddr %#" PRIx64
                  " and p_offset %#" PRIx64 " differ modulo the page size",
                  i, (uint64_t)ph->p_vaddr, (uint64_t)ph->p_offset);
    if (ph->p_vaddr >= GUEST_USER_TOP || ph->p_memsz > GUEST_USER_TOP || GUEST_USER_TOP - ph->p_memsz < ph->p_vaddr)
      return fail(l,
                  "inconsistent ELF: segment %u (%#" PRIx64 ", %#" PRIx64
                  " bytes) lies outside the user address space",
                  i, (uint64_t)ph->p_vaddr, (uint64_t)ph->p_memsz);
    /* The kernel clears the rest of the page where a writable segment's bss begins; a
     * page the file does not reach faults, and so does the exec. */
    const uint64_t tail = ph->p_offset + ph->p_filesz;
    if (ph->p_filesz && ph->p_memsz > ph->p_filesz && (ph->p_flags & PF_W) && tail % ABI_PAGE &&
        (tail & ~(ABI_PAGE - 1)) >= l->size)
      return fail(l,
                  "truncated ELF: segment %u's bss begins in a page past the end of the file (%" PRIu64
                  " bytes), which the kernel cannot clear",
                  i, l->size);
    if (ph->p_memsz) loads++;
  }
  if (loads == 0) return fail(l, "inconsistent ELF: no loadable segment");
  return 0;
}

/* The bytes of a segment's p_filesz that the file has: a file cut short gives fewer. */
static uint64_t file_bytes(const Loader *l, const Elf64_Phdr *ph) {
  if (ph->p_offset >= l->size) return 0;
  return ph->p_filesz < l->size - ph->p_offset ? ph->p_filesz : l->size - ph->p_offset;
}

static int prot_of(const Elf64_Phdr *ph) {
  return (ph->p_flags & PF_R ? PROT_READ : 0) | (ph->p_flags & PF_W ? PROT_WRITE : 0) |
         (ph->p_flags & PF_X ? PROT_EXEC : 0);
}

/* A host page shared by two segments (possible when the host page is larger than the
 * ABI's, or with tightly packed segments) gets the permissions of both. */
static int prot_of_page(const Loader *l, uint64_t page, uint64_t bias) {
  int prot = 0;
  for (unsigned i = 0; i < l->phnum; i++) {
    const Elf64_Phdr *ph = &l->ph[i];
    if (ph->p_type != PT_LOAD || ph->p_memsz == 0) continue;
    uint64_t s = host_page_down(ph->p_vaddr + bias), e = host_page_up(ph->p_vaddr + bias + ph->p_memsz);
    if (page >= s && page < e) prot |= prot_of(ph);
  }
  return prot;
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
    if (l->ph[i].p_type == PT_LOAD && l->ph[i].p_align > align && l->ph[i].p_align <= MAX_PIE_ALIGN &&
        !(l->ph[i].p_align & (l->ph[i].p_align - 1))) /* the kernel ignores the others */
      align = l->ph[i].p_align;
  brk_room = host_page_up(brk_room);
  for (;; brk_room = brk_room > host_page() ? host_page_down(brk_room / 2) : 0) {
    uint64_t total = span + (align - host_page()) + brk_room;
    void *got = guest_space_map(l->space, 0, total, host_page(), 0, PROT_NONE,
                                MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
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

/* The PT_LOAD headers' indexes in address order, into order[]: their number. */
static unsigned loads_by_address(const Loader *l, unsigned *order) {
  unsigned n = 0;
  for (unsigned i = 0; i < l->phnum; i++) {
    if (l->ph[i].p_type != PT_LOAD || l->ph[i].p_memsz == 0) continue;
    unsigned j = n++;
    while (j > 0 && l->ph[order[j - 1]].p_vaddr > l->ph[i].p_vaddr) {
      order[j] = order[j - 1];
      j--;
    }
    order[j] = i;
  }
  return n;
}

/* Sets [s, e) to prot, on the host and in the loader's record of the mappings. */
static bool protect(Loader *l, uint64_t s, uint64_t e, int prot) {
  return mprotect((void *)(uintptr_t)s, e - s, prot) == 0 && ranges_add(l->mapped, s, e, prot);
}

/* Puts the segments' file bytes in, in the headers' order, so that a later segment
 * overlapping an earlier one wins, as the kernel's mappings do (the rest is already zero:
 * bss, the tail of the last page). Whole pages of p_filesz past the end of a file cut
 * short are mapped from the file, so that touching them is SIGBUS, as natively. Then sets
 * each segment's permissions and returns the gaps between them to the system. */
static int map_segments(Loader *l, ElfImage *img) {
  const uint64_t b = img->bias;
  for (unsigned i = 0; i < l->phnum; i++) {
    const Elf64_Phdr *ph = &l->ph[i];
    if (ph->p_type != PT_LOAD || ph->p_memsz == 0 || ph->p_filesz == 0) continue;
    const uint64_t have = file_bytes(l, ph);
    if (!load_file_bytes(l->fd, ph->p_vaddr + b, have, ph->p_offset))
      return fail(l, "cannot read segment %u: %s", i, strerror(errno));
    const uint64_t gone = host_page_up(ph->p_vaddr + b + have), end = host_page_up(ph->p_vaddr + b + ph->p_filesz);
    if (gone < end &&
        mmap((void *)(uintptr_t)gone, end - gone, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED,
             l->fd, (off_t)(host_page_down(ph->p_offset) + (gone - host_page_down(ph->p_vaddr + b)))) == MAP_FAILED)
      return fail(l, "cannot map segment %u past the end of the file: %s", i, strerror(errno));
  }
  unsigned order[MAX_PHDRS_SIZE / sizeof(Elf64_Phdr)];
  const unsigned n = loads_by_address(l, order);
  uint64_t prev_end = img->lo;
  for (unsigned k = 0; k < n; k++) {
    const unsigned i = order[k];
    const Elf64_Phdr *ph = &l->ph[i];
    uint64_t s = host_page_down(ph->p_vaddr + b), e = host_page_up(ph->p_vaddr + b + ph->p_memsz);
    const uint64_t pg = host_page();
    /* The first and last pages may be shared with another segment: theirs are the union. */
    const int prot = prot_of(ph), first = prot_of_page(l, s, b), last = prot_of_page(l, e - pg, b);
    if (!protect(l, s, e, prot) || (first != prot && !protect(l, s, s + pg, first)) ||
        (last != prot && !protect(l, e - pg, e, last)))
      return fail(l, "cannot set the permissions of segment %u: %s", i, strerror(errno));
    if (s > prev_end) munmap((void *)(uintptr_t)prev_end, s - prev_end);
    if (e > prev_end) prev_end = e;
    if (ph->p_filesz && img->nseg < IMAGE_MAX_SEGMENTS)
      img->seg[img->nseg++] = (ImageSegment){s, host_page_up(ph->p_vaddr + b + ph->p_filesz),
                                              host_page_down(ph->p_offset)};
  }
  return 0;
}

/* AT_PHDR as the kernel computes it: e_phoff in the (last) PT_LOAD whose file bytes hold
 * it, at that segment's address; the load bias alone when none does. */
static uint64_t phdr_address(const Loader *l, uint64_t bias) {
  uint64_t at = 0;
  const uint64_t off = l->eh.e_phoff;
  for (unsigned j = 0; j < l->phnum; j++) {
    const Elf64_Phdr *ld = &l->ph[j];
    if (ld->p_type == PT_LOAD && ld->p_offset <= off && off - ld->p_offset < ld->p_filesz)
      at = off - ld->p_offset + ld->p_vaddr;
  }
  return at + bias;
}

int elf_map(const char *path, ElfImage *img, uint64_t brk_room, const GuestSpace *space,
            char *err, size_t errlen) {
  memset(img, 0, sizeof *img);
  Loader l = {.path = path, .fd = -1, .space = space, .mapped = space->mem,
              .interp = img->interp, .err = err, .errlen = errlen};
  int rc = open_file(&l);
  if (rc == 0) rc = check_header(&l);
  if (rc == 0) rc = check_interp(&l);
  /* Past here the kernel has given up the old image: what fails kills the process. */
  if (rc == 0 && check_segments(&l) != 0) rc = ELF_FATAL;
  if (rc == 0) {
    uint64_t lo = UINT64_MAX, hi = 0;
    img->exec_stack = true; /* x86-64 without PT_GNU_STACK: executable, as the kernel says */
    for (unsigned i = 0; i < l.phnum; i++) {
      const Elf64_Phdr *ph = &l.ph[i];
      if (ph->p_type == PT_GNU_STACK) img->exec_stack = (ph->p_flags & PF_X) != 0;
      if (ph->p_type != PT_LOAD || ph->p_memsz == 0) continue;
      if (host_page_down(ph->p_vaddr) < lo) lo = host_page_down(ph->p_vaddr);
      if (host_page_up(ph->p_vaddr + ph->p_memsz) > hi) hi = host_page_up(ph->p_vaddr + ph->p_memsz);
    }
    rc = reserve(&l, img, lo, hi, brk_room) ? ELF_FATAL : 0;
    if (rc == 0) {
      img->lo = lo + img->bias;
      img->hi = hi + img->bias;
      rc = map_segments(&l, img) ? ELF_FATAL : 0;
      if (rc != 0) munmap((void *)(uintptr_t)img->lo, img->room_end - img->lo);
    }
    if (rc == 0) {
      img->entry = l.eh.e_entry + img->bias;
      img->phdr = phdr_address(&l, img->bias);
      img->phnum = (uint16_t)l.phnum;
    }
  }
  free(l.ph);
  if (l.fd >= 0) close(l.fd);
  return rc < 0 && rc != ELF_FATAL ? ELF_REFUSED : rc;
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
  guest_space_init(&p->space, &p->machine.mem);
  int rc = elf_map(path, &img, BRK_RESERVE, &p->space, err, errlen);
  if (rc != 0) return rc;

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
    /* (A PT_INTERP of the loader's own is ignored, as the kernel ignores it.) */
    rc = elf_map(interp, &loader, 0, &p->space, why, sizeof why);
    if (rc != 0) {
      bool missing = access(interp, F_OK) != 0;
      snprintf(err, errlen, "%s: its dynamic loader: %s%s", path, why,
               missing ? " (x86-64 libraries elsewhere: -L DIR or X64EMU_LD_PREFIX=DIR)" : "");
      return rc;
    }
  }

  /* As the kernel's exec maps it (arch_setup_additional_pages), before the stack's tables. */
  p->vdso = vdso_map(&p->space, err, errlen);
  if (!p->vdso) return ELF_FATAL;

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
  uint64_t rsp = stack_create(&sa, img.exec_stack, &p->space, err, errlen);
  if (!rsp) return ELF_FATAL;

  if (!realpath(path, p->exe_path)) {
    snprintf(err, errlen, "%s: %s", path, strerror(errno));
    return ELF_FATAL;
  }
  note_image(&p->images[0], p->exe_path, &img);
  if (img.interp[0]) note_image(&p->images[1], loader_path, &loader);
  Cpu *c = &p->main.cpu;
  cpu_reset(c);
  c->rip = loader.entry;
  c->r[RSP] = rsp;
  p->stack_at = rsp; /* the main stack's: [stack] in the guest's maps */
  c->r[RDX] = 0; /* no function for atexit from a dynamic loader */
  c->fs_base = c->gs_base = 0;
  return 0;
}
