/* sys_stat.c: the stat family, converted to the x86-64 kernel's structure layouts. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sys_common.h"
#include "sys_x64.h"

/* aarch64's struct stat puts st_nlink after st_mode and has 32-bit st_blksize: the guest
 * gets the x86-64 layout filled field by field. */
void stat_to_x64(const struct stat *st, X64Stat *x) {
  memset(x, 0, sizeof *x);
  x->st_dev = st->st_dev;
  x->st_ino = st->st_ino;
  x->st_nlink = st->st_nlink;
  x->st_mode = st->st_mode;
  x->st_uid = st->st_uid;
  x->st_gid = st->st_gid;
  x->st_rdev = st->st_rdev;
  x->st_size = st->st_size;
  x->st_blksize = st->st_blksize;
  x->st_blocks = st->st_blocks;
  x->st_atime_sec = st->st_atim.tv_sec;
  x->st_atime_nsec = (uint64_t)st->st_atim.tv_nsec;
  x->st_mtime_sec = st->st_mtim.tv_sec;
  x->st_mtime_nsec = (uint64_t)st->st_mtim.tv_nsec;
  x->st_ctime_sec = st->st_ctim.tv_sec;
  x->st_ctime_nsec = (uint64_t)st->st_ctim.tv_nsec;
}

static int64_t stat_result(Cpu *c, int r, const struct stat *st, uint64_t guest_buf) {
  if (r < 0) return -errno;
  X64Stat x;
  stat_to_x64(st, &x);
  return guest_copy_out(c, guest_buf, &x, sizeof x);
}

/* fstatat, with /proc/self/exe (followed) meaning the guest program. */
static int64_t stat_at(Cpu *c, int dirfd, uint64_t path, uint64_t buf, int flags) {
  struct stat st;
  if (!(flags & X64_AT_SYMLINK_NOFOLLOW) && path_names_self_exe(dirfd, PATH_ARG(path)))
    return stat_result(c, stat(proc_of(c)->exe_path, &st), &st, buf);
  return stat_result(c, fstatat(dirfd, PATH_ARG(path), &st, flags), &st, buf);
}

int64_t sys_stat(Cpu *c, const uint64_t *a) { return stat_at(c, X64_AT_FDCWD, a[0], a[1], 0); }

int64_t sys_lstat(Cpu *c, const uint64_t *a) {
  return stat_at(c, X64_AT_FDCWD, a[0], a[1], X64_AT_SYMLINK_NOFOLLOW);
}

/* AT_* flag values are the same on every Linux architecture. */
int64_t sys_newfstatat(Cpu *c, const uint64_t *a) {
  return stat_at(c, arg_fd(a[0]), a[1], a[2], (int)a[3]);
}

int64_t sys_fstat(Cpu *c, const uint64_t *a) {
  struct stat st;
  return stat_result(c, fstat(arg_fd(a[0]), &st), &st, a[1]);
}

/* struct statx is architecture-independent. */
enum { GUEST_STATX_SIZE = 256 };
int64_t sys_statx(Cpu *c, const uint64_t *a) {
  int dirfd = arg_fd(a[0]), flags = (int)a[2];
  void *buf;
  guest_area(c, a[4], GUEST_STATX_SIZE, GUEST_PROT_WRITE, &buf); /* after the lookup's errors */
  if (!(flags & X64_AT_SYMLINK_NOFOLLOW) && path_names_self_exe(dirfd, PATH_ARG(a[1])))
    return host_result(syscall(SYS_statx, AT_FDCWD, proc_of(c)->exe_path, flags, (unsigned)a[3],
                               buf));
  return host_result(syscall(SYS_statx, dirfd, PATH_ARG(a[1]), flags, (unsigned)a[3], buf));
}

void statfs_to_x64(const struct statfs *s, X64Statfs *x) {
  memset(x, 0, sizeof *x);
  x->f_type = s->f_type;
  x->f_bsize = s->f_bsize;
  x->f_blocks = s->f_blocks;
  x->f_bfree = s->f_bfree;
  x->f_bavail = s->f_bavail;
  x->f_files = s->f_files;
  x->f_ffree = s->f_ffree;
  memcpy(x->f_fsid, &s->f_fsid, sizeof x->f_fsid);
  x->f_namelen = s->f_namelen;
  x->f_frsize = s->f_frsize;
  x->f_flags = s->f_flags;
}

static int64_t statfs_result(Cpu *c, int r, const struct statfs *s, uint64_t guest_buf) {
  if (r < 0) return -errno;
  X64Statfs x;
  statfs_to_x64(s, &x);
  return guest_copy_out(c, guest_buf, &x, sizeof x);
}

int64_t sys_statfs(Cpu *c, const uint64_t *a) {
  struct statfs s;
  return statfs_result(c, statfs(PATH_ARG(a[0]), &s), &s, a[1]);
}

int64_t sys_fstatfs(Cpu *c, const uint64_t *a) {
  struct statfs s;
  return statfs_result(c, fstatfs(arg_fd(a[0]), &s), &s, a[1]);
}
