/* vdso.c: the guest's vDSO, built here as the kernel's x86-64 one looks to its readers: an
 * ELF shared object "linux-vdso.so.1" linked at 0, whose functions are exported as
 * __vdso_NAME and as a weak NAME under version LINUX_2.6, with a SysV hash table (all
 * musl reads), symbol versions (glibc, musl and Go check them), unwind tables (so that a
 * backtrace from a signal taken inside passes through) and section headers (for
 * debuggers). Each function is its system call: the kernel's read a page of clock data
 * that it keeps current, which would save nothing here, where a system call costs an
 * emulated instruction and the host's call. */
#define _GNU_SOURCE
#include "vdso.h"

#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "sys_nr.h"

static const struct {
  const char *name;
  uint32_t nr;
} CALLS[] = {
    {"clock_gettime", X64_NR_clock_gettime}, {"gettimeofday", X64_NR_gettimeofday},
    {"time", X64_NR_time},                   {"getcpu", X64_NR_getcpu},
    {"clock_getres", X64_NR_clock_getres},
};
#define NCALLS (sizeof CALLS / sizeof CALLS[0])
#define NSYMS (1 + 2 * NCALLS) /* the null symbol, then __vdso_NAME and NAME for each */
#define FUNC_SIZE 16           /* mov eax, nr; syscall; ret; then int3 to the next */
#define CALL_BYTES 8

static const char SONAME[] = "linux-vdso.so.1", VERSION[] = "LINUX_2.6";

/* The sections in the order of their addresses. */
enum { SEC_NULL, SEC_TEXT, SEC_EH_FRAME, SEC_EH_FRAME_HDR, SEC_HASH, SEC_DYNSYM, SEC_DYNSTR,
       SEC_VERSYM, SEC_VERDEF, SEC_DYNAMIC, SEC_SHSTRTAB, NSECTIONS };
static const char *const SECTION_NAMES[NSECTIONS] = {
    "", ".text", ".eh_frame", ".eh_frame_hdr", ".hash", ".dynsym", ".dynstr", ".gnu.version",
    ".gnu.version_d", ".dynamic", ".shstrtab",
};
enum { PH_LOAD, PH_DYNAMIC, PH_EH_FRAME, NPHDRS };

/* The image under construction: appended to, each part at its alignment, within one page. */
typedef struct Image {
  uint8_t *b;
  size_t len;
  Elf64_Shdr sh[NSECTIONS];
} Image;

static size_t align_to(Image *im, size_t align) {
  while (im->len % align) im->b[im->len++] = 0;
  return im->len;
}

static size_t put(Image *im, const void *p, size_t n) {
  size_t at = im->len;
  memcpy(im->b + at, p, n);
  im->len += n;
  return at;
}

/* Opens section s at the next multiple of align; section_end closes it. */
static void section_begin(Image *im, int s, uint32_t type, uint64_t flags, size_t align) {
  size_t at = align_to(im, align);
  im->sh[s] = (Elf64_Shdr){.sh_type = type, .sh_flags = flags, .sh_addr = at, .sh_offset = at,
                           .sh_addralign = align};
}
static void section_end(Image *im, int s, uint32_t link, uint32_t info, size_t entsize) {
  Elf64_Shdr *sh = &im->sh[s];
  sh->sh_size = im->len - sh->sh_offset;
  sh->sh_link = link;
  sh->sh_info = info;
  sh->sh_entsize = entsize;
}

static uint32_t elf_hash(const char *s) {
  uint32_t h = 0;
  while (*s) {
    h = (h << 4) + (uint8_t)*s++;
    uint32_t g = h & 0xf0000000u;
    if (g) h ^= g >> 24;
    h &= ~g;
  }
  return h;
}

/* A string table: names appended once each, after the leading empty string. */
typedef struct Strings {
  char b[512];
  uint32_t len;
} Strings;

static uint32_t string_add(Strings *t, const char *s) {
  uint32_t at = t->len;
  size_t n = strlen(s) + 1;
  memcpy(t->b + at, s, n);
  t->len += (uint32_t)n;
  return at;
}

static void put_u32(Image *im, uint32_t v) { put(im, &v, 4); }
static void put_i32(Image *im, int64_t v) { put_u32(im, (uint32_t)(int32_t)v); }

/* .eh_frame: one CIE with x86-64's rule at a function's entry (CFA = rsp + 8, return address
 * at CFA - 8), which holds at every instruction of these functions, then an FDE for each
 * function and the zero terminator. Records each FDE's offset in fde[]. */
static void put_eh_frame(Image *im, size_t text, size_t fde[NCALLS]) {
  static const uint8_t cie[] = {
      20, 0, 0, 0,             /* length of what follows */
      0, 0, 0, 0,              /* CIE id */
      1, 'z', 'R', 0,          /* version, augmentation: FDE pointer encoding given */
      1, 0x78, 16,             /* code alignment 1, data alignment -8, return address r16 */
      1, 0x1b,                 /* augmentation data: pointers pc-relative, signed 4 bytes */
      0x0c, 7, 8,              /* DW_CFA_def_cfa rsp, 8 */
      0x90, 1,                 /* DW_CFA_offset r16 at CFA - 8 */
      0, 0,                    /* DW_CFA_nop to an 8-byte multiple */
  };
  const size_t cie_at = put(im, cie, sizeof cie);
  for (size_t i = 0; i < NCALLS; i++) {
    fde[i] = im->len;
    put_u32(im, 20);                           /* length of what follows */
    put_u32(im, (uint32_t)(im->len - cie_at)); /* back to the CIE */
    put_i32(im, (int64_t)(text + i * FUNC_SIZE) - (int64_t)im->len);
    put_u32(im, FUNC_SIZE);
    static const uint8_t tail[8] = {0}; /* no augmentation data, no instructions, padding */
    put(im, tail, sizeof tail);
  }
  put_u32(im, 0); /* terminator */
}

size_t vdso_image(uint8_t out[VDSO_SIZE]) {
  memset(out, 0, VDSO_SIZE);
  Image im = {.b = out, .len = sizeof(Elf64_Ehdr) + NPHDRS * sizeof(Elf64_Phdr)};

  /* .text first, so that the symbols' addresses are known when the tables are written. */
  section_begin(&im, SEC_TEXT, SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, 16);
  for (size_t i = 0; i < NCALLS; i++) {
    uint8_t f[FUNC_SIZE];
    memset(f, 0xcc, sizeof f); /* int3 */
    const uint8_t call[CALL_BYTES] = {0xb8, (uint8_t)CALLS[i].nr, (uint8_t)(CALLS[i].nr >> 8), 0,
                                      0,    0x0f, 0x05, 0xc3}; /* mov eax, nr; syscall; ret */
    memcpy(f, call, sizeof call);
    put(&im, f, sizeof f);
  }
  section_end(&im, SEC_TEXT, 0, 0, 0);
  const size_t text = im.sh[SEC_TEXT].sh_addr;

  section_begin(&im, SEC_EH_FRAME, SHT_PROGBITS, SHF_ALLOC, 8);
  size_t fde[NCALLS];
  put_eh_frame(&im, text, fde);
  section_end(&im, SEC_EH_FRAME, 0, 0, 0);

  /* .eh_frame_hdr: the lookup table (sorted by address), relative to itself. */
  section_begin(&im, SEC_EH_FRAME_HDR, SHT_PROGBITS, SHF_ALLOC, 4);
  const size_t hdr = im.len;
  static const uint8_t encodings[4] = {1, 0x1b, 0x03, 0x3b}; /* version; pcrel, udata4, datarel */
  put(&im, encodings, sizeof encodings);
  put_i32(&im, (int64_t)im.sh[SEC_EH_FRAME].sh_addr - (int64_t)im.len);
  put_u32(&im, NCALLS);
  for (size_t i = 0; i < NCALLS; i++) {
    put_i32(&im, (int64_t)(text + i * FUNC_SIZE) - (int64_t)hdr);
    put_i32(&im, (int64_t)fde[i] - (int64_t)hdr);
  }
  section_end(&im, SEC_EH_FRAME_HDR, 0, 0, 0);

  Strings dynstr = {.len = 1};
  const uint32_t soname = string_add(&dynstr, SONAME), version = string_add(&dynstr, VERSION);
  Elf64_Sym syms[NSYMS] = {{0}};
  for (size_t i = 0; i < NCALLS; i++)
    for (int weak = 0; weak < 2; weak++) {
      char name[64];
      snprintf(name, sizeof name, "%s%s", weak ? "" : "__vdso_", CALLS[i].name);
      syms[1 + 2 * i + weak] = (Elf64_Sym){
          .st_name = string_add(&dynstr, name),
          .st_info = ELF64_ST_INFO(weak ? STB_WEAK : STB_GLOBAL, STT_FUNC),
          .st_shndx = SEC_TEXT,
          .st_value = text + i * FUNC_SIZE,
          .st_size = CALL_BYTES,
      };
    }

  /* .hash: the buckets, then the chains. */
  section_begin(&im, SEC_HASH, SHT_HASH, SHF_ALLOC, 4);
  const uint32_t nbucket = NCALLS;
  uint32_t hash[2 + NCALLS + NSYMS] = {nbucket, NSYMS};
  uint32_t *bucket = hash + 2, *chain = bucket + nbucket;
  for (uint32_t i = 1; i < NSYMS; i++) {
    uint32_t h = elf_hash(dynstr.b + syms[i].st_name) % nbucket;
    chain[i] = bucket[h];
    bucket[h] = i;
  }
  put(&im, hash, sizeof hash);
  section_end(&im, SEC_HASH, SEC_DYNSYM, 0, 4);

  section_begin(&im, SEC_DYNSYM, SHT_DYNSYM, SHF_ALLOC, 8);
  put(&im, syms, sizeof syms);
  section_end(&im, SEC_DYNSYM, SEC_DYNSTR, 1, sizeof(Elf64_Sym)); /* info: the first global */

  section_begin(&im, SEC_DYNSTR, SHT_STRTAB, SHF_ALLOC, 1);
  put(&im, dynstr.b, dynstr.len);
  section_end(&im, SEC_DYNSTR, 0, 0, 0);

  /* Every symbol but the null one is LINUX_2.6, version index 2 (1 is the object's own). */
  section_begin(&im, SEC_VERSYM, SHT_GNU_versym, SHF_ALLOC, 2);
  Elf64_Half versym[NSYMS] = {VER_NDX_LOCAL};
  for (size_t i = 1; i < NSYMS; i++) versym[i] = 2;
  put(&im, versym, sizeof versym);
  section_end(&im, SEC_VERSYM, SEC_DYNSYM, 0, 2);

  section_begin(&im, SEC_VERDEF, SHT_GNU_verdef, SHF_ALLOC, 4);
  const struct {
    uint16_t flags, ndx;
    const char *name;
    uint32_t name_at;
  } defs[2] = {{VER_FLG_BASE, 1, SONAME, soname}, {0, 2, VERSION, version}};
  for (int i = 0; i < 2; i++) {
    const uint32_t entry = sizeof(Elf64_Verdef) + sizeof(Elf64_Verdaux);
    Elf64_Verdef d = {.vd_version = VER_DEF_CURRENT, .vd_flags = defs[i].flags,
                      .vd_ndx = defs[i].ndx, .vd_cnt = 1, .vd_hash = elf_hash(defs[i].name),
                      .vd_aux = sizeof(Elf64_Verdef), .vd_next = i == 0 ? entry : 0};
    Elf64_Verdaux a = {.vda_name = defs[i].name_at};
    put(&im, &d, sizeof d);
    put(&im, &a, sizeof a);
  }
  section_end(&im, SEC_VERDEF, SEC_DYNSTR, 2, 0);

  section_begin(&im, SEC_DYNAMIC, SHT_DYNAMIC, SHF_ALLOC, 8);
  const Elf64_Dyn dyn[] = {
      {DT_HASH, {im.sh[SEC_HASH].sh_addr}},       {DT_STRTAB, {im.sh[SEC_DYNSTR].sh_addr}},
      {DT_SYMTAB, {im.sh[SEC_DYNSYM].sh_addr}},   {DT_STRSZ, {dynstr.len}},
      {DT_SYMENT, {sizeof(Elf64_Sym)}},           {DT_SONAME, {soname}},
      {DT_VERDEF, {im.sh[SEC_VERDEF].sh_addr}},   {DT_VERDEFNUM, {2}},
      {DT_VERSYM, {im.sh[SEC_VERSYM].sh_addr}},   {DT_NULL, {0}},
  };
  put(&im, dyn, sizeof dyn);
  section_end(&im, SEC_DYNAMIC, SEC_DYNSTR, 0, sizeof(Elf64_Dyn));

  Strings shstr = {.len = 1};
  section_begin(&im, SEC_SHSTRTAB, SHT_STRTAB, 0, 1);
  for (int s = 1; s < NSECTIONS; s++) im.sh[s].sh_name = string_add(&shstr, SECTION_NAMES[s]);
  put(&im, shstr.b, shstr.len);
  section_end(&im, SEC_SHSTRTAB, 0, 0, 0);
  im.sh[SEC_SHSTRTAB].sh_addr = 0; /* not part of the loaded image's view, as in any object */

  const size_t shoff = align_to(&im, 8);
  put(&im, im.sh, sizeof im.sh);
  const size_t total = im.len;

  const Elf64_Ehdr eh = {
      .e_ident = {ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3, ELFCLASS64, ELFDATA2LSB, EV_CURRENT,
                  ELFOSABI_NONE},
      .e_type = ET_DYN, .e_machine = EM_X86_64, .e_version = EV_CURRENT,
      .e_phoff = sizeof(Elf64_Ehdr), .e_shoff = shoff, .e_ehsize = sizeof(Elf64_Ehdr),
      .e_phentsize = sizeof(Elf64_Phdr), .e_phnum = NPHDRS,
      .e_shentsize = sizeof(Elf64_Shdr), .e_shnum = NSECTIONS, .e_shstrndx = SEC_SHSTRTAB,
  };
  const Elf64_Shdr *d = &im.sh[SEC_DYNAMIC], *e = &im.sh[SEC_EH_FRAME_HDR];
  const Elf64_Phdr ph[NPHDRS] = {
      [PH_LOAD] = {.p_type = PT_LOAD, .p_flags = PF_R | PF_X, .p_filesz = total,
                   .p_memsz = total, .p_align = VDSO_SIZE},
      [PH_DYNAMIC] = {.p_type = PT_DYNAMIC, .p_flags = PF_R, .p_offset = d->sh_offset,
                      .p_vaddr = d->sh_addr, .p_paddr = d->sh_addr, .p_filesz = d->sh_size,
                      .p_memsz = d->sh_size, .p_align = 8},
      [PH_EH_FRAME] = {.p_type = PT_GNU_EH_FRAME, .p_flags = PF_R, .p_offset = e->sh_offset,
                       .p_vaddr = e->sh_addr, .p_paddr = e->sh_addr, .p_filesz = e->sh_size,
                       .p_memsz = e->sh_size, .p_align = 4},
  };
  memcpy(out, &eh, sizeof eh);
  memcpy(out + sizeof eh, ph, sizeof ph);
  return total;
}

uint64_t vdso_map(const GuestSpace *space, char *err, size_t errlen) {
  void *at = guest_space_map(space, 0, VDSO_SIZE, VDSO_SIZE, 0, PROT_READ | PROT_WRITE,
                             MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (at == MAP_FAILED) {
    snprintf(err, errlen, "cannot map the vDSO: %s", strerror(errno));
    return 0;
  }
  if (!vdso_image(at) || mprotect(at, VDSO_SIZE, PROT_READ | PROT_EXEC) != 0) {
    snprintf(err, errlen, "cannot build the vDSO");
    munmap(at, VDSO_SIZE);
    return 0;
  }
  const uint64_t lo = (uint64_t)(uintptr_t)at;
  ranges_add(space->mem, lo, lo + VDSO_SIZE, GUEST_PROT_READ | GUEST_PROT_EXEC);
  return lo;
}
