/* seccomp.c: seccomp as the kernel runs it, printed so that a native run and one under
 * x64emu can be compared: the actions a filter can return (ERRNO, TRAP with its SIGSYS
 * and the frame's rax, TRACE and USER_NOTIF with nobody to tell, LOG, ALLOW, KILL_THREAD
 * and KILL_PROCESS), filters on arguments and on the architecture, several filters and
 * their precedence, filters kept across execve and fork, TSYNC with a second thread,
 * strict mode, and the programs and arguments the kernel refuses. Each case runs in a
 * child, whose end is printed. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

static void show(const char *what, long r) {
  if (r < 0) printf("%-44s -1 %s\n", what, strerrorname_np(errno));
  else printf("%-44s %ld\n", what, r);
}

static long install(unsigned flags, struct sock_filter *insns, unsigned short n) {
  struct sock_fprog prog = {n, insns};
  return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &prog);
}

#define LOAD_NR BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr))
#define ON_NR(nr, action) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), BPF_STMT(BPF_RET | BPF_K, (action))
#define ALLOW BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)

/* getuid by a SYSCALL whose next instruction is the label after_getuid: the address
 * SIGSYS reports. */
extern char after_getuid[];
static __attribute__((noinline)) long raw_getuid(void) {
  long r;
  __asm__ volatile("syscall\n.globl after_getuid\nafter_getuid:" : "=a"(r) : "a"(SYS_getuid) : "rcx", "r11", "memory");
  return r;
}

static void on_sigsys(int sig, siginfo_t *si, void *ucv) {
  ucontext_t *uc = ucv;
  printf("  SIGSYS %d code %d errno %d syscall %d arch %#x at the call %d rax %lld\n", sig,
         si->si_code, si->si_errno, si->si_syscall, si->si_arch,
         si->si_call_addr == (void *)after_getuid, (long long)uc->uc_mcontext.gregs[REG_RAX]);
  uc->uc_mcontext.gregs[REG_RAX] = 555; /* what the call returns */
}

/* Runs case in a child, and prints how it ended. */
static void in_child(const char *name, void (*fn)(void)) {
  printf("%s:\n", name);
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    fn();
    fflush(stdout);
    _exit(0);
  }
  int status;
  waitpid(pid, &status, 0);
  if (WIFSIGNALED(status)) printf("  ended by signal %d\n", WTERMSIG(status));
  else printf("  exited %d\n", WEXITSTATUS(status));
}

static const char *self;

static void actions(void) {
  struct sock_filter f[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
      LOAD_NR,
      ON_NR(SYS_getppid, SECCOMP_RET_ERRNO | 77),
      ON_NR(SYS_getuid, SECCOMP_RET_TRAP | 5),
      ON_NR(SYS_sched_yield, SECCOMP_RET_TRACE | 1),
      ON_NR(SYS_getpgid, SECCOMP_RET_USER_NOTIF),
      ON_NR(SYS_gettid, SECCOMP_RET_LOG),
      ON_NR(SYS_getegid, SECCOMP_RET_ERRNO | 9999), /* beyond MAX_ERRNO */
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getsid, 0, 3),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 12345, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | 123),
      ALLOW,
  };
  show("  PR_SET_NO_NEW_PRIVS", prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0));
  show("  install", install(0, f, sizeof f / sizeof f[0]));
  show("  PR_GET_SECCOMP", prctl(PR_GET_SECCOMP, 0, 0, 0, 0));
  show("  getppid (ERRNO 77)", syscall(SYS_getppid));
  struct sigaction sa = {.sa_sigaction = on_sigsys, .sa_flags = SA_SIGINFO};
  sigaction(SIGSYS, &sa, NULL);
  show("  getuid (TRAP 5)", raw_getuid());
  show("  sched_yield (TRACE, no tracer)", syscall(SYS_sched_yield));
  show("  getpgid (USER_NOTIF, no listener)", syscall(SYS_getpgid, 0));
  show("  gettid (LOG) is a tid", syscall(SYS_gettid) > 0);
  show("  getegid (ERRNO 9999)", syscall(SYS_getegid));
  show("  getsid(12345) (ERRNO 123 on the argument)", syscall(SYS_getsid, 12345));
  show("  getsid(0) is allowed", syscall(SYS_getsid, 0) > 0);
  /* A newer filter: ERRNO 5 for getppid, taking over the older ERRNO 77; a TRAP for
   * getuid, of higher precedence than its ERRNO; blocking SIGSYS does not stop it. */
  struct sock_filter g[] = {LOAD_NR, ON_NR(SYS_getppid, SECCOMP_RET_ERRNO | 5),
                            ON_NR(SYS_getuid, SECCOMP_RET_ERRNO | 6), ALLOW};
  show("  install a second", install(0, g, sizeof g / sizeof g[0]));
  show("  getppid (the newer ERRNO)", syscall(SYS_getppid));
  show("  getuid (TRAP over ERRNO)", raw_getuid());
  /* execve keeps the filters. */
  execl(self, self, "after-exec", (char *)NULL);
  show("  execve", -1);
}

static void after_exec(void) {
  show("  after execve: getppid", syscall(SYS_getppid));
  show("  after execve: PR_GET_SECCOMP", prctl(PR_GET_SECCOMP, 0, 0, 0, 0));
  pid_t pid = fork();
  if (pid == 0) {
    show("  in a child of it: getppid", syscall(SYS_getppid));
    _exit(0);
  }
  waitpid(pid, NULL, 0);
}

static void trap_blocked(void) {
  struct sock_filter f[] = {LOAD_NR, ON_NR(SYS_getuid, SECCOMP_RET_TRAP), ALLOW};
  prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGSYS);
  sigprocmask(SIG_BLOCK, &set, NULL);
  show("  install", install(0, f, 3 + 1));
  fflush(stdout);
  raw_getuid(); /* SIGSYS blocked: the kernel forces its default action */
  show("  not reached", 0);
}

static void kill_process(void) {
  struct sock_filter f[] = {LOAD_NR, ON_NR(SYS_getppid, SECCOMP_RET_KILL_PROCESS), ALLOW};
  prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
  show("  install", install(0, f, 4));
  fflush(stdout);
  syscall(SYS_getppid);
  show("  not reached", 0);
}

static void *call_getppid(void *arg) {
  (void)arg;
  show("  thread: getppid", syscall(SYS_getppid));
  return NULL;
}

static void kill_thread(void) {
  struct sock_filter f[] = {LOAD_NR, ON_NR(SYS_getppid, SECCOMP_RET_KILL_THREAD), ALLOW};
  prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
  show("  install", install(0, f, 4));
  fflush(stdout);
  pthread_t t;
  pthread_create(&t, NULL, call_getppid, NULL);
  sleep(1); /* the thread is gone; the process goes on */
  show("  main thread goes on", 0);
  fflush(stdout);
  syscall(SYS_getppid); /* the last thread: the process dies */
  show("  not reached", 0);
}

static pthread_barrier_t ready, installed;
static void *wait_then_getppid(void *arg) {
  pthread_barrier_wait(&ready);
  pthread_barrier_wait(&installed);
  return call_getppid(arg);
}

static void tsync(void) {
  struct sock_filter f[] = {LOAD_NR, ON_NR(SYS_getppid, SECCOMP_RET_ERRNO | 33), ALLOW};
  prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
  pthread_barrier_init(&ready, NULL, 2);
  pthread_barrier_init(&installed, NULL, 2);
  pthread_t t;
  pthread_create(&t, NULL, wait_then_getppid, NULL);
  pthread_barrier_wait(&ready);
  show("  install with TSYNC", install(SECCOMP_FILTER_FLAG_TSYNC, f, 4));
  pthread_barrier_wait(&installed);
  pthread_join(t, NULL);
}

static pid_t diverged_tid;
static void *own_filter(void *arg) {
  struct sock_filter f[] = {ALLOW};
  diverged_tid = gettid();
  install(0, f, 1);
  pthread_barrier_wait(&ready);
  pthread_barrier_wait(&installed);
  return arg;
}

static void tsync_refused(void) {
  struct sock_filter f[] = {ALLOW};
  prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
  pthread_barrier_init(&ready, NULL, 2);
  pthread_barrier_init(&installed, NULL, 2);
  pthread_t t;
  pthread_create(&t, NULL, own_filter, NULL);
  pthread_barrier_wait(&ready);
  long r = install(SECCOMP_FILTER_FLAG_TSYNC, f, 1);
  show("  TSYNC over a thread's own filter is its tid", r == diverged_tid);
  show("  with TSYNC_ESRCH", install(SECCOMP_FILTER_FLAG_TSYNC | SECCOMP_FILTER_FLAG_TSYNC_ESRCH, f, 1));
  pthread_barrier_wait(&installed);
  pthread_join(t, NULL);
}

static void strict(void) {
  show("  strict mode", syscall(SYS_seccomp, SECCOMP_SET_MODE_STRICT, 0, NULL));
  static const char msg[] = "  write is allowed\n";
  (void)!write(1, msg, sizeof msg - 1);
  syscall(SYS_getppid);
  (void)!write(1, "  not reached\n", 14);
}

static void divide_by_x(void) {
  struct sock_filter f[] = {
      BPF_STMT(BPF_LDX | BPF_IMM, 0),
      BPF_STMT(BPF_LD | BPF_IMM, 10),
      BPF_STMT(BPF_ALU | BPF_DIV | BPF_X, 0),
      BPF_STMT(BPF_RET | BPF_A, 0),
  };
  prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
  fflush(stdout);
  install(0, f, 4); /* the program returns 0, KILL_THREAD, for every call after it */
  show("  not reached", 0);
}

static void refused(void) {
  struct sock_filter ok[] = {ALLOW};
  show("ACTION_AVAIL(KILL_PROCESS)", syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &(uint32_t){SECCOMP_RET_KILL_PROCESS}));
  show("ACTION_AVAIL(USER_NOTIF)", syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &(uint32_t){SECCOMP_RET_USER_NOTIF}));
  show("ACTION_AVAIL(LOG)", syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &(uint32_t){SECCOMP_RET_LOG}));
  show("ACTION_AVAIL(0x12340000)", syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &(uint32_t){0x12340000}));
  show("ACTION_AVAIL(bad pointer)", syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, (void *)8));
  uint16_t sizes[3];
  show("GET_NOTIF_SIZES", syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, sizes));
  printf("  %u %u %u\n", sizes[0], sizes[1], sizes[2]);
  show("seccomp(op 99)", syscall(SYS_seccomp, 99, 0, NULL));
  show("strict with flags", syscall(SYS_seccomp, SECCOMP_SET_MODE_STRICT, 1, NULL));
  show("filter with flags 0x100", install(0x100, ok, 1));
  show("filter, bad fprog", syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, (void *)8));
  show("filter, bad instructions", syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0,
                                           &(struct sock_fprog){1, (void *)8}));
  show("filter of 0 instructions", install(0, ok, 0));
  show("filter of 4097 instructions", install(0, ok, 4097));
  struct sock_filter no_ret[] = {LOAD_NR};
  show("no RET at the end", install(0, no_ret, 1));
  struct sock_filter misaligned[] = {BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 2), ALLOW};
  show("a load at offset 2", install(0, misaligned, 2));
  struct sock_filter beyond[] = {BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 64), ALLOW};
  show("a load at offset 64", install(0, beyond, 2));
  struct sock_filter byte[] = {BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 0), ALLOW};
  show("a byte load", install(0, byte, 2));
  struct sock_filter jump_out[] = {BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 5, 0), ALLOW};
  show("a jump past the end", install(0, jump_out, 2));
  struct sock_filter ja_out[] = {BPF_STMT(BPF_JMP | BPF_JA, 1), ALLOW};
  show("JA past the end", install(0, ja_out, 2));
  struct sock_filter unset[] = {BPF_STMT(BPF_LD | BPF_MEM, 3), ALLOW};
  show("scratch memory loaded before a store", install(0, unset, 2));
  struct sock_filter div0[] = {BPF_STMT(BPF_ALU | BPF_DIV | BPF_K, 0), ALLOW};
  show("division by constant 0", install(0, div0, 2));
  struct sock_filter shift[] = {BPF_STMT(BPF_ALU | BPF_LSH | BPF_K, 32), ALLOW};
  show("shift by 32", install(0, shift, 2));
  struct sock_filter stored[] = {
      BPF_STMT(BPF_LD | BPF_IMM, SECCOMP_RET_ALLOW), BPF_STMT(BPF_ST, 3),
      BPF_STMT(BPF_LD | BPF_IMM, 0), BPF_STMT(BPF_LD | BPF_MEM, 3),
      BPF_STMT(BPF_ALU | BPF_NEG, 0), BPF_STMT(BPF_ALU | BPF_NEG, 0), BPF_STMT(BPF_RET | BPF_A, 0)};
  pid_t pid = fork();
  if (pid == 0) {
    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
    show("scratch memory stored, then loaded", install(0, stored, 7));
    show("  getppid allowed", syscall(SYS_getppid) > 0);
    show("  strict mode after a filter", syscall(SYS_seccomp, SECCOMP_SET_MODE_STRICT, 0, NULL));
    fflush(stdout);
    _exit(0);
  }
  waitpid(pid, NULL, 0);
}

/* A filter needs no_new_privs or CAP_SYS_ADMIN: with the capability dropped from the
 * effective set (even by root), EACCES. */
static void unprivileged(void) {
  struct __user_cap_header_struct head = {_LINUX_CAPABILITY_VERSION_3, 0};
  struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
  syscall(SYS_capget, &head, data);
  data[CAP_TO_INDEX(CAP_SYS_ADMIN)].effective &= ~CAP_TO_MASK(CAP_SYS_ADMIN);
  show("  CAP_SYS_ADMIN dropped", syscall(SYS_capset, &head, data));
  struct sock_filter ok[] = {ALLOW};
  show("  install", install(0, ok, 1));
}

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  self = argv[0];
  if (argc > 1 && strcmp(argv[1], "after-exec") == 0) {
    after_exec();
    return 0;
  }
  refused();
  in_child("without no_new_privs or CAP_SYS_ADMIN", unprivileged);
  in_child("the actions", actions);
  in_child("TRAP with SIGSYS blocked", trap_blocked);
  in_child("KILL_PROCESS", kill_process);
  in_child("KILL_THREAD", kill_thread);
  in_child("TSYNC", tsync);
  in_child("TSYNC refused", tsync_refused);
  in_child("strict mode", strict);
  in_child("a division by X = 0", divide_by_x);
  return 0;
}
