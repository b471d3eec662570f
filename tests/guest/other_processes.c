/* other_processes.c: reaching into processes, printed so that a native run and one under
 * x64emu can be compared: process_vm_readv/writev on this process (where memory that is
 * not the guest's must stay out of reach) and on a child, a child in new user and
 * UTS namespaces that names its host, with setns back into its own, a child cloned into
 * new user and PID namespaces, and a grandchild made ours by CLONE_PARENT. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

static void show(const char *what, long r) {
  if (r < 0) printf("%-36s -1 %s\n", what, strerrorname_np(errno));
  else printf("%-36s %ld\n", what, r);
}

static long secret = 0x5ec2e7;

int main(void) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  long into = 0, from = 0x600d;
  struct iovec local = {&into, sizeof into}, remote = {&secret, sizeof secret};
  show("process_vm_readv(self)", process_vm_readv(getpid(), &local, 1, &remote, 1, 0));
  printf("  read %#lx\n", into);
  struct iovec unmapped = {(void *)8, 8};
  show("process_vm_readv(self, unmapped)", process_vm_readv(getpid(), &local, 1, &unmapped, 1, 0));
  show("process_vm_readv(flags)", process_vm_readv(getpid(), &local, 1, &remote, 1, 1));
  int go[2], done[2];
  if (pipe(go) != 0 || pipe(done) != 0) return 1;
  pid_t child = fork();
  if (child == 0) {
    secret = 0xc41d;
    char b;
    (void)!write(done[1], "r", 1);
    (void)!read(go[0], &b, 1);
    _exit(secret == 0x600d ? 51 : 52);
  }
  char b;
  (void)!read(done[0], &b, 1);
  show("process_vm_readv(child)", process_vm_readv(child, &local, 1, &remote, 1, 0));
  printf("  read %#lx\n", into);
  local.iov_base = &from;
  show("process_vm_writev(child)", process_vm_writev(child, &local, 1, &remote, 1, 0));
  (void)!write(go[1], "g", 1);
  int status;
  waitpid(child, &status, 0);
  printf("  child exited %d\n", WEXITSTATUS(status));
  close(go[0]), close(go[1]), close(done[0]), close(done[1]);

  child = fork();
  if (child == 0) {
    long r = syscall(SYS_unshare, CLONE_NEWUSER | CLONE_NEWUTS);
    show("  unshare(NEWUSER | NEWUTS)", r);
    if (r == 0) {
      show("  sethostname", sethostname("x64emu-uts", 10));
      struct utsname u;
      uname(&u);
      printf("  uname's nodename '%s'\n", u.nodename);
      int ns = open("/proc/self/ns/uts", O_RDONLY);
      show("  setns(its own UTS namespace)", syscall(SYS_setns, ns, CLONE_NEWUTS));
      show("  setns(as a PID namespace)", syscall(SYS_setns, ns, CLONE_NEWPID));
    }
    _exit(0);
  }
  waitpid(child, NULL, 0);

  /* A child made in new user and PID namespaces is its namespace's process 1. */
  fflush(stdout);
  long in_ns = syscall(SYS_clone, (long)(CLONE_NEWUSER | CLONE_NEWPID | SIGCHLD), 0L, 0L, 0L, 0L);
  if (in_ns == 0) _exit(getpid() == 1 ? 54 : 55);
  show("clone(NEWUSER | NEWPID)", in_ns > 0 ? 0 : -1);
  if (in_ns > 0 && waitpid((pid_t)in_ns, &status, 0) == in_ns)
    printf("  the child exited %d (54: it was pid 1)\n", WEXITSTATUS(status));

  /* CLONE_PARENT: the middle child's child is ours, and its parent is ours. Each
   * reports on a pipe of its own, as the two write in either order. */
  int from_middle[2], from_grand[2];
  if (pipe(from_middle) != 0 || pipe(from_grand) != 0) return 1;
  pid_t self = getpid();
  pid_t middle = fork();
  if (middle == 0) {
    long grand = syscall(SYS_clone, (long)(CLONE_PARENT | SIGCHLD), 0L, 0L, 0L, 0L);
    if (grand == 0) {
      char ours = getppid() == self ? 'y' : 'n';
      (void)!write(from_grand[1], &ours, 1);
      _exit(53);
    }
    int32_t got = grand < 0 ? -errno : (int32_t)grand;
    (void)!write(from_middle[1], &got, sizeof got);
    _exit(0);
  }
  close(from_middle[1]);
  close(from_grand[1]);
  waitpid(middle, NULL, 0);
  int32_t grand = 0;
  (void)!read(from_middle[0], &grand, sizeof grand);
  if (grand < 0) {
    printf("clone(CLONE_PARENT)                  -1 %s\n", strerrorname_np(-grand));
    return 0;
  }
  char ours = '?';
  (void)!read(from_grand[0], &ours, 1);
  printf("clone(CLONE_PARENT): the grandchild's parent is ours: %c\n", ours);
  show("  waitpid(grandchild) is ours", waitpid(grand, &status, 0) == grand);
  printf("  grandchild exited %d\n", WEXITSTATUS(status));
  return 0;
}
