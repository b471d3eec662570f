/* chroot_exec.c: chroot's errors, and programs run after a change of root, where the
 * emulator's own path is not to be found: this program copies itself into ./root,
 * changes root to it, runs itself there, and that copy runs itself once more. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static void show(const char *what, int r) {
  printf("%-28s %s\n", what, r == 0 ? "0" : strerrorname_np(errno));
}

static int copy_self(const char *to) {
  int in = open("/proc/self/exe", O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_EXCL, 0755);
  if (in < 0 || out < 0) return -1;
  char buf[65536];
  ssize_t n;
  while ((n = read(in, buf, sizeof buf)) > 0)
    if (write(out, buf, (size_t)n) != n) return -1;
  close(in);
  return close(out);
}

/* Inside the new root: what it sees, then the next step. */
static int inside(int depth) {
  char cwd[PATH_MAX];
  printf("depth %d: cwd %s, /marker %s, /proc/self/exe %s\n", depth,
         getcwd(cwd, sizeof cwd) ? cwd : strerrorname_np(errno),
         access("/marker", F_OK) == 0 ? "found" : strerrorname_np(errno),
         access("/proc/self/exe", F_OK) == 0 ? "found" : strerrorname_np(errno));
  fflush(stdout);
  if (depth == 1) {
    char *argv[] = {"/prog", "inside", "2", NULL};
    execv("/prog", argv);
    printf("execv(/prog) again: %s\n", strerrorname_np(errno));
    return 1;
  }
  return 42;
}

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (argc == 3 && strcmp(argv[1], "inside") == 0) return inside(atoi(argv[2]));

  show("chroot(missing)", chroot("missing/dir"));
  show("chroot(a file)", chroot("/proc/self/exe"));
  show("chroot(unmapped address)", chroot((const char *)8));
  if (geteuid() != 0) {
    show("chroot(.) as a user", chroot("."));
    return 0;
  }
  if (mkdir("root", 0755) != 0 || copy_self("root/prog") != 0 ||
      close(open("root/marker", O_WRONLY | O_CREAT, 0644)) != 0) {
    perror("making ./root");
    return 1;
  }
  pid_t child = fork();
  if (child == 0) {
    show("chroot(root)", chroot("root"));
    show("chdir(/)", chdir("/"));
    char *args[] = {"/prog", "inside", "1", NULL};
    execv("/prog", args);
    printf("execv(/prog): %s\n", strerrorname_np(errno));
    _exit(1);
  }
  int status;
  waitpid(child, &status, 0);
  printf("the chrooted child exited %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  unlink("root/prog");
  unlink("root/marker");
  rmdir("root");
  return 0;
}
