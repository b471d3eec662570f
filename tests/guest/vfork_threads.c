/* vfork_threads.c: vfork and posix_spawn (CLONE_VM|CLONE_VFORK) in a process with another
 * thread running: the parent sees what the child wrote before it exec'd or exited, and
 * nothing else of the child's; the other thread's writes, which go on while the child
 * runs, are never undone (they were, when the parent took back every page that differed
 * in the child: Go's os/exec then died of "malloc deadlock"). The parent takes back the
 * pages the child changed, whole, so the counter and the child's variable lie on pages
 * of their own (README). Compared with the native run. */
#define _GNU_SOURCE
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_env.h"

extern char **environ;
static volatile long counter __attribute__((aligned(4096)));
static volatile int stop;
static long rollbacks;

/* Counts on; a load that finds less than it stored last is a write undone. */
static void *count(void *arg) {
  (void)arg;
  long last = 0;
  while (!stop) {
    long v = counter;
    if (v < last) rollbacks++;
    last = v + 1;
    counter = v + 1;
  }
  return NULL;
}

static volatile int written_by_child __attribute__((aligned(4096)));
/* Children of each kind: 10 where x64emu is slow (test_env.h: under qemu, each exec starts
 * qemu, x64emu and the dynamic loader anew). Not a local: vfork's child shares main's
 * stack frame. */
static int rounds = 40;

int main(void) {
  if (fewer_rounds()) rounds = 10;
  pthread_t t;
  pthread_create(&t, NULL, count, NULL);
  int exits = 0;
  for (int i = 0; i < rounds; i++) {
    pid_t pid = vfork();
    if (pid == 0) {
      written_by_child = i;
      if (i % 2) execl("/bin/true", "true", (char *)NULL);
      _exit(3);
    }
    int status;
    waitpid(pid, &status, 0);
    exits += WIFEXITED(status) && WEXITSTATUS(status) == (i % 2 ? 0 : 3);
    if (written_by_child != i) printf("vfork %d: the child's write is not seen\n", i);
  }
  char *argv[] = {"true", NULL};
  for (int i = 0; i < rounds; i++) {
    pid_t pid;
    if (posix_spawn(&pid, "/bin/true", NULL, NULL, argv, environ) != 0) {
      printf("posix_spawn failed\n");
      break;
    }
    int status;
    waitpid(pid, &status, 0);
    exits += WIFEXITED(status) && WEXITSTATUS(status) == 0;
  }
  stop = 1;
  pthread_join(t, NULL);
  printf("children that exited as they should: %d of %d\n", exits, 2 * rounds);
  printf("the other thread's writes undone: %s\n", rollbacks ? "yes" : "never");
  return 0;
}
