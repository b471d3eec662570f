/* main.c: the x64emu command: options, the guest's environment, load, run, exit as the guest did. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/personality.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "decoder/block.h"
#include "decoder/capstone_lib.h"
#include "decoder/decode.h"
#include "host/host_crypto.h"
#include "interp/cpuid.h"
#include "interp/fault.h"
#include "interp/mxcsr.h"
#include "interp/run.h"
#include "loader/elf.h"
#include "linux-user/host_signals.h"
#include "linux-user/linux_run.h"
#include "linux-user/own_fds.h"
#include "linux-user/process.h"
#include "linux-user/sys_nr.h"
#include "linux-user/sysroot.h"
#include "gdbstub.h"
#include "profile.h"
#include "stats.h"
#include "trace.h"


extern char **environ;

static void usage(FILE *to) {
  fprintf(to,
          "Usage: x64emu [options] program [arguments...]\n"
          "Runs an x86-64 Linux program (static or dynamically linked).\n"
          "\n"
          "Options:\n"
          "  -h, --help        show this help and exit\n"
          "  --version         show the version and exit\n"
          "  --strace          print each guest system call (or X64EMU_STRACE=1)\n"
          "  -g PORT, --gdb=PORT  wait for gdb on 127.0.0.1:PORT before the first\n"
          "                    instruction (target remote :PORT); also X64EMU_GDB=PORT\n"
          "  --deterministic[=SEED]  randomness (AT_RANDOM, getrandom, /dev/[u]random) from\n"
          "                    SEED (default 0), clocks and RDTSC from the instruction count\n"
          "  -L DIR            look absolute paths up under DIR first: an x86-64 sysroot\n"
          "                    for dynamically linked programs (or X64EMU_LD_PREFIX=DIR,\n"
          "                    QEMU_LD_PREFIX=DIR; empty: none). Default: none on an\n"
          "                    x86-64 host, else /usr/x86_64-linux-gnu if installed\n"
          "  --serial-threads  run the guest's threads one at a time, taking turns (as\n"
          "                    --deterministic, --gdb, --trace, --profile and --stats=json\n"
          "                    do), not in parallel\n"
          "  --memory-order=M  x86 (the default): threads in parallel see each other's\n"
          "                    loads and stores in x86's order on any host; host: in the\n"
          "                    host's, which on aarch64 is weaker, UNSAFE for most\n"
          "                    threaded programs (it measures what x86's order costs)\n"
          "  --trace[=FILTER]  print each instruction run (address, symbol+offset, bytes,\n"
          "                    disassembly) and the registers it changed; FILTER is a\n"
          "                    comma-separated list of functions and hex address ranges\n"
          "                    (--trace=aesni_encrypt,0x401000-0x402000)\n"
          "  --trace-file=PATH write the trace to PATH instead of stderr\n"
          "  --profile=PATH    write instruction counts per function and call edge to PATH\n"
          "                    in callgrind's format (callgrind_annotate, KCachegrind)\n"
          "  --stats=json:PATH at exit, write the statistics as JSON to PATH: instructions\n"
          "                    per mnemonic and function, system calls, the code cache\n"
          "  --stats           at exit, print the guest instructions run and the blocks\n"
          "                    decoded to stderr (or X64EMU_STATS=1)\n"
          "  -E VAR=VALUE      set VAR in the guest's environment\n"
          "  -U VAR            remove VAR from the guest's environment\n"
          "  -0 ARGV0          the guest's argv[0] (default: program as given)\n"
          "  --host-crypto=M   AES/PCLMULQDQ on the host: auto, native or portable\n"
          "                    (or X64EMU_HOST_CRYPTO=M)\n"
          "  --host-fp=M       SSE/x87 floating point: auto, native or portable\n"
          "                    (or X64EMU_HOST_FP=M)\n"
          "  --code-cache=SIZE the most decoded code kept before it is all dropped and\n"
          "                    decoded again: bytes, or with a K, M or G suffix (default\n"
          "                    64M, at least 1M; or X64EMU_CODE_CACHE=SIZE)\n"
          "  --cpu=LIST        remove or restore CPU features QEMU-style, e.g.\n"
          "                    -aes,-pclmulqdq (their instructions become #UD)\n"
          "  --                end of options\n"
          "\n"
          "Options may be written with one dash or two (-strace, --strace).\n");
}

static _Noreturn void usage_error(const char *fmt, const char *arg) {
  fprintf(stderr, "x64emu: ");
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\nTry 'x64emu --help' for more information.\n");
  exit(1);
}

/* A size as --code-cache takes it: a number of bytes with an optional K, M or G. */
static size_t parse_size(const char *option, const char *text) {
  char *end = NULL;
  errno = 0;
  unsigned long long n = strtoull(text, &end, 10);
  unsigned shift = 0;
  if (end && (*end == 'K' || *end == 'k')) shift = 10, end++;
  else if (end && (*end == 'M' || *end == 'm')) shift = 20, end++;
  else if (end && (*end == 'G' || *end == 'g')) shift = 30, end++;
  if (!*text || *text == '-' || *end || errno || n > (SIZE_MAX >> shift)) {
    fprintf(stderr, "x64emu: %s takes a size (bytes, or with K, M or G), not '%s'\n", option, text);
    exit(1);
  }
  return (size_t)n << shift;
}

static void *xrealloc(void *p, size_t n) {
  p = realloc(p, n);
  if (!p) {
    fprintf(stderr, "x64emu: out of memory\n");
    exit(1);
  }
  return p;
}

/* The guest's environment: ours, changed by -E and -U in command-line order. */
typedef struct Env {
  char **v; /* NULL-terminated */
  size_t n;
} Env;

static void env_unset(Env *e, const char *name, size_t len) {
  size_t j = 0;
  for (size_t i = 0; i < e->n; i++)
    if (!(strncmp(e->v[i], name, len) == 0 && e->v[i][len] == '=')) e->v[j++] = e->v[i];
  e->n = j;
  e->v[j] = NULL;
}

static void env_set(Env *e, char *assignment) {
  env_unset(e, assignment, (size_t)(strchr(assignment, '=') - assignment));
  e->v = xrealloc(e->v, (e->n + 2) * sizeof *e->v);
  e->v[e->n++] = assignment;
  e->v[e->n] = NULL;
}

static bool env_flag(const char *name) {
  const char *v = getenv(name);
  return v && *v && strcmp(v, "0") != 0;
}

/* Ends x64emu by sig, as the parent would see a native process killed by it: with a core
 * dump where the guest's RLIMIT_CORE allows one (WCOREDUMP), as for the signals whose
 * default action the host takes itself. The core file is x64emu's process, with the
 * guest's memory in it at the guest's addresses. */
static _Noreturn void die_by_signal(int sig) {
  fflush(NULL);
  host_sig_default(sig, false, 0); /* 32 and 33 too (host_signals.h) */
  host_sigmask_set(host_sigmask_get() & ~(1ull << (sig - 1)));
  syscall(SYS_tgkill, getpid(), gettid(), sig); /* raise refuses 32 and 33 */
  exit(128 + sig); /* a signal whose default action does not kill */
}

/* Ends x64emu the way the guest ended: the same signal, seen by the parent as it would be
 * natively. */
static _Noreturn void exit_like_guest(const Cpu *c) {
  fflush(NULL);
  if (!c->term_signal) exit(c->exit_status);
  die_by_signal(c->term_signal);
}

static Process proc;

/* Takes "--name=value" or "--name value" into *value; false when opt is another option. */
static bool option_value(const char *opt, const char *name, char **argv, int *i, int argc,
                         const char **value) {
  size_t n = strlen(name);
  if (strncmp(opt, name, n) != 0) return false;
  if (opt[n] == '=') {
    *value = opt + n + 1;
    return true;
  }
  if (opt[n] != 0) return false;
  if (*i + 1 >= argc) usage_error("%s needs an argument", name);
  *value = argv[++*i];
  return true;
}

/* option_value for an option whose value is a file descriptor. */
static bool descriptor_option(const char *opt, const char *name, char **argv, int *i, int argc,
                              int *fd) {
  const char *value;
  if (!option_value(opt, name, argv, i, argc, &value)) return false;
  char *end = NULL;
  long n = strtol(value, &end, 10);
  if (!*value || *end || n < 0 || n > INT_MAX) usage_error("-%s needs a descriptor", name);
  *fd = (int)n;
  return true;
}

static void choose_host_crypto(const char *name) {
  HostCryptoMode mode;
  if (!host_crypto_parse(name, &mode))
    usage_error("--host-crypto takes auto, native or portable, not '%s'", name);
  const char *why = host_crypto_select(mode);
  if (why) {
    fprintf(stderr, "x64emu: %s\n", why);
    exit(1);
  }
}

static enum FpTier choose_host_fp(const char *name) {
  enum FpTier tier;
  if (!fp_tier_parse(name, &tier)) {
    if (strcmp(name, "native") == 0 || strcmp(name, "host") == 0) {
      fprintf(stderr, "x64emu: host fp 'native': this host cannot run x86 floating point "
                      "natively\n");
      exit(1);
    }
    usage_error("--host-fp takes auto, native or portable, not '%s'", name);
  }
  return tier;
}

static void print_version(enum FpTier fp_tier) {
  int major = 0, minor = 0;
  const CapstoneLib *capstone = capstone_lib();
  if (capstone) capstone->version(&major, &minor);
  printf("x64emu %s (Capstone %d.%d)\n", X64EMU_VERSION, major, minor);
  char tiers[4096]; /* a row per primitive: 14 now, about 1.3 KB */
  if (host_crypto_describe(tiers, sizeof tiers) >= (int)sizeof tiers) tiers[sizeof tiers - 2] = '\n';
  printf("%s", tiers);
  printf("floating point: %s\n", fp_tier == FP_TIER_HOST ? "host SSE/x87 instructions"
                                                         : "portable C");
}

/* The trace file, written while the guest runs: one of x64emu's own descriptors
 * (own_fds.h), which the guest's close_range, dup2 or exec'd programs do not see, and
 * which may move, so that its stream writes to the descriptor's number as it is now. */
static int trace_fd = -1;

static ssize_t write_trace_file(void *holder, const char *buf, size_t len) {
  size_t done = 0;
  while (done < len) {
    ssize_t n = write(*(int *)holder, buf + done, len - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return done ? (ssize_t)done : -1;
    done += (size_t)n;
  }
  return (ssize_t)done;
}

static FILE *open_trace_file(const char *path) {
  trace_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (trace_fd < 0) return NULL;
  own_fd_keep(&trace_fd);
  return fopencookie(&trace_fd, "w", (cookie_io_functions_t){.write = write_trace_file});
}

/* The instruction hook's users: the tracer, the statistics and the profile, each optional. */
static Tracer *tracer;
static Stats *counter;
static Profile *profiler;
static const char *profile_path, *stats_json;
static bool report_stats; /* --stats */

/* The end of the process, from whichever of its threads ends it (c): the tools' reports,
 * then the guest's exit status or signal. */
static _Noreturn void finish(Cpu *c) {
  trace_finish(tracer);
  if (profiler && !profile_finish(profiler, profile_path)) {
    fprintf(stderr, "x64emu: --profile: cannot write %s: %s\n", profile_path, strerror(errno));
    exit(1);
  }
  if (counter && !stats_finish(counter, stats_json)) {
    fprintf(stderr, "x64emu: --stats: cannot write %s: %s\n", stats_json, strerror(errno));
    exit(1);
  }
  if (report_stats)
    fprintf(stderr, "x64emu: %llu guest instructions, %llu blocks decoded\n",
            (unsigned long long)threads_instructions(c), (unsigned long long)proc.machine.code.decoded);
  exit_like_guest(c);
}

static void on_insn(void *embedder, uint64_t rip, unsigned len, void *user) {
  if (counter) stats_insn(counter, rip);
  if (tracer) trace_insn(tracer, rip);
}

/* Hook records where the tools look: everywhere but for the tracer alone. The profile
 * counts blocks. */
static void watch_instructions(Cpu *c) {
  if (profiler) c->m->hooks.block = profile_block, c->m->hooks.block_user = profiler;
  uint64_t lo = 0, hi = 0;
  if (tracer || counter) {
    hi = UINT64_MAX;
    if (!counter) trace_span(tracer, &lo, &hi);
    c->m->hooks.insn = on_insn;
  }
  block_hooks_set(&c->m->code, lo < hi ? op_insn_hook : NULL, lo, hi,
                  profiler ? op_block_hook : NULL, lo < hi);
}

int main(int argc, char **argv) {
  Env env = {0};
  for (char **e = environ; *e; e++) env.n++;
  env.v = xrealloc(NULL, (env.n + 1) * sizeof *env.v);
  memcpy(env.v, environ, (env.n + 1) * sizeof *env.v);

  bool strace = env_flag("X64EMU_STRACE");
  bool stats = env_flag("X64EMU_STATS");
  const char *argv0 = NULL;
  const char *crypto = getenv("X64EMU_HOST_CRYPTO"), *fp = getenv("X64EMU_HOST_FP");
  const char *cpu = NULL;
  CpuModel model = {0};
  char *cpu_all = NULL; /* every --cpu list, joined by commas: carried over to execve */
  bool version = false;
  const char *trace = NULL, *trace_file = NULL; /* trace "" for everything */
  bool deterministic = false, serial_threads = false, host_memory_order = false;
  bool tsc_denied = false; /* --tsc-sigsegv */
  uint64_t seed = 0;
  int exec_fd = -1; /* --exec-fd */
  int seccomp_fd = -1; /* --seccomp-fd */
  int self_fd = -1;    /* --self-fd */
  const char *gdb_port = getenv("X64EMU_GDB");
  const char *code_cache = getenv("X64EMU_CODE_CACHE");
  const char *sysroot = getenv("X64EMU_LD_PREFIX");
  if (!sysroot) sysroot = getenv("QEMU_LD_PREFIX");
  if (!sysroot) sysroot = sysroot_default();
  int i = 1;
  for (; i < argc && argv[i][0] == '-'; i++) {
    const char *opt = argv[i];
    if (strcmp(opt, "--") == 0) {
      i++;
      break;
    }
    if (opt[1] == '-') opt++; /* --name and -name are the same option */
    const char *value = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(opt, "-h") == 0 || strcmp(opt, "-help") == 0) {
      usage(stdout);
      return 0;
    } else if (strcmp(opt, "-version") == 0 || strcmp(opt, "-host-info") == 0) {
      version = true;
    } else if (option_value(opt, "-host-crypto", argv, &i, argc, &crypto)) {
    } else if (option_value(opt, "-host-fp", argv, &i, argc, &fp)) {
    } else if (option_value(opt, "-code-cache", argv, &i, argc, &code_cache)) {
    } else if (option_value(opt, "-cpu", argv, &i, argc, &cpu)) {
      const char *why = cpuid_apply_option(&model, cpu);
      if (why) usage_error("%s", why);
      size_t had = cpu_all ? strlen(cpu_all) + 1 : 0;
      cpu_all = xrealloc(cpu_all, had + strlen(cpu) + 1);
      if (had) cpu_all[had - 1] = ',';
      strcpy(cpu_all + had, cpu);
    } else if (strcmp(opt, "-g") == 0) {
      if (!value) usage_error("%s needs a port", "-g");
      gdb_port = argv[++i];
    } else if (option_value(opt, "-gdb", argv, &i, argc, &gdb_port)) {
    } else if (strcmp(opt, "-deterministic") == 0) {
      deterministic = true;
    } else if (strncmp(opt, "-deterministic=", 15) == 0) {
      char *end = NULL;
      errno = 0;
      seed = strtoull(opt + 15, &end, 0);
      if (!opt[15] || *end || errno) usage_error("--deterministic= takes a number, not '%s'", opt + 15);
      deterministic = true;
    } else if (descriptor_option(opt, "-exec-fd", argv, &i, argc, &exec_fd)) {
      /* From a guest's execve (sys_exec.c): the program is reached through this
       * descriptor, which the guest's exec closed; closed once the program is loaded. */
    } else if (descriptor_option(opt, "-seccomp-fd", argv, &i, argc, &seccomp_fd)) {
      /* From a guest's execve (sys_exec.c): the seccomp filters the new image keeps. */
    } else if (descriptor_option(opt, "-self-fd", argv, &i, argc, &self_fd)) {
      /* From a guest's execve after a chroot (sys_exec.c): x64emu's own file, which
       * the next execve runs, as the path may be outside the new root. */
    } else if (strcmp(opt, "-tsc-sigsegv") == 0) {
      /* From a guest's execve (sys_exec.c): RDTSC faults, as PR_SET_TSC left it. */
      tsc_denied = true;
    } else if (strcmp(opt, "-guest-env") == 0) {
      /* From a guest's execve (sys_exec.c): N strings, the whole environment of the guest. */
      char *end = NULL;
      long n = value ? strtol(value, &end, 10) : -1;
      if (!value || *end || n < 0 || n > argc - i - 2) usage_error("%s needs a count of strings", "--guest-env");
      env.n = (size_t)n;
      env.v = xrealloc(env.v, (env.n + 1) * sizeof *env.v); /* in place of the host's */
      memcpy(env.v, argv + i + 2, env.n * sizeof *env.v);
      env.v[env.n] = NULL;
      i += 1 + (int)n;
    } else if (strcmp(opt, "-L") == 0) {
      if (!value) usage_error("%s needs a directory", "-L");
      sysroot = argv[++i];
    } else if (strcmp(opt, "-serial-threads") == 0) {
      serial_threads = true;
    } else if (strncmp(opt, "-memory-order=", 14) == 0) {
      if (strcmp(opt + 14, "x86") && strcmp(opt + 14, "host"))
        usage_error("--memory-order takes x86 or host, not '%s'", opt + 14);
      host_memory_order = strcmp(opt + 14, "host") == 0;
    } else if (strcmp(opt, "-trace") == 0) {
      trace = "";
    } else if (strncmp(opt, "-trace=", 7) == 0) {
      trace = opt + 7;
    } else if (option_value(opt, "-trace-file", argv, &i, argc, &trace_file)) {
    } else if (option_value(opt, "-profile", argv, &i, argc, &profile_path)) {
    } else if (strcmp(opt, "-strace") == 0) {
      strace = true;
    } else if (strcmp(opt, "-stats") == 0) {
      stats = true;
    } else if (strncmp(opt, "-stats=", 7) == 0) {
      if (strncmp(opt + 7, "json:", 5) != 0 || !opt[12])
        usage_error("--stats= takes json:PATH, not '%s'", opt + 7);
      stats_json = opt + 12;
    } else if (strcmp(opt, "-E") == 0) {
      if (!value || !strchr(value, '=') || value[0] == '=')
        usage_error("-E needs VAR=VALUE, got '%s'", value ? value : "");
      env_set(&env, argv[++i]);
    } else if (strcmp(opt, "-U") == 0) {
      if (!value || !*value || strchr(value, '='))
        usage_error("-U needs a variable name, got '%s'", value ? value : "");
      env_unset(&env, value, strlen(value));
      i++;
    } else if (strcmp(opt, "-0") == 0) {
      if (!value) usage_error("%s needs an argument", "-0");
      argv0 = argv[++i];
    } else {
      usage_error("unknown option '%s'", argv[i]);
    }
  }
  /* A deterministic run places memory where the last one did: the host's address-space
   * randomization off, as setarch -R does, for this x64emu and what it runs. */
  if (deterministic && !(personality(0xffffffff) & ADDR_NO_RANDOMIZE) &&
      personality(personality(0xffffffff) | ADDR_NO_RANDOMIZE) != -1) {
    execv("/proc/self/exe", argv);
    fprintf(stderr, "x64emu: --deterministic: cannot run again without address randomization: %s\n",
            strerror(errno));
  }
  if (crypto && *crypto) choose_host_crypto(crypto);
  enum FpTier fp_tier = fp && *fp ? choose_host_fp(fp) : fp_tier_best();
  if (version) {
    print_version(fp_tier);
    return 0;
  }
  if (i >= argc) usage_error("%s", "no program to run");

  const char *program = argv[i];
  char **guest_argv = xrealloc(NULL, (size_t)(argc - i + 1) * sizeof *guest_argv);
  for (int j = i; j <= argc; j++) guest_argv[j - i] = argv[j];
  if (argv0) guest_argv[0] = (char *)argv0;

  /* What an execve in the guest runs: this x64emu again, with the options that carry over. */
  static char self[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n > 0) self[n] = 0;
  else if (!realpath(argv[0], self)) snprintf(self, sizeof self, "%s", argv[0]);
  size_t code_cache_size = code_cache && *code_cache ? parse_size("--code-cache", code_cache) : 0;
  static char *reexec[16];
  static char crypto_opt[64], fp_opt[64], det_opt[48], cache_opt[48], *cpu_opt;
  int r = 0;
  reexec[r++] = self;
  if (strace) reexec[r++] = "--strace";
  if (serial_threads) reexec[r++] = "--serial-threads";
  if (host_memory_order) reexec[r++] = "--memory-order=host";
  if (sysroot && *sysroot) { /* the program it runs finds its libraries there too */
    reexec[r++] = "-L";
    reexec[r++] = (char *)sysroot;
  }
  if (deterministic) { /* the program it runs starts the sequence again */
    snprintf(det_opt, sizeof det_opt, "--deterministic=%llu", (unsigned long long)seed);
    reexec[r++] = det_opt;
  }
  if (crypto && *crypto) {
    snprintf(crypto_opt, sizeof crypto_opt, "--host-crypto=%s", crypto);
    reexec[r++] = crypto_opt;
  }
  if (fp && *fp) {
    snprintf(fp_opt, sizeof fp_opt, "--host-fp=%s", fp);
    reexec[r++] = fp_opt;
  }
  if (code_cache_size) {
    snprintf(cache_opt, sizeof cache_opt, "--code-cache=%zu", code_cache_size);
    reexec[r++] = cache_opt;
  }
  if (cpu_all && *cpu_all) {
    size_t size = strlen(cpu_all) + sizeof "--cpu=";
    cpu_opt = xrealloc(NULL, size);
    snprintf(cpu_opt, size, "--cpu=%s", cpu_all);
    reexec[r++] = cpu_opt;
  }
  reexec[r] = NULL;

  if (!process_init(&proc, program)) {
    fprintf(stderr, "x64emu: cannot initialise Capstone or reserve the code cache\n");
    return 1;
  }
  if (code_cache_size && !block_cache_set_size(&proc.machine.code, code_cache_size)) {
    fprintf(stderr, "x64emu: --code-cache: cannot reserve %zu bytes for decoded code\n", code_cache_size);
    return 1;
  }
  proc.machine.model = model;
  proc.machine.fp_tier = fp_tier;
  proc.opt.strace = strace;
  proc.opt.deterministic = deterministic;
  proc.opt.sysroot = sysroot && *sysroot ? sysroot : NULL;
  proc.opt.deterministic_pid = getpid();
  proc.random_state = seed;
  proc.machine.virtual_tsc = deterministic;
  proc.opt.reexec_argv = reexec;
  if (self_fd >= 0 && fcntl(self_fd, F_SETFD, FD_CLOEXEC) == 0) {
    proc.self_fd = self_fd;
    own_fd_keep(&proc.self_fd);
  }
  fault_install();
  char err[PATH_MAX + 512];
  int loaded = elf_load(&proc, program, guest_argv, env.v, err, sizeof err);
  if (exec_fd >= 0) close(exec_fd);
  if (seccomp_fd >= 0 && !seccomp_restore(&proc.main.cpu, seccomp_fd)) {
    fprintf(stderr, "x64emu: --seccomp-fd: cannot read the filters\n");
    return 1;
  }
  free(guest_argv); /* copied onto the guest's stack */
  free(env.v);
  if (loaded != 0) {
    fprintf(stderr, "x64emu: %s\n", err);
    if (loaded == ELF_FATAL) die_by_signal(SIGSEGV); /* as the kernel kills it past exec */
    return 1;
  }
  /* The process's name (ps, /proc/self/comm) is the program's, as exec makes it: its
   * file's name, which thread names start from. */
  const char *slash = strrchr(program, '/');
  prctl(PR_SET_NAME, slash ? slash + 1 : program);
  Cpu *c = &proc.main.cpu;
  c->tsc_denied = tsc_denied;
  if (trace || trace_file) {
    FILE *out = trace_file ? open_trace_file(trace_file) : stderr;
    if (!out) {
      fprintf(stderr, "x64emu: --trace-file: cannot write %s\n", trace_file);
      return 1;
    }
    static char trace_buf[1 << 16]; /* lines go out in large writes */
    setvbuf(out, trace_buf, _IOFBF, sizeof trace_buf);
    err[0] = 0;
    tracer = trace_start(c, program, trace ? trace : "", out, err, sizeof err);
    if (!tracer) {
      fprintf(stderr, "x64emu: %s\n", err);
      return 1;
    }
  }
  static uint64_t syscall_counts[X64_NR_COUNT + 1];
  if (stats_json) {
    proc.opt.syscall_counts = syscall_counts;
    counter = stats_start(c, program, syscall_counts);
    if (!counter) {
      fprintf(stderr, "x64emu: --stats: out of memory\n");
      return 1;
    }
  }
  if (profile_path && !(profiler = profile_start(c, program))) {
    fprintf(stderr, "x64emu: --profile: out of memory\n");
    return 1;
  }
  watch_instructions(c);
  /* The tools see, stop and step one thread at a time. */
  proc.opt.serial_threads = serial_threads || deterministic || tracer || counter || profiler ||
                            (gdb_port && *gdb_port);
  proc.opt.host_memory_order = host_memory_order;
  report_stats = stats;
  proc.opt.finish = finish;
  if (gdb_port && *gdb_port) {
    char *end = NULL;
    long port = strtol(gdb_port, &end, 10);
    if (*end || port <= 0 || port > 65535) usage_error("-g takes a TCP port, not '%s'", gdb_port);
    if (gdb_serve(c, (int)port, proc.exe_path) != 0) return 1;
  } else {
    linux_run(c, 0);
  }
  finish(c);
}
