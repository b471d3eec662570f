/* clone_forms.c: the forms of clone and clone3 that make processes, as glibc and
 * programs use them (posix_spawn's clone3 with CLONE_CLEAR_SIGHAND and a pidfd, legacy
 * clone's pidfd), and the kernel's checks of their flags (CLONE_PARENT is in
 * other_processes.c). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef P_PIDFD
#define P_PIDFD 3
#endif

/* clone3 whose child calls fn on the stack it was given (or its copy of ours) and ends
 * with fn's value; the parent gets the call's result. */
static long clone3_run(struct clone_args *args, int (*fn)(void)) {
  register long r12 __asm__("r12") = (long)fn; /* callee-saved: the child still has it */
  long ret;
  __asm__ volatile("syscall\n\t"
                   "test %%rax, %%rax\n\t"
                   "jnz 1f\n\t"
                   "and $-16, %%rsp\n\t"
                   "call *%%r12\n\t"
                   "mov %%eax, %%edi\n\t"
                   "mov $60, %%eax\n\t" /* exit */
                   "syscall\n\t"
                   "1:"
                   : "=a"(ret)
                   : "0"((long)SYS_clone3), "D"(args), "S"(sizeof *args), "r"(r12)
                   : "rcx", "r11", "memory");
  return ret;
}

static void on_usr1(int sig) { (void)sig; }

/* What the posix_spawn child saw, in memory it shares with the parent. */
static struct {
  int usr1_default, usr2_ignored, usr1_flags;
} seen;

/* The kernel's struct sigaction (the child asks the kernel, not its copy of libc). */
struct kernel_sigaction {
  void (*handler)(int);
  unsigned long flags;
  void (*restorer)(void);
  uint64_t mask;
};

static int spawn_child(void) {
  struct kernel_sigaction sa;
  syscall(SYS_rt_sigaction, SIGUSR1, NULL, &sa, 8);
  seen.usr1_default = sa.handler == SIG_DFL;
  seen.usr1_flags = (int)sa.flags;
  syscall(SYS_rt_sigaction, SIGUSR2, NULL, &sa, 8);
  seen.usr2_ignored = sa.handler == SIG_IGN;
  return 7;
}

static int lowest_free_fd(void) {
  int fd = dup(0);
  close(fd);
  return fd;
}

static void describe_end(const char *what, int pidfd) {
  siginfo_t info = {0};
  if (waitid(P_PIDFD, (id_t)pidfd, &info, WEXITED) != 0) {
    printf("%s: waitid(P_PIDFD): %s\n", what, strerrorname_np(errno));
    return;
  }
  printf("%s: child ended, code %s, status %d\n", what,
         info.si_code == CLD_EXITED ? "CLD_EXITED" : "other", info.si_status);
}

/* glibc 2.39's posix_spawn: a vfork on a stack of its own, handlers cleared, a pidfd. */
static void spawn_like_glibc(void) {
  struct sigaction sa = {.sa_handler = on_usr1, .sa_flags = SA_RESTART};
  sigaction(SIGUSR1, &sa, NULL);
  signal(SIGUSR2, SIG_IGN);
  size_t size = 64 * 1024;
  char *stack = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  int pidfd = -1, expect_fd = lowest_free_fd();
  struct clone_args args = {
      .flags = CLONE_CLEAR_SIGHAND | CLONE_VM | CLONE_VFORK | CLONE_PIDFD,
      .pidfd = (uintptr_t)&pidfd,
      .exit_signal = SIGCHLD,
      .stack = (uintptr_t)stack,
      .stack_size = size,
  };
  long pid = clone3_run(&args, spawn_child);
  if (pid < 0) {
    printf("spawn: clone3: %s\n", strerrorname_np((int)-pid));
    return;
  }
  printf("spawn: pidfd is the lowest free descriptor %d, close-on-exec %d\n",
         pidfd == expect_fd, (fcntl(pidfd, F_GETFD) & FD_CLOEXEC) != 0);
  printf("spawn: child saw SIGUSR1 default %d (flags %#x), SIGUSR2 still ignored %d\n",
         seen.usr1_default, seen.usr1_flags, seen.usr2_ignored);
  sigaction(SIGUSR1, NULL, &sa);
  printf("spawn: the parent keeps its handler %d\n", sa.sa_handler == on_usr1);
  describe_end("spawn", pidfd);
  close(pidfd);
  munmap(stack, size);
  signal(SIGUSR1, SIG_DFL);
  signal(SIGUSR2, SIG_DFL);
}

static int exit_three(void) { return 3; }

/* A plain fork by clone3 with a pidfd; then legacy clone, whose pidfd goes where
 * parent_tid points, and whose flags are an int's (the upper half is ignored). */
static void fork_with_pidfd(void) {
  int pidfd = -1;
  struct clone_args args = {.flags = CLONE_PIDFD, .pidfd = (uintptr_t)&pidfd,
                            .exit_signal = SIGCHLD};
  fflush(stdout);
  long pid = clone3_run(&args, exit_three);
  if (pid < 0) printf("clone3 fork: %s\n", strerrorname_np((int)-pid));
  else describe_end("clone3 fork", pidfd);
  close(pidfd);

  pidfd = -1;
  pid = syscall(SYS_clone, (long)(CLONE_PIDFD | SIGCHLD), 0L, &pidfd, 0L, 0L);
  if (pid == 0) _exit(4);
  if (pid < 0) printf("clone pidfd: %s\n", strerrorname_np(errno));
  else describe_end("clone pidfd", pidfd);
  close(pidfd);

  pid = syscall(SYS_clone, (long)(0x100000000L | SIGCHLD), 0L, 0L, 0L, 0L);
  if (pid == 0) _exit(5);
  int status = 0;
  if (pid < 0) printf("clone upper half: %s\n", strerrorname_np(errno));
  else if (waitpid((pid_t)pid, &status, 0) == pid)
    printf("clone upper half: exited %d\n", WEXITSTATUS(status));
}

static void clone3_refused(const char *what, struct clone_args args) {
  long r = syscall(SYS_clone3, &args, sizeof args);
  if (r == 0) _exit(99); /* a child the kernel should not have made */
  printf("clone3 %s: %s\n", what, r < 0 ? strerrorname_np(errno) : "made a child");
  if (r > 0) waitpid((pid_t)r, NULL, 0);
}

static void clone_refused(const char *what, long flags, void *parent_tid) {
  long r = syscall(SYS_clone, flags, 0L, parent_tid, 0L, 0L);
  if (r == 0) _exit(99);
  printf("clone %s: %s\n", what, r < 0 ? strerrorname_np(errno) : "made a child");
  if (r > 0) waitpid((pid_t)r, NULL, 0);
}

static void flag_checks(void) {
  int pidfd;
  pid_t set_tid[1] = {1234};
  void *unmapped = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  munmap(unmapped, 4096);
  clone3_refused("FS|NEWNS", (struct clone_args){.flags = CLONE_FS | CLONE_NEWNS,
                                                 .exit_signal = SIGCHLD});
  clone3_refused("FS|NEWUSER", (struct clone_args){.flags = CLONE_FS | CLONE_NEWUSER,
                                                   .exit_signal = SIGCHLD});
  clone3_refused("THREAD without SIGHAND",
                 (struct clone_args){.flags = CLONE_THREAD | CLONE_VM});
  clone3_refused("SIGHAND without VM", (struct clone_args){.flags = CLONE_SIGHAND});
  clone3_refused("THREAD|NEWPID", (struct clone_args){.flags = CLONE_THREAD | CLONE_SIGHAND |
                                                               CLONE_VM | CLONE_NEWPID});
  clone3_refused("SIGHAND|CLEAR_SIGHAND",
                 (struct clone_args){.flags = CLONE_VM | CLONE_SIGHAND | CLONE_CLEAR_SIGHAND,
                                     .exit_signal = SIGCHLD});
  clone3_refused("PARENT with an exit signal",
                 (struct clone_args){.flags = CLONE_PARENT, .exit_signal = SIGCHLD});
  clone3_refused("DETACHED", (struct clone_args){.flags = CLONE_DETACHED,
                                                 .exit_signal = SIGCHLD});
  clone3_refused("signal in flags", (struct clone_args){.flags = SIGCHLD});
  clone3_refused("exit signal 65", (struct clone_args){.exit_signal = 65});
  clone3_refused("unknown flag", (struct clone_args){.flags = 1ull << 40,
                                                     .exit_signal = SIGCHLD});
  clone3_refused("set_tid_size 33", (struct clone_args){.exit_signal = SIGCHLD,
                                                        .set_tid = (uintptr_t)set_tid,
                                                        .set_tid_size = 33});
  clone3_refused("set_tid_size without set_tid",
                 (struct clone_args){.exit_signal = SIGCHLD, .set_tid_size = 1});
  clone3_refused("set_tid without its size",
                 (struct clone_args){.exit_signal = SIGCHLD, .set_tid = (uintptr_t)set_tid});
  clone3_refused("stack without its size",
                 (struct clone_args){.exit_signal = SIGCHLD, .stack = (uintptr_t)set_tid});
  clone3_refused("pidfd at an unmapped address",
                 (struct clone_args){.flags = CLONE_PIDFD, .pidfd = (uintptr_t)unmapped,
                                     .exit_signal = SIGCHLD});
  clone_refused("PIDFD|PARENT_SETTID", CLONE_PIDFD | CLONE_PARENT_SETTID | SIGCHLD, &pidfd);
  clone_refused("PIDFD|DETACHED", CLONE_PIDFD | CLONE_DETACHED | SIGCHLD, &pidfd);
  clone_refused("FS|NEWNS", CLONE_FS | CLONE_NEWNS | SIGCHLD, NULL);
  /* None of them made a child. */
  printf("children left: %s\n",
         waitpid(-1, NULL, WNOHANG) < 0 ? strerrorname_np(errno) : "some");
}

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  spawn_like_glibc();
  fork_with_pidfd();
  flag_checks();
  return 0;
}
