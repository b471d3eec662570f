/* sys_fd.c: opening, duplicating and controlling file descriptors (fcntl, ioctl). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "own_fds.h"
#include "proc_self.h"
#include "sys_common.h"

/* Whether opening path may wait for another of c's threads: a FIFO waits for its other
 * end, a device (a serial line) may wait for its carrier. A regular file does not (and
 * under --deterministic must keep the turn: turns.h). Without other threads, no look. */
static bool open_may_wait(const Cpu *c, int dirfd, const char *path, int host_flags) {
  struct stat st;
  return syscall_others_run(c) && !(host_flags & O_NONBLOCK) &&
         fstatat(dirfd, path, &st, 0) == 0 && (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode));
}

/* The guest program itself when the guest opens /proc/self/exe; the guest's own maps,
 * smaps and mem (proc_self.c). */
static int64_t open_at(Cpu *c, int dirfd, uint64_t path, uint64_t flags, uint64_t mode) {
  int hflags = open_flags_to_host(flags);
  int64_t fd;
  if (proc_self_open(c, dirfd, PATH_ARG(path), hflags, (int)mode, &fd)) return fd;
  bool waits = open_may_wait(c, dirfd, PATH_ARG(path), hflags) && syscall_wait_begin(c);
  fd = host_result(openat(dirfd, PATH_ARG(path), hflags, (mode_t)mode));
  syscall_wait_end(c, waits);
  return fd;
}

int64_t sys_open(Cpu *c, const uint64_t *a) { return open_at(c, X64_AT_FDCWD, a[0], a[1], a[2]); }

int64_t sys_openat(Cpu *c, const uint64_t *a) { return open_at(c, arg_fd(a[0]), a[1], a[2], a[3]); }

/* ---- file handles: struct file_handle (a u32 size, an int type, the handle's bytes) is
 * the same on every host, as are the AT_HANDLE_* flags ---- */

enum { HANDLE_MAX = 128, HANDLE_HEAD = 8 }; /* MAX_HANDLE_SZ, and the size and type */
typedef struct FileHandle {
  uint32_t bytes;
  int32_t type;
  uint8_t handle[HANDLE_MAX];
} FileHandle;

/* name_to_handle_at(dirfd, path, handle, mount_id, flags): the kernel reads the guest's
 * room (handle_bytes) and writes the handle and its size back. It works on a copy here,
 * so that no other guest thread can raise the room mid-call; a head that is not the
 * guest's goes to it refused, faulting after the path's lookup as for the guest. */
int64_t sys_name_to_handle_at(Cpu *c, const uint64_t *a) {
  FileHandle h = {0};
  void *given = &h, *mount_id;
  if (guest_copy_in(c, &h, a[2], HANDLE_HEAD) < 0) given = refused_by_kernel(a[2]);
  guest_area(c, a[3], (a[4] & 1) ? 8 : 4, GUEST_PROT_WRITE, &mount_id); /* AT_HANDLE_MNT_ID_UNIQUE: u64 */
  uint32_t room = h.bytes;
  int64_t r = host_result(syscall(SYS_name_to_handle_at, arg_fd(a[0]), PATH_ARG(a[1]), given,
                                  mount_id, (int)a[4]));
  if (given != &h || (r < 0 && r != -EOVERFLOW)) return r;
  /* The size needed (EOVERFLOW), or the handle, which fits the room the guest gave. */
  size_t back = HANDLE_HEAD + (r == 0 && h.bytes <= room ? h.bytes : 0);
  int w = guest_copy_out(c, a[2], &h, back);
  return w < 0 ? w : r;
}

/* open_by_handle_at(mount_fd, handle, flags): the guest's handle copied whole first (its
 * size as the kernel checks it: EINVAL past MAX_HANDLE_SZ), x86-64's open flags translated. */
int64_t sys_open_by_handle_at(Cpu *c, const uint64_t *a) {
  FileHandle h;
  if (guest_copy_in(c, &h, a[1], HANDLE_HEAD) < 0) return -EFAULT;
  if (h.bytes > HANDLE_MAX || h.bytes == 0) return -EINVAL;
  if (guest_copy_in(c, h.handle, a[1] + HANDLE_HEAD, h.bytes) < 0) return -EFAULT;
  return host_result(syscall(SYS_open_by_handle_at, arg_fd(a[0]), &h, open_flags_to_host(a[2])));
}

/* openat2(dirfd, path, how, size): struct open_how is flags, mode and resolve (u64 each)
 * in its first 24 bytes, and as the kernel takes it, up to a page whose further bytes
 * must be zero (E2BIG). The flags are x86-64's, translated; the host checks the rest.
 * /proc/self's entries are the guest's, where the resolve flags let the path reach them. */
enum { OPEN_HOW_SIZE_VER0 = 24, OPEN_HOW_MAX = 4096 };

int64_t sys_openat2(Cpu *c, const uint64_t *a) {
  uint64_t size = a[3];
  if (size < OPEN_HOW_SIZE_VER0) return -EINVAL;
  if (size > OPEN_HOW_MAX) return -E2BIG;
  uint8_t given[OPEN_HOW_MAX];
  if (guest_copy_in(c, given, a[2], size) < 0) return -EFAULT;
  for (uint64_t i = OPEN_HOW_SIZE_VER0; i < size; i++)
    if (given[i]) return -E2BIG;
  struct {
    uint64_t flags, mode, resolve;
  } how;
  memcpy(&how, given, sizeof how);
  if (how.flags >> 32) return -EINVAL;
  int hflags = open_flags_to_host(how.flags);
  int64_t fd;
  /* A /proc/self entry x64emu shows the guest is still reached under the resolve flags:
   * the host's own walk to it says whether they allow it (ELOOP for the magic link
   * exe with RESOLVE_NO_MAGICLINKS, EXDEV beneath a directory). */
  if (how.resolve && path_self_entry(arg_fd(a[0]), PATH_ARG(a[1]))) {
    struct { uint64_t flags, mode, resolve; } walk = {O_PATH | O_CLOEXEC, 0, how.resolve};
    int probe = (int)syscall(SYS_openat2, arg_fd(a[0]), PATH_ARG(a[1]), &walk, sizeof walk);
    if (probe < 0) return -errno;
    close(probe);
  }
  if (proc_self_open(c, arg_fd(a[0]), PATH_ARG(a[1]), hflags, (int)how.mode, &fd)) return fd;
  how.flags = (uint64_t)(uint32_t)hflags;
  bool waits = open_may_wait(c, arg_fd(a[0]), PATH_ARG(a[1]), hflags) && syscall_wait_begin(c);
  fd = host_result(syscall(SYS_openat2, arg_fd(a[0]), PATH_ARG(a[1]), &how, sizeof how));
  syscall_wait_end(c, waits);
  return fd;
}

/* creat = open(O_CREAT|O_WRONLY|O_TRUNC), in x86-64 numbers */
int64_t sys_creat(Cpu *c, const uint64_t *a) {
  return open_at(c, X64_AT_FDCWD, a[0], 00000100 | 01 | 00001000, a[1]);
}

int64_t sys_close(Cpu *c, const uint64_t *a) { return host_result(close(arg_fd(a[0]))); }

int64_t sys_close_range(Cpu *c, const uint64_t *a) {
  return own_fds_close_range((unsigned)a[0], (unsigned)a[1], (unsigned)a[2]);
}

/* ---- pipes and duplicates ---- */

int64_t sys_pipe2(Cpu *c, const uint64_t *a) {
  int fds[2];
  if (pipe2(fds, open_flags_to_host(a[1])) < 0) return -errno;
  int r = guest_copy_out(c, a[0], fds, sizeof fds);
  if (r < 0) {
    close(fds[0]);
    close(fds[1]);
  }
  return r;
}

int64_t sys_pipe(Cpu *c, const uint64_t *a) {
  const uint64_t args[2] = {a[0], 0};
  return sys_pipe2(c, args);
}

/* memfd_create(name, flags): the MFD_* numbers are the kernel's generic ones, the same on
 * every architecture, so the host checks them. */
int64_t sys_memfd_create(Cpu *c, const uint64_t *a) {
  return host_result((int)syscall(SYS_memfd_create, PATH_ARG(a[0]), (unsigned)a[1]));
}

/* eventfd2(initval, flags): EFD_SEMAPHORE, EFD_NONBLOCK and EFD_CLOEXEC have the same
 * numbers on every host (the last two are O_NONBLOCK's and O_CLOEXEC's, which are). */
int64_t sys_eventfd2(Cpu *c, const uint64_t *a) {
  return host_result(syscall(SYS_eventfd2, (unsigned)a[0], (int)a[1]));
}

int64_t sys_eventfd(Cpu *c, const uint64_t *a) {
  const uint64_t args[2] = {a[0], 0};
  return sys_eventfd2(c, args);
}

/* inotify: IN_NONBLOCK and IN_CLOEXEC, the event masks and struct inotify_event are the
 * same on every host; a watched path is looked up as every other (A_PATH). */
int64_t sys_inotify_init1(Cpu *c, const uint64_t *a) {
  return host_result(syscall(SYS_inotify_init1, (int)a[0]));
}

int64_t sys_inotify_init(Cpu *c, const uint64_t *a) {
  const uint64_t args[1] = {0};
  return sys_inotify_init1(c, args);
}

int64_t sys_inotify_add_watch(Cpu *c, const uint64_t *a) {
  return host_result(syscall(SYS_inotify_add_watch, arg_fd(a[0]), PATH_ARG(a[1]), (uint32_t)a[2]));
}

int64_t sys_inotify_rm_watch(Cpu *c, const uint64_t *a) {
  return host_result(syscall(SYS_inotify_rm_watch, arg_fd(a[0]), (int)a[1]));
}

int64_t sys_dup(Cpu *c, const uint64_t *a) { return host_result(dup(arg_fd(a[0]))); }

/* The target may be a number x64emu uses itself, which moves out of the way first. */
int64_t sys_dup2(Cpu *c, const uint64_t *a) {
  int64_t r = own_fd_make_room(arg_fd(a[1]));
  return r < 0 ? r : host_result(dup2(arg_fd(a[0]), arg_fd(a[1])));
}

int64_t sys_dup3(Cpu *c, const uint64_t *a) {
  int64_t r = own_fd_make_room(arg_fd(a[1]));
  return r < 0 ? r : host_result(dup3(arg_fd(a[0]), arg_fd(a[1]), open_flags_to_host(a[2])));
}

int64_t sys_flock(Cpu *c, const uint64_t *a) { return host_result(flock(arg_fd(a[0]), (int)a[1])); }

int64_t sys_fchmod(Cpu *c, const uint64_t *a) {
  return host_result(fchmod(arg_fd(a[0]), (mode_t)a[1]));
}

int64_t sys_fchown(Cpu *c, const uint64_t *a) {
  return host_result(fchown(arg_fd(a[0]), (uid_t)a[1], (gid_t)a[2]));
}

int64_t sys_fchdir(Cpu *c, const uint64_t *a) { return host_result(fchdir(arg_fd(a[0]))); }

/* ---- fcntl ---- */

/* x86-64 fcntl commands. struct flock and f_owner_ex have one layout on 64-bit hosts. */
enum {
  X64_F_DUPFD = 0, X64_F_GETFD = 1, X64_F_SETFD = 2, X64_F_GETFL = 3, X64_F_SETFL = 4,
  X64_F_GETLK = 5, X64_F_SETLK = 6, X64_F_SETLKW = 7, X64_F_SETOWN = 8, X64_F_GETOWN = 9,
  X64_F_SETSIG = 10, X64_F_GETSIG = 11, X64_F_SETOWN_EX = 15, X64_F_GETOWN_EX = 16,
  X64_F_OFD_GETLK = 36, X64_F_OFD_SETLK = 37, X64_F_OFD_SETLKW = 38,
  X64_F_SETLEASE = 1024, X64_F_GETLEASE = 1025, X64_F_NOTIFY = 1026,
  X64_F_DUPFD_QUERY = 1027, X64_F_CREATED_QUERY = 1028, X64_F_DUPFD_CLOEXEC = 1030,
  X64_F_SETPIPE_SZ = 1031, X64_F_GETPIPE_SZ = 1032,
  X64_F_ADD_SEALS = 1033, X64_F_GET_SEALS = 1034,
};

/* The raw host call, so that glibc does not rewrite F_GETOWN and friends. */
static int64_t host_fcntl(int fd, int cmd, uint64_t arg) {
  return host_result(syscall(SYS_fcntl, fd, cmd, (unsigned long)arg));
}

/* A command whose argument points at a struct of size bytes, which the kernel reads,
 * writes or both (access); one that is not the guest's is the kernel's EFAULT, after its
 * EBADF. */
static int64_t host_fcntl_struct(Cpu *c, int fd, int cmd, uint64_t arg, size_t size, int access) {
  void *p;
  guest_area(c, arg, size, access, &p);
  /* A lock's wait may be for another thread (open file description locks conflict
   * within a process too). */
  bool waits = (cmd == F_SETLKW || cmd == F_OFD_SETLKW) && syscall_wait_begin(c);
  int64_t r = host_result(syscall(SYS_fcntl, fd, cmd, p));
  syscall_wait_end(c, waits);
  return r;
}
enum { FLOCK_SIZE = 32, OWNER_EX_SIZE = 8, IN = GUEST_PROT_READ, OUT = GUEST_PROT_WRITE };

int64_t sys_fcntl(Cpu *c, const uint64_t *a) {
  int fd = arg_fd(a[0]);
  uint64_t arg = a[2];
  switch ((int)a[1]) {
  case X64_F_GETFL: {
    int64_t r = host_fcntl(fd, F_GETFL, 0);
    return r < 0 ? r : (int64_t)open_flags_from_host((int)r);
  }
  case X64_F_SETFL: return host_fcntl(fd, F_SETFL, (uint64_t)open_flags_to_host(arg));
  case X64_F_DUPFD: return host_fcntl(fd, F_DUPFD, (uint32_t)arg);
  case X64_F_DUPFD_CLOEXEC: return host_fcntl(fd, F_DUPFD_CLOEXEC, (uint32_t)arg);
  case X64_F_GETFD: return host_fcntl(fd, F_GETFD, 0);
  case X64_F_SETFD: return host_fcntl(fd, F_SETFD, (uint32_t)arg);
  case X64_F_GETLK: return host_fcntl_struct(c, fd, F_GETLK, arg, FLOCK_SIZE, IN | OUT);
  case X64_F_SETLK: return host_fcntl_struct(c, fd, F_SETLK, arg, FLOCK_SIZE, IN);
  case X64_F_SETLKW: return host_fcntl_struct(c, fd, F_SETLKW, arg, FLOCK_SIZE, IN);
  case X64_F_OFD_GETLK: return host_fcntl_struct(c, fd, F_OFD_GETLK, arg, FLOCK_SIZE, IN | OUT);
  case X64_F_OFD_SETLK: return host_fcntl_struct(c, fd, F_OFD_SETLK, arg, FLOCK_SIZE, IN);
  case X64_F_OFD_SETLKW: return host_fcntl_struct(c, fd, F_OFD_SETLKW, arg, FLOCK_SIZE, IN);
  case X64_F_SETOWN: return host_fcntl(fd, F_SETOWN, (uint32_t)arg);
  case X64_F_GETOWN: return host_fcntl(fd, F_GETOWN, 0);
  case X64_F_SETOWN_EX: return host_fcntl_struct(c, fd, F_SETOWN_EX, arg, OWNER_EX_SIZE, IN);
  case X64_F_GETOWN_EX: return host_fcntl_struct(c, fd, F_GETOWN_EX, arg, OWNER_EX_SIZE, OUT);
  case X64_F_SETSIG: return host_fcntl(fd, F_SETSIG, (uint32_t)arg);
  case X64_F_GETSIG: return host_fcntl(fd, F_GETSIG, 0);
  case X64_F_SETLEASE: return host_fcntl(fd, F_SETLEASE, (uint32_t)arg);
  case X64_F_GETLEASE: return host_fcntl(fd, F_GETLEASE, 0);
  case X64_F_NOTIFY: return host_fcntl(fd, F_NOTIFY, (uint32_t)arg);
  case X64_F_SETPIPE_SZ: return host_fcntl(fd, F_SETPIPE_SZ, (uint32_t)arg);
  case X64_F_GETPIPE_SZ: return host_fcntl(fd, F_GETPIPE_SZ, 0);
  case X64_F_ADD_SEALS: return host_fcntl(fd, F_ADD_SEALS, (uint32_t)arg);
  case X64_F_GET_SEALS: return host_fcntl(fd, F_GET_SEALS, 0);
  /* Newer than some hosts' headers; Linux numbers them alike everywhere (EINVAL from an
   * older kernel, as for the guest). */
  case X64_F_DUPFD_QUERY: return host_fcntl(fd, X64_F_DUPFD_QUERY, (uint32_t)arg);
  case X64_F_CREATED_QUERY: return host_fcntl(fd, X64_F_CREATED_QUERY, 0);
  default: return -EINVAL;
  }
}

/* ---- ioctl ---- */

/* What the argument of a request is: a value (ARG_VALUE), or a pointer to `size` bytes the
 * kernel reads (ARG_IN), writes (ARG_OUT) or both. */
enum { ARG_VALUE, ARG_IN, ARG_OUT, ARG_INOUT };
typedef struct Ioctl {
  uint32_t req;
  const char *name;
  uint8_t arg;
  uint16_t size;
} Ioctl;

/* Requests whose number and argument layout are the same on x86-64 and on the other
 * 64-bit hosts (they use the generic ioctl encoding and the kernel's struct termios (36
 * bytes), termio (18) and winsize (8)). */
static const Ioctl ioctl_known[] = {
    {0x5401, "TCGETS", ARG_OUT, 36},    {0x5402, "TCSETS", ARG_IN, 36},
    {0x5403, "TCSETSW", ARG_IN, 36},    {0x5404, "TCSETSF", ARG_IN, 36},
    {0x5405, "TCGETA", ARG_OUT, 18},    {0x5406, "TCSETA", ARG_IN, 18},
    {0x5407, "TCSETAW", ARG_IN, 18},    {0x5408, "TCSETAF", ARG_IN, 18},
    {0x5409, "TCSBRK", ARG_VALUE, 0},   {0x540A, "TCXONC", ARG_VALUE, 0},
    {0x540B, "TCFLSH", ARG_VALUE, 0},   {0x540C, "TIOCEXCL", ARG_VALUE, 0},
    {0x540D, "TIOCNXCL", ARG_VALUE, 0}, {0x540E, "TIOCSCTTY", ARG_VALUE, 0},
    {0x540F, "TIOCGPGRP", ARG_OUT, 4},  {0x5410, "TIOCSPGRP", ARG_IN, 4},
    {0x5411, "TIOCOUTQ", ARG_OUT, 4},   {0x5412, "TIOCSTI", ARG_IN, 1},
    {0x5413, "TIOCGWINSZ", ARG_OUT, 8}, {0x5414, "TIOCSWINSZ", ARG_IN, 8},
    {0x5415, "TIOCMGET", ARG_OUT, 4},   {0x5416, "TIOCMBIS", ARG_IN, 4},
    {0x5417, "TIOCMBIC", ARG_IN, 4},    {0x5418, "TIOCMSET", ARG_IN, 4},
    {0x541B, "FIONREAD", ARG_OUT, 4},   {0x541D, "TIOCCONS", ARG_VALUE, 0},
    {0x5420, "TIOCPKT", ARG_IN, 4},     {0x5421, "FIONBIO", ARG_IN, 4},
    {0x5422, "TIOCNOTTY", ARG_VALUE, 0}, {0x5423, "TIOCSETD", ARG_IN, 4},
    {0x5424, "TIOCGETD", ARG_OUT, 4},   {0x5425, "TCSBRKP", ARG_VALUE, 0},
    {0x5429, "TIOCGSID", ARG_OUT, 4},   {0x802C542A, "TCGETS2", ARG_OUT, 44},
    {0x402C542B, "TCSETS2", ARG_IN, 44}, {0x402C542C, "TCSETSW2", ARG_IN, 44},
    {0x402C542D, "TCSETSF2", ARG_IN, 44}, {0x80045430, "TIOCGPTN", ARG_OUT, 4},
    {0x40045431, "TIOCSPTLCK", ARG_IN, 4}, {0x5441, "TIOCGPTPEER", ARG_VALUE, 0},
    {0x5450, "FIONCLEX", ARG_VALUE, 0}, {0x5451, "FIOCLEX", ARG_VALUE, 0},
    {0x5452, "FIOASYNC", ARG_IN, 4},    {0x5460, "FIOQSIZE", ARG_OUT, 8},
    {0x80086601, "FS_IOC_GETFLAGS", ARG_OUT, 8}, {0x40086602, "FS_IOC_SETFLAGS", ARG_IN, 8},
    {0x80081272, "BLKGETSIZE64", ARG_OUT, 8}, {0x40049409, "FICLONE", ARG_VALUE, 0},
};

static const Ioctl *ioctl_find(uint32_t req) {
  for (size_t i = 0; i < sizeof ioctl_known / sizeof ioctl_known[0]; i++)
    if (ioctl_known[i].req == req) return &ioctl_known[i];
  return NULL;
}

const char *ioctl_name(uint32_t req) {
  const Ioctl *k = ioctl_find(req);
  return k ? k->name : NULL;
}

/* The generic encoding (asm-generic/ioctl.h) of a request the shim does not know: its
 * argument's size, and whether the kernel reads (_IOC_WRITE) or writes it (_IOC_READ). */
static Ioctl ioctl_encoded(uint32_t req) {
  unsigned dir = req >> 30, size = (req >> 16) & 0x3FFF;
  static const uint8_t arg[4] = {ARG_VALUE, ARG_IN, ARG_OUT, ARG_INOUT};
  return (Ioctl){req, NULL, size ? arg[dir] : ARG_VALUE, (uint16_t)size};
}

int64_t sys_ioctl(Cpu *c, const uint64_t *a) {
  uint32_t req = (uint32_t)a[1];
  const Ioctl *known = ioctl_find(req);
#if !defined(__x86_64__)
  /* Elsewhere an unknown request may mean something else, or take another layout. */
  if (!known) return -ENOTTY;
#endif
  Ioctl how = known ? *known : ioctl_encoded(req);
  void *arg = GUEST_PTR(a[2]);
  static const int access[] = {0, GUEST_PROT_READ, GUEST_PROT_WRITE, GUEST_PROT_READ | GUEST_PROT_WRITE};
  /* One not the guest's is refused by the kernel after its EBADF and ENOTTY. */
  if (how.arg != ARG_VALUE) guest_area(c, a[2], how.size, access[how.arg], &arg);
  /* An unknown request of the old kind (no size in its number) may take a pointer: it must
   * at least start in the guest's memory (the threat model in the README says the rest). */
  if (!known && how.arg == ARG_VALUE && a[2] >= 4096 && !guest_prefix(c, a[2], 1, GUEST_PROT_READ))
    return -EFAULT;
  return host_result(syscall(SYS_ioctl, arg_fd(a[0]), (unsigned long)req, arg));
}
