/* entry.c: the static x64emu's entry point on x86-64 hosts, before the C library's _start.
 *
 * A static hello world's start-up took about 100 page faults in x64emu's own image (its
 * code touched a fault-around window at a time, and the relocated handler tables, 56
 * pages, one copy-on-write fault each); on a paravirtualised host each costs some
 * microseconds. Here each of the image's segments is faulted in with one madvise call
 * (MADV_POPULATE_READ for code and constants, MADV_POPULATE_WRITE for the writable one,
 * whose pages the relocations write anyway): 4.97-5.29 -> 4.52-4.75 ms (bench/startup 30,
 * AMD EPYC). A kernel older than 5.14 refuses the advice, which changes nothing.
 *
 * This runs before the image is relocated and before thread-local storage exists: it
 * reads its own program headers through the hidden __ehdr_start, which the compiler
 * reaches relative to RIP, makes the system call itself and uses no stack protector. */
#include <elf.h>
#include <link.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

extern const ElfW(Ehdr) __ehdr_start __attribute__((visibility("hidden")));

__attribute__((no_stack_protector, used)) void x64emu_populate_image(void) {
  const ElfW(Ehdr) *eh = &__ehdr_start;
  const ElfW(Phdr) *ph = (const ElfW(Phdr) *)((const char *)eh + eh->e_phoff);
  uintptr_t bias = (uintptr_t)eh; /* where the segment at file offset 0 was put */
  for (unsigned i = 0; i < eh->e_phnum; i++)
    if (ph[i].p_type == PT_LOAD && ph[i].p_offset == 0) bias -= ph[i].p_vaddr;
  for (unsigned i = 0; i < eh->e_phnum; i++) {
    if (ph[i].p_type != PT_LOAD) continue;
    uintptr_t start = (bias + ph[i].p_vaddr) & ~(uintptr_t)4095;
    uintptr_t end = (bias + ph[i].p_vaddr + ph[i].p_memsz + 4095) & ~(uintptr_t)4095;
    long advice = ph[i].p_flags & PF_W ? MADV_POPULATE_WRITE : MADV_POPULATE_READ, ret;
    __asm__ volatile("syscall"
                     : "=a"(ret)
                     : "0"((long)SYS_madvise), "D"(start), "S"(end - start), "d"(advice)
                     : "rcx", "r11", "memory");
    (void)ret; /* only advice */
  }
}

/* The kernel starts a process with RSP at argc and RDX for the C library's _start (which
 * takes it as the function to run at exit): both are as they were when _start runs. */
__asm__(".text\n"
        ".globl x64emu_entry\n"
        ".type x64emu_entry, @function\n"
        "x64emu_entry:\n"
        "  mov %rdx, %r12\n"
        "  call x64emu_populate_image\n"
        "  mov %r12, %rdx\n"
        "  jmp _start\n"
        ".size x64emu_entry, . - x64emu_entry\n");
