/* test_syscall.c: file, path, stat, info and time system calls, checked against the host's libc. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/statfs.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "interp/fault.h"
#include "test_syscall_util.h"

#define GUEST_EXE "/opt/guest/bin/prog"
#define AT_CWD ((uint64_t)(int64_t)-100)

/* x86-64 numbers written from the kernel's uapi headers, not taken from the code under test. */
#define X_O_WRONLY 01
#define X_O_RDWR 02
#define X_O_CREAT 0100
#define X_O_TRUNC 01000
#define X_O_APPEND 02000
#define X_O_NONBLOCK 04000
#define X_O_DIRECTORY 0200000
#define X_O_CLOEXEC 02000000
#define X_F_GETFD 1
#define X_F_GETFL 3
#define X_F_DUPFD_CLOEXEC 1030

static char dir[64];

static int setup(void **state) {
  test_cpu(GUEST_EXE);
  scratch_dir_make(dir, "syscall");
  return 0;
}

static int teardown(void **state) { return scratch_dir_remove(dir); }

static const char *in_dir(const char *name) {
  static char path[4][128];
  static int i;
  i = (i + 1) & 3;
  snprintf(path[i], sizeof path[i], "%s/%s", dir, name);
  return path[i];
}

static void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

/* ---- reading and writing ---- */

static void test_write_then_read_pipe(void **state) {
  int p[2];
  assert_int_equal(pipe(p), 0);
  assert_int_equal(SC3(write, p[1], "hello", 5), 5);
  char got[8] = {0};
  assert_int_equal(read(p[0], got, sizeof got), 5);
  assert_string_equal(got, "hello");

  assert_int_equal(write(p[1], "world!", 6), 6);
  char buf[16] = {0};
  assert_int_equal(SC3(read, p[0], buf, sizeof buf), 6);
  assert_string_equal(buf, "world!");
  close(p[0]);
  close(p[1]);
}

static void test_readv_writev_pread_pwrite(void **state) {
  const char *path = in_dir("rw");
  int fd = (int)SC4(openat, AT_CWD, path, X_O_RDWR | X_O_CREAT | X_O_TRUNC, 0644);
  assert_true(fd >= 0);
  struct iovec iov[2] = {{"abc", 3}, {"defg", 4}};
  assert_int_equal(SC3(writev, fd, iov, 2), 7);
  assert_int_equal(SC4(pwrite64, fd, "XY", 2, 1), 2);
  char a[3] = {0}, b[5] = {0};
  struct iovec in[2] = {{a, 2}, {b, 4}};
  assert_int_equal(SC4(preadv, fd, in, 2, 0), 6);
  assert_string_equal(a, "aX");
  assert_string_equal(b, "Ydef");
  char c[4] = {0};
  assert_int_equal(SC4(pread64, fd, c, 3, 4), 3);
  assert_string_equal(c, "efg");
  assert_int_equal(SC3(lseek, fd, 0, SEEK_END), 7);
  assert_int_equal(SC1(close, fd), 0);
  assert_int_equal(fcntl(fd, F_GETFD), -1); /* really closed on the host */
}

static void test_errors_are_negative_errno(void **state) {
  assert_int_equal(SC4(openat, AT_CWD, in_dir("missing"), 0, 0), -ENOENT);
  assert_int_equal(SC1(close, 12345), -EBADF);
  catch_guest_faults();
  int p[2];
  assert_int_equal(pipe(p), 0);
  assert_int_equal(SC3(write, p[1], 16, 1), -EFAULT);
  /* a bad pointer the shim itself writes through gives EFAULT, not a crash */
  assert_int_equal(SC2(fstat, p[0], 8), -EFAULT);
  assert_int_equal(SC1(uname, 8), -EFAULT);
  close(p[0]);
  close(p[1]);
}

/* ---- open flags in x86-64 numbers ---- */

static void test_open_flags(void **state) {
  const char *file = in_dir("flags");
  write_file(file, "x");
  int fd = (int)SC4(openat, AT_CWD, file, X_O_WRONLY | X_O_APPEND | X_O_NONBLOCK | X_O_CLOEXEC, 0);
  assert_true(fd >= 0);
  int host = fcntl(fd, F_GETFL);
  assert_true(host & O_APPEND);
  assert_true(host & O_NONBLOCK);
  assert_int_equal(host & O_ACCMODE, O_WRONLY);
  assert_int_equal(fcntl(fd, F_GETFD), FD_CLOEXEC);
  int64_t fl = SC3(fcntl, fd, X_F_GETFL, 0);
  assert_int_equal(fl & 3, X_O_WRONLY);
  assert_true(fl & X_O_APPEND);
  assert_true(fl & X_O_NONBLOCK);
  assert_int_equal(SC3(fcntl, fd, X_F_GETFD, 0), 1);
  int64_t dup = SC3(fcntl, fd, X_F_DUPFD_CLOEXEC, 100);
  assert_true(dup >= 100);
  assert_int_equal(fcntl((int)dup, F_GETFD), FD_CLOEXEC);
  close((int)dup);
  close(fd);

  /* O_DIRECTORY, whose number differs between x86-64 and aarch64 */
  assert_int_equal(SC4(openat, AT_CWD, file, X_O_DIRECTORY, 0), -ENOTDIR);
  fd = (int)SC4(openat, AT_CWD, dir, X_O_DIRECTORY, 0);
  assert_true(fd >= 0);
  close(fd);
  fd = (int)SC3(open, dir, X_O_DIRECTORY, 0);
  assert_true(fd >= 0);
  close(fd);
}

/* ---- stat: the x86-64 layout, field by field, against the host's stat() ---- */

static uint64_t at64(const uint8_t *b, size_t off) {
  uint64_t v;
  memcpy(&v, b + off, 8);
  return v;
}

static uint32_t at32(const uint8_t *b, size_t off) {
  uint32_t v;
  memcpy(&v, b + off, 4);
  return v;
}

/* Offsets of arch/x86/include/uapi/asm/stat.h's struct stat (144 bytes). */
static void check_x64_stat(const uint8_t *b, const struct stat *st) {
  assert_int_equal(at64(b, 0), st->st_dev);
  assert_int_equal(at64(b, 8), st->st_ino);
  assert_int_equal(at64(b, 16), st->st_nlink);
  assert_int_equal(at32(b, 24), st->st_mode);
  assert_int_equal(at32(b, 28), st->st_uid);
  assert_int_equal(at32(b, 32), st->st_gid);
  assert_int_equal(at64(b, 40), st->st_rdev);
  assert_int_equal(at64(b, 48), st->st_size);
  assert_int_equal(at64(b, 56), st->st_blksize);
  assert_int_equal(at64(b, 64), st->st_blocks);
  assert_int_equal(at64(b, 72), st->st_atim.tv_sec);
  assert_int_equal(at64(b, 80), st->st_atim.tv_nsec);
  assert_int_equal(at64(b, 88), st->st_mtim.tv_sec);
  assert_int_equal(at64(b, 96), st->st_mtim.tv_nsec);
  assert_int_equal(at64(b, 104), st->st_ctim.tv_sec);
  assert_int_equal(at64(b, 112), st->st_ctim.tv_nsec);
}

static void test_stat_family_layout(void **state) {
  const char *file = in_dir("statme");
  write_file(file, "0123456789abcdef");
  const char *link = in_dir("statlink");
  assert_int_equal(symlink(file, link), 0);
  uint8_t b[144 + 16];
  struct stat st;

  memset(b, 0xaa, sizeof b);
  assert_int_equal(SC2(stat, file, b), 0);
  assert_int_equal(stat(file, &st), 0);
  check_x64_stat(b, &st);
  assert_int_equal(b[144], 0xaa); /* nothing written past the 144 bytes */
  assert_int_equal(at64(b, 48), 16);
#if defined(__x86_64__)
  /* here the host's own struct stat is the x86-64 one: byte for byte */
  assert_memory_equal(b, &st, sizeof st);
#endif

  assert_int_equal(SC2(lstat, link, b), 0);
  assert_int_equal(lstat(link, &st), 0);
  check_x64_stat(b, &st);
  assert_true(S_ISLNK(at32(b, 24)));

  assert_int_equal(SC4(newfstatat, AT_CWD, link, b, 0), 0);
  assert_int_equal(stat(file, &st), 0);
  check_x64_stat(b, &st);

  int fd = open(file, O_RDONLY);
  assert_int_equal(SC2(fstat, fd, b), 0);
  assert_int_equal(fstat(fd, &st), 0);
  check_x64_stat(b, &st);
  /* fstatat(fd, "", AT_EMPTY_PATH) */
  assert_int_equal(SC4(newfstatat, fd, "", b, 0x1000), 0);
  check_x64_stat(b, &st);
  close(fd);

  struct statx sx;
  assert_int_equal(SC5(statx, AT_CWD, file, 0, 0x7ff, &sx), 0);
  assert_int_equal(sx.stx_size, 16);
  assert_int_equal(sx.stx_ino, st.st_ino);

  assert_int_equal(SC2(stat, in_dir("nope"), b), -ENOENT);
}

static void test_statfs_layout(void **state) {
  uint8_t b[120];
  struct statfs s;
  assert_int_equal(SC2(statfs, dir, b), 0);
  assert_int_equal(statfs(dir, &s), 0);
  /* x86-64 struct statfs: f_type 0, f_bsize 8, f_blocks 16, f_files 40, f_namelen 64 */
  assert_int_equal(at64(b, 0), s.f_type);
  assert_int_equal(at64(b, 8), s.f_bsize);
  assert_int_equal(at64(b, 16), s.f_blocks);
  assert_int_equal(at64(b, 40), s.f_files);
  assert_int_equal(at64(b, 64), s.f_namelen);
}

/* ---- /proc/self/exe names the guest, under every spelling ---- */

static void expect_readlink_exe(uint64_t dirfd, const char *path) {
  char buf[256];
  memset(buf, 0, sizeof buf);
  int64_t n = dirfd == AT_CWD ? SC3(readlink, path, buf, sizeof buf)
                              : SC4(readlinkat, dirfd, path, buf, sizeof buf);
  assert_int_equal(n, strlen(GUEST_EXE));
  assert_string_equal(buf, GUEST_EXE);
}

static void test_readlink_proc_self_exe(void **state) {
  char path[64];
  expect_readlink_exe(AT_CWD, "/proc/self/exe");
  snprintf(path, sizeof path, "/proc/%d/exe", (int)getpid());
  expect_readlink_exe(AT_CWD, path);
  expect_readlink_exe(AT_CWD, "//proc/./self/../self//exe");
  expect_readlink_exe(AT_CWD, "/proc/thread-self/exe");
  snprintf(path, sizeof path, "/proc/self/task/%d/exe", (int)gettid());
  expect_readlink_exe(AT_CWD, path);
  int proc_self = open("/proc/self", O_RDONLY | O_DIRECTORY);
  assert_true(proc_self >= 0);
  expect_readlink_exe((uint64_t)proc_self, "exe");
  expect_readlink_exe((uint64_t)proc_self, "./exe");
  close(proc_self);
  char cwd[4096];
  assert_non_null(getcwd(cwd, sizeof cwd));
  assert_int_equal(chdir("/proc/self"), 0);
  expect_readlink_exe(AT_CWD, "exe");
  assert_int_equal(chdir(cwd), 0);

  /* truncated to the buffer, without a NUL, as readlink does */
  char small[4] = "----";
  assert_int_equal(SC3(readlink, "/proc/self/exe", small, 3), 3);
  assert_memory_equal(small, "/op-", 4);

  /* other links are the host's */
  const char *link = in_dir("ln");
  assert_int_equal(symlink("some/target", link), 0);
  char buf[64] = {0}, host[64] = {0};
  assert_int_equal(SC3(readlink, link, buf, sizeof buf), readlink(link, host, sizeof host));
  assert_string_equal(buf, host);
  assert_int_equal(SC3(readlink, "/proc/self/exe", buf, 0), -EINVAL);

  /* stat follows it to the guest program, here a file standing in for it */
  const char *stand_in = in_dir("guest-program");
  write_file(stand_in, "#!/bin/false\n");
  strcpy(test_proc.exe_path, stand_in);
  uint8_t b[144];
  struct stat st;
  assert_int_equal(SC2(stat, "/proc/self/exe", b), 0);
  assert_int_equal(stat(stand_in, &st), 0);
  check_x64_stat(b, &st);
  int fd = (int)SC3(open, "/proc/self/exe", 0, 0);
  assert_true(fd >= 0);
  char text[16] = {0};
  assert_int_equal(read(fd, text, sizeof text - 1), 13);
  assert_string_equal(text, "#!/bin/false\n");
  close(fd);
  strcpy(test_proc.exe_path, GUEST_EXE);
}

/* ---- paths ---- */

static void test_path_calls(void **state) {
  const char *d = in_dir("sub"), *d2 = in_dir("sub2");
  assert_int_equal(SC2(mkdir, d, 0750), 0);
  struct stat st;
  assert_int_equal(stat(d, &st), 0);
  assert_true(S_ISDIR(st.st_mode));
  assert_int_equal(SC2(mkdir, d, 0750), -EEXIST);
  assert_int_equal(SC2(rename, d, d2), 0);
  assert_int_equal(access(d, F_OK), -1);
  assert_int_equal(SC2(access, d2, R_OK | X_OK), 0);
  assert_int_equal(SC1(rmdir, d2), 0);
  assert_int_equal(SC2(access, d2, F_OK), -ENOENT);

  const char *f = in_dir("f"), *g = in_dir("g"), *h = in_dir("h");
  write_file(f, "abc");
  assert_int_equal(SC2(link, f, g), 0);
  assert_int_equal(stat(f, &st), 0);
  assert_int_equal(st.st_nlink, 2);
  assert_int_equal(SC2(chmod, g, 0600), 0);
  assert_int_equal(stat(f, &st), 0);
  assert_int_equal(st.st_mode & 07777, 0600);
  assert_int_equal(SC2(symlink, "f", h), 0);
  char t[8] = {0};
  assert_int_equal(readlink(h, t, sizeof t), 1);
  assert_int_equal(SC2(truncate, f, 1), 0);
  assert_int_equal(stat(f, &st), 0);
  assert_int_equal(st.st_size, 1);
  struct timespec times[2] = {{1000, 5}, {2000, 7}};
  assert_int_equal(SC4(utimensat, AT_CWD, f, times, 0), 0);
  assert_int_equal(stat(f, &st), 0);
  assert_int_equal(st.st_mtim.tv_sec, 2000);
  assert_int_equal(st.st_mtim.tv_nsec, 7);
  struct timeval tv[2] = {{3000, 1}, {4000, 2}};
  assert_int_equal(SC2(utimes, f, tv), 0);
  assert_int_equal(stat(f, &st), 0);
  assert_int_equal(st.st_mtim.tv_sec, 4000);
  assert_int_equal(st.st_mtim.tv_nsec, 2000);
  tv[1].tv_usec = 1000000;
  assert_int_equal(SC2(utimes, f, tv), -EINVAL);
  assert_int_equal(SC1(unlink, g), 0);
  assert_int_equal(SC3(unlinkat, AT_CWD, h, 0), 0);
  assert_int_equal(SC3(unlinkat, AT_CWD, f, 0x200), -ENOTDIR);

  /* getcwd returns the length with the NUL */
  char cwd[4096], host[4096];
  int64_t n = SC2(getcwd, cwd, sizeof cwd);
  assert_non_null(getcwd(host, sizeof host));
  assert_int_equal(n, strlen(host) + 1);
  assert_string_equal(cwd, host);
  assert_int_equal(SC2(getcwd, cwd, 1), -ERANGE);

  mode_t old = umask(022);
  assert_int_equal(SC1(umask, 077), 022);
  assert_int_equal(umask(old), 077);
}

static void test_getdents64_lists_directory(void **state) {
  write_file(in_dir("entry-one"), "");
  int fd = open(dir, O_RDONLY | O_DIRECTORY);
  char buf[4096];
  int64_t n = SC3(getdents64, fd, buf, sizeof buf);
  assert_true(n > 0);
  int found = 0;
  for (int64_t off = 0; off < n;) {
    /* struct linux_dirent64: ino 8, off 8, reclen 2, type 1, name */
    uint16_t reclen;
    memcpy(&reclen, buf + off + 16, 2);
    if (!strcmp(buf + off + 19, "entry-one")) found = 1;
    off += reclen;
  }
  assert_true(found);
  close(fd);
}

/* ---- descriptors ---- */

static void test_pipe_dup_fcntl_ioctl_poll(void **state) {
  int p[2] = {-1, -1};
  assert_int_equal(SC2(pipe2, p, X_O_CLOEXEC), 0);
  assert_int_equal(fcntl(p[0], F_GETFD), FD_CLOEXEC);
  assert_int_equal(write(p[1], "12345", 5), 5);
  int avail = -1;
  assert_int_equal(SC3(ioctl, p[0], 0x541B /* FIONREAD */, &avail), 0);
  assert_int_equal(avail, 5);
  struct winsize ws;
  errno = 0;
  int host = ioctl(p[0], TIOCGWINSZ, &ws);
  assert_int_equal(SC3(ioctl, p[0], 0x5413 /* TIOCGWINSZ */, &ws), host < 0 ? -errno : host);
  struct pollfd pf = {.fd = p[0], .events = POLLIN};
  assert_int_equal(SC3(poll, &pf, 1, 0), 1);
  assert_true(pf.revents & POLLIN);

  int64_t d = SC1(dup, p[1]);
  assert_true(d >= 0);
  assert_int_equal(SC2(dup2, p[1], 200), 200);
  assert_int_equal(SC3(dup3, p[1], 201, X_O_CLOEXEC), 201);
  assert_int_equal(fcntl(201, F_GETFD), FD_CLOEXEC);
  assert_int_equal(fcntl(200, F_GETFD), 0);
  assert_int_equal(write(200, "6", 1), 1);
  assert_int_equal(SC3(ioctl, p[0], 0x541B, &avail), 0);
  assert_int_equal(avail, 6);
  close((int)d);
  close(200);
  close(201);
  int old[2] = {-1, -1};
  assert_int_equal(SC1(pipe, old), 0);
  assert_int_equal(fcntl(old[0], F_GETFD), 0);
  close(old[0]);
  close(old[1]);
  close(p[0]);
  close(p[1]);
}

static void test_socketpair_round_trip(void **state) {
  int sv[2] = {-1, -1};
  assert_int_equal(SC4(socketpair, 1 /* AF_UNIX */, 1 /* SOCK_STREAM */, 0, sv), 0);
  assert_int_equal(SC6(sendto, sv[0], "ping", 4, 0, 0, 0), 4);
  char buf[8] = {0};
  assert_int_equal(recv(sv[1], buf, sizeof buf, 0), 4);
  assert_string_equal(buf, "ping");
  int type = 0;
  socklen_t len = sizeof type;
  assert_int_equal(SC5(getsockopt, sv[0], 1 /* SOL_SOCKET */, 3 /* SO_TYPE */, &type, &len), 0);
  assert_int_equal(type, SOCK_STREAM);
  assert_int_equal(SC2(shutdown, sv[0], SHUT_WR), 0);
  assert_int_equal(SC6(recvfrom, sv[1], buf, sizeof buf, 0, 0, 0), 0);
  close(sv[0]);
  close(sv[1]);
}

/* ---- the machine, ids, limits and clocks ---- */

static void test_uname_says_x86_64(void **state) {
  struct utsname u, host;
  assert_int_equal(SC1(uname, &u), 0);
  assert_int_equal(uname(&host), 0);
  assert_string_equal(u.machine, "x86_64");
  assert_string_equal(u.sysname, host.sysname);
  assert_string_equal(u.release, host.release);
  assert_string_equal(u.nodename, host.nodename);
}

static void test_ids_and_limits(void **state) {
  assert_int_equal(SC0(getpid), getpid());
  assert_int_equal(SC0(getppid), getppid());
  assert_int_equal(SC0(gettid), gettid());
  assert_int_equal(SC0(getuid), getuid());
  assert_int_equal(SC0(geteuid), geteuid());
  assert_int_equal(SC0(getgid), getgid());
  assert_int_equal(SC0(getegid), getegid());
  assert_int_equal(SC0(getpgrp), getpgrp());
  assert_int_equal(SC1(getsid, 0), getsid(0));
  unsigned r = 99, e = 99, s = 99;
  assert_int_equal(SC3(getresuid, &r, &e, &s), 0);
  assert_int_equal(r, getuid());
  assert_int_equal(e, geteuid());

  struct rlimit rl, host;
  assert_int_equal(getrlimit(RLIMIT_NOFILE, &host), 0);
  assert_int_equal(SC4(prlimit64, 0, RLIMIT_NOFILE, 0, &rl), 0);
  assert_int_equal(rl.rlim_cur, host.rlim_cur);
  assert_int_equal(rl.rlim_max, host.rlim_max);
  assert_int_equal(SC2(getrlimit, RLIMIT_STACK, &rl), 0);
  assert_int_equal(getrlimit(RLIMIT_STACK, &host), 0);
  assert_int_equal(rl.rlim_cur, host.rlim_cur);

  uint8_t rnd[64] = {0}, zero[64] = {0};
  assert_int_equal(SC3(getrandom, rnd, sizeof rnd, 0), 64);
  assert_memory_not_equal(rnd, zero, sizeof rnd);

  uint64_t mask[16] = {0};
  int64_t n = SC3(sched_getaffinity, 0, sizeof mask, mask);
  assert_true(n > 0 && n % 8 == 0);
  cpu_set_t set;
  assert_int_equal(sched_getaffinity(0, sizeof set, &set), 0);
  assert_int_equal(__builtin_popcountll(mask[0]), CPU_COUNT(&set) > 64 ? 64 : CPU_COUNT(&set));
}

static int64_t ns(const struct timespec *t) { return t->tv_sec * 1000000000ll + t->tv_nsec; }

static void test_clocks(void **state) {
  struct timespec before, got, after;
  clock_gettime(CLOCK_MONOTONIC, &before);
  assert_int_equal(SC2(clock_gettime, CLOCK_MONOTONIC, &got), 0);
  clock_gettime(CLOCK_MONOTONIC, &after);
  assert_true(ns(&before) <= ns(&got) && ns(&got) <= ns(&after));

  time_t t0 = time(NULL);
  int64_t t_out = 0;
  int64_t t = SC1(time, &t_out);
  assert_true(t >= t0 && t <= time(NULL));
  assert_int_equal(t_out, t);

  /* Bounded by the host's gettimeofday, not time(): glibc's time() reads the
   * coarse realtime clock, which can still show the last second for a tick
   * after the precise clock has passed it. */
  struct timeval tv_before, tv, tv_after;
  gettimeofday(&tv_before, 0);
  assert_int_equal(SC2(gettimeofday, &tv, 0), 0);
  gettimeofday(&tv_after, 0);
  int64_t us = (int64_t)tv.tv_sec * 1000000 + tv.tv_usec;
  assert_true(us >= (int64_t)tv_before.tv_sec * 1000000 + tv_before.tv_usec);
  assert_true(us <= (int64_t)tv_after.tv_sec * 1000000 + tv_after.tv_usec);

  struct timespec res;
  assert_int_equal(SC2(clock_getres, CLOCK_REALTIME, &res), 0);
  struct timespec host_res;
  clock_getres(CLOCK_REALTIME, &host_res);
  assert_int_equal(ns(&res), ns(&host_res));

  struct timespec nap = {0, 20 * 1000 * 1000};
  clock_gettime(CLOCK_MONOTONIC, &before);
  assert_int_equal(SC2(nanosleep, &nap, 0), 0);
  clock_gettime(CLOCK_MONOTONIC, &after);
  assert_true(ns(&after) - ns(&before) >= 20 * 1000 * 1000);
  assert_int_equal(SC2(clock_gettime, 12345, &got), -EINVAL);
}

/* ---- what the shim does not provide ---- */

static void test_unknown_syscalls_are_enosys(void **state) {
  assert_int_equal(test_sc6(0x1f0, 1, 2, 3, 4, 5, 6), -ENOSYS);
  assert_int_equal(test_sc6(100000, 0, 0, 0, 0, 0, 0), -ENOSYS);
  assert_int_equal(test_sc6(~0ull, 0, 0, 0, 0, 0, 0), -ENOSYS);
  /* The kernel takes the number as an int: 1 << 32 is read (0), of fd -1 here. */
  assert_int_equal(test_sc6(1ull << 32, (uint64_t)-1, 0, 0, 0, 0, 0), -EBADF);
  assert_int_equal(test_sc6((1ull << 32) | X64_NR_getpid, 0, 0, 0, 0, 0, 0), getpid());
  assert_int_equal(SC2(io_uring_setup, 8, 0), -ENOSYS); /* named, not provided */
  /* ptrace: refused as under Yama's ptrace_scope 3; no process is a tracee. */
  assert_int_equal(SC4(ptrace, 0, 0, 0, 0), -EPERM);
  assert_int_equal(SC4(ptrace, 16, getppid(), 0, 0), -EPERM);
  assert_int_equal(SC4(ptrace, 7, getppid(), 0, 0), -ESRCH);
  assert_int_equal(SC4(ptrace, 16, 0, 0, 0), -ESRCH);
  assert_int_equal(SC4(rseq, 0, 32, 0, 0), -ENOSYS);  /* deliberately: glibc does without */
}

static void test_exit_group_sets_status(void **state) {
  Cpu *c = &test_proc.main.cpu;
  c->events = 0;
  SC1(exit_group, 0x1ff);
  assert_true(c->events & EV_EXIT);
  assert_int_equal(c->exit_status, 0xff);
  c->events = 0;
  SC1(exit, 3);
  assert_true(c->events & EV_EXIT);
  assert_int_equal(c->exit_status, 3);
  c->events = 0;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_write_then_read_pipe, setup, teardown),
      cmocka_unit_test_setup_teardown(test_readv_writev_pread_pwrite, setup, teardown),
      cmocka_unit_test_setup_teardown(test_errors_are_negative_errno, setup, teardown),
      cmocka_unit_test_setup_teardown(test_open_flags, setup, teardown),
      cmocka_unit_test_setup_teardown(test_stat_family_layout, setup, teardown),
      cmocka_unit_test_setup_teardown(test_statfs_layout, setup, teardown),
      cmocka_unit_test_setup_teardown(test_readlink_proc_self_exe, setup, teardown),
      cmocka_unit_test_setup_teardown(test_path_calls, setup, teardown),
      cmocka_unit_test_setup_teardown(test_getdents64_lists_directory, setup, teardown),
      cmocka_unit_test_setup_teardown(test_pipe_dup_fcntl_ioctl_poll, setup, teardown),
      cmocka_unit_test_setup_teardown(test_socketpair_round_trip, setup, teardown),
      cmocka_unit_test_setup_teardown(test_uname_says_x86_64, setup, teardown),
      cmocka_unit_test_setup_teardown(test_ids_and_limits, setup, teardown),
      cmocka_unit_test_setup_teardown(test_clocks, setup, teardown),
      cmocka_unit_test_setup_teardown(test_unknown_syscalls_are_enosys, setup, teardown),
      cmocka_unit_test_setup_teardown(test_exit_group_sets_status, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
