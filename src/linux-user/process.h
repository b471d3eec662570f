/* process.h: the Linux personality of one guest process. */
#ifndef X64EMU_PROCESS_H
#define X64EMU_PROCESS_H

#include <stdbool.h>
#include <stdint.h>

#include "../interp/cpu.h"

/* The Linux personality's bits in Cpu.events: cpu_run returns STOP_EVENT for them. */
enum {
  EV_EXIT = 1u << 0,   /* the guest called exit/exit_group or was killed */
  EV_SIGNAL = 1u << 2, /* a host signal is pending for the guest */
};

typedef struct Options {
  bool strace;        /* print every guest syscall */
  char **reexec_argv; /* how to run x64emu again for execve: argv[0] + options, NULL-ended */
} Options;

typedef struct Process {
  Cpu cpu;
  Options opt;
  char exe_path[4096]; /* absolute path of the guest program: /proc/self/exe */
  uint64_t brk_start, brk_cur, brk_end; /* the guest heap, in a reservation of its own */
} Process;

#endif
