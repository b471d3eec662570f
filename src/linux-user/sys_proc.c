/* sys_proc.c: process identity, fork/clone, wait, kill, exit, and per-process settings. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/fsuid.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "determinism.h"
#include "own_fds.h"
#include "seccomp.h"
#include "sigframe.h"
#include "signals.h"
#include "sys_common.h"
#include "turns.h"

/* ---- exit ---- */

/* exit_group ends the process: the thread that calls it ends it (Options.finish). */
int64_t sys_exit_group(Cpu *c, const uint64_t *a) {
  vfork_child_sync(c);
  c->exit_status = (int)(a[0] & 0xff);
  cpu_raise_events(c, EV_EXIT);
  return 0;
}

/* exit ends the thread; the last thread's ends the process with its status. */
int64_t sys_exit(Cpu *c, const uint64_t *a) {
  threads_exit(c); /* returns only for the last */
  return sys_exit_group(c, a);
}

/* ---- identity ---- */

int64_t sys_getpid(Cpu *c, const uint64_t *a) { return det_pid_out(c, getpid()); }
int64_t sys_getppid(Cpu *c, const uint64_t *a) { return det_pid_out(c, getppid()); }
int64_t sys_gettid(Cpu *c, const uint64_t *a) { return det_pid_out(c, gettid()); }
int64_t sys_getuid(Cpu *c, const uint64_t *a) { return getuid(); }
int64_t sys_geteuid(Cpu *c, const uint64_t *a) { return geteuid(); }
int64_t sys_getgid(Cpu *c, const uint64_t *a) { return getgid(); }
int64_t sys_getegid(Cpu *c, const uint64_t *a) { return getegid(); }

static int64_t copy_out_ids(Cpu *c, const uint64_t *a, const unsigned ids[3]) {
  for (int i = 0; i < 3; i++) {
    int r = guest_copy_out(c, a[i], &ids[i], sizeof ids[i]);
    if (r < 0) return r;
  }
  return 0;
}

int64_t sys_getresuid(Cpu *c, const uint64_t *a) {
  uid_t r, e, s;
  if (getresuid(&r, &e, &s) < 0) return -errno;
  const unsigned ids[3] = {r, e, s};
  return copy_out_ids(c, a, ids);
}

int64_t sys_getresgid(Cpu *c, const uint64_t *a) {
  gid_t r, e, s;
  if (getresgid(&r, &e, &s) < 0) return -errno;
  const unsigned ids[3] = {r, e, s};
  return copy_out_ids(c, a, ids);
}

/* gid_t is 32 bits everywhere; the raw call keeps the kernel's size-0 query. */
int64_t sys_getgroups(Cpu *c, const uint64_t *a) {
  void *list;
  if ((int)a[0] < 0) return -EINVAL;
  guest_area(c, a[1], 4 * (uint64_t)(int)a[0], GUEST_PROT_WRITE, &list); /* none to copy: 0 */
  return host_result(syscall(SYS_getgroups, (int)a[0], list));
}

int64_t sys_setgroups(Cpu *c, const uint64_t *a) {
  void *list;
  if (a[0] > 65536) return -EINVAL; /* NGROUPS_MAX */
  guest_area(c, a[1], 4 * a[0], GUEST_PROT_READ, &list);
  return host_result(syscall(SYS_setgroups, (size_t)a[0], list));
}

/* The kernel's calls, which change the calling thread's credentials only, as the guest's
 * call does natively: the guest's C library makes it on each of its threads in turn (by
 * signal 33: host_signals.h). The host C library's setuid would make it on all of
 * x64emu's threads itself, by that signal. */
int64_t sys_setuid(Cpu *c, const uint64_t *a) { return host_result(syscall(SYS_setuid, (uid_t)a[0])); }
int64_t sys_setgid(Cpu *c, const uint64_t *a) { return host_result(syscall(SYS_setgid, (gid_t)a[0])); }

int64_t sys_setreuid(Cpu *c, const uint64_t *a) {
  return host_result(syscall(SYS_setreuid, (uid_t)a[0], (uid_t)a[1]));
}

int64_t sys_setregid(Cpu *c, const uint64_t *a) {
  return host_result(syscall(SYS_setregid, (gid_t)a[0], (gid_t)a[1]));
}

int64_t sys_setresuid(Cpu *c, const uint64_t *a) {
  return host_result(syscall(SYS_setresuid, (uid_t)a[0], (uid_t)a[1], (uid_t)a[2]));
}

int64_t sys_setresgid(Cpu *c, const uint64_t *a) {
  return host_result(syscall(SYS_setresgid, (gid_t)a[0], (gid_t)a[1], (gid_t)a[2]));
}

int64_t sys_setfsuid(Cpu *c, const uint64_t *a) { return setfsuid((uid_t)a[0]); }
int64_t sys_setfsgid(Cpu *c, const uint64_t *a) { return setfsgid((gid_t)a[0]); }

/* Process, group and session ids in and out as the guest knows them (determinism.h). */
int64_t sys_getpgrp(Cpu *c, const uint64_t *a) { return det_pid_out(c, host_result(getpgid(0))); }
int64_t sys_getpgid(Cpu *c, const uint64_t *a) {
  return det_pid_out(c, host_result(getpgid((pid_t)det_pid_in(c, (pid_t)a[0]))));
}

int64_t sys_setpgid(Cpu *c, const uint64_t *a) {
  return host_result(setpgid((pid_t)det_pid_in(c, (pid_t)a[0]), (pid_t)det_pid_in(c, (pid_t)a[1])));
}

int64_t sys_getsid(Cpu *c, const uint64_t *a) {
  return det_pid_out(c, host_result(getsid((pid_t)det_pid_in(c, (pid_t)a[0]))));
}
int64_t sys_setsid(Cpu *c, const uint64_t *a) { return host_result(setsid()); }

/* The raw call returns 20 - nice, as the guest's libc expects. */
/* `who` is a process, thread or group id for PRIO_PROCESS and PRIO_PGRP. */
static id_t priority_who(const Cpu *c, const uint64_t *a) {
  return (int)a[0] == PRIO_USER ? (id_t)a[1] : (id_t)det_pid_in(c, (pid_t)a[1]);
}

int64_t sys_getpriority(Cpu *c, const uint64_t *a) {
  return host_result(syscall(SYS_getpriority, (int)a[0], priority_who(c, a)));
}

int64_t sys_setpriority(Cpu *c, const uint64_t *a) {
  return host_result(setpriority((int)a[0], priority_who(c, a), (int)a[2]));
}

/* ---- signals to processes (signal numbers are the same on every Linux host) ---- */

int64_t sys_kill(Cpu *c, const uint64_t *a) {
  return host_result(kill((pid_t)det_pid_in(c, (pid_t)a[0]), (int)a[1]));
}

/* A signal sent to one thread; a thread of this process that waits on a futex sees it at
 * once under --deterministic's turns (turns.h). */
static int64_t sent_to_thread(Cpu *c, int64_t r, pid_t tid, int sig) {
  if (r == 0) turns_signal_sent(c, tid, sig);
  return r;
}

int64_t sys_tkill(Cpu *c, const uint64_t *a) {
  pid_t tid = (pid_t)det_pid_in(c, (pid_t)a[0]);
  return sent_to_thread(c, host_result(syscall(SYS_tkill, tid, (int)a[1])), tid, (int)a[1]);
}

int64_t sys_tgkill(Cpu *c, const uint64_t *a) {
  pid_t tid = (pid_t)det_pid_in(c, (pid_t)a[1]);
  return sent_to_thread(c, host_result(syscall(SYS_tgkill, (pid_t)det_pid_in(c, (pid_t)a[0]), tid, (int)a[2])),
                        tid, (int)a[2]);
}

/* ---- waiting: status words, struct rusage and siginfo_t share one layout ---- */

int64_t sys_wait4(Cpu *c, const uint64_t *a) {
  void *status, *usage; /* written once a child is found: ECHILD comes first */
  guest_area(c, a[1], 4, GUEST_PROT_WRITE, &status);
  guest_area(c, a[3], sizeof(struct rusage), GUEST_PROT_WRITE, &usage);
  return host_result(syscall(SYS_wait4, (pid_t)a[0], status, (int)a[2], usage));
}

int64_t sys_waitid(Cpu *c, const uint64_t *a) {
  void *info, *usage;
  guest_area(c, a[2], sizeof(X64Siginfo), GUEST_PROT_WRITE, &info);
  guest_area(c, a[4], sizeof(struct rusage), GUEST_PROT_WRITE, &usage);
  return host_result(syscall(SYS_waitid, (int)a[0], (pid_t)a[1], info, (int)a[3], usage));
}

/* ---- fork, vfork, clone ---- */

/* A new process's new namespaces, and its parent, are the host's to make (a raw clone). */
#define CLONE_BY_HOST                                                                      \
  (X64_CLONE_PARENT | X64_CLONE_NEWNS | X64_CLONE_NEWCGROUP | X64_CLONE_NEWUTS |             \
   X64_CLONE_NEWIPC | X64_CLONE_NEWUSER | X64_CLONE_NEWPID | X64_CLONE_NEWNET)
#define CLONE_AS_FORK                                                                         \
  (X64_CSIGNAL | X64_CLONE_VM | X64_CLONE_VFORK | CLONE_BY_HOST | X64_CLONE_SETTLS |             \
   X64_CLONE_PARENT_SETTID | X64_CLONE_CHILD_CLEARTID | X64_CLONE_DETACHED |                      \
   X64_CLONE_CHILD_SETTID | X64_CLONE_PIDFD | X64_CLONE_CLEAR_SIGHAND)

/* In a vfork child, Process.vfork_fd is its end of a close-on-exec socket pair with the
 * waiting parent. The parent's end reads end-of-file once the child has exec'd or exited;
 * before that the child sends it the pages it changed (their count, then their
 * addresses) and waits for the parent to have taken them. A socket rather than pipes:
 * MSG_NOSIGNAL, so that a parent gone away does not kill the child. */

static bool send_all(int fd, const void *buf, size_t len) {
  for (const char *p = buf; len;) {
    ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n, len -= (size_t)n;
  }
  return true;
}

static bool recv_all(int fd, void *buf, size_t len) {
  for (char *p = buf; len;) {
    ssize_t n = recv(fd, p, len, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n, len -= (size_t)n;
  }
  return true;
}

void vfork_child_sync(Cpu *c) {
  int vfork_fd = proc_of(c)->vfork_fd;
  if (vfork_fd < 0) return;
  uint64_t *pages;
  uint64_t n = guest_mem_changed_pages(c, &pages);
  bool sent = send_all(vfork_fd, &n, sizeof n) && send_all(vfork_fd, pages, n * sizeof *pages);
  free(pages);
  char byte;
  if (sent) recv_all(vfork_fd, &byte, 1);
}

/* The vfork parent: until the child execs or exits, take its memory when it asks. */
static void vfork_parent_wait(Cpu *c, pid_t child, int fd) {
  uint64_t n;
  while (recv_all(fd, &n, sizeof n)) {
    uint64_t *pages = n < SIZE_MAX / sizeof *pages ? malloc((n + 1) * sizeof *pages) : NULL;
    bool got = pages && recv_all(fd, pages, n * sizeof *pages);
    if (got) guest_mem_take_pages(child, pages, n);
    free(pages);
    if (!got || !send_all(fd, "g", 1)) break;
  }
}

/* What a new process is given besides its flags: clone's pointers and stack. */
typedef struct CloneArgs {
  uint64_t flags, stack, parent_tid, child_tid, tls, pidfd_at;
} CloneArgs;

/* The kernel's flush_signal_handlers(): handled signals go back to their default, ignored
 * ones stay ignored, with no flags or mask left (CLONE_CLEAR_SIGHAND, as exec does). */
static void clear_handlers(Cpu *c) {
  for (int sig = 1; sig <= X64_NSIG; sig++) {
    X64Sigaction now;
    signals_action(c, sig, NULL, &now);
    X64Sigaction reset = {.handler = now.handler == X64_SIG_IGN ? X64_SIG_IGN : X64_SIG_DFL};
    signals_action(c, sig, &reset, NULL);
  }
}

/* fork semantics for every form, with vfork's on top: the parent waits until the child
 * execs or exits and then sees what the child wrote to memory, as with a shared address
 * space; a CLONE_VM|CLONE_VFORK child (posix_spawn) starts on the stack it was given. */
static int64_t fork_guest(Cpu *c, const CloneArgs *ca) {
  const uint64_t flags = ca->flags;
  const bool vfork_like = flags & X64_CLONE_VFORK;
  const int exit_signal = (int)(flags & X64_CSIGNAL);
  /* The pidfd is written before the child exists, so a bad place creates none. */
  void *pidfd_place = NULL;
  if ((flags & X64_CLONE_PIDFD) &&
      !guest_area(c, ca->pidfd_at, sizeof(int32_t), GUEST_PROT_WRITE, &pidfd_place))
    return -EFAULT;
  int pair[2] = {-1, -1};
  if (vfork_like) {
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) < 0) return -errno;
    /* Neither takes a number the guest would get next (the pidfd, another thread's). */
    own_fd_keep(&pair[0]);
    own_fd_keep(&pair[1]);
  }
  fflush(NULL);
  SignalsFork held = signals_fork_begin(c);
  /* glibc's fork keeps the host libc consistent in the child; another exit signal,
   * another parent or new namespaces need the raw call, whose first two arguments mean
   * the same on every host. */
  pid_t pid = exit_signal == SIGCHLD && !(flags & CLONE_BY_HOST)
                  ? fork()
                  : (pid_t)syscall(SYS_clone, exit_signal | (flags & CLONE_BY_HOST), 0, 0, 0, 0);
  if (pid < 0) {
    int e = errno;
    signals_fork_parent(&held);
    if (vfork_like) {
      own_fd_close(&pair[0]);
      own_fd_close(&pair[1]);
    }
    return -e;
  }
  if (pid == 0) {
    Process *p = proc_of(c);
    threads_forked_child(c);
    signals_forked_child(c, &held);
    vt_forked_child(c);
    p->mlock_future = 0;
    own_fd_close(&p->vfork_fd); /* an outer vfork's, between our parent and its own */
    if (vfork_like) {
      own_fd_close(&pair[0]);
      p->vfork_fd = pair[1];
      own_fd_keep(&p->vfork_fd);
      guest_mem_note_pages(c); /* the memory the parent's, at the fork */
    }
    if (flags & X64_CLONE_CLEAR_SIGHAND) clear_handlers(c);
    if (ca->stack) c->r[RSP] = ca->stack;
    if (flags & X64_CLONE_SETTLS) c->fs_base = ca->tls;
    int32_t tid = gettid();
    /* In memory shared with the parent the child sees its id there too. */
    if ((flags & X64_CLONE_PARENT_SETTID) && (flags & X64_CLONE_VM))
      guest_copy_out(c, ca->parent_tid, &tid, sizeof tid);
    if (flags & X64_CLONE_CHILD_SETTID) guest_copy_out(c, ca->child_tid, &tid, sizeof tid);
    if (flags & X64_CLONE_CHILD_CLEARTID) thread_of(c)->clear_child_tid = ca->child_tid;
    return 0;
  }
  signals_fork_parent(&held);
  /* A pidfd the kernel would have made with the child: close-on-exec, and not among the
   * child's descriptors. The child cannot have been reaped yet: only this process can. */
  int pidfd = (flags & X64_CLONE_PIDFD) ? (int)syscall(SYS_pidfd_open, pid, 0) : -1;
  if (vfork_like) {
    own_fd_close(&pair[1]);
    vfork_parent_wait(c, pid, pair[0]);
    own_fd_close(&pair[0]);
  }
  /* After the wait, where the pages the vfork child wrote have come back over ours. */
  if (flags & X64_CLONE_PARENT_SETTID) {
    int32_t tid = pid;
    guest_copy_out(c, ca->parent_tid, &tid, sizeof tid);
  }
  if (flags & X64_CLONE_PIDFD) memcpy(pidfd_place, &pidfd, sizeof pidfd);
  return pid;
}

int64_t sys_fork(Cpu *c, const uint64_t *a) { return fork_guest(c, &(CloneArgs){.flags = SIGCHLD}); }

int64_t sys_vfork(Cpu *c, const uint64_t *a) {
  return fork_guest(c, &(CloneArgs){.flags = X64_CLONE_VFORK | SIGCHLD});
}

/* What a new thread may share: all of it (a host thread shares its process's files,
 * working directory and System V undo list), and what the kernel ignores. */
#define CLONE_AS_THREAD                                                                       \
  (X64_CLONE_VM | X64_CLONE_FS | X64_CLONE_FILES | X64_CLONE_SIGHAND | X64_CLONE_THREAD |     \
   X64_CLONE_SYSVSEM | X64_CLONE_SETTLS | X64_CLONE_PARENT_SETTID | X64_CLONE_CHILD_CLEARTID | \
   X64_CLONE_DETACHED | X64_CLONE_CHILD_SETTID)

/* copy_process()'s checks, which come before any of a flag's effects. */
static bool clone_flags_valid(uint64_t flags) {
  const uint64_t fs_newns = X64_CLONE_FS | X64_CLONE_NEWNS, fs_newuser = X64_CLONE_FS | X64_CLONE_NEWUSER;
  if ((flags & fs_newns) == fs_newns || (flags & fs_newuser) == fs_newuser) return false;
  /* A thread shares the handlers, which need the memory. */
  if ((flags & X64_CLONE_THREAD) && !(flags & X64_CLONE_SIGHAND)) return false;
  if ((flags & X64_CLONE_SIGHAND) && !(flags & X64_CLONE_VM)) return false;
  if ((flags & X64_CLONE_THREAD) && (flags & (X64_CLONE_NEWUSER | X64_CLONE_NEWPID))) return false;
  if ((flags & X64_CLONE_PIDFD) && (flags & X64_CLONE_DETACHED)) return false;
  return true;
}

static int64_t clone_guest(Cpu *c, const CloneArgs *ca) {
  const uint64_t flags = ca->flags;
  if (!clone_flags_valid(flags)) return -EINVAL;
  if (flags & X64_CLONE_THREAD) {
    uint64_t shared = X64_CLONE_VM | X64_CLONE_FS | X64_CLONE_FILES;
    /* A thread with a file table or a directory of its own is not a host thread's;
     * a thread's pidfd is not offered. (The exit signal means nothing for a thread.) */
    if ((flags & shared) != shared || (flags & ~(uint64_t)(CLONE_AS_THREAD | X64_CSIGNAL)))
      return -ENOSYS;
    return threads_clone(c, flags, ca->stack, ca->parent_tid, ca->child_tid, ca->tls);
  }
  /* Shared memory without vfork's wait and without a thread: not offered. */
  if ((flags & X64_CLONE_VM) && !(flags & X64_CLONE_VFORK)) return -ENOSYS;
  if (flags & ~(uint64_t)CLONE_AS_FORK) return -ENOSYS;
  return fork_guest(c, ca);
}

/* x86-64 clone(flags, stack, parent_tid, child_tid, tls): the flags are an int's, and a
 * pidfd goes where parent_tid points. */
int64_t sys_clone(Cpu *c, const uint64_t *a) {
  uint64_t flags = (uint32_t)a[0];
  if ((flags & X64_CLONE_PIDFD) && (flags & X64_CLONE_PARENT_SETTID)) return -EINVAL; /* one place */
  return clone_guest(c, &(CloneArgs){.flags = flags, .stack = a[1], .parent_tid = a[2],
                                     .child_tid = a[3], .tls = a[4], .pidfd_at = a[2]});
}

/* clone3(args, size): struct clone_args, of which the first 88 bytes (up to cgroup) are
 * read; a larger one must have zeros beyond. set_tid and CLONE_INTO_CGROUP are not
 * offered. */
int64_t sys_clone3(Cpu *c, const uint64_t *a) {
  uint64_t args[11] = {0}; /* flags, pidfd, child_tid, parent_tid, exit_signal, stack,
                              stack_size, tls, set_tid, set_tid_size, cgroup */
  if (a[1] < 64 || a[1] > 4096) return -EINVAL;
  size_t n = a[1] < sizeof args ? (size_t)a[1] : sizeof args;
  if (guest_copy_in(c, args, a[0], n) < 0) return -EFAULT;
  for (uint64_t at = a[0] + sizeof args; at < a[0] + a[1]; at++) {
    uint8_t b;
    if (guest_copy_in(c, &b, at, 1) < 0) return -EFAULT;
    if (b) return -E2BIG;
  }
  uint64_t flags = args[0], exit_signal = args[4];
  /* copy_clone_args_from_user(): set_tid with its size, at most one per pid namespace
   * level (32); a signal's number. */
  if (args[9] > 32 || !args[8] != !args[9] || exit_signal > 64) return -EINVAL;
  /* clone3_args_valid(): the legacy bits it reuses (the signal, CLONE_DETACHED) are
   * refused, and an exit signal means nothing for a sibling or a thread. */
  const uint64_t known = 0xffffffffull | X64_CLONE_CLEAR_SIGHAND | X64_CLONE_INTO_CGROUP;
  const uint64_t sighand_twice = X64_CLONE_SIGHAND | X64_CLONE_CLEAR_SIGHAND;
  if ((flags & ~known) || (flags & (X64_CSIGNAL | X64_CLONE_DETACHED)) ||
      (flags & sighand_twice) == sighand_twice ||
      ((flags & (X64_CLONE_THREAD | X64_CLONE_PARENT)) && exit_signal))
    return -EINVAL;
  if (!!args[5] != !!args[6]) return -EINVAL; /* a stack and its size, or neither */
  if (args[8] || (flags & X64_CLONE_INTO_CGROUP)) return -ENOSYS;
  uint64_t stack = args[5] ? args[5] + args[6] : 0; /* the top: x86 stacks grow down */
  return clone_guest(c, &(CloneArgs){.flags = flags | exit_signal, .stack = stack,
                                     .parent_tid = args[3], .child_tid = args[2],
                                     .tls = args[7], .pidfd_at = args[1]});
}

/* ---- per-task settings ---- */

enum {
  X64_ARCH_SET_GS = 0x1001, X64_ARCH_SET_FS = 0x1002, X64_ARCH_GET_FS = 0x1003,
  X64_ARCH_GET_GS = 0x1004, X64_ARCH_GET_CPUID = 0x1011, X64_ARCH_SET_CPUID = 0x1012,
};
#define X64_TASK_SIZE_MAX 0x7ffffffff000ull /* bases at or above it are refused (EPERM) */

/* The guest's FS/GS bases live in the Cpu; the host's own are never touched. */
int64_t sys_arch_prctl(Cpu *c, const uint64_t *a) {
  switch (a[0]) {
  case X64_ARCH_SET_FS:
  case X64_ARCH_SET_GS:
    if (a[1] >= X64_TASK_SIZE_MAX) return -EPERM;
    *(a[0] == X64_ARCH_SET_FS ? &c->fs_base : &c->gs_base) = a[1];
    return 0;
  case X64_ARCH_GET_FS: return guest_copy_out(c, a[1], &c->fs_base, 8);
  case X64_ARCH_GET_GS: return guest_copy_out(c, a[1], &c->gs_base, 8);
  case X64_ARCH_GET_CPUID: return 1; /* CPUID does not fault */
  case X64_ARCH_SET_CPUID: return -ENODEV;
  default: return -EINVAL;
  }
}

/* prctl options that are safe to hand to the host; the rest (seccomp filters, which would
 * apply to the emulator, PR_SET_MM...) are refused. */
int64_t sys_prctl(Cpu *c, const uint64_t *a) {
  switch ((int)a[0]) {
  case PR_SET_PDEATHSIG: case PR_GET_PDEATHSIG: case PR_GET_DUMPABLE: case PR_SET_DUMPABLE:
  case PR_GET_KEEPCAPS: case PR_SET_KEEPCAPS: case PR_SET_NAME: case PR_GET_NAME:
  case PR_CAPBSET_READ: case PR_SET_CHILD_SUBREAPER: case PR_GET_CHILD_SUBREAPER:
  case PR_SET_NO_NEW_PRIVS: case PR_GET_NO_NEW_PRIVS: case PR_GET_TIMERSLACK:
  case PR_SET_TIMERSLACK: case PR_SET_VMA: case PR_GET_TIMING: case PR_SET_TIMING:
  case PR_GET_SECUREBITS: case PR_SET_SECUREBITS: case PR_CAPBSET_DROP: case PR_CAP_AMBIENT:
  case PR_GET_THP_DISABLE: case PR_SET_THP_DISABLE: case PR_MCE_KILL: case PR_MCE_KILL_GET:
  case PR_GET_SPECULATION_CTRL: case PR_SET_SPECULATION_CTRL: case PR_GET_IO_FLUSHER:
  case PR_SET_IO_FLUSHER:
    return host_result(prctl((int)a[0], a[1], a[2], a[3], a[4]));
  case PR_GET_TID_ADDRESS: return guest_copy_out(c, a[1], &thread_of(c)->clear_child_tid, 8);
  case PR_SET_TSC: /* whether the thread's RDTSC faults: the interpreter's, not the host's */
    if (a[1] != PR_TSC_ENABLE && a[1] != PR_TSC_SIGSEGV) return -EINVAL;
    c->tsc_denied = a[1] == PR_TSC_SIGSEGV;
    return 0;
  case PR_GET_TSC: {
    int32_t mode = c->tsc_denied ? PR_TSC_SIGSEGV : PR_TSC_ENABLE;
    return guest_copy_out(c, a[1], &mode, sizeof mode);
  }
  case PR_SET_SECCOMP: return seccomp_prctl_set(c, a[1], a[2]);
  case PR_GET_SECCOMP: return seccomp_prctl_get(c);
  default: return -EINVAL;
  }
}

int64_t sys_set_tid_address(Cpu *c, const uint64_t *a) {
  thread_of(c)->clear_child_tid = a[0];
  return det_pid_out(c, gettid());
}

/* Recorded for get_robust_list and for the thread's exit, which releases the robust
 * mutexes it holds (threads.c). */
int64_t sys_set_robust_list(Cpu *c, const uint64_t *a) {
  if (a[1] != 24) return -EINVAL; /* sizeof(struct robust_list_head) */
  thread_of(c)->robust_list_head = a[0];
  return 0;
}

int64_t sys_get_robust_list(Cpu *c, const uint64_t *a) {
  if (a[0] && (pid_t)a[0] != gettid()) return -EPERM;
  uint64_t len = 24;
  int r = guest_copy_out(c, a[1], &thread_of(c)->robust_list_head, 8);
  return r < 0 ? r : guest_copy_out(c, a[2], &len, 8);
}

/* Restartable sequences are not offered; glibc then goes without. */
int64_t sys_rseq(Cpu *c, const uint64_t *a) { return -ENOSYS; }

/* ptrace as a kernel whose Yama module allows no tracing (ptrace_scope 3): a guest
 * tracer would read and steer x64emu's own host state, not its tracee's x86-64 one.
 * Tracers handle that refusal (gdb: "Operation not permitted"; Go's exec with
 * SysProcAttr.Ptrace), where ENOSYS is an answer no x86-64 kernel gives. */
enum { PTRACE_TRACEME_REQ = 0, PTRACE_ATTACH_REQ = 16, PTRACE_SEIZE_REQ = 0x4206 };

int64_t sys_ptrace(Cpu *c, const uint64_t *a) {
  long request = (long)a[0];
  if (request == PTRACE_TRACEME_REQ) return -EPERM;
  pid_t pid = (pid_t)det_pid_in(c, (pid_t)a[1]);
  if (pid <= 0 || (kill(pid, 0) < 0 && errno == ESRCH)) return -ESRCH;
  /* Any other request is for a tracee, and there are none. */
  return request == PTRACE_ATTACH_REQ || request == PTRACE_SEIZE_REQ ? -EPERM : -ESRCH;
}

/* ---- pidfds: a process as a file descriptor ---- */

int64_t sys_pidfd_open(Cpu *c, const uint64_t *a) {
  return host_result(syscall(SYS_pidfd_open, (pid_t)det_pid_in(c, (pid_t)a[0]), (unsigned)a[1]));
}

/* The signal numbers and siginfo_t's 128 bytes are the same on every host, as for kill. */
int64_t sys_pidfd_send_signal(Cpu *c, const uint64_t *a) {
  void *info = NULL;
  if (a[2] && !guest_area(c, a[2], sizeof(siginfo_t), GUEST_PROT_READ, &info)) return -EFAULT;
  return host_result(syscall(SYS_pidfd_send_signal, arg_fd(a[0]), (int)a[1], info, (unsigned)a[3]));
}

int64_t sys_pidfd_getfd(Cpu *c, const uint64_t *a) {
  return host_result(syscall(SYS_pidfd_getfd, arg_fd(a[0]), arg_fd(a[1]), (unsigned)a[2]));
}

/* kcmp(pid1, pid2, type, idx1, idx2): for KCMP_EPOLL_TFD idx2 points to a struct
 * kcmp_epoll_slot (three u32), read here. The processes are the host's, whose memory
 * (KCMP_VM), files and the rest are the guest's. */
enum { KCMP_EPOLL_TFD_ = 7 };

int64_t sys_kcmp(Cpu *c, const uint64_t *a) {
  uint32_t slot[3];
  unsigned long idx2 = (unsigned long)a[4];
  if ((int)a[2] == KCMP_EPOLL_TFD_) {
    if (guest_copy_in(c, slot, a[4], sizeof slot) < 0) return -EFAULT;
    idx2 = (unsigned long)(uintptr_t)slot;
  }
  return host_result(syscall(SYS_kcmp, (pid_t)det_pid_in(c, (pid_t)a[0]), (pid_t)det_pid_in(c, (pid_t)a[1]),
                             (int)a[2], (unsigned long)a[3], idx2));
}

/* unshare(flags) and setns(fd, nstype): the host process's namespaces are the guest's
 * (the CLONE_* numbers are the same on every host). */
int64_t sys_unshare(Cpu *c, const uint64_t *a) {
  return host_result(syscall(SYS_unshare, (int)a[0]));
}

int64_t sys_setns(Cpu *c, const uint64_t *a) {
  return host_result(syscall(SYS_setns, arg_fd(a[0]), (int)a[1]));
}

/* ---- capabilities and I/O priority ---- */

/* capget/capset(header, data): the header names a version, which decides how many
 * 12-byte sets data holds (one for version 1, two for 2 and 3), and a process. A null
 * data only asks for the version, which the kernel writes into the header. */
enum { CAP_V1 = 0x19980330, CAP_SET = 12 };
static int64_t capabilities(Cpu *c, const uint64_t *a, bool set) {
  struct {
    uint32_t version;
    int pid;
  } h;
  int r = guest_copy_in(c, &h, a[0], sizeof h);
  if (r < 0) return r;
  h.pid = (int)det_pid_in(c, h.pid);
  void *data = NULL;
  uint64_t n = h.version == CAP_V1 ? 1 : 2;
  if (a[1] && !guest_area(c, a[1], n * CAP_SET, set ? GUEST_PROT_READ : GUEST_PROT_WRITE, &data))
    return -EFAULT;
  uint32_t asked = h.version;
  int64_t res = host_result(syscall(set ? SYS_capset : SYS_capget, &h, data));
  if (h.version != asked) (void)guest_copy_out(c, a[0], &h.version, sizeof h.version);
  return res;
}

int64_t sys_capget(Cpu *c, const uint64_t *a) { return capabilities(c, a, false); }
int64_t sys_capset(Cpu *c, const uint64_t *a) { return capabilities(c, a, true); }

/* ioprio_get/set(which, who[, ioprio]): who is a process for IOPRIO_WHO_PROCESS (1). */
static pid_t ioprio_who(const Cpu *c, const uint64_t *a) {
  return (int)a[0] == 1 ? (pid_t)det_pid_in(c, (pid_t)a[1]) : (pid_t)a[1];
}

int64_t sys_ioprio_get(Cpu *c, const uint64_t *a) {
  return host_result(syscall(SYS_ioprio_get, (int)a[0], ioprio_who(c, a)));
}

int64_t sys_ioprio_set(Cpu *c, const uint64_t *a) {
  return host_result(syscall(SYS_ioprio_set, (int)a[0], ioprio_who(c, a), (int)a[2]));
}

/* personality(persona): the host process's, which the new x64emu of an exec inherits, so
 * that ADDR_NO_RANDOMIZE (sanitizer runtimes set it and run themselves again) takes
 * effect on the guest's mappings, which are the host's. Under --deterministic x64emu has
 * set ADDR_NO_RANDOMIZE itself, as setarch -R does, and the guest sees it set. */
int64_t sys_personality(Cpu *c, const uint64_t *a) {
  return host_result(syscall(SYS_personality, (unsigned long)(uint32_t)a[0]));
}
