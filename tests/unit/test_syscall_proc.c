/* test_syscall_proc.c: fork/vfork/clone, wait, execve argument rewriting, and the signal calls. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "interp/fault.h"
#include "interp/run.h"
#include "linux-user/signals.h"
#include "test_syscall_util.h"

/* x86-64 clone flags (uapi/linux/sched.h) */
#define X_CLONE_VM 0x100
#define X_CLONE_VFORK 0x4000
#define X_CLONE_SETTLS 0x80000
#define X_CLONE_PARENT_SETTID 0x100000
#define X_CLONE_CHILD_SETTID 0x1000000
#define X_CLONE_THREAD 0x10000
#define X_CLONE_SIGHAND 0x800

static char dir[64];

static int setup(void **state) {
  test_cpu("/opt/guest/prog");
  scratch_dir_make(dir, "proc");
  return 0;
}

static int teardown(void **state) { return scratch_dir_remove(dir); }

static int64_t elapsed_ms(const struct timespec *a) {
  struct timespec b;
  clock_gettime(CLOCK_MONOTONIC, &b);
  return (b.tv_sec - a->tv_sec) * 1000 + (b.tv_nsec - a->tv_nsec) / 1000000;
}

/* ---- fork, vfork, clone, wait ---- */

static void test_fork_and_wait4(void **state) {
  catch_guest_faults();
  int64_t pid = SC0(fork);
  if (pid == 0) _exit(42);
  assert_true(pid > 0);
  int status = 0;
  assert_int_equal(SC4(wait4, pid, &status, 0, 0), pid);
  assert_true(WIFEXITED(status));
  assert_int_equal(WEXITSTATUS(status), 42);
  assert_int_equal(SC4(wait4, -1, &status, 1 /* WNOHANG */, 0), -ECHILD);
}

/* The vfork parent resumes only once the child has exited (or exec'd). */
static void test_vfork_waits_for_the_child(void **state) {
  catch_guest_faults();
  struct timespec t0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  int64_t pid = SC0(vfork);
  if (pid == 0) {
    usleep(150 * 1000);
    _exit(7);
  }
  assert_true(pid > 0);
  assert_true(elapsed_ms(&t0) >= 150);
  int status;
  assert_int_equal(waitpid((pid_t)pid, &status, 0), pid);
  assert_int_equal(WEXITSTATUS(status), 7);

  /* a fork child is not waited for */
  clock_gettime(CLOCK_MONOTONIC, &t0);
  pid = SC0(fork);
  if (pid == 0) {
    usleep(500 * 1000);
    _exit(0);
  }
  assert_true(elapsed_ms(&t0) < 500);
  assert_int_equal(waitpid((pid_t)pid, &status, 0), pid);
}

/* Natively a vfork child writes into its parent's memory; here the parent takes the pages
 * the child changed when the child exits or execs. */
static void test_vfork_child_writes_reach_the_parent(void **state) {
  catch_guest_faults();
  int64_t m = SC6(mmap, 0, 3 * 4096, 3 /* PROT_READ|PROT_WRITE */, 0x22 /* PRIVATE|ANON */, -1, 0);
  assert_true(m > 0);
  volatile int32_t *shared = (int32_t *)m;
  shared[0] = 1;
  shared[2048] = 10; /* the second page */
  int64_t pid = SC0(vfork);
  if (pid == 0) {
    shared[0] = 2;
    SC1(exit_group, 3); /* what the guest's _exit does */
    _exit(3);
  }
  assert_int_equal(shared[0], 2);
  assert_int_equal(shared[2048], 10);
  int status;
  assert_int_equal(waitpid((pid_t)pid, &status, 0), pid);
  assert_int_equal(WEXITSTATUS(status), 3);

  /* posix_spawn's pattern: a failed exec reports its error through shared memory */
  char *argv[] = {"x", NULL};
  pid = SC5(clone, X_CLONE_VM | X_CLONE_VFORK | SIGCHLD, 0, 0, 0, 0);
  if (pid == 0) {
    shared[1] = (int32_t)-SC3(execve, "/nonexistent/program", argv, 0);
    SC1(exit_group, 127);
    _exit(127);
  }
  assert_int_equal(shared[1], ENOENT);
  assert_int_equal(waitpid((pid_t)pid, &status, 0), pid);
  assert_int_equal(SC2(munmap, m, 3 * 4096), 0);

  /* a fork child's writes stay its own */
  int32_t *own = (int32_t *)(uintptr_t)SC6(mmap, 0, 4096, 3, 0x22, -1, 0);
  own[0] = 1;
  pid = SC0(fork);
  if (pid == 0) {
    own[0] = 2;
    SC1(exit_group, 0);
    _exit(0);
  }
  assert_int_equal(waitpid((pid_t)pid, &status, 0), pid);
  assert_int_equal(own[0], 1);
}

/* posix_spawn's clone(CLONE_VM|CLONE_VFORK): the child runs on the stack it was given;
 * clone's tid and TLS requests are honoured. */
static void test_clone_forms(void **state) {
  catch_guest_faults();
  static uint8_t child_stack[4096];
  uint64_t top = (uint64_t)(uintptr_t)(child_stack + sizeof child_stack);
  int p[2];
  assert_int_equal(pipe(p), 0);
  int64_t pid = SC5(clone, X_CLONE_VM | X_CLONE_VFORK | SIGCHLD, top, 0, 0, 0);
  if (pid == 0) _exit(test_proc.main.cpu.r[RSP] == top ? 0 : 1);
  int status;
  assert_int_equal(waitpid((pid_t)pid, &status, 0), pid);
  assert_int_equal(WEXITSTATUS(status), 0);

  int32_t ptid = 0, ctid = 0;
  pid = SC5(clone, X_CLONE_PARENT_SETTID | X_CLONE_CHILD_SETTID | X_CLONE_SETTLS | SIGCHLD, 0,
            &ptid, &ctid, 0x7000);
  if (pid == 0) {
    int32_t seen[2] = {ctid, (int32_t)getpid()};
    bool tls = test_proc.main.cpu.fs_base == 0x7000;
    (void)!write(p[1], seen, sizeof seen);
    _exit(tls ? 0 : 1);
  }
  assert_int_equal(ptid, pid);
  assert_int_equal(ctid, 0); /* the child's copy, not ours */
  int32_t seen[2];
  assert_int_equal(read(p[0], seen, sizeof seen), sizeof seen);
  assert_int_equal(seen[0], seen[1]);
  assert_int_equal(seen[0], pid);
  assert_int_equal(waitpid((pid_t)pid, &status, 0), pid);
  assert_int_equal(WEXITSTATUS(status), 0);
  close(p[0]);
  close(p[1]);

  /* threads are not available */
  assert_int_equal(SC5(clone, X_CLONE_VM | X_CLONE_SIGHAND | X_CLONE_THREAD, top, 0, 0, 0),
                   -ENOSYS);
  assert_int_equal(SC5(clone, X_CLONE_VM | SIGCHLD, top, 0, 0, 0), -ENOSYS);
}

/* ---- execve: what x64emu is run again with ---- */

static const char *in_dir(const char *name) {
  static char path[4][128];
  static int i;
  i = (i + 1) & 3;
  snprintf(path[i], sizeof path[i], "%s/%s", dir, name);
  return path[i];
}

static void write_file(const char *path, const char *text, mode_t mode) {
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
  assert_int_equal(chmod(path, mode), 0);
}

/* Runs the guest's execve in a child where "x64emu" is a shell script that records its
 * arguments (one per line) and $ENVVAR in the file out. Returns the guest's result from
 * execve, or 0 if the exec happened. */
static int64_t exec_recorded(const char *path, char *const argv[], char *const envp[],
                             const char *out, char *record, size_t cap) {
  char script[256];
  snprintf(script, sizeof script, "printf '%%s\\n' \"$@\" \"ENV=$ENVVAR\" \"X64=$X64EMU_MARK\" > %s", out);
  char *reexec[] = {"/bin/sh", "-c", script, "x64emu", "--strace", NULL};
  int p[2];
  assert_int_equal(pipe2(p, O_CLOEXEC), 0);
  pid_t pid = fork();
  if (pid == 0) {
    test_proc.opt.reexec_argv = reexec;
    int64_t r = SC3(execve, path, argv, envp);
    (void)!write(p[1], &r, sizeof r);
    _exit(0);
  }
  close(p[1]);
  int64_t r = 0;
  if (read(p[0], &r, sizeof r) != sizeof r) r = 0;
  close(p[0]);
  int status;
  waitpid(pid, &status, 0);
  record[0] = 0;
  FILE *f = fopen(out, "r");
  if (f) {
    size_t n = fread(record, 1, cap - 1, f);
    record[n] = 0;
    fclose(f);
    unlink(out);
  }
  return r;
}

static void test_execve_of_elf_reruns_the_emulator(void **state) {
  catch_guest_faults();
  char rec[1024];
  char *argv[] = {"echo-applet", "hello world", "", NULL};
  /* The guest's environment goes whole to the new guest as arguments; x64emu's own
   * environment keeps only what is meant for it (X64EMU_*), so that a guest's LD_PRELOAD
   * never reaches the host's loader. */
  char *envp[] = {"ENVVAR=from-guest", "X64EMU_MARK=for-x64emu", NULL};
#define GUEST_ENV "--guest-env\n2\nENVVAR=from-guest\nX64EMU_MARK=for-x64emu\n"
#define HOST_ENV "ENV=\nX64=for-x64emu\n"
  assert_int_equal(exec_recorded("/bin/busybox", argv, envp, in_dir("out"), rec, sizeof rec), 0);
  assert_string_equal(rec, "--strace\n" GUEST_ENV "-0\necho-applet\n--\n/bin/busybox\nhello world\n\n" HOST_ENV);

  /* /proc/self/exe is the guest program */
  strcpy(test_proc.exe_path, "/bin/busybox");
  char *argv2[] = {"cat", NULL};
  assert_int_equal(exec_recorded("/proc/self/exe", argv2, envp, in_dir("out"), rec, sizeof rec), 0);
  assert_string_equal(rec, "--strace\n" GUEST_ENV "-0\ncat\n--\n/bin/busybox\n" HOST_ENV);

  /* an empty argv gives an empty argv[0] */
  char *none[] = {NULL};
  assert_int_equal(exec_recorded("/bin/busybox", none, envp, in_dir("out"), rec, sizeof rec), 0);
  assert_string_equal(rec, "--strace\n" GUEST_ENV "-0\n\n--\n/bin/busybox\n" HOST_ENV);
#undef GUEST_ENV
#undef HOST_ENV
}

static void test_execve_of_scripts(void **state) {
  catch_guest_faults();
  char rec[1024];
  char *envp[] = {"ENVVAR=x", NULL};
  char script[128], outer[128];
  strcpy(script, in_dir("script"));
  /* one optional argument, inner blanks kept, outer ones dropped */
  write_file(script, "#!  /bin/busybox   sh -x  \necho not run\n", 0755);
  char *argv[] = {"ignored-argv0", "arg1", NULL};
  assert_int_equal(exec_recorded(script, argv, envp, in_dir("out"), rec, sizeof rec), 0);
  char want[512];
  snprintf(want, sizeof want,
           "--strace\n--guest-env\n1\nENVVAR=x\n-0\n/bin/busybox\n--\n/bin/busybox\nsh -x\n%s\narg1\nENV=\nX64=\n",
           script);
  assert_string_equal(rec, want);

  /* a script whose interpreter is a script */
  strcpy(outer, in_dir("outer"));
  write_file(outer, "#!/tmp/does-not-matter\n", 0755);
  snprintf(want, sizeof want, "#!%s\n", script);
  write_file(outer, want, 0755);
  char *argv2[] = {"outer", NULL};
  assert_int_equal(exec_recorded(outer, argv2, envp, in_dir("out"), rec, sizeof rec), 0);
  snprintf(want, sizeof want,
           "--strace\n--guest-env\n1\nENVVAR=x\n-0\n/bin/busybox\n--\n/bin/busybox\nsh -x\n%s\n%s\nENV=\nX64=\n",
           script, outer);
  assert_string_equal(rec, want);

  /* no interpreter */
  write_file(script, "#!\n", 0755);
  assert_int_equal(exec_recorded(script, argv, envp, in_dir("out"), rec, sizeof rec), -ENOEXEC);
  /* a script that names itself loops */
  snprintf(want, sizeof want, "#!%s\n", script);
  write_file(script, want, 0755);
  assert_int_equal(exec_recorded(script, argv, envp, in_dir("out"), rec, sizeof rec), -ELOOP);
}

static void test_execve_errors(void **state) {
  catch_guest_faults();
  char rec[256];
  char *argv[] = {"x", NULL};
  char *envp[] = {NULL};
  assert_int_equal(exec_recorded(in_dir("missing"), argv, envp, in_dir("out"), rec, sizeof rec),
                   -ENOENT);
  char text[128], arm[128];
  strcpy(text, in_dir("text"));
  write_file(text, "just text\n", 0755);
  assert_int_equal(exec_recorded(text, argv, envp, in_dir("out"), rec, sizeof rec), -ENOEXEC);
  assert_string_equal(rec, "");
  write_file(text, "just text\n", 0644);
  assert_int_equal(exec_recorded(text, argv, envp, in_dir("out"), rec, sizeof rec), -EACCES);
  assert_int_equal(exec_recorded(dir, argv, envp, in_dir("out"), rec, sizeof rec), -EACCES);
  /* an ELF for another machine: the first bytes of an aarch64 executable */
  strcpy(arm, in_dir("arm"));
  FILE *f = fopen(arm, "w");
  static const unsigned char hdr[64] = {0x7f, 'E', 'L', 'F', 2, 1, 1, 0, [16] = 2, 0, 183, 0};
  fwrite(hdr, 1, sizeof hdr, f);
  fclose(f);
  chmod(arm, 0755);
  assert_int_equal(exec_recorded(arm, argv, envp, in_dir("out"), rec, sizeof rec), -ENOEXEC);
  /* a bad argv pointer */
  assert_int_equal(SC3(execve, "/bin/busybox", 8, 0), -EFAULT);
}

/* ---- the signal calls ---- */

typedef struct {
  uint64_t handler, flags, restorer, mask;
} KSigaction; /* the x86-64 kernel's struct sigaction */

static void test_rt_sigaction(void **state) {
  catch_guest_faults();
  KSigaction act = {1 /* SIG_IGN */, 0x04000000 /* SA_RESTORER */, 0x401000, 1ull << (SIGINT - 1)};
  KSigaction old;
  memset(&old, 0xff, sizeof old);
  assert_int_equal(SC4(rt_sigaction, SIGPIPE, &act, &old, 8), 0);
  assert_int_equal(old.handler, 0); /* SIG_DFL, as the host had it */
  struct sigaction host;
  sigaction(SIGPIPE, NULL, &host);
  assert_true(host.sa_handler == SIG_IGN); /* applied, so that EPIPE comes back */

  KSigaction handled = {0x402000, 0x04000000, 0x401000, (1ull << (SIGKILL - 1)) | 2};
  assert_int_equal(SC4(rt_sigaction, SIGPIPE, &handled, &old, 8), 0);
  assert_memory_equal(&old, &act, sizeof act);
  sigaction(SIGPIPE, NULL, &host);
  /* A guest handler is backed by a host one that notes the signal, without SA_RESTART so
   * that blocking host calls come back with EINTR. */
  assert_true(host.sa_handler != SIG_DFL && host.sa_handler != SIG_IGN);
  assert_true((host.sa_flags & SA_SIGINFO) && !(host.sa_flags & SA_RESTART));
  assert_int_equal(SC4(rt_sigaction, SIGPIPE, 0, &old, 8), 0);
  assert_int_equal(old.handler, 0x402000);
  assert_int_equal(old.mask, 2); /* SIGKILL cannot be blocked */

  assert_int_equal(SC4(rt_sigaction, SIGPIPE, &act, 0, 16), -EINVAL);
  assert_int_equal(SC4(rt_sigaction, SIGKILL, &act, 0, 8), -EINVAL);
  assert_int_equal(SC4(rt_sigaction, SIGSTOP, 0, &old, 8), 0);
  assert_int_equal(SC4(rt_sigaction, 0, 0, &old, 8), -EINVAL);
  assert_int_equal(SC4(rt_sigaction, 65, 0, &old, 8), -EINVAL);
  assert_int_equal(SC4(rt_sigaction, SIGPIPE, 8, 0, 8), -EFAULT);
  KSigaction dfl = {0};
  assert_int_equal(SC4(rt_sigaction, SIGPIPE, &dfl, 0, 8), 0);
}

static bool host_blocks(int sig) {
  sigset_t s;
  sigprocmask(SIG_BLOCK, NULL, &s);
  return sigismember(&s, sig);
}

static void test_rt_sigprocmask(void **state) {
  catch_guest_faults();
  uint64_t set = (1ull << (SIGUSR1 - 1)) | (1ull << (SIGSEGV - 1)) | (1ull << (SIGKILL - 1));
  uint64_t old = ~0ull;
  assert_int_equal(SC4(rt_sigprocmask, 0 /* SIG_BLOCK */, &set, &old, 8), 0);
  assert_int_equal(old, 0);
  assert_true(host_blocks(SIGUSR1));
  assert_false(host_blocks(SIGSEGV)); /* the emulator needs its faults */
  assert_int_equal(SC4(rt_sigprocmask, 0, 0, &old, 8), 0);
  assert_int_equal(old, (1ull << (SIGUSR1 - 1)) | (1ull << (SIGSEGV - 1)));
  uint64_t usr1 = 1ull << (SIGUSR1 - 1);
  assert_int_equal(SC4(rt_sigprocmask, 1 /* SIG_UNBLOCK */, &usr1, 0, 8), 0);
  assert_false(host_blocks(SIGUSR1));
  assert_int_equal(SC4(rt_sigprocmask, 7, &usr1, 0, 8), -EINVAL);
  assert_int_equal(SC4(rt_sigprocmask, 0, &usr1, 0, 4), -EINVAL);
  uint64_t none = 0;
  assert_int_equal(SC4(rt_sigprocmask, 2 /* SIG_SETMASK */, &none, 0, 8), 0);
}

static void test_sigaltstack(void **state) {
  catch_guest_faults();
  struct {
    uint64_t sp;
    int32_t flags, pad;
    uint64_t size;
  } ss = {0x10000, 0, 0, 65536}, old;
  assert_int_equal(SC2(sigaltstack, &ss, &old), 0);
  assert_int_equal(old.flags, 2 /* SS_DISABLE */);
  assert_int_equal(SC2(sigaltstack, 0, &old), 0);
  assert_int_equal(old.sp, 0x10000);
  assert_int_equal(old.size, 65536);
  assert_int_equal(old.flags, 0);
  ss.size = 100;
  assert_int_equal(SC2(sigaltstack, &ss, 0), -ENOMEM);
  ss.flags = 2;
  assert_int_equal(SC2(sigaltstack, &ss, 0), 0);
  stack_t host;
  sigaltstack(NULL, &host);
  assert_true(host.ss_sp != (void *)0x10000); /* the host's own stays */
}

static void test_sync_signal_ends_the_guest(void **state) {
  catch_guest_faults();
  Cpu *c = &test_proc.main.cpu;
  c->events = 0;
  c->term_signal = 0;
  signals_deliver_sync(c, SIGSEGV, 1, 0x10);
  assert_int_equal(c->term_signal, SIGSEGV);
  assert_true(c->events & EV_EXIT);
  c->events = EV_SIGNAL;
  signals_deliver_pending(c);
  assert_int_equal(c->events, 0);
}

static void test_kill_and_ids(void **state) {
  catch_guest_faults();
  assert_int_equal(SC2(kill, getpid(), 0), 0);
  assert_int_equal(SC2(kill, 999999999, 0), -ESRCH);
  assert_int_equal(SC3(tgkill, getpid(), gettid(), 0), 0);
  assert_int_equal(SC1(set_tid_address, 0x1234), gettid());
  assert_int_equal(SC2(set_robust_list, 0x5678, 24), 0);
  assert_int_equal(SC2(set_robust_list, 0x5678, 23), -EINVAL);
  char name[16] = {0};
  assert_int_equal(SC2(prctl, 16 /* PR_GET_NAME */, name), 0);
  char host[16] = {0};
  FILE *f = fopen("/proc/self/comm", "r");
  assert_non_null(fgets(host, sizeof host, f));
  fclose(f);
  host[strcspn(host, "\n")] = 0;
  assert_string_equal(name, host);
  assert_int_equal(SC3(prctl, 22 /* PR_SET_SECCOMP */, 2 /* a filter */, 0), -EFAULT);
  assert_int_equal(SC2(prctl, 22 /* PR_SET_SECCOMP */, 3), -EINVAL); /* no such mode */
  assert_int_equal(SC1(prctl, 21 /* PR_GET_SECCOMP */), 0);
}

/* PR_SET_TSC with PR_TSC_SIGSEGV: the thread's RDTSC and RDTSCP are #GP, SIGSEGV with
 * SI_KERNEL at the instruction, as the kernel's CR4.TSD makes them (some hypervisors let
 * RDTSC run anyway, so a native comparison cannot show it everywhere). */
static void test_tsc_mode(void **state) {
  (void)state;
  Cpu *c = &test_proc.main.cpu;
  int32_t mode = 0;
  assert_int_equal(SC2(prctl, 25 /* PR_GET_TSC */, &mode), 0);
  assert_int_equal(mode, 1 /* PR_TSC_ENABLE */);
  assert_int_equal(SC2(prctl, 26 /* PR_SET_TSC */, 3), -EINVAL);
  assert_int_equal(SC2(prctl, 26, 2 /* PR_TSC_SIGSEGV */), 0);
  assert_int_equal(SC2(prctl, 25, &mode), 0);
  assert_int_equal(mode, 2);
  uint8_t *code = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  assert_true(code != MAP_FAILED);
  static const uint8_t insns[2][3] = {{0x0f, 0x31, 0x90}, {0x0f, 0x01, 0xf9}}; /* RDTSC, RDTSCP */
  for (int i = 0; i < 2; i++) {
    uint8_t *at = code + 64 * i;
    memcpy(at, insns[i], 3);
    c->rip = (uint64_t)(uintptr_t)at;
    assert_int_equal(cpu_run(c, (uint64_t)(uintptr_t)at + 3), STOP_FAULT);
    assert_int_equal(c->fault.sig, SIGSEGV);
    assert_int_equal(c->fault.code, SI_KERNEL);
    assert_int_equal(c->rip, (uint64_t)(uintptr_t)at);
  }
  assert_int_equal(SC2(prctl, 26, 1 /* PR_TSC_ENABLE */), 0);
  c->rip = (uint64_t)(uintptr_t)code;
  assert_int_equal(cpu_run(c, (uint64_t)(uintptr_t)code + 3), STOP_ADDRESS);
  munmap(code, 4096);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_fork_and_wait4, setup, teardown),
      cmocka_unit_test_setup_teardown(test_vfork_waits_for_the_child, setup, teardown),
      cmocka_unit_test_setup_teardown(test_vfork_child_writes_reach_the_parent, setup, teardown),
      cmocka_unit_test_setup_teardown(test_clone_forms, setup, teardown),
      cmocka_unit_test_setup_teardown(test_execve_of_elf_reruns_the_emulator, setup, teardown),
      cmocka_unit_test_setup_teardown(test_execve_of_scripts, setup, teardown),
      cmocka_unit_test_setup_teardown(test_execve_errors, setup, teardown),
      cmocka_unit_test_setup_teardown(test_rt_sigaction, setup, teardown),
      cmocka_unit_test_setup_teardown(test_rt_sigprocmask, setup, teardown),
      cmocka_unit_test_setup_teardown(test_sigaltstack, setup, teardown),
      cmocka_unit_test_setup_teardown(test_sync_signal_ends_the_guest, setup, teardown),
      cmocka_unit_test_setup_teardown(test_kill_and_ids, setup, teardown),
      cmocka_unit_test_setup_teardown(test_tsc_mode, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
