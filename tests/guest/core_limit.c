/* core_limit.c: whether a parent sees its child dump core (WCOREDUMP) is the child's core
 * limit's, for every way a core-dumping signal ends it: sent by another process, raised
 * by abort(), or the child's own fault. The cores are written into the current directory
 * and removed; where the core pattern is not a name in it (a path, a pipe to a crash
 * handler), only the half without cores runs. */
#define _GNU_SOURCE
#include <dirent.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile int zero = 0;
static int *volatile null_pointer = NULL;

static void ends(int how) {
  switch (how) {
  case 0: pause(); break;           /* killed by the parent */
  case 1: abort();                  /* SIGABRT */
  case 2: printf("%d\n", *null_pointer); break; /* SIGSEGV */
  case 3: printf("%d\n", 7 / zero); break;      /* SIGFPE */
  }
  _exit(0);
}

static void remove_cores(void) {
  DIR *d = opendir(".");
  for (struct dirent *e; d && (e = readdir(d));)
    if (strncmp(e->d_name, "core", 4) == 0) unlink(e->d_name);
  if (d) closedir(d);
}

int main(void) {
  const char *names[] = {"SIGBUS from kill", "abort()", "NULL dereference", "divide by zero"};
  char pattern[256] = "";
  FILE *f = fopen("/proc/sys/kernel/core_pattern", "r");
  if (f && !fgets(pattern, sizeof pattern, f)) pattern[0] = 0;
  if (f) fclose(f);
  bool in_cwd = pattern[0] && !strpbrk(pattern, "/|");
  struct rlimit core;
  getrlimit(RLIMIT_CORE, &core);
  for (int limit = 0; limit < (in_cwd ? 2 : 1); limit++) {
    /* None, then all the hard limit allows. */
    core.rlim_cur = limit ? core.rlim_max : 0;
    setrlimit(RLIMIT_CORE, &core);
    for (int how = 0; how < 4; how++) {
      fflush(stdout);
      pid_t pid = fork();
      if (pid == 0) ends(how);
      if (how == 0) {
        usleep(100000);
        kill(pid, SIGBUS);
      }
      int status;
      waitpid(pid, &status, 0);
      printf("core limit %s, %s: signal %d, core dumped %s\n",
             limit ? "the hard limit" : "0", names[how], WIFSIGNALED(status) ? WTERMSIG(status) : 0,
             WCOREDUMP(status) ? "yes" : "no");
      remove_cores();
    }
  }
  if (!in_cwd) printf("the core pattern is not a name in this directory: no cores made\n");
  return 0;
}
