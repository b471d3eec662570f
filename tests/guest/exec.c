/* exec.c: execve of ourselves through /proc/self/exe, of another guest by path, and its
 * failures; descriptors crossing exec with and without close-on-exec. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static void print_args(int argc, char **argv) {
  for (int i = 0; i < argc; i++) printf("  argv[%d]=\"%s\"\n", i, argv[i]);
  for (char **e = environ; *e; e++) printf("  env \"%s\"\n", *e);
}

/* The lowest free descriptor shows whether anything leaked into us. */
static int first_free_fd(void) {
  int fd = open("/dev/null", O_RDONLY);
  close(fd);
  return fd;
}

static void describe(const char *what, int status) {
  if (WIFEXITED(status))
    printf("%s: exited, status %d\n", what, WEXITSTATUS(status));
  else
    printf("%s: killed by signal %d\n", what, WTERMSIG(status));
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: exec HELLO-PATH\n");
    return 2;
  }
  if (argc == 2) {
    printf("stage 0: first free fd %d\n", first_free_fd());
    print_args(argc, argv);
    int kept = open("/dev/null", O_RDONLY);
    int closed = open("/dev/null", O_RDONLY | O_CLOEXEC);
    dup2(kept, 40), dup2(closed, 41);
    fcntl(41, F_SETFD, FD_CLOEXEC);
    close(kept), close(closed);
    fflush(stdout);
    char *args[] = {"exec-stage-1", argv[1], "stage1", "", "an argument with spaces", NULL};
    char *env[] = {"STAGE=1", "EMPTY=", "LONG=" "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", NULL};
    execve("/proc/self/exe", args, env);
    printf("execve /proc/self/exe failed: %s\n", strerrorname_np(errno));
    return 1;
  }

  printf("stage 1\n");
  print_args(argc, argv);
  printf("fd 40 (kept) open: %s, fd 41 (close-on-exec) open: %s\n",
         fcntl(40, F_GETFD) >= 0 ? "yes" : "no", fcntl(41, F_GETFD) >= 0 ? "yes" : "no");
  close(40);
  printf("first free fd %d\n", first_free_fd());

  errno = 0;
  int r = execve("./no-such-program", argv, environ);
  printf("execve missing: %d %s\n", r, strerrorname_np(errno));
  r = execve("/", argv, environ);
  printf("execve a directory: %d %s\n", r, strerrorname_np(errno));
  r = execve("/dev/null", argv, environ);
  printf("execve /dev/null: %d %s\n", r, strerrorname_np(errno));

  /* execveat's errors, in the kernel's order: flags, descriptor, last component. */
  int hello_fd = open(argv[1], O_RDONLY | O_CLOEXEC);
  char link[64]; /* per process: the PIE build of this test may run at the same time */
  snprintf(link, sizeof link, "/tmp/x64emu-exec-link-%d", (int)getpid());
  symlink(argv[1], link);
  struct { const char *what; int fd; const char *path; int flags; } bad[] = {
      {"unknown flag", hello_fd, "", AT_EMPTY_PATH | 0x8000},
      {"empty path, no AT_EMPTY_PATH", hello_fd, "", 0},
      {"empty path, bad fd", -1, "", AT_EMPTY_PATH},
      {"empty path, closed fd", 99, "", AT_EMPTY_PATH},
      {"empty path, AT_FDCWD", AT_FDCWD, "", AT_EMPTY_PATH},
      {"symlink, AT_SYMLINK_NOFOLLOW", AT_FDCWD, link, AT_SYMLINK_NOFOLLOW},
      {"relative to a file", hello_fd, "x", 0},
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    errno = 0;
    r = (int)syscall(SYS_execveat, bad[i].fd, bad[i].path, argv, environ, bad[i].flags);
    printf("execveat %s: %d %s\n", bad[i].what, r, strerrorname_np(errno));
  }
  unlink(link);
  close(hello_fd);

  /* fork + exec + wait, the way a shell runs a command. */
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    char *args[] = {argv[1], NULL};
    execv(argv[1], args);
    _exit(127);
  }
  int status;
  waitpid(pid, &status, 0);
  describe("forked hello", status);

  /* posix_spawn: glibc runs it with clone(CLONE_VM|CLONE_VFORK) and learns of a failed
   * exec through the memory it shares with the child. */
  char *spawn_args[] = {argv[1], "spawned", NULL};
  fflush(stdout);
  r = posix_spawn(&pid, argv[1], NULL, NULL, spawn_args, environ);
  printf("posix_spawn hello: %s\n", r == 0 ? "0" : strerrorname_np(r));
  if (r == 0) {
    waitpid(pid, &status, 0);
    describe("spawned hello", status);
  }
  r = posix_spawn(&pid, "./no-such-program", NULL, NULL, spawn_args, environ);
  printf("posix_spawn missing: %s\n", r == 0 ? "0 (no error reported)" : strerrorname_np(r));
  if (r == 0) waitpid(pid, &status, 0);

  printf("now replacing ourselves with hello\n");
  fflush(stdout);
  char *args[] = {argv[1], "ignored", NULL};
  execv(argv[1], args);
  printf("execv hello failed: %s\n", strerrorname_np(errno));
  return 1;
}
