/* syscall.c: the x86-64 system call table: handler and --strace argument kinds per call number. */
#include "syscall.h"

#include <sys/stat.h>

#include "determinism.h"
#include "own_fds.h"
#include "proc_self.h"
#include "seccomp.h"
#include "signals.h"
#include "strace.h"
#include "sysroot.h"
#include "sys_common.h"
#include "turns.h"

typedef struct SysEntry {
  SysFn fn;
  StraceSig sig;
} SysEntry;

/* S(name, how the result shows, how each argument shows...): handled by sys_<name>. */
#define S(nr, ret, ...) [X64_NR_##nr] = {sys_##nr, {ret, {__VA_ARGS__}}}

/* Every number missing here is answered with -ENOSYS. */
static const SysEntry table[X64_NR_COUNT] = {
    /* reading and writing */
    S(read, R_DEC, A_FD, A_BUF_OUT, A_ULONG),
    S(write, R_DEC, A_FD, A_BUF_IN, A_ULONG),
    S(readv, R_DEC, A_FD, A_PTR, A_INT),
    S(writev, R_DEC, A_FD, A_PTR, A_INT),
    S(pread64, R_DEC, A_FD, A_BUF_OUT, A_ULONG, A_LONG),
    S(pwrite64, R_DEC, A_FD, A_BUF_IN, A_ULONG, A_LONG),
    S(preadv, R_DEC, A_FD, A_PTR, A_INT, A_LONG),
    S(pwritev, R_DEC, A_FD, A_PTR, A_INT, A_LONG),
    S(preadv2, R_DEC, A_FD, A_PTR, A_INT, A_LONG, A_LONG, A_HEX),
    S(pwritev2, R_DEC, A_FD, A_PTR, A_INT, A_LONG, A_LONG, A_HEX),
    S(lseek, R_DEC, A_FD, A_LONG, A_WHENCE),
    S(sendfile, R_DEC, A_FD, A_FD, A_PTR, A_ULONG),
    S(splice, R_DEC, A_FD, A_PTR, A_FD, A_PTR, A_ULONG, A_HEX),
    S(tee, R_DEC, A_FD, A_FD, A_ULONG, A_HEX),
    S(vmsplice, R_DEC, A_FD, A_PTR, A_ULONG, A_HEX),
    S(copy_file_range, R_DEC, A_FD, A_PTR, A_FD, A_PTR, A_ULONG, A_HEX),
    S(getdents64, R_DEC, A_FD, A_PTR, A_ULONG),
    S(getdents, R_DEC, A_FD, A_PTR, A_ULONG),
    S(poll, R_DEC, A_PTR, A_ULONG, A_INT),
    S(ppoll, R_DEC, A_PTR, A_ULONG, A_PTR, A_PTR, A_ULONG),
    S(select, R_DEC, A_INT, A_PTR, A_PTR, A_PTR, A_PTR),
    S(pselect6, R_DEC, A_INT, A_PTR, A_PTR, A_PTR, A_PTR, A_PTR),
    S(epoll_create, R_DEC, A_INT),
    S(epoll_create1, R_DEC, A_HEX),
    S(epoll_ctl, R_DEC, A_FD, A_INT, A_FD, A_PTR),
    S(epoll_wait, R_DEC, A_FD, A_PTR, A_INT, A_INT),
    S(epoll_pwait, R_DEC, A_FD, A_PTR, A_INT, A_INT, A_PTR, A_ULONG),
    S(epoll_pwait2, R_DEC, A_FD, A_PTR, A_INT, A_PTR, A_PTR, A_ULONG),
    S(fsync, R_DEC, A_FD),
    S(fdatasync, R_DEC, A_FD),
    S(syncfs, R_DEC, A_FD),
    S(sync_file_range, R_DEC, A_FD, A_LONG, A_LONG, A_HEX),
    S(readahead, R_DEC, A_FD, A_LONG, A_ULONG),
    S(cachestat, R_DEC, A_FD, A_PTR, A_PTR, A_HEX),
    S(ftruncate, R_DEC, A_FD, A_LONG),
    S(fadvise64, R_DEC, A_FD, A_LONG, A_LONG, A_INT),
    S(fallocate, R_DEC, A_FD, A_INT, A_LONG, A_LONG),

    /* file descriptors */
    S(open, R_DEC, A_PATH, A_OFLAGS, A_OMODE),
    S(openat, R_DEC, A_DIRFD, A_PATH, A_OFLAGS, A_OMODE),
    S(openat2, R_DEC, A_DIRFD, A_PATH, A_PTR, A_ULONG),
    S(name_to_handle_at, R_DEC, A_DIRFD, A_PATH, A_PTR, A_PTR, A_HEX),
    S(open_by_handle_at, R_DEC, A_FD, A_PTR, A_OFLAGS),
    S(creat, R_DEC, A_PATH, A_MODE),
    S(close, R_DEC, A_FD),
    S(close_range, R_DEC, A_FDNUM, A_FDNUM, A_HEX),
    S(pipe, R_DEC, A_PTR),
    S(pipe2, R_DEC, A_PTR, A_FDFLAGS),
    S(memfd_create, R_DEC, A_PATH, A_HEX),
    S(eventfd, R_DEC, A_ULONG),
    S(eventfd2, R_DEC, A_ULONG, A_HEX),
    S(inotify_init, R_DEC),
    S(inotify_init1, R_DEC, A_HEX),
    S(inotify_add_watch, R_DEC, A_FD, A_PATH, A_HEX),
    S(inotify_rm_watch, R_DEC, A_FD, A_INT),
    S(dup, R_DEC, A_FD),
    S(dup2, R_DEC, A_FD, A_FDNUM),
    S(dup3, R_DEC, A_FD, A_FDNUM, A_FDFLAGS),
    S(fcntl, R_DEC, A_FD, A_FCNTL, A_HEX),
    S(flock, R_DEC, A_FD, A_INT),
    S(ioctl, R_DEC, A_FD, A_IOCTL, A_PTR),
    S(fchmod, R_DEC, A_FD, A_MODE),
    S(fchown, R_DEC, A_FD, A_INT, A_INT),
    S(fchdir, R_DEC, A_FD),

    /* the stat family */
    S(stat, R_DEC, A_PATH, A_PTR),
    S(fstat, R_DEC, A_FD, A_PTR),
    S(lstat, R_DEC, A_PATH, A_PTR),
    S(newfstatat, R_DEC, A_DIRFD, A_PATH, A_PTR, A_ATF),
    S(statx, R_DEC, A_DIRFD, A_PATH, A_ATF, A_HEX, A_PTR),
    S(statfs, R_DEC, A_PATH, A_PTR),
    S(fstatfs, R_DEC, A_FD, A_PTR),
    S(getxattr, R_DEC, A_PATH, A_PATH, A_PTR, A_ULONG),
    S(lgetxattr, R_DEC, A_PATH, A_PATH, A_PTR, A_ULONG),
    S(fgetxattr, R_DEC, A_FD, A_PATH, A_PTR, A_ULONG),
    S(listxattr, R_DEC, A_PATH, A_PTR, A_ULONG),
    S(llistxattr, R_DEC, A_PATH, A_PTR, A_ULONG),
    S(flistxattr, R_DEC, A_FD, A_PTR, A_ULONG),
    S(setxattr, R_DEC, A_PATH, A_PATH, A_PTR, A_ULONG, A_HEX),
    S(lsetxattr, R_DEC, A_PATH, A_PATH, A_PTR, A_ULONG, A_HEX),
    S(fsetxattr, R_DEC, A_FD, A_PATH, A_PTR, A_ULONG, A_HEX),
    S(removexattr, R_DEC, A_PATH, A_PATH),
    S(lremovexattr, R_DEC, A_PATH, A_PATH),
    S(fremovexattr, R_DEC, A_FD, A_PATH),

    /* paths */
    S(access, R_DEC, A_PATH, A_ACCESS),
    S(faccessat, R_DEC, A_DIRFD, A_PATH, A_ACCESS),
    S(faccessat2, R_DEC, A_DIRFD, A_PATH, A_ACCESS, A_ATF),
    S(readlink, R_DEC, A_PATH, A_BUF_OUT, A_ULONG),
    S(readlinkat, R_DEC, A_DIRFD, A_PATH, A_BUF_OUT, A_ULONG),
    S(mkdir, R_DEC, A_PATH, A_MODE),
    S(mkdirat, R_DEC, A_DIRFD, A_PATH, A_MODE),
    S(mknod, R_DEC, A_PATH, A_MODE, A_HEX),
    S(mknodat, R_DEC, A_DIRFD, A_PATH, A_MODE, A_HEX),
    S(rmdir, R_DEC, A_PATH),
    S(unlink, R_DEC, A_PATH),
    S(unlinkat, R_DEC, A_DIRFD, A_PATH, A_ATF),
    S(rename, R_DEC, A_PATH, A_PATH),
    S(renameat, R_DEC, A_DIRFD, A_PATH, A_DIRFD, A_PATH),
    S(renameat2, R_DEC, A_DIRFD, A_PATH, A_DIRFD, A_PATH, A_HEX),
    S(link, R_DEC, A_PATH, A_PATH),
    S(linkat, R_DEC, A_DIRFD, A_PATH, A_DIRFD, A_PATH, A_ATF),
    S(symlink, R_DEC, A_PATH, A_PATH),
    S(symlinkat, R_DEC, A_PATH, A_DIRFD, A_PATH),
    S(chmod, R_DEC, A_PATH, A_MODE),
    S(fchmodat, R_DEC, A_DIRFD, A_PATH, A_MODE),
    S(fchmodat2, R_DEC, A_DIRFD, A_PATH, A_MODE, A_ATF),
    S(chown, R_DEC, A_PATH, A_INT, A_INT),
    S(lchown, R_DEC, A_PATH, A_INT, A_INT),
    S(fchownat, R_DEC, A_DIRFD, A_PATH, A_INT, A_INT, A_ATF),
    S(utimensat, R_DEC, A_DIRFD, A_PATH, A_PTR, A_ATF),
    S(utimes, R_DEC, A_PATH, A_PTR),
    S(futimesat, R_DEC, A_DIRFD, A_PATH, A_PTR),
    S(utime, R_DEC, A_PATH, A_PTR),
    S(truncate, R_DEC, A_PATH, A_LONG),
    S(getcwd, R_DEC, A_PTR, A_ULONG),
    S(chdir, R_DEC, A_PATH),
    S(chroot, R_DEC, A_PATH),
    S(umask, R_OCT, A_MODE),
    S(sync, R_DEC),

    /* memory */
    S(mmap, R_HEX, A_PTR, A_ULONG, A_PROT, A_MAPF, A_FD, A_HEX),
    S(munmap, R_DEC, A_PTR, A_ULONG),
    S(mprotect, R_DEC, A_PTR, A_ULONG, A_PROT),
    S(mremap, R_HEX, A_PTR, A_ULONG, A_ULONG, A_HEX, A_PTR),
    S(madvise, R_DEC, A_PTR, A_ULONG, A_INT),
    S(msync, R_DEC, A_PTR, A_ULONG, A_HEX),
    S(mincore, R_DEC, A_PTR, A_ULONG, A_PTR),
    S(mlock, R_DEC, A_PTR, A_ULONG),
    S(munlock, R_DEC, A_PTR, A_ULONG),
    S(mlock2, R_DEC, A_PTR, A_ULONG, A_HEX),
    S(mlockall, R_DEC, A_HEX),
    S(munlockall, R_DEC),
    S(brk, R_HEX, A_PTR),
    S(set_mempolicy, R_DEC, A_INT, A_PTR, A_ULONG),
    S(get_mempolicy, R_DEC, A_PTR, A_PTR, A_ULONG, A_PTR, A_HEX),
    S(mbind, R_DEC, A_PTR, A_ULONG, A_INT, A_PTR, A_ULONG, A_HEX),
    S(set_mempolicy_home_node, R_DEC, A_PTR, A_ULONG, A_ULONG, A_HEX),
    S(migrate_pages, R_DEC, A_INT, A_ULONG, A_PTR, A_PTR),
    S(move_pages, R_DEC, A_INT, A_ULONG, A_PTR, A_PTR, A_PTR, A_HEX),

    /* processes */
    S(exit, R_NONE, A_INT),
    S(exit_group, R_NONE, A_INT),
    S(getpid, R_DEC),
    S(getppid, R_DEC),
    S(gettid, R_DEC),
    S(getuid, R_DEC),
    S(geteuid, R_DEC),
    S(getgid, R_DEC),
    S(getegid, R_DEC),
    S(getresuid, R_DEC, A_PTR, A_PTR, A_PTR),
    S(getresgid, R_DEC, A_PTR, A_PTR, A_PTR),
    S(getgroups, R_DEC, A_INT, A_PTR),
    S(setgroups, R_DEC, A_INT, A_PTR),
    S(setuid, R_DEC, A_INT),
    S(setgid, R_DEC, A_INT),
    S(setreuid, R_DEC, A_INT, A_INT),
    S(setregid, R_DEC, A_INT, A_INT),
    S(setresuid, R_DEC, A_INT, A_INT, A_INT),
    S(setresgid, R_DEC, A_INT, A_INT, A_INT),
    S(setfsuid, R_DEC, A_INT),
    S(setfsgid, R_DEC, A_INT),
    S(getpgrp, R_DEC),
    S(getpgid, R_DEC, A_INT),
    S(setpgid, R_DEC, A_INT, A_INT),
    S(getsid, R_DEC, A_INT),
    S(setsid, R_DEC),
    S(getpriority, R_DEC, A_INT, A_INT),
    S(setpriority, R_DEC, A_INT, A_INT, A_INT),
    S(kill, R_DEC, A_INT, A_SIG),
    S(tkill, R_DEC, A_INT, A_SIG),
    S(tgkill, R_DEC, A_INT, A_INT, A_SIG),
    S(ptrace, R_DEC, A_LONG, A_INT, A_PTR, A_PTR),
    S(pidfd_open, R_DEC, A_INT, A_HEX),
    S(pidfd_getfd, R_DEC, A_FD, A_INT, A_HEX),
    S(kcmp, R_DEC, A_INT, A_INT, A_INT, A_ULONG, A_ULONG),
    S(unshare, R_DEC, A_HEX),
    S(setns, R_DEC, A_FD, A_HEX),
    S(process_vm_readv, R_DEC, A_INT, A_PTR, A_ULONG, A_PTR, A_ULONG, A_HEX),
    S(process_vm_writev, R_DEC, A_INT, A_PTR, A_ULONG, A_PTR, A_ULONG, A_HEX),
    S(pidfd_send_signal, R_DEC, A_FD, A_SIG, A_PTR, A_HEX),
    S(capget, R_DEC, A_PTR, A_PTR),
    S(capset, R_DEC, A_PTR, A_PTR),
    S(ioprio_get, R_DEC, A_INT, A_INT),
    S(ioprio_set, R_DEC, A_INT, A_INT, A_HEX),
    S(wait4, R_DEC, A_INT, A_PTR, A_WAITF, A_PTR),
    S(waitid, R_DEC, A_INT, A_INT, A_PTR, A_WAITF, A_PTR),
    S(fork, R_DEC),
    S(vfork, R_DEC),
    S(clone, R_DEC, A_CLONEF, A_PTR, A_PTR, A_PTR, A_PTR),
    S(clone3, R_DEC, A_PTR, A_ULONG),
    S(execve, R_DEC, A_PATH, A_ARGV, A_ENVP),
    S(execveat, R_DEC, A_DIRFD, A_PATH, A_ARGV, A_ENVP, A_ATF),
    S(arch_prctl, R_DEC, A_ARCH, A_HEX),
    S(prctl, R_DEC, A_PRCTL, A_HEX, A_HEX, A_HEX, A_HEX),
    S(seccomp, R_DEC, A_INT, A_HEX, A_PTR),
    S(personality, R_HEX, A_HEX),
    S(set_tid_address, R_DEC, A_PTR),
    S(set_robust_list, R_DEC, A_PTR, A_ULONG),
    S(get_robust_list, R_DEC, A_INT, A_PTR, A_PTR),
    S(rseq, R_DEC, A_PTR, A_ULONG, A_INT, A_HEX),
    S(futex, R_DEC, A_PTR, A_HEX, A_INT, A_PTR, A_PTR, A_INT),
    S(futex_waitv, R_DEC, A_PTR, A_ULONG, A_HEX, A_PTR, A_INT),
    S(membarrier, R_DEC, A_INT, A_HEX, A_INT),

    /* sockets */
    S(socket, R_DEC, A_INT, A_HEX, A_INT),
    S(socketpair, R_DEC, A_INT, A_HEX, A_INT, A_PTR),
    S(connect, R_DEC, A_FD, A_PTR, A_INT),
    S(bind, R_DEC, A_FD, A_PTR, A_INT),
    S(listen, R_DEC, A_FD, A_INT),
    S(accept, R_DEC, A_FD, A_PTR, A_PTR),
    S(accept4, R_DEC, A_FD, A_PTR, A_PTR, A_HEX),
    S(shutdown, R_DEC, A_FD, A_INT),
    S(getsockname, R_DEC, A_FD, A_PTR, A_PTR),
    S(getpeername, R_DEC, A_FD, A_PTR, A_PTR),
    S(setsockopt, R_DEC, A_FD, A_INT, A_INT, A_PTR, A_INT),
    S(getsockopt, R_DEC, A_FD, A_INT, A_INT, A_PTR, A_PTR),
    S(sendto, R_DEC, A_FD, A_BUF_IN, A_ULONG, A_HEX, A_PTR, A_INT),
    S(recvfrom, R_DEC, A_FD, A_BUF_OUT, A_ULONG, A_HEX, A_PTR, A_PTR),
    S(sendmsg, R_DEC, A_FD, A_PTR, A_HEX),
    S(recvmsg, R_DEC, A_FD, A_PTR, A_HEX),
    S(sendmmsg, R_DEC, A_FD, A_PTR, A_INT, A_HEX),
    S(recvmmsg, R_DEC, A_FD, A_PTR, A_INT, A_HEX, A_PTR),

    /* System V IPC */
    S(msgget, R_DEC, A_HEX, A_HEX),
    S(msgsnd, R_DEC, A_INT, A_PTR, A_ULONG, A_HEX),
    S(msgrcv, R_DEC, A_INT, A_PTR, A_ULONG, A_LONG, A_HEX),
    S(msgctl, R_DEC, A_INT, A_INT, A_PTR),
    S(semget, R_DEC, A_HEX, A_INT, A_HEX),
    S(semop, R_DEC, A_INT, A_PTR, A_ULONG),
    S(semtimedop, R_DEC, A_INT, A_PTR, A_ULONG, A_PTR),
    S(semctl, R_DEC, A_INT, A_INT, A_INT, A_HEX),
    S(shmget, R_DEC, A_HEX, A_ULONG, A_HEX),
    S(shmat, R_HEX, A_INT, A_PTR, A_HEX),
    S(shmdt, R_DEC, A_PTR),
    S(shmctl, R_DEC, A_INT, A_INT, A_PTR),

    /* POSIX message queues */
    S(mq_open, R_DEC, A_STR, A_OFLAGS, A_OMODE, A_PTR),
    S(mq_unlink, R_DEC, A_STR),
    S(mq_timedsend, R_DEC, A_FD, A_BUF_IN, A_ULONG, A_INT, A_PTR),
    S(mq_timedreceive, R_DEC, A_FD, A_PTR, A_ULONG, A_PTR, A_PTR),
    S(mq_notify, R_DEC, A_FD, A_PTR),
    S(mq_getsetattr, R_DEC, A_FD, A_PTR, A_PTR),

    /* signals */
    S(rt_sigaction, R_DEC, A_SIG, A_PTR, A_PTR, A_ULONG),
    S(rt_sigprocmask, R_DEC, A_SIGHOW, A_PTR, A_PTR, A_ULONG),
    S(rt_sigpending, R_DEC, A_PTR, A_ULONG),
    S(rt_sigsuspend, R_DEC, A_PTR, A_ULONG),
    S(rt_sigtimedwait, R_DEC, A_PTR, A_PTR, A_PTR, A_ULONG),
    S(rt_sigqueueinfo, R_DEC, A_INT, A_SIG, A_PTR),
    S(rt_tgsigqueueinfo, R_DEC, A_INT, A_INT, A_SIG, A_PTR),
    S(signalfd, R_DEC, A_FD, A_PTR, A_ULONG),
    S(signalfd4, R_DEC, A_FD, A_PTR, A_ULONG, A_HEX),
    S(rt_sigreturn, R_HEX),
    S(pause, R_DEC),
    S(sigaltstack, R_DEC, A_PTR, A_PTR),

    /* timers */
    S(alarm, R_DEC, A_ULONG),
    S(getitimer, R_DEC, A_INT, A_PTR),
    S(setitimer, R_DEC, A_INT, A_PTR, A_PTR),
    S(timer_create, R_DEC, A_CLOCK, A_PTR, A_PTR),
    S(timer_settime, R_DEC, A_INT, A_HEX, A_PTR, A_PTR),
    S(timer_gettime, R_DEC, A_INT, A_PTR),
    S(timer_getoverrun, R_DEC, A_INT),
    S(timer_delete, R_DEC, A_INT),
    S(timerfd_create, R_DEC, A_CLOCK, A_HEX),
    S(timerfd_settime, R_DEC, A_FD, A_HEX, A_PTR, A_PTR),
    S(timerfd_gettime, R_DEC, A_FD, A_PTR),

    /* time */
    S(clock_gettime, R_DEC, A_CLOCK, A_PTR),
    S(clock_getres, R_DEC, A_CLOCK, A_PTR),
    S(clock_nanosleep, R_DEC, A_CLOCK, A_INT, A_PTR, A_PTR),
    S(gettimeofday, R_DEC, A_PTR, A_PTR),
    S(clock_settime, R_DEC, A_CLOCK, A_PTR),
    S(clock_adjtime, R_DEC, A_CLOCK, A_PTR),
    S(adjtimex, R_DEC, A_PTR),
    S(settimeofday, R_DEC, A_PTR, A_PTR),
    S(time, R_DEC, A_PTR),
    S(nanosleep, R_DEC, A_PTR, A_PTR),
    S(times, R_DEC, A_PTR),
    S(getrusage, R_DEC, A_INT, A_PTR),

    /* the machine and limits */
    S(uname, R_DEC, A_PTR),
    S(sysinfo, R_DEC, A_PTR),
    S(getrandom, R_DEC, A_BUF_OUT, A_ULONG, A_HEX),
    S(getrlimit, R_DEC, A_RLIMIT, A_PTR),
    S(setrlimit, R_DEC, A_RLIMIT, A_PTR),
    S(prlimit64, R_DEC, A_INT, A_RLIMIT, A_PTR, A_PTR),
    S(sched_getaffinity, R_DEC, A_INT, A_ULONG, A_PTR),
    S(sched_setaffinity, R_DEC, A_INT, A_ULONG, A_PTR),
    S(sched_yield, R_DEC),
    S(sched_getscheduler, R_DEC, A_INT),
    S(sched_setscheduler, R_DEC, A_INT, A_INT, A_PTR),
    S(sched_getparam, R_DEC, A_INT, A_PTR),
    S(sched_setattr, R_DEC, A_INT, A_PTR, A_HEX),
    S(sched_getattr, R_DEC, A_INT, A_PTR, A_ULONG, A_HEX),
    S(sched_setparam, R_DEC, A_INT, A_PTR),
    S(sched_get_priority_max, R_DEC, A_INT),
    S(sched_get_priority_min, R_DEC, A_INT),
    S(sched_rr_get_interval, R_DEC, A_INT, A_PTR),
    S(getcpu, R_DEC, A_PTR, A_PTR, A_PTR),
    S(sethostname, R_DEC, A_PTR, A_INT),
    S(setdomainname, R_DEC, A_PTR, A_INT),
    S(syslog, R_DEC, A_INT, A_PTR, A_INT),
};

/* The calls that may wait (for input or room, a futex, a child, a signal, time; and
 * disk_io's, below): a thread gives the run lock up while it makes one, so that the
 * others run on (threads.h). What their handlers touch is the guest's memory and the
 * thread's own state. */
#define B(nr) [X64_NR_##nr] = true
static const bool may_wait[X64_NR_COUNT] = {
    B(read), B(readv), B(pread64), B(preadv), B(preadv2), B(write), B(writev), B(pwrite64),
    B(pwritev), B(pwritev2), B(sendfile), B(splice), B(tee), B(vmsplice), B(poll), B(ppoll),
    B(select), B(pselect6), B(epoll_wait), B(epoll_pwait), B(epoll_pwait2), B(futex), B(nanosleep),
    B(clock_nanosleep), B(pause), B(rt_sigsuspend), B(rt_sigtimedwait), B(wait4), B(waitid),
    B(accept), B(accept4), B(connect), B(recvfrom), B(recvmsg), B(recvmmsg), B(sendto),
    B(sendmsg), B(sendmmsg), B(msgrcv), B(msgsnd), B(semop), B(semtimedop), B(flock),
    B(mq_timedsend), B(mq_timedreceive), B(futex_waitv),
    B(sched_yield),
};
/* Under --deterministic's turns (turns.h), futexes are kept by the turns, which a wait
 * hands on, and these give the turn to the next thread after they return: the sleeps,
 * which pass at once on the virtual clock and so keep the run lock, and a wait for a
 * signal, which may pass time to a timer's the same way (else the waiter would run
 * through many periods of a timer before the threads its signals start). */
static const bool sleeps_virtually[X64_NR_COUNT] = {B(sched_yield), B(nanosleep), B(clock_nanosleep)};
static const bool yields_turn[X64_NR_COUNT] = {B(sched_yield), B(nanosleep), B(clock_nanosleep),
                                               B(rt_sigtimedwait)};
/* Under turns, these keep the turn on a regular file or a block device (on_file): such a
 * call waits for nobody, but on a loaded host it may sleep past turns.c's GRACE_MS (seen
 * under qemu-user with the test suite running beside it), which would hand the turn on
 * at a moment the host chose. */
static const bool fd_io[X64_NR_COUNT] = {
    B(read), B(readv), B(pread64), B(preadv), B(preadv2),
    B(write), B(writev), B(pwrite64), B(pwritev), B(pwritev2),
};
/* The calls that wait for the disk alone: they give the run lock up too, but under turns
 * keep the turn always. */
static const bool disk_io[X64_NR_COUNT] = {
    B(fsync), B(fdatasync), B(syncfs), B(sync), B(sync_file_range), B(fallocate),
    B(copy_file_range),
};
#undef B

static bool on_file(uint64_t fd) {
  struct stat st;
  return fstat(arg_fd(fd), &st) == 0 && (S_ISREG(st.st_mode) || S_ISBLK(st.st_mode));
}

/* The call's arguments as the host kernel is to see them.
 *
 * Its path arguments (A_PATH in its signature) are read into buffers of this thread, and
 * the handler gets those: the host kernel then reads no guest memory for a path, and a
 * path that is not in the guest's memory is EFAULT, one too long ENAMETOOLONG, as the
 * kernel's. With a sysroot, a path that names something under it names that instead;
 * under --deterministic, /proc/1000 is the process's own entry. A null path stays null:
 * the calls that allow one decide.
 *
 * A descriptor (A_FD, A_DIRFD) that is x64emu's own becomes NOT_A_FD, so that the call
 * fails where and as it would on a number the guest has not opened, and its entry in
 * /proc/self/fd is missing (own_fds.h). */
enum { MAX_PATHS = 2 };
static int64_t args_from_guest(Cpu *c, const SysEntry *e, uint64_t args[6]) {
  static __thread char given[MAX_PATHS][PATH_MAX], found[MAX_PATHS][PATH_MAX];
  const char *sysroot = proc_of(c)->opt.sysroot;
  unsigned n = 0;
  int dirfd = X64_AT_FDCWD; /* the directory a path is relative to: the A_DIRFD before it */
  for (unsigned i = 0; i < 6 && e->sig.arg[i] != A_END; i++) {
    if ((e->sig.arg[i] == A_FD || e->sig.arg[i] == A_DIRFD) && own_fd(arg_fd(args[i]))) args[i] = NOT_A_FD;
    if (e->sig.arg[i] == A_DIRFD) dirfd = arg_fd(args[i]);
    if (e->sig.arg[i] != A_PATH || !args[i]) continue;
    if (n == MAX_PATHS) return -EINVAL; /* no call has more: the table is wrong */
    int64_t r = guest_read_str(c, given[n], sizeof given[n], args[i]);
    if (r < 0) return r;
    if (path_own_fd(dirfd, given[n])) return -ENOENT;
    if (det_proc_path(c, given[n], found[n], sizeof found[n])) strcpy(given[n], found[n]);
    const char *path = sysroot && sysroot_lookup(sysroot, given[n], found[n]) ? found[n] : given[n];
    args[i] = (uint64_t)(uintptr_t)path;
    n++;
  }
  return 0;
}

/* The thread count changes only under the run lock, which this thread holds. */
bool syscall_others_run(const Cpu *c) { return proc_of(c)->threads.n > 1; }

bool syscall_wait_begin(Cpu *c) {
  if (!syscall_others_run(c)) return false;
  threads_leave(c);
  return true;
}

void syscall_wait_end(Cpu *c, bool began) {
  if (began) threads_enter(c);
}

void syscall_dispatch(Cpu *c) {
  /* The kernel takes the number as an int: the upper half of RAX is ignored. */
  const uint64_t nr = (uint32_t)c->r[RAX];
  uint64_t args[6] = {c->r[RDI], c->r[RSI], c->r[RDX], c->r[R10], c->r[R8], c->r[R9]};
  const SysEntry *e = nr < X64_NR_COUNT && table[nr].fn ? &table[nr] : NULL;
  const bool trace = proc_of(c)->opt.strace;
  uint64_t *counts = proc_of(c)->opt.syscall_counts;
  if (counts) counts[nr < X64_NR_COUNT ? nr : X64_NR_COUNT]++;
  if (trace) strace_begin(c, nr, e ? &e->sig : NULL, args);
  int64_t ret;
  switch (seccomp_check(c, nr, args, &ret)) {
  case SECCOMP_CALL: break;
  case SECCOMP_RETURN:
    c->r[RAX] = (uint64_t)ret;
    if (trace) strace_end(ret);
    return;
  case SECCOMP_STOPPED:
    if (trace) strace_end(-ENOSYS);
    return;
  }
  ret = e ? args_from_guest(c, e, args) : -ENOSYS;
  const bool turns = turns_on(c);
  const bool release =
      nr < X64_NR_COUNT &&
      ((may_wait[nr] && !(turns && (nr == X64_NR_futex || nr == X64_NR_futex_waitv || sleeps_virtually[nr] ||
                                    (fd_io[nr] && on_file(args[0]))))) ||
       (disk_io[nr] && !turns));
  const bool released = release && syscall_wait_begin(c);
  if (ret == 0) ret = e->fn(c, args);
  syscall_wait_end(c, released);
  if (turns && nr < X64_NR_COUNT && yields_turn[nr]) turns_yield(c);
  c->r[RAX] = (uint64_t)ret;
  if (ret == -EINTR) signals_syscall_interrupted(c, nr);
  if (trace) strace_end(ret);
}
