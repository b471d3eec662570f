/* process.h: the Linux personality of one guest process: the process, which wraps the
 * core's machine, and its thread, which wraps the core's CPU. */
#ifndef X64EMU_PROCESS_H
#define X64EMU_PROCESS_H

#include <stdbool.h>
#include <stdint.h>

#include "../interp/cpu.h"
#include "../interp/machine.h"
#include "../loader/guest_space.h"
#include "seccomp.h"
#include "sys_x64.h"
#include "threads.h"
#include "virtual_time.h"

#define X64_NSIG 64

/* The Linux personality's bits in Cpu.events: cpu_run returns STOP_EVENT for them. */
enum {
  EV_EXIT = 1u << 0,   /* the guest called exit/exit_group or was killed */
  EV_SIGNAL = 1u << 2, /* a host signal is pending for the guest */
  EV_YIELD = 1u << 3,  /* another thread waits for the run lock (threads.h) */
  EV_SYNC = 1u << 4,   /* the decoded code is about to be flushed: leave it (threads.c) */
};

typedef struct Options {
  bool strace;        /* print every guest syscall */
  uint64_t *syscall_counts; /* when set, the calls made by number, X64_NR_COUNT + 1 entries
                               (the last for numbers beyond): --stats=json */
  bool deterministic; /* randomness and clocks from the seed and the instruction count */
  const char *sysroot; /* -L: absolute paths looked up under it first (sysroot.h), or NULL */
  bool serial_threads; /* the guest's threads take turns (threads.h): for --deterministic,
                          the tools, --serial-threads */
  bool host_memory_order; /* --memory-order=host: threads in parallel without x86's order
                             on a host whose own is weaker (unsafe: for measuring it) */
  uint64_t stop_signals; /* a debugger's: linux_run stops before it delivers these (bit
                            sig - 1), STOP_SIGNAL */
  int64_t deterministic_pid; /* the host's id of the process that reads as 1000 */
  char **reexec_argv; /* how to run x64emu again for execve: argv[0] + options, NULL-ended */
  /* How the process ends when one of its threads ends it (exit_group, a signal): the
   * command's reports, then the exit status; without it (an embedder's machine) the
   * guest cannot make threads. */
  void (*finish)(Cpu *c); /* does not return */
} Options;

/* A thread's signal state, as the kernel keeps it per task. */
typedef struct ThreadSignals {
  uint64_t mask;
  /* rt_sigsuspend, ppoll, pselect6: the mask to go back to after the handler. */
  uint64_t saved_mask;
  bool restore_saved;
  X64StackT altstack; /* ss_flags as the guest gave them, like the kernel's sas_ss_flags */
  /* The last fault's trap number, error code and page-fault address: every frame shows them. */
  uint64_t trapno, err, cr2;
  /* The system call that ended at interrupted_rip returned -EINTR; it may restart. */
  bool interrupted;
  uint64_t interrupted_rip, interrupted_nr;
  /* rt_sigtimedwait's set while it waits in the host (atomic: turns.c reads it). */
  uint64_t awaited;
} ThreadSignals;

struct Process;

typedef struct Thread {
  Cpu cpu;
  struct Process *proc;
  ThreadSignals sig;
  uint64_t clear_child_tid, robust_list_head; /* set_tid_address, set_robust_list */
  Seccomp seccomp;       /* its strict mode or filters (seccomp.h) */
  int32_t host_tid;      /* the host's id of its host thread */
  unsigned nth;          /* 0 for the process's first thread, n for the n-th it made */
  sem_t turn;            /* posted when the run lock is handed to it (threads.c) */
  struct Thread *queued; /* the next thread waiting for the run lock */
  struct ThreadSched {   /* --deterministic's turns (turns.c), under Threads.mutex */
    uint8_t state;       /* TURN_READY, TURN_WAITING (a futex), TURN_AWAY (a host call) */
    bool in_call;        /* in a system call that may block, keeping the turn */
    bool interruptible;  /* waiting: a signal's handler ends the wait (-EINTR) */
    uint64_t call_began; /* the host's monotonic time then, ns */
    uint64_t began_at;   /* cpu.icount when the turn began, and when it ends */
    uint64_t end_at;
    uint64_t futex, seq; /* waiting: the word's address, the wait's number (Threads.waits) */
    uint32_t bitset;
    uint64_t deadline;   /* on the process's clock; UINT64_MAX for none */
    uint64_t wall_deadline; /* the same on this thread's wall clock (virtual_time.h) */
    int64_t result;      /* what the wait returns */
  } sched;
} Thread;

/* A PT_LOAD segment's part that comes from the file, as the kernel would map it: pages
 * [lo, hi) from file offset `offset` (the rest, up to p_memsz, is anonymous). */
typedef struct ImageSegment {
  uint64_t lo, hi, offset;
} ImageSegment;
#define IMAGE_MAX_SEGMENTS 16

/* A file the loader copied into the guest's memory (the program, its dynamic loader):
 * named in the guest's /proc/self/maps where the kernel would have mapped it. */
typedef struct GuestImage {
  char path[4096];
  uint64_t dev, ino;
  ImageSegment seg[IMAGE_MAX_SEGMENTS];
  unsigned nseg;
} GuestImage;

typedef struct Process {
  Machine machine;
  Thread main; /* the guest thread it starts with */
  Threads threads; /* all of them, and the run lock (threads.c) */
  Options opt;
  char exe_path[4096]; /* absolute path of the guest program: /proc/self/exe */
  uint64_t brk_start, brk_cur, brk_end; /* the guest heap, in a reservation of its own */
  uint64_t vdso;                        /* where the vDSO was mapped (AT_SYSINFO_EHDR) */
  GuestSpace space;                     /* where its mappings without an address go */
  uint64_t stack_at;                    /* an address of the main thread's stack */
  GuestImage images[2];                 /* the program and its dynamic loader */
  uint64_t mem_file_dev, mem_file_ino;  /* the /proc/self/mem the guest opened (proc_self.c) */
  /* Which mappings are the guest's (machine.mem): noted by the loader (and the break),
   * else guessed from the stack and heap once (tests that make a bare process). */
  bool mem_noted, mem_guessed;
  /* Signal dispositions, and whether what exec passed on was read from the host. */
  bool sig_ready;
  X64Sigaction sig_action[X64_NSIG + 1];
  /* In a vfork child: its end of the socket pair with the waiting parent, else -1. */
  int vfork_fd;
  /* x64emu's own file, which execve runs again, once a chroot may have hidden its path
   * (sys_chroot); else -1. Close-on-exec: each image is given a copy (--self-fd). */
  int self_fd;
  uint64_t random_state; /* --deterministic's generator (determinism.c) */
  /* The signal linux_run stopped before (STOP_SIGNAL), and whether it is the fault of
   * the instruction at rip (in cpu.fault); 0 when none waits. */
  int stopped_signal;
  bool stopped_fault;
  VirtualTime vtime;     /* --deterministic's timers (virtual_time.c) */
  /* System V shared memory the guest attached (shmat), for shmdt to know each one's
   * length (sys_mem.c). */
  struct ShmAttached {
    uint64_t addr, len;
  } *shm;
  unsigned nshm, shm_cap;
  /* mlockall's MCL_FUTURE (and MCL_ONFAULT): the guest's new mappings are locked as they
   * are made (sys_mem.c); 0 without. Not inherited by fork, as the kernel's. */
  int mlock_future;
  SeccompFilter *seccomp_kept; /* every filter its threads attached (seccomp.h) */
} Process;

/* A new process with one thread, for the program at exe_path; false (nothing to destroy)
 * if the machine cannot be made. */
bool process_init(Process *p, const char *exe_path);
void process_destroy(Process *p);

static inline Thread *thread_of(const Cpu *c) { return (Thread *)c->owner; }
static inline Process *proc_of(const Cpu *c) { return thread_of(c)->proc; }

#endif
