/* sys_x64.h: x86-64 kernel structure layouts that differ on other hosts, and their converters. */
#ifndef X64EMU_SYS_X64_H
#define X64EMU_SYS_X64_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct stat;
struct statfs;

/* struct stat of the x86-64 kernel (arch/x86/include/uapi/asm/stat.h). The time fields are
 * named *_sec because glibc defines st_atime and friends as macros. */
typedef struct X64Stat {
  uint64_t st_dev;
  uint64_t st_ino;
  uint64_t st_nlink;
  uint32_t st_mode;
  uint32_t st_uid;
  uint32_t st_gid;
  uint32_t pad0;
  uint64_t st_rdev;
  int64_t st_size;
  int64_t st_blksize;
  int64_t st_blocks;
  uint64_t st_atime_sec, st_atime_nsec;
  uint64_t st_mtime_sec, st_mtime_nsec;
  uint64_t st_ctime_sec, st_ctime_nsec;
  int64_t unused[3];
} X64Stat;
_Static_assert(sizeof(X64Stat) == 144, "x86-64 struct stat is 144 bytes");
_Static_assert(offsetof(X64Stat, st_mode) == 24 && offsetof(X64Stat, st_rdev) == 40 &&
                   offsetof(X64Stat, st_atime_sec) == 72,
               "x86-64 struct stat layout");

/* struct statfs of the x86-64 kernel (__statfs_word is long). */
typedef struct X64Statfs {
  int64_t f_type;
  int64_t f_bsize;
  uint64_t f_blocks, f_bfree, f_bavail, f_files, f_ffree;
  int32_t f_fsid[2];
  int64_t f_namelen;
  int64_t f_frsize;
  int64_t f_flags;
  int64_t f_spare[4];
} X64Statfs;
_Static_assert(sizeof(X64Statfs) == 120, "x86-64 struct statfs is 120 bytes");

void stat_to_x64(const struct stat *st, X64Stat *x);
void statfs_to_x64(const struct statfs *s, X64Statfs *x);

/* The kernel's struct sigaction on x86-64 (not glibc's): an 8-byte signal set. */
typedef struct X64Sigaction {
  uint64_t handler;
  uint64_t flags;
  uint64_t restorer;
  uint64_t mask;
} X64Sigaction;

/* stack_t on x86-64 */
typedef struct X64StackT {
  uint64_t ss_sp;
  int32_t ss_flags;
  int32_t pad;
  uint64_t ss_size;
} X64StackT;

/* clone's flags (the same numbers on every Linux, named here for the guest's ABI). */
enum {
  X64_CSIGNAL = 0xff,
  X64_CLONE_VM = 0x100,
  X64_CLONE_FS = 0x200,
  X64_CLONE_FILES = 0x400,
  X64_CLONE_SIGHAND = 0x800,
  X64_CLONE_PIDFD = 0x1000,
  X64_CLONE_VFORK = 0x4000,
  X64_CLONE_PARENT = 0x8000,
  X64_CLONE_THREAD = 0x10000,
  X64_CLONE_NEWNS = 0x20000,
  X64_CLONE_SYSVSEM = 0x40000,
  X64_CLONE_SETTLS = 0x80000,
  X64_CLONE_PARENT_SETTID = 0x100000,
  X64_CLONE_CHILD_CLEARTID = 0x200000,
  X64_CLONE_DETACHED = 0x400000, /* ignored by the kernel */
  X64_CLONE_CHILD_SETTID = 0x1000000,
  X64_CLONE_NEWCGROUP = 0x02000000,
  X64_CLONE_NEWUTS = 0x04000000,
  X64_CLONE_NEWIPC = 0x08000000,
  X64_CLONE_NEWUSER = 0x10000000,
  X64_CLONE_NEWPID = 0x20000000,
  X64_CLONE_NEWNET = 0x40000000,
};
#define X64_CLONE_CLEAR_SIGHAND 0x100000000ull /* clone3 only */
#define X64_CLONE_INTO_CGROUP 0x200000000ull   /* clone3 only */

#endif
