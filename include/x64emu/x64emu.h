/* x64emu.h: the x64emu library: run and inspect x86-64 code in a machine of your own.
 *
 * A machine is one x86-64 CPU and the guest memory it owns. A bare machine has no
 * operating system: you map memory, write code and registers, and run; a system call or
 * a fault comes back to you as the reason the run stopped. A Linux machine loads a static
 * x86-64 Linux program and runs it as the x64emu command does.
 *
 * Every function returns an x64emu_status (X64EMU_OK, or what went wrong: see
 * x64emu_strerror); nothing in the library aborts or exits. Handles are yours: open,
 * use, close. Guest addresses are host addresses, so the machines of one process share
 * one address space; mapping where another machine (or the host program) has memory
 * fails with X64EMU_ERR_MAP_IN_USE. Opening a machine installs the library's SIGSEGV and
 * SIGBUS handlers, which turn faults on guest memory into guest faults.
 *
 * Build with: cc prog.c $(pkg-config --cflags --libs x64emu), or in CMake
 * find_package(x64emu) and target_link_libraries(prog x64emu::x64emu). */
#ifndef X64EMU_X64EMU_H
#define X64EMU_X64EMU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct x64emu x64emu;

typedef enum x64emu_status {
  X64EMU_OK = 0,
  X64EMU_ERR_ARG,         /* an argument is out of range (NULL, unaligned, unknown...) */
  X64EMU_ERR_NOMEM,       /* the host has no memory for it */
  X64EMU_ERR_INIT,        /* Capstone or the code cache could not be set up */
  X64EMU_ERR_MAP_IN_USE,  /* the range holds memory of another machine or of the host */
  X64EMU_ERR_UNMAPPED,    /* the range is not all memory of this machine */
  X64EMU_ERR_REG,         /* no such register */
  X64EMU_ERR_LOAD,        /* the program could not be loaded (x64emu_last_error says why) */
  X64EMU_ERR_LINUX_IN_USE, /* a Linux machine is open already: one per host process */
  X64EMU_ERR_RUNNING,     /* not allowed while the machine runs (from another thread; from
                             a memory hook, in the middle of an instruction) */
  X64EMU_ERR_HOOK,        /* no such hook */
  X64EMU_ERR_DECODE,      /* the bytes at the address are not an x86-64 instruction */
} x64emu_status;

/* A one-line description of a status ("unknown status" for other numbers). */
const char *x64emu_strerror(x64emu_status status);

/* ---- machines ---- */

/* A bare machine: no memory, registers at reset (RFLAGS 0x202, MXCSR 0x1F80, x87 empty). */
x64emu_status x64emu_open(x64emu **machine);

/* A Linux machine running the static x86-64 program at path, with argv (argv[0] is what
 * the program sees) and envp, both NULL-terminated; stopped at its entry point. */
x64emu_status x64emu_open_linux(x64emu **machine, const char *path,
                                           char *const argv[], char *const envp[]);

/* The message of the last failed x64emu_open_linux of this thread (a loader's "path:
 * what is wrong"), or "". */
const char *x64emu_last_error(void);

/* Ends the machine and unmaps its memory. NULL is allowed. */
void x64emu_close(x64emu *machine);

/* ---- memory ---- */

enum { X64EMU_PROT_NONE = 0, X64EMU_PROT_READ = 1, X64EMU_PROT_WRITE = 2, X64EMU_PROT_EXEC = 4 };

/* Maps [address, address + size) as zeroed memory of this machine (both multiples of
 * 4096, or of the host's page where that is larger: 16 or 64 KiB on some arm64 kernels;
 * likewise for unmap and protect). X64EMU_ERR_MAP_IN_USE if anything is mapped there
 * already. */
x64emu_status x64emu_mem_map(x64emu *m, uint64_t address, uint64_t size, int prot);
x64emu_status x64emu_mem_unmap(x64emu *m, uint64_t address, uint64_t size);
x64emu_status x64emu_mem_protect(x64emu *m, uint64_t address, uint64_t size, int prot);

/* Copies guest memory, whatever its protection; the range must be this machine's.
 * Writing over code drops what was decoded from it. */
x64emu_status x64emu_mem_read(x64emu *m, uint64_t address, void *bytes, size_t size);
x64emu_status x64emu_mem_write(x64emu *m, uint64_t address, const void *bytes,
                                          size_t size);

/* ---- registers ---- */

typedef enum x64emu_reg {
  X64EMU_REG_RAX, X64EMU_REG_RCX, X64EMU_REG_RDX, X64EMU_REG_RBX,
  X64EMU_REG_RSP, X64EMU_REG_RBP, X64EMU_REG_RSI, X64EMU_REG_RDI,
  X64EMU_REG_R8, X64EMU_REG_R9, X64EMU_REG_R10, X64EMU_REG_R11,
  X64EMU_REG_R12, X64EMU_REG_R13, X64EMU_REG_R14, X64EMU_REG_R15,
  X64EMU_REG_RIP, X64EMU_REG_RFLAGS, X64EMU_REG_FS_BASE, X64EMU_REG_GS_BASE,
  X64EMU_REG_MXCSR,                  /* 4 bytes */
  X64EMU_REG_FCW, X64EMU_REG_FSW,    /* 2 bytes: x87 control word, status word (with TOP) */
  X64EMU_REG_FTW,                    /* 2 bytes: the full tag word, 2 bits a register */
  X64EMU_REG_XMM0,                   /* 16 bytes each, XMM0..XMM15 */
  X64EMU_REG_XMM15 = X64EMU_REG_XMM0 + 15,
  X64EMU_REG_ST0,                    /* 10 bytes each (80-bit extended), ST(0)..ST(7) */
  X64EMU_REG_ST7 = X64EMU_REG_ST0 + 7,
  X64EMU_REG_COUNT
} x64emu_reg;

/* The size in bytes of a register's value (8 for the general registers, RIP, RFLAGS and
 * the segment bases), or 0 for no register. */
size_t x64emu_reg_size(int reg);

/* Reads or writes a register's value (x64emu_reg_size bytes, little-endian). Writing
 * MXCSR with reserved bits set is X64EMU_ERR_ARG, as LDMXCSR's #GP; RFLAGS keeps the bits
 * user code can change (CF PF AF ZF SF DF OF AC ID), with IF set. */
x64emu_status x64emu_reg_read(x64emu *m, int reg, void *value);
x64emu_status x64emu_reg_write(x64emu *m, int reg, const void *value);

/* Where a register's value lives, for as long as the machine is open: reading *view is
 * reading the register, with no call, for hooks that look at registers at every
 * instruction. Between runs and inside hooks it holds what x64emu_reg_read would give.
 * For the registers kept as they read: RAX..R15, RIP, FS/GS base, MXCSR, FCW, XMM0..15;
 * the others are computed on reading (X64EMU_ERR_REG). Write through x64emu_reg_write. */
x64emu_status x64emu_reg_view(x64emu *m, int reg, const void **view);

/* ---- running ---- */

typedef enum x64emu_stop_reason {
  X64EMU_STOP_SYSCALL = 1, /* SYSCALL ran (bare machine): RIP is after it, RCX/R11 set */
  X64EMU_STOP_FAULT,       /* a fault or trap: signal, code and address say which */
  X64EMU_STOP_UNTIL,       /* RIP reached the run's `until` address */
  X64EMU_STOP_BREAKPOINT,  /* RIP reached a breakpoint; the instruction there has not run */
  X64EMU_STOP_COUNT,       /* the run's count of instructions ran (one, for x64emu_step) */
  X64EMU_STOP_REQUESTED,   /* x64emu_stop, from a hook or another thread */
  X64EMU_STOP_EXIT,        /* the program exited (Linux machine): exit_status, signal */
} x64emu_stop_reason;

typedef struct x64emu_stop {
  x64emu_stop_reason reason;
  int signal;       /* FAULT: the Linux signal (SIGSEGV, SIGILL...); EXIT: the one that
                       killed the program, or 0 */
  int code;         /* FAULT: its si_code (SEGV_MAPERR, ILL_ILLOPN...) */
  uint64_t address; /* FAULT: its si_addr */
  int exit_status;  /* EXIT: the exit status when no signal killed it */
} x64emu_stop;

/* Runs from RIP until a stop: `until` (0 for none) is reached, `count` instructions have
 * run (0 for no limit), a breakpoint, a hook's x64emu_stop, a fault, a system call (bare)
 * or the exit (Linux). Every stop is at an exact instruction boundary. An iteration of a
 * REP string instruction counts as one instruction, as the CPU's trap flag steps them.
 * A breakpoint at the starting RIP does not stop the run. */
x64emu_status x64emu_run(x64emu *m, uint64_t until, uint64_t count, x64emu_stop *stop);

/* Runs exactly one instruction (one iteration of a REP string instruction). */
x64emu_status x64emu_step(x64emu *m, x64emu_stop *stop);

/* Stops the run: before the next instruction from a hook, soon from another thread. */
x64emu_status x64emu_stop_run(x64emu *m);

/* Instructions run since the machine opened. */
uint64_t x64emu_icount(const x64emu *m);

x64emu_status x64emu_breakpoint_add(x64emu *m, uint64_t address);
x64emu_status x64emu_breakpoint_remove(x64emu *m, uint64_t address);

/* Capstone's disassembly of the instruction at address ("aesenc xmm0, xmm1") and its
 * length. */
x64emu_status x64emu_disasm(x64emu *m, uint64_t address, char *text, size_t size,
                                       unsigned *length);

/* ---- hooks ----
 * Each hook gets the machine and your pointer; it may read and write registers and
 * memory, map, unmap and protect memory (a fault hook may map the page that faulted and
 * let the run go on), and stop the run (x64emu_stop_run); a memory hook, which runs in
 * the middle of an instruction, does less (x64emu_hook_mem). Adding and removing hooks and
 * breakpoints is for between runs (X64EMU_ERR_RUNNING otherwise). Several hooks of a kind
 * run in the order they were added. A hook's id removes it. */

/* Before each instruction at an address in [begin, end): end = 0 means every address. */
typedef void (*x64emu_insn_hook)(x64emu *m, uint64_t address, unsigned length, void *user);
x64emu_status x64emu_hook_insn(x64emu *m, uint64_t begin, uint64_t end,
                                          x64emu_insn_hook hook, void *user, int *id);

/* Before each basic block (straight-line code up to a control transfer) that starts in
 * [begin, end); end = 0 means everywhere. */
typedef void (*x64emu_block_hook)(x64emu *m, uint64_t address, uint64_t length, void *user);
x64emu_status x64emu_hook_block(x64emu *m, uint64_t begin, uint64_t end,
                                           x64emu_block_hook hook, void *user, int *id);

/* Event hooks of a bare machine (a Linux machine's program handles these itself, with
 * its system calls and signal handlers): for each SYSCALL (RIP after it), each fault
 * (the stop's signal, code and address), each invalid instruction (a SIGILL fault: #UD;
 * the fault hooks see it too unless an invalid-instruction hook handles it). Returning
 * true says the hook handled it (it set the registers, RAX for a system call, RIP past a
 * fault) and the run goes on; false makes the run stop with it. */
typedef bool (*x64emu_event_hook)(x64emu *m, const x64emu_stop *event, void *user);
x64emu_status x64emu_hook_syscall(x64emu *m, x64emu_event_hook hook, void *user, int *id);
x64emu_status x64emu_hook_fault(x64emu *m, x64emu_event_hook hook, void *user, int *id);
x64emu_status x64emu_hook_invalid(x64emu *m, x64emu_event_hook hook, void *user, int *id);

/* After each load and each store of an instruction that overlaps [begin, end) (end = 0
 * means every address), for the accesses asked for: X64EMU_MEM_READ, X64EMU_MEM_WRITE
 * or both. The hook gets which it is, the address, the size (1, 2, 4, 8, 10 or 16 bytes;
 * up to 512 for the x87 and FXSAVE state images) and the bytes read or written. A REP
 * string instruction makes its accesses an iteration at a time; an access that faults
 * is not reported, nor are the kernel's (a Linux machine's system calls).
 * The hook runs in the middle of its instruction: RIP reads as the instruction's
 * address and the other registers as the instruction has left them so far. It may read
 * registers, read and write memory, and stop the run, which stops after the
 * instruction; writing registers or changing mappings there is X64EMU_ERR_RUNNING.
 * While a memory hook exists, instructions run from a copy of the interpreter that
 * reports its accesses (1.5 to 3 times slower); without one they cost nothing. */
enum { X64EMU_MEM_READ = 1, X64EMU_MEM_WRITE = 2 };
typedef void (*x64emu_mem_hook)(x64emu *m, int access, uint64_t address, unsigned size,
                                const void *data, void *user);
x64emu_status x64emu_hook_mem(x64emu *m, int access, uint64_t begin, uint64_t end,
                                         x64emu_mem_hook hook, void *user, int *id);

x64emu_status x64emu_hook_remove(x64emu *m, int id);

#ifdef __cplusplus
}
#endif

#endif
