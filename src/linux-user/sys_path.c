/* sys_path.c: calls that name files by path: links, directories, modes, times, cwd. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>

#include "own_fds.h"
#include "sys_common.h"

/* x86-64 has the old path calls (open, mkdir, rename...); other hosts only the *at forms,
 * so every call goes to the *at form with AT_FDCWD. */
#define CWD AT_FDCWD
#define P(x) PATH_ARG(x)

/* ---- access ---- */

int64_t sys_access(Cpu *c, const uint64_t *a) {
  return host_result(faccessat(CWD, P(a[0]), (int)a[1], 0));
}

int64_t sys_faccessat(Cpu *c, const uint64_t *a) {
  return host_result(faccessat(arg_fd(a[0]), P(a[1]), (int)a[2], 0));
}

int64_t sys_faccessat2(Cpu *c, const uint64_t *a) {
  return host_result(faccessat(arg_fd(a[0]), P(a[1]), (int)a[2], (int)a[3]));
}

/* ---- readlink: /proc/self/exe is the guest program ---- */

static int64_t readlink_at(Cpu *c, int dirfd, uint64_t path, uint64_t buf, uint64_t size) {
  if ((int32_t)size <= 0) return -EINVAL; /* the kernel's bufsiz is an int */
  if (path_names_self_exe(dirfd, P(path))) {
    size_t n = strlen(proc_of(c)->exe_path);
    if (n > (uint32_t)size) n = (uint32_t)size;
    int r = guest_copy_out(c, buf, proc_of(c)->exe_path, n);
    return r < 0 ? r : (int64_t)n;
  }
  size_t room;
  void *out = guest_transfer(c, buf, (uint32_t)size, GUEST_PROT_WRITE, &room);
  return host_result(syscall(SYS_readlinkat, dirfd, P(path), out, room));
}

int64_t sys_readlink(Cpu *c, const uint64_t *a) { return readlink_at(c, CWD, a[0], a[1], a[2]); }

int64_t sys_readlinkat(Cpu *c, const uint64_t *a) {
  return readlink_at(c, arg_fd(a[0]), a[1], a[2], a[3]);
}

/* ---- creating, removing and renaming names ---- */

int64_t sys_mkdir(Cpu *c, const uint64_t *a) {
  return host_result(mkdirat(CWD, P(a[0]), (mode_t)a[1]));
}

int64_t sys_mkdirat(Cpu *c, const uint64_t *a) {
  return host_result(mkdirat(arg_fd(a[0]), P(a[1]), (mode_t)a[2]));
}

/* The device number is the kernel's 32-bit encoding on every architecture. */
int64_t sys_mknodat(Cpu *c, const uint64_t *a) {
  return host_result(syscall(SYS_mknodat, arg_fd(a[0]), P(a[1]), (unsigned)a[2], (unsigned)a[3]));
}

int64_t sys_mknod(Cpu *c, const uint64_t *a) {
  return host_result(syscall(SYS_mknodat, CWD, P(a[0]), (unsigned)a[1], (unsigned)a[2]));
}

int64_t sys_rmdir(Cpu *c, const uint64_t *a) {
  return host_result(unlinkat(CWD, P(a[0]), AT_REMOVEDIR));
}

int64_t sys_unlink(Cpu *c, const uint64_t *a) { return host_result(unlinkat(CWD, P(a[0]), 0)); }

int64_t sys_unlinkat(Cpu *c, const uint64_t *a) {
  return host_result(unlinkat(arg_fd(a[0]), P(a[1]), (int)a[2]));
}

int64_t sys_rename(Cpu *c, const uint64_t *a) {
  return host_result(renameat(CWD, P(a[0]), CWD, P(a[1])));
}

int64_t sys_renameat(Cpu *c, const uint64_t *a) {
  return host_result(renameat(arg_fd(a[0]), P(a[1]), arg_fd(a[2]), P(a[3])));
}

int64_t sys_renameat2(Cpu *c, const uint64_t *a) {
  return host_result(renameat2(arg_fd(a[0]), P(a[1]), arg_fd(a[2]), P(a[3]), (unsigned)a[4]));
}

int64_t sys_link(Cpu *c, const uint64_t *a) {
  return host_result(linkat(CWD, P(a[0]), CWD, P(a[1]), 0));
}

int64_t sys_linkat(Cpu *c, const uint64_t *a) {
  return host_result(linkat(arg_fd(a[0]), P(a[1]), arg_fd(a[2]), P(a[3]), (int)a[4]));
}

int64_t sys_symlink(Cpu *c, const uint64_t *a) {
  return host_result(symlinkat(P(a[0]), CWD, P(a[1])));
}

int64_t sys_symlinkat(Cpu *c, const uint64_t *a) {
  return host_result(symlinkat(P(a[0]), arg_fd(a[1]), P(a[2])));
}

/* ---- modes and owners ---- */

int64_t sys_chmod(Cpu *c, const uint64_t *a) {
  return host_result(fchmodat(CWD, P(a[0]), (mode_t)a[1], 0));
}

int64_t sys_fchmodat(Cpu *c, const uint64_t *a) {
  return host_result(fchmodat(arg_fd(a[0]), P(a[1]), (mode_t)a[2], 0));
}

int64_t sys_fchmodat2(Cpu *c, const uint64_t *a) {
  return host_result(fchmodat(arg_fd(a[0]), P(a[1]), (mode_t)a[2], (int)a[3]));
}

int64_t sys_chown(Cpu *c, const uint64_t *a) {
  return host_result(fchownat(CWD, P(a[0]), (uid_t)a[1], (gid_t)a[2], 0));
}

int64_t sys_lchown(Cpu *c, const uint64_t *a) {
  return host_result(fchownat(CWD, P(a[0]), (uid_t)a[1], (gid_t)a[2], AT_SYMLINK_NOFOLLOW));
}

int64_t sys_fchownat(Cpu *c, const uint64_t *a) {
  return host_result(fchownat(arg_fd(a[0]), P(a[1]), (uid_t)a[2], (gid_t)a[3], (int)a[4]));
}

/* ---- times ---- */

/* The raw call: a NULL path (futimens) is valid for the kernel but refused by glibc. */
int64_t sys_utimensat(Cpu *c, const uint64_t *a) {
  struct timespec ts[2];
  if (a[2]) {
    int r = guest_copy_in(c, ts, a[2], sizeof ts);
    if (r < 0) return r;
  }
  return host_result(syscall(SYS_utimensat, arg_fd(a[0]), P(a[1]), a[2] ? ts : NULL, (int)a[3]));
}

/* utimes/futimesat take struct timeval[2]; NULL means now. */
static int64_t utimes_at(Cpu *c, int dirfd, uint64_t path, uint64_t guest_tv) {
  struct timespec ts[2];
  if (guest_tv) {
    struct timeval tv[2];
    int r = guest_copy_in(c, tv, guest_tv, sizeof tv);
    if (r < 0) return r;
    for (int i = 0; i < 2; i++) {
      if (tv[i].tv_usec < 0 || tv[i].tv_usec >= 1000000) return -EINVAL;
      ts[i].tv_sec = tv[i].tv_sec;
      ts[i].tv_nsec = tv[i].tv_usec * 1000;
    }
  }
  return host_result(syscall(SYS_utimensat, dirfd, P(path), guest_tv ? ts : NULL, 0));
}

int64_t sys_utimes(Cpu *c, const uint64_t *a) { return utimes_at(c, CWD, a[0], a[1]); }

int64_t sys_futimesat(Cpu *c, const uint64_t *a) { return utimes_at(c, arg_fd(a[0]), a[1], a[2]); }

/* utime takes struct utimbuf { actime; modtime; } in whole seconds. */
int64_t sys_utime(Cpu *c, const uint64_t *a) {
  struct timespec ts[2];
  if (a[1]) {
    int64_t t[2];
    int r = guest_copy_in(c, t, a[1], sizeof t);
    if (r < 0) return r;
    ts[0] = (struct timespec){.tv_sec = t[0]};
    ts[1] = (struct timespec){.tv_sec = t[1]};
  }
  return host_result(syscall(SYS_utimensat, CWD, P(a[0]), a[1] ? ts : NULL, 0));
}

int64_t sys_truncate(Cpu *c, const uint64_t *a) {
  return host_result(truncate(P(a[0]), (off_t)a[1]));
}

/* ---- the working directory and the umask ---- */

/* The raw call returns the length with the NUL, as the guest expects. */
int64_t sys_getcwd(Cpu *c, const uint64_t *a) {
  /* A buffer that is not the guest's: the kernel's ERANGE for a short one comes first. */
  size_t room;
  void *buf = guest_transfer(c, a[0], a[1], GUEST_PROT_WRITE, &room);
  return host_result(syscall(SYS_getcwd, buf, room));
}

int64_t sys_chdir(Cpu *c, const uint64_t *a) { return host_result(chdir(P(a[0]))); }

/* The host's chroot for the process. execve runs x64emu again, by a path the new root may
 * not hold: before the first change of root it keeps a descriptor of its own file, which
 * execve runs instead (sys_exec.c). */
int64_t sys_chroot(Cpu *c, const uint64_t *a) {
  Process *p = proc_of(c);
  if (p->self_fd < 0 && p->opt.reexec_argv) {
    p->self_fd = open(p->opt.reexec_argv[0], O_PATH | O_CLOEXEC);
    own_fd_keep(&p->self_fd);
  }
  return host_result(chroot(P(a[0])));
}

int64_t sys_umask(Cpu *c, const uint64_t *a) { return umask((mode_t)a[0] & 0777); }

int64_t sys_sync(Cpu *c, const uint64_t *a) {
  sync();
  return 0;
}
