/* api_machine.c: opening and closing machines, status texts, guest memory. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../interp/fault.h"
#include "../interp/run.h"
#include "../linux-user/signals.h"
#include "../loader/elf.h"
#include "../loader/guest_space.h"
#include "api.h"

#define PAGE 4096ull

static __thread char last_error[512];

const char *x64emu_strerror(x64emu_status status) {
  switch (status) {
  case X64EMU_OK: return "success";
  case X64EMU_ERR_ARG: return "invalid argument";
  case X64EMU_ERR_NOMEM: return "out of memory";
  case X64EMU_ERR_INIT: return "cannot initialise Capstone or reserve the code cache";
  case X64EMU_ERR_MAP_IN_USE: return "memory is mapped there already (another machine or the host)";
  case X64EMU_ERR_UNMAPPED: return "memory is not mapped by this machine";
  case X64EMU_ERR_REG: return "no such register";
  case X64EMU_ERR_LOAD: return "cannot load the program";
  case X64EMU_ERR_LINUX_IN_USE: return "a Linux machine is open already in this process";
  case X64EMU_ERR_RUNNING: return "the machine is running";
  case X64EMU_ERR_HOOK: return "no such hook";
  case X64EMU_ERR_DECODE: return "not an x86-64 instruction";
  }
  return "unknown status";
}

const char *x64emu_last_error(void) { return last_error; }

/* Unmaps what the machine's guest had mapped. */
static void unmap_guest(Machine *m) {
  for (size_t i = 0; i < m->mem.n; i++)
    munmap((void *)(uintptr_t)m->mem.r[i].lo, m->mem.r[i].hi - m->mem.r[i].lo);
}

static x64emu *handle_new(void) {
  x64emu *x = calloc(1, sizeof *x);
  if (!x) return NULL;
  x->mem_fd = open("/proc/self/mem", O_RDWR | O_CLOEXEC);
  if (x->mem_fd < 0) {
    free(x);
    return NULL;
  }
  x->next_id = 1;
  return x;
}

x64emu_status x64emu_open(x64emu **machine) {
  if (!machine) return X64EMU_ERR_ARG;
  *machine = NULL;
  x64emu *x = handle_new();
  if (!x) return X64EMU_ERR_NOMEM;
  if (!machine_init(&x->bare_machine)) {
    close(x->mem_fd);
    free(x);
    return X64EMU_ERR_INIT;
  }
  x->m = &x->bare_machine;
  x->m->code.exec_map = &x->m->mem; /* code runs only from executable pages it mapped */
  x->c = &x->bare_cpu;
  cpu_init(x->c, x->m);
  x->m->embedder = x;
  fault_install();
  *machine = x;
  return X64EMU_OK;
}

x64emu_status x64emu_open_linux(x64emu **machine, const char *path, char *const argv[],
                                char *const envp[]) {
  if (!machine || !path || !argv || !argv[0] || !envp) return X64EMU_ERR_ARG;
  *machine = NULL;
  last_error[0] = 0;
  if (!signals_host_claim()) return X64EMU_ERR_LINUX_IN_USE;
  x64emu *x = handle_new();
  Process *p = x ? calloc(1, sizeof *p) : NULL;
  x64emu_status st = X64EMU_ERR_NOMEM;
  if (p) st = process_init(p, path) ? X64EMU_OK : X64EMU_ERR_INIT;
  if (st == X64EMU_OK) {
    fault_install();
    if (elf_load(p, path, argv, envp, last_error, sizeof last_error) != 0) {
      unmap_guest(&p->machine); /* what was loaded before the failure */
      process_destroy(p);
      st = X64EMU_ERR_LOAD;
    }
  }
  if (st != X64EMU_OK) {
    free(p);
    if (x) close(x->mem_fd);
    free(x);
    signals_host_release();
    return st;
  }
  x->proc = p;
  x->m = &p->machine;
  x->c = &p->main.cpu;
  x->m->embedder = x;
  *machine = x;
  return X64EMU_OK;
}

void x64emu_close(x64emu *x) {
  if (!x) return;
  unmap_guest(x->m); /* the guest's memory goes with it */
  if (x->proc) {
    if (x->proc->brk_end > x->proc->brk_start)
      munmap((void *)(uintptr_t)x->proc->brk_start, x->proc->brk_end - x->proc->brk_start);
    process_destroy(x->proc);
    free(x->proc);
    signals_host_release();
  } else {
    machine_destroy(x->m);
  }
  free(x->hooks);
  free(x->insn_hooks);
  close(x->mem_fd);
  free(x);
}

/* ---- memory ---- */

_Static_assert((int)X64EMU_PROT_READ == (int)GUEST_PROT_READ &&
                   (int)X64EMU_PROT_WRITE == (int)GUEST_PROT_WRITE &&
                   (int)X64EMU_PROT_EXEC == (int)GUEST_PROT_EXEC,
               "the API's protections are the guest's");

/* Whole host pages: the machine's memory is the host's, page for page (a host page may
 * be larger than x86-64's 4 KiB). */
static bool range_ok(uint64_t address, uint64_t size) {
  uint64_t page = host_page() > PAGE ? host_page() : PAGE;
  return size && !(address % page) && !(size % page) && address + size > address &&
         address + size <= (1ull << 47);
}

x64emu_status x64emu_mem_map(x64emu *x, uint64_t address, uint64_t size, int prot) {
  if (!x || !range_ok(address, size) || (prot & ~7)) return X64EMU_ERR_ARG;
  if (x->in_mem_hook) return X64EMU_ERR_RUNNING;
  void *want = (void *)(uintptr_t)address;
  void *got = mmap(want, size, guest_prot_on_host((unsigned)prot),
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
  if (got == MAP_FAILED) return errno == EEXIST ? X64EMU_ERR_MAP_IN_USE : X64EMU_ERR_NOMEM;
  if (got != want) { /* a kernel older than MAP_FIXED_NOREPLACE takes it as a hint */
    munmap(got, size);
    return X64EMU_ERR_MAP_IN_USE;
  }
  if (!ranges_add(&x->m->mem, address, address + size, prot)) {
    munmap(got, size);
    return X64EMU_ERR_NOMEM;
  }
  block_invalidate_range(&x->m->code, address, size);
  return X64EMU_OK;
}

x64emu_status x64emu_mem_unmap(x64emu *x, uint64_t address, uint64_t size) {
  if (!x || !range_ok(address, size)) return X64EMU_ERR_ARG;
  if (x->in_mem_hook) return X64EMU_ERR_RUNNING;
  if (!ranges_cover(&x->m->mem, address, address + size)) return X64EMU_ERR_UNMAPPED;
  if (!ranges_remove(&x->m->mem, address, address + size)) return X64EMU_ERR_NOMEM;
  munmap((void *)(uintptr_t)address, size);
  block_invalidate_range(&x->m->code, address, size);
  return X64EMU_OK;
}

x64emu_status x64emu_mem_protect(x64emu *x, uint64_t address, uint64_t size, int prot) {
  if (!x || !range_ok(address, size) || (prot & ~7)) return X64EMU_ERR_ARG;
  if (x->in_mem_hook) return X64EMU_ERR_RUNNING;
  if (!ranges_cover(&x->m->mem, address, address + size)) return X64EMU_ERR_UNMAPPED;
  if (mprotect((void *)(uintptr_t)address, size, guest_prot_on_host((unsigned)prot)) != 0)
    return X64EMU_ERR_NOMEM;
  if (!ranges_protect(&x->m->mem, address, address + size, prot)) return X64EMU_ERR_NOMEM;
  block_invalidate_range(&x->m->code, address, size);
  return X64EMU_OK;
}

static bool mine(const x64emu *x, uint64_t address, size_t size) {
  return address + size >= address && ranges_cover(&x->m->mem, address, address + size);
}

x64emu_status x64emu_mem_read(x64emu *x, uint64_t address, void *bytes, size_t size) {
  if (!x || (!bytes && size)) return X64EMU_ERR_ARG;
  if (!size) return X64EMU_OK;
  if (!mine(x, address, size)) return X64EMU_ERR_UNMAPPED;
  if (fault_copy_in(bytes, address, (unsigned)(size < 0x7fffffff ? size : 0)) == size) return X64EMU_OK;
  return pread(x->mem_fd, bytes, size, (off_t)address) == (ssize_t)size ? X64EMU_OK : X64EMU_ERR_UNMAPPED;
}

x64emu_status x64emu_mem_write(x64emu *x, uint64_t address, const void *bytes, size_t size) {
  if (!x || (!bytes && size)) return X64EMU_ERR_ARG;
  if (!size) return X64EMU_OK;
  if (!mine(x, address, size)) return X64EMU_ERR_UNMAPPED;
  if (pwrite(x->mem_fd, bytes, size, (off_t)address) != (ssize_t)size) return X64EMU_ERR_UNMAPPED;
  block_invalidate_range(&x->m->code, address, size);
  return X64EMU_OK;
}
