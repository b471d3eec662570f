/* machine.h: one emulated machine's core state: its CPU model, its decoder and its
 * decoded code. The CPUs that run on it point to it (Cpu.m); it knows no operating
 * system: the Linux personality's process, or the public API's machine, wraps it.
 *
 * Guest addresses are host addresses (access.h), so the machines of one host process
 * share one address space: each owns the mappings it made, and a mapping that would
 * overlap another's is refused (the README's "As a library": no guest base, so no cost). */
#ifndef X64EMU_MACHINE_H
#define X64EMU_MACHINE_H

#include <pthread.h>
#include <stdbool.h>

#include "../decoder/block.h"
#include "../decoder/decode.h"
#include "cpuid.h"
#include "mxcsr.h"
#include "ranges.h"

/* Callbacks of whoever embeds the core (the public API), each optional, called with the
 * embedder's handle and pointer: the instruction hook before every instruction in the
 * range given to block_hooks_set, the block hook before every block of a run. Either may
 * change registers, move rip, or stop the run with cpu_request_stop(c, STOP_REQUESTED).
 * The signature is the public x64emu_insn_hook's, so that one user hook is called
 * directly, with no dispatch between. The memory hook runs after every guest load and
 * store of an instruction while the machine watches memory (machine_watch), in
 * the middle of that instruction: it may read registers and memory, write memory, and
 * stop the run after the instruction. */
typedef struct MachineHooks {
  void (*insn)(void *embedder, uint64_t rip, unsigned len, void *user);
  void *insn_user;
  void (*block)(void *embedder, uint64_t start, uint64_t len, void *user);
  void *block_user;
  void (*mem)(void *embedder, bool write, uint64_t address, unsigned size, const void *data,
              void *user);
  void *mem_user;
} MachineHooks;

typedef struct Machine {
  CpuModel model;     /* what CPUID says and which instructions decode */
  enum FpTier fp_tier; /* who runs the floating-point instructions */
  Decoder dec;
  BlockCache code;
  RangeSet mem;        /* the guest's memory: what it may map over, unmap and protect */
  MachineHooks hooks;
  uint32_t code_crypto; /* host_crypto_accel when `code` was decoded: its crypto handlers' tier */
  unsigned watchers;   /* WATCH_* reasons to run the handlers that watch accesses */
  unsigned aligning;   /* CPUs running with EFLAGS.AC set (WATCH_ALIGNMENT while any) */
  bool virtual_tsc;    /* RDTSC and RDTSCP read the instruction count, not the host's time */
  uint64_t virtual_idle; /* and the ns the OS layer let pass with no instruction run (the
                            deterministic sleeps), which they count too */
  void *embedder;      /* the public API's handle of this machine, for its hooks */
  /* Events PAUSE raises on its CPU: an OS layer's, while another of its threads waits
   * to run guest code (threads.h). */
  volatile uint32_t pause_events;
  /* Set (by an OS layer, once) when its CPUs run guest code on several host threads at
   * once. Then `lock` is held by whoever decodes code, changes the code or the memory
   * map, or runs the OS layer's side of a CPU (its system calls); cpu_run is entered
   * with it held and gives it up while guest code runs (Cpu.running). Before the code
   * cache is flushed, code.before_flush brings every CPU out of guest code. */
  bool parallel;
  pthread_mutex_t lock;
} Machine;

/* The whole CPU model, the best floating-point tier of this host, an empty cache.
 * False if Capstone or the cache's reservation fails (nothing then needs destroying). */
bool machine_init(Machine *m);
void machine_destroy(Machine *m);

/* Why blocks are decoded with the handlers that watch guest accesses (watch.h), with a
 * stop check between instructions: memory hooks (hooks.mem), or a CPU with EFLAGS.AC set,
 * whose misaligned accesses raise #AC. Any change of the decoding flushes the code. */
enum { WATCH_HOOKS = 1, WATCH_ALIGNMENT = 2 };
void machine_watch(Machine *m, unsigned reason, bool on);

/* From now on guest loads and stores keep x86's order between host threads: on a host
 * whose own order is weaker, the decoder takes the ordered copy of the handlers
 * (access.h), and the code is flushed. For an OS layer about to run CPUs in parallel. */
void machine_order_memory(Machine *m);

#endif
