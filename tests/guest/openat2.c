/* openat2.c: struct open_how, its sizes and its resolve flags, and /proc/self/exe through
 * it, printed so that a native run and one under x64emu can be compared. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static void show(const char *what, long r) {
  if (r < 0) printf("%-36s -1 %s\n", what, strerrorname_np(errno));
  else printf("%-36s %ld\n", what, r);
}

/* openat2: struct open_how and its resolve flags. */
static long open2(int dirfd, const char *path, uint64_t flags, uint64_t mode, uint64_t resolve,
                  size_t size) {
  uint64_t how[8] = {flags, mode, resolve};
  return syscall(SYS_openat2, dirfd, path, how, size);
}

int main(int argc, char **argv) {
  (void)argc;
  const char *self = argv[0];
  setvbuf(stdout, NULL, _IOLBF, 0);
  char dir[64], path[96];
  snprintf(dir, sizeof dir, "/tmp/x64emu-openat2-%d", getpid());
  mkdir(dir, 0700);
  int d = open(dir, O_RDONLY | O_DIRECTORY);
  long fd = open2(d, "file", O_CREAT | O_WRONLY | O_CLOEXEC, 0640, 0, 24);
  show("openat2(CREAT 0640)", fd >= 0);
  struct stat st;
  fstat((int)fd, &st);
  printf("  mode %o cloexec %d\n", st.st_mode & 0777, fcntl((int)fd, F_GETFD) == FD_CLOEXEC);
  close((int)fd);
  symlinkat("file", d, "link");
  show("openat2(link, NO_SYMLINKS)", open2(d, "link", O_RDONLY, 0, 0x04, 24));
  fd = open2(d, "link", O_RDONLY, 0, 0, 24);
  show("openat2(link)", fd >= 0);
  close((int)fd);
  show("openat2(../, BENEATH)", open2(d, "../tmp", O_RDONLY, 0, 0x08, 24));
  show("openat2(BENEATH | IN_ROOT)", open2(d, "file", O_RDONLY, 0, 0x18, 24));
  show("openat2(mode without CREAT)", open2(d, "file", O_RDONLY, 0600, 0, 24));
  show("openat2(flags' upper half)", open2(d, "file", O_RDONLY | (1ull << 40), 0, 0, 24));
  show("openat2(size 16)", open2(d, "file", O_RDONLY, 0, 0, 16));
  fd = open2(d, "file", O_RDONLY, 0, 0, 64);
  show("openat2(size 64, zeros after)", fd >= 0);
  close((int)fd);
  uint64_t how[8] = {O_RDONLY, 0, 0, 1};
  show("openat2(size 32, not zero after)", syscall(SYS_openat2, d, "file", how, 32));
  show("openat2(size 8192)", open2(d, "file", O_RDONLY, 0, 0, 8192));
  show("openat2(bad how)", syscall(SYS_openat2, d, "file", (void *)8, 24));
  show("openat2(O_DIRECTORY on a file)", open2(d, "file", O_RDONLY | O_DIRECTORY, 0, 0, 24));
  fd = open2(AT_FDCWD, "/proc/self/exe", O_RDONLY, 0, 0, 24);
  struct stat program;
  stat(self, &program);
  fstat((int)fd, &st);
  show("openat2(/proc/self/exe)", fd >= 0);
  printf("  the program: %d\n", st.st_size == program.st_size && st.st_ino == program.st_ino);
  close((int)fd);
  /* It is a magic link, and outside any directory it is opened beneath. */
  show("openat2(/proc/self/exe, NO_MAGICLINKS)", open2(AT_FDCWD, "/proc/self/exe", O_RDONLY, 0, 0x02, 24));
  show("openat2(/proc/self/exe, NO_SYMLINKS)", open2(AT_FDCWD, "/proc/self/exe", O_RDONLY, 0, 0x04, 24));
  show("openat2(/proc/self/exe, BENEATH)", open2(d, "/proc/self/exe", O_RDONLY, 0, 0x08, 24));
  fd = open2(AT_FDCWD, "/proc/self/exe", O_RDONLY, 0, 0x01 /* NO_XDEV */, 24);
  show("openat2(/proc/self/exe, NO_XDEV)", fd);
  if (fd >= 0) close((int)fd);
  close(d);
  snprintf(path, sizeof path, "%s/link", dir);
  unlink(path);
  snprintf(path, sizeof path, "%s/file", dir);
  unlink(path);
  rmdir(dir);
  return 0;
}
