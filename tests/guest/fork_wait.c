/* fork_wait.c: fork, vfork, pipes between processes, and every way a child can end. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_env.h"

static void describe(const char *what, int status) {
  if (WIFEXITED(status))
    printf("%s: exited, status %d\n", what, WEXITSTATUS(status));
  else if (WIFSIGNALED(status))
    printf("%s: killed by signal %d (SIG%s)\n", what, WTERMSIG(status),
           sigabbrev_np(WTERMSIG(status)));
  else
    printf("%s: other status %#x\n", what, status);
}

/* Output is a file, so stdio buffers: flush before fork so nothing is written twice. */
static pid_t fork_flushed(void) {
  fflush(stdout);
  return fork();
}

static void on_usr1(int sig) { (void)sig; }

static volatile int zero = 0, seven = 7;
static int *volatile null_pointer = NULL;

static void child_does(int how) {
  switch (how) {
  case 0: exit(0);
  case 1: exit(1);
  case 2: exit(42);
  case 3: _exit(255);
  case 4: kill(getpid(), SIGTERM); break;
  case 5: printf("%d\n", seven / zero); break;
  case 6: printf("%d\n", *null_pointer); break;
  case 7: abort();
  case 8: raise(SIGKILL); break;
  case 9: return; /* falls out of main's loop: returns 0 from main below */
  }
  exit(99);
}

int main(void) {
  const char *names[] = {"exit(0)", "exit(1)", "exit(42)", "_exit(255)", "SIGTERM",
                         "divide by zero", "NULL dereference", "abort()", "SIGKILL", "return"};
  for (int how = 0; how < 10; how++) {
    pid_t pid = fork_flushed();
    if (pid == 0) {
      child_does(how);
      return 0;
    }
    int status;
    pid_t got = waitpid(pid, &status, 0);
    printf("waitpid returned the child: %s; ", got == pid ? "yes" : "no");
    describe(names[how], status);
  }

  /* Parent and child talk over two pipes. */
  int to_child[2], to_parent[2];
  pipe(to_child), pipe(to_parent);
  pid_t parent = getpid();
  pid_t pid = fork_flushed();
  if (pid == 0) {
    char buf[64] = {0};
    read(to_child[0], buf, sizeof buf - 1);
    char reply[128];
    int n = snprintf(reply, sizeof reply, "child got \"%s\", getppid is parent: %s", buf,
                     getppid() == parent ? "yes" : "no");
    write(to_parent[1], reply, n);
    _exit(7);
  }
  int status;
  printf("WNOHANG while the child waits: %d\n", waitpid(pid, &status, WNOHANG));
  printf("child pid differs from ours: %s\n", pid != getpid() ? "yes" : "no");
  write(to_child[1], "ping", 4);
  char buf[128] = {0};
  read(to_parent[0], buf, sizeof buf - 1);
  printf("parent read: %s\n", buf);
  struct rusage ru;
  printf("wait4 returned the child: %s; ", wait4(pid, &status, 0, &ru) == pid ? "yes" : "no");
  describe("pipe child", status);

  /* vfork: the child may only _exit or exec (what it writes to memory is not looked at:
   * POSIX leaves that undefined, and an emulator may run vfork as fork). */
  fflush(stdout);
  pid = vfork();
  if (pid == 0) _exit(3);
  pid_t reaped = waitpid(pid, &status, 0);
  printf("vfork: waitpid returned the child: %s; ", reaped == pid ? "yes" : "no");
  describe("vfork child", status);

  /* Several children reaped in any order with wait(). */
  int sum = 0;
  for (int i = 1; i <= 5; i++)
    if (fork_flushed() == 0) _exit(i * 10);
  for (int i = 0; i < 5; i++) {
    wait(&status);
    sum += WEXITSTATUS(status);
  }
  printf("five children, status sum %d\n", sum);
  errno = 0;
  pid_t none = wait(&status);
  printf("wait with no children: %d %s\n", none, strerrorname_np(errno));

  /* A grandchild: the child forks again and reports its child's status as its own. */
  pid = fork_flushed();
  if (pid == 0) {
    pid_t inner = fork_flushed();
    if (inner == 0) _exit(5);
    int inner_status;
    waitpid(inner, &inner_status, 0);
    _exit(WEXITSTATUS(inner_status) + 1);
  }
  waitpid(pid, &status, 0);
  describe("child of a grandchild that exited 5", status);

  /* Killed as soon as it exists, before it has run anything of its own: the signals x64emu
   * also takes for its faults (SIGBUS, SIGSEGV) as much as the others (core_limit.c has
   * the core dumps; here there are none). A handler of some other signal makes x64emu
   * take them all through its own handler, as in most programs. Under qemu-user (the
   * aarch64 build's tests) SIGILL is left out: qemu 7.2 hands a process-directed SIGILL
   * that its guest blocks, as x64emu does while it forks, to a thread of its own whose
   * handler then dies by SIGSEGV; a native aarch64 program that blocks SIGILL dies so
   * under qemu too. */
  signal(SIGUSR1, on_usr1);
  struct rlimit core;
  getrlimit(RLIMIT_CORE, &core);
  core.rlim_cur = 0;
  setrlimit(RLIMIT_CORE, &core);
  const int killers[] = {SIGBUS, SIGSEGV, SIGILL, SIGQUIT, SIGTERM};
  for (size_t i = 0; i < sizeof killers / sizeof *killers; i++) {
    if (killers[i] == SIGILL && under_qemu()) continue;
    pid = fork_flushed();
    if (pid == 0) {
      pause();
      _exit(0);
    }
    kill(pid, killers[i]);
    waitpid(pid, &status, 0);
    describe(killers[i] == SIGBUS ? "killed at once by SIGBUS" : "and by the next", status);
  }
  return 0;
}
