/* fileio.c: files and directories through the syscall shim, in the current directory. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#define CHECK(expr)                                                                     \
  do {                                                                                  \
    if (!(expr)) printf("FAILED line %d: %s (errno %s)\n", __LINE__, #expr, strerrorname_np(errno)); \
  } while (0)

static void print_stat(const char *label, const struct stat *st) {
  const char *type = S_ISREG(st->st_mode)   ? "file"
                     : S_ISDIR(st->st_mode) ? "dir"
                     : S_ISLNK(st->st_mode) ? "symlink"
                     : S_ISFIFO(st->st_mode) ? "fifo"
                                             : "other";
  /* A directory's size depends on the file system, so it is not printed. */
  printf("%s: %s mode %04o size %lld nlink %lu\n", label, type, st->st_mode & 07777,
         S_ISDIR(st->st_mode) ? -1ll : (long long)st->st_size, (unsigned long)st->st_nlink);
}

static void write_and_read(void) {
  int fd = open("d/a.txt", O_CREAT | O_WRONLY | O_TRUNC, 0644);
  CHECK(fd >= 0);
  const char text[] = "first line\nsecond line\n";
  printf("write: %zd\n", write(fd, text, sizeof text - 1));
  struct iovec iov[3] = {{"one ", 4}, {"two ", 4}, {"three\n", 6}};
  printf("writev: %zd\n", writev(fd, iov, 3));
  printf("lseek end: %lld\n", (long long)lseek(fd, 0, SEEK_END));
  printf("lseek hole: %lld\n", (long long)lseek(fd, 4096, SEEK_CUR));
  printf("write past hole: %zd\n", write(fd, "X", 1));
  printf("pwrite: %zd\n", pwrite(fd, "FIRST", 5, 0));
  CHECK(close(fd) == 0);

  char buf[8192];
  fd = open("d/a.txt", O_RDONLY);
  ssize_t n = read(fd, buf, sizeof buf);
  printf("read %zd bytes, head: %.37s", n, buf);
  int zeros = 0;
  for (ssize_t i = 37; i < n - 1; i++) zeros += buf[i] == 0;
  printf("hole zeros: %d, last: %c\n", zeros, buf[n - 1]);
  printf("read at EOF: %zd\n", read(fd, buf, sizeof buf));
  printf("pread: %zd \"%.6s\"\n", pread(fd, buf, 6, 11), buf);
  char a[5] = {0}, b[8] = {0};
  struct iovec riov[2] = {{a, 4}, {b, 7}};
  lseek(fd, 0, SEEK_SET);
  printf("readv: %zd \"%s\" \"%s\"\n", readv(fd, riov, 2), a, b);
  printf("lseek cur: %lld\n", (long long)lseek(fd, 0, SEEK_CUR));
  struct stat st;
  CHECK(fstat(fd, &st) == 0);
  print_stat("fstat a.txt", &st);
  close(fd);

  fd = open("d/a.txt", O_WRONLY | O_APPEND);
  write(fd, "appended\n", 9);
  close(fd);
  CHECK(truncate("d/a.txt", 30) == 0);
  CHECK(stat("d/a.txt", &st) == 0);
  print_stat("after truncate", &st);
  fd = open("d/a.txt", O_RDWR);
  CHECK(ftruncate(fd, 10) == 0);
  CHECK(fstat(fd, &st) == 0);
  print_stat("after ftruncate", &st);
  close(fd);
}

/* Prints a call's result with errno, read after the call. */
#define SHOW(label, call)                                                    \
  do {                                                                       \
    errno = 0;                                                               \
    long result_ = (long)(call);                                             \
    printf("%s: %ld %s\n", label, result_, errno ? strerrorname_np(errno) : "ok"); \
  } while (0)

static void errors(void) {
  SHOW("open missing", open("d/missing", O_RDONLY));
  SHOW("O_EXCL existing", open("d/a.txt", O_CREAT | O_EXCL | O_WRONLY, 0600));
  SHOW("mkdir existing", mkdir("d", 0755));
  SHOW("rmdir non-empty", rmdir("d"));
  SHOW("read bad fd", read(999, NULL, 0));
  SHOW("unlink dir", unlink("d"));
  SHOW("access R_OK", access("d/a.txt", R_OK));
  SHOW("access X_OK", access("d/a.txt", X_OK));
  SHOW("open dir for writing", open("d", O_WRONLY));
  SHOW("readlink non-link", readlink("d/a.txt", (char[8]){0}, 8));
  int fd = open("d/a.txt", O_RDONLY);
  SHOW("lseek negative", lseek(fd, -5, SEEK_SET));
  SHOW("write to read-only fd", write(fd, "x", 1));
  close(fd);
  printf("strerror(ENOENT): %s\n", strerror(ENOENT));
  FILE *f = fopen("d/nope/x", "r");
  printf("fopen missing: %s %m\n", f ? "opened" : "NULL");
}

static int compare_names(const void *x, const void *y) {
  return strcmp(*(char *const *)x, *(char *const *)y);
}

static void directory(void) {
  CHECK(mkdir("d/sub", 0750) == 0);
  CHECK(symlink("a.txt", "d/link") == 0);
  CHECK(link("d/a.txt", "d/hard") == 0);
  int fd = open("d/sub/f", O_CREAT | O_WRONLY, 0600);
  close(fd);
  CHECK(rename("d/sub/f", "d/moved") == 0);
  CHECK(mkfifo("d/fifo", 0644) == 0);

  char target[64] = {0};
  printf("readlink: %zd \"%s\"\n", readlink("d/link", target, sizeof target - 1), target);
  struct stat st;
  CHECK(lstat("d/link", &st) == 0);
  print_stat("lstat link", &st);
  CHECK(stat("d/link", &st) == 0);
  print_stat("stat link", &st);
  CHECK(stat("d/sub", &st) == 0);
  print_stat("stat sub", &st);
  CHECK(stat("d/fifo", &st) == 0);
  print_stat("stat fifo", &st);
  CHECK(chmod("d/moved", 0640) == 0);
  CHECK(fstatat(AT_FDCWD, "d/moved", &st, 0) == 0);
  print_stat("after chmod", &st);
  struct timespec times[2] = {{1000000000, 5}, {1234567890, 123456789}};
  CHECK(utimensat(AT_FDCWD, "d/moved", times, 0) == 0);
  struct statx sx;
  CHECK(statx(AT_FDCWD, "d/moved", 0, STATX_BASIC_STATS, &sx) == 0);
  printf("statx: mtime %lld.%09u atime %lld size %llu mode %o\n", (long long)sx.stx_mtime.tv_sec,
         sx.stx_mtime.tv_nsec, (long long)sx.stx_atime.tv_sec, (unsigned long long)sx.stx_size,
         sx.stx_mode);

  DIR *dir = opendir("d");
  char *names[32];
  int count = 0;
  struct dirent *e;
  while ((e = readdir(dir)) && count < 32) {
    const char *type = e->d_type == DT_DIR ? "dir" : e->d_type == DT_REG ? "reg"
                       : e->d_type == DT_LNK ? "lnk" : e->d_type == DT_FIFO ? "fifo" : "?";
    if (asprintf(&names[count], "%s (%s)", e->d_name, type) > 0) count++;
  }
  closedir(dir);
  qsort(names, count, sizeof names[0], compare_names);
  printf("getdents: %d entries\n", count);
  for (int i = 0; i < count; i++) printf("  %s\n", names[i]), free(names[i]);

  /* getdents64 straight, with a buffer small enough to need several calls. */
  int dfd = open("d", O_RDONLY | O_DIRECTORY);
  char buf[64];
  int calls = 0, entries = 0;
  long n;
  while ((n = getdents64(dfd, buf, sizeof buf)) > 0) {
    calls++;
    unsigned short reclen;
    for (long off = 0; off < n; off += reclen, entries++)
      memcpy(&reclen, buf + off + offsetof(struct dirent64, d_reclen), sizeof reclen);
  }
  printf("getdents64 small buffer: %d entries, more than one call: %s\n", entries,
         calls > 1 ? "yes" : "no");
  close(dfd);

  char cwd[4096];
  CHECK(chdir("d/sub") == 0);
  CHECK(getcwd(cwd, sizeof cwd) != NULL);
  printf("cwd ends with /d/sub: %s\n",
         strlen(cwd) > 6 && !strcmp(cwd + strlen(cwd) - 6, "/d/sub") ? "yes" : "no");
  CHECK(chdir("../..") == 0);

  const char *gone[] = {"d/link", "d/hard", "d/moved", "d/fifo", "d/a.txt"};
  for (unsigned i = 0; i < 5; i++) CHECK(unlink(gone[i]) == 0);
  CHECK(rmdir("d/sub") == 0);
  CHECK(rmdir("d") == 0);
  SHOW("cleanup: stat d", stat("d", &st));
}

static void descriptors_and_stdio(void) {
  int fd = open("f.txt", O_CREAT | O_RDWR | O_TRUNC, 0644);
  int copy = dup(fd);
  printf("dup gives a new fd: %s\n", copy > fd ? "yes" : "no");
  write(copy, "via dup\n", 8);
  printf("offset shared: %lld\n", (long long)lseek(fd, 0, SEEK_CUR));
  CHECK(dup2(fd, 20) == 20);
  CHECK(dup3(fd, 21, O_CLOEXEC) == 21);
  printf("F_GETFD 20: %d, 21: %d\n", fcntl(20, F_GETFD), fcntl(21, F_GETFD));
  printf("F_GETFL has O_RDWR: %s\n", (fcntl(fd, F_GETFL) & O_ACCMODE) == O_RDWR ? "yes" : "no");
  int low = fcntl(fd, F_DUPFD, 30);
  printf("F_DUPFD >= 30: %s\n", low >= 30 ? "yes" : "no");
  close(low), close(20), close(21), close(copy), close(fd);

  FILE *f = fopen("f.txt", "a+");
  fprintf(f, "number %d, float %.2f\n", 17, 2.5);
  fseek(f, 0, SEEK_SET);
  char line[128];
  while (fgets(line, sizeof line, f)) printf("fgets: %s", line);
  printf("ftell: %ld\n", ftell(f));
  fclose(f);

  fd = open("f.txt", O_RDWR);
  char *map = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  CHECK(map != MAP_FAILED);
  printf("mmap sees: %.7s\n", map);
  memcpy(map, "VIA", 3);
  CHECK(msync(map, 4096, MS_SYNC) == 0);
  CHECK(munmap(map, 4096) == 0);
  char back[8] = {0};
  pread(fd, back, 7, 0);
  printf("after shared mapping write: %s\n", back);
  close(fd);
  CHECK(unlink("f.txt") == 0);

  int p[2];
  CHECK(pipe2(p, O_CLOEXEC) == 0);
  write(p[1], "through a pipe", 14);
  close(p[1]);
  char pbuf[32] = {0};
  ssize_t got = read(p[0], pbuf, sizeof pbuf);
  printf("pipe read: %zd \"%s\"\n", got, pbuf);
  SHOW("pipe read after writer closed", read(p[0], pbuf, sizeof pbuf));
  close(p[0]);
}

int main(void) {
  umask(022);
  CHECK(mkdir("d", 0755) == 0);
  write_and_read();
  errors();
  directory();
  descriptors_and_stdio();
  return 0;
}
