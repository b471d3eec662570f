/* elf.h: loading an x86-64 ELF executable (ET_EXEC or PIE) for the guest, with the
 * dynamic loader it names (PT_INTERP). */
#ifndef X64EMU_ELF_H
#define X64EMU_ELF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../linux-user/process.h"
#include "guest_space.h"

/* Where an executable landed in the guest address space (guest address == host address). */
typedef struct ElfImage {
  uint64_t bias;     /* added to every p_vaddr: 0 for ET_EXEC, the load base for static PIE */
  uint64_t entry;    /* e_entry + bias */
  uint64_t phdr;     /* AT_PHDR: the program headers in guest memory, 0 if no segment holds them */
  uint16_t phnum;    /* AT_PHNUM */
  uint64_t lo, hi;   /* the loaded segments span [lo, hi), host-page aligned */
  uint64_t room_end; /* end of an extra reservation after hi for the heap (static PIE), else hi */
  bool exec_stack;   /* PT_GNU_STACK asks for (or, missing, implies) an executable stack */
  char interp[4096]; /* PT_INTERP: the dynamic loader it names (PATH_MAX at most), or "" */
  ImageSegment seg[IMAGE_MAX_SEGMENTS]; /* the file-backed parts of its segments */
  unsigned nseg;
} ElfImage;

/* What loading returns besides 0, with a one-line message "path: what is wrong": a file
 * the kernel's execve would refuse (it returns an error, and the caller goes on), or one
 * it would give up the old image for and then fail to map (the process dies of SIGSEGV:
 * the caller must end so). */
enum { ELF_REFUSED = -1, ELF_FATAL = -2 };

/* Checks the file at path as the kernel's ELF loader does and maps its PT_LOAD segments:
 * where they say for ET_EXEC, in the guest's space for ET_DYN. For a static PIE, brk_room
 * more bytes are reserved (PROT_NONE) right after the image, so that the heap can follow
 * it. The segments' pages are added to space->mem.
 * Returns 0, ELF_REFUSED or ELF_FATAL. */
int elf_map(const char *path, ElfImage *img, uint64_t brk_room, const GuestSpace *space,
            char *err, size_t errlen);

/* Loads the program at path into p (made by process_init): segments, heap (brk), its
 * dynamic loader if it names one (mapped as the kernel maps it, where it finds room, and
 * started first: AT_BASE says where), initial stack with argv, envp and the auxiliary
 * vector, and the CPU ready to run at the entry point. argv is what the
 * guest sees (argv[0] included); path is also AT_EXECFN. p->opt is kept; the rest of p is
 * set here. Returns 0, ELF_REFUSED or ELF_FATAL with a one-line message in err. */
int elf_load(Process *p, const char *path, char *const argv[], char *const envp[], char *err,
             size_t errlen);

#endif
