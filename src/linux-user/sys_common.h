/* sys_common.h: what the syscall group files share: the handler type, results, guest copies. */
#ifndef X64EMU_SYS_COMMON_H
#define X64EMU_SYS_COMMON_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../interp/cpu.h"
#include "process.h"
#include "sys_nr.h"

/* One guest system call: a[0..5] are rdi, rsi, rdx, r10, r8, r9; returns the value for
 * rax, or -errno. */
typedef int64_t (*SysFn)(Cpu *c, const uint64_t *a);

/* Guest addresses are host addresses (DESIGN.md): a guest pointer is passed on as is,
 * once guest_area or guest_prefix has found it the guest's. */
#define GUEST_PTR(x) ((void *)(uintptr_t)(x))

/* The result of a host call that returns -1 with errno. Host errno values are the guest's:
 * x86-64, aarch64 and riscv64 all use asm-generic/errno.h. */
static inline int64_t host_result(long r) { return r < 0 ? -(int64_t)errno : (int64_t)r; }

/* x86-64 AT_FDCWD and the *at() flags: the same numbers on every Linux architecture. */
#define X64_AT_FDCWD (-100)
#define X64_AT_SYMLINK_NOFOLLOW 0x100
#define X64_AT_EMPTY_PATH 0x1000

/* The kernel's sigset_t is 8 bytes on x86-64: every call that takes one checks the size
 * it is told. */
#define X64_SIGSET_SIZE 8

/* The guest's file descriptor or dirfd argument (an int in the kernel ABI). */
static inline int arg_fd(uint64_t v) { return (int)(int32_t)v; }

/* ---- the guest's memory as a system call reaches it ----
 *
 * Guest addresses are host addresses, and so are the emulator's own: every buffer a call
 * reads (GUEST_PROT_READ) or writes (GUEST_PROT_WRITE) for the guest must first be found
 * in the guest's mappings with that access (Machine.mem), or the call fails with EFAULT,
 * as the kernel's would on memory the process does not have. */

/* How much of [addr, addr + len), from addr on, is the guest's with access: the length
 * the kernel's copy would reach before it faulted. */
uint64_t guest_prefix(Cpu *c, uint64_t addr, uint64_t len, int access);

/* What the host kernel is given for a guest address that is not the guest's, where the
 * kernel checks other things first (descriptors, flags, sizes, whether data is there):
 * the address itself where it is in the kernel's half, which the kernel refuses as it
 * would the guest's; else an address in an area of x64emu's own that nothing may read or
 * write, with addr's place within its page (the kernel checks alignments), on which the
 * kernel's copies fault where they would on the guest's unmapped memory. */
void *refused_by_kernel(uint64_t addr);

/* For a transfer of up to len bytes at addr (read, write, recv...): the host pointer, with
 * in *room as many bytes as are the guest's with access; when none are (and len is not 0),
 * refused_by_kernel(addr) for all len, whose fault the kernel then reports in its order. */
void *guest_transfer(Cpu *c, uint64_t addr, uint64_t len, int access, size_t *room);

/* Whether all of [addr, addr + len) is the guest's with access; then *host is the host
 * pointer for it. A null addr passes as NULL, for the calls that take one (the host
 * kernel answers the others with EFAULT itself), and so does len 0. Otherwise *host is
 * refused_by_kernel(addr): a call that hands it straight to the kernel need not check,
 * and gets the kernel's errors in the kernel's order. */
bool guest_area(Cpu *c, uint64_t addr, uint64_t len, int access, void **host);


/* The guest's array of cnt struct iovec at addr, for a transfer that reads (GUEST_PROT_READ)
 * or writes (GUEST_PROT_WRITE) the memory they name: the array to give the host call, with
 * its count in *n. Mostly out[IOV_MAX], the host iovecs: a segment not wholly the guest's
 * is cut where it stops being so and the rest dropped, where the kernel's transfer would
 * stop (with no byte before it, it is kept whole and refused, so the kernel's fault comes
 * in its order). An array the kernel would not take (more than IOV_MAX, or not the
 * guest's) is refused_by_kernel(addr) with the guest's count, which the kernel refuses
 * with EINVAL or EFAULT after its earlier checks (a bad descriptor's EBADF). */
struct iovec;
const struct iovec *guest_iovec(Cpu *c, uint64_t addr, uint64_t cnt, int access,
                                struct iovec *out, uint64_t *n);

/* Copies between guest and host memory, returning -EFAULT (not a guest SIGSEGV) when the
 * guest passed a bad pointer, as the kernel does. */
int guest_copy_out(Cpu *c, uint64_t dst, const void *src, size_t n);
int guest_copy_in(Cpu *c, void *dst, uint64_t src, size_t n);
/* A buffer a receiving call (msgrcv, mq_timedreceive) has the kernel fill: the guest's own
 * [addr, addr + *len) when it is all the guest's, else one of the emulator's no longer
 * than the longest message (*len cut to `most`), whose received bytes recv_buf_done copies
 * out: the kernel copies only the message, so a buffer that ends early still receives a
 * short one, and EFAULT there loses the message as the kernel's copy does. NULL when no
 * buffer could be had (-ENOMEM). */
typedef struct {
  uint64_t guest;
  void *bounce;
} RecvBuf;
void *recv_buf_open(Cpu *c, RecvBuf *b, uint64_t addr, size_t *len, size_t most);
/* Ends the receive of n bytes (a negative n, the call's error, passes through). */
int64_t recv_buf_done(Cpu *c, RecvBuf *b, int64_t n);
/* The length of the NUL-terminated guest string at addr, found whole in the guest's
 * readable memory within max bytes: -EFAULT where it leaves that memory, -E2BIG when it
 * is longer. */
int64_t guest_strlen(Cpu *c, uint64_t addr, size_t max);
/* Reads a NUL-terminated guest string into dst[cap]: its length, -EFAULT or -ENAMETOOLONG. */
int64_t guest_read_str(Cpu *c, char *dst, size_t cap, uint64_t src);

/* A path argument of a call (A_PATH in its signature): syscall.c has read it from the
 * guest into host memory, and found it in the sysroot; NULL when the guest passed none. */
#define PATH_ARG(x) ((const char *)(uintptr_t)(x))

/* Which of this process's /proc/self entries that must show the guest, not the emulator
 * (proc_self.c), the path (relative to dirfd) names, under any of the kernel's names for
 * them (/proc/<pid>/, /proc/thread-self/...): "exe", "maps", "smaps", "mem", or NULL. */
const char *path_self_entry(int dirfd, const char *path);
static inline bool path_names_self_exe(int dirfd, const char *path) {
  const char *entry = path_self_entry(dirfd, path);
  return entry && !strcmp(entry, "exe");
}

/* Translations of the x86-64 open(2) flags, which differ from aarch64's (O_DIRECTORY...). */
int open_flags_to_host(uint64_t x64_flags);

uint64_t open_flags_from_host(int host_flags);

/* The ioctl requests the shim knows (sys_fd.c): their names, or NULL. */
const char *ioctl_name(uint32_t req);

/* vfork: natively the child writes into its parent's memory until it execs or exits,
 * while the parent's other threads go on writing it too. The child here is a copy, which
 * notes its pages as they were at the fork (guest_mem_note_pages); before it execs or
 * exits it lists those it changed since (guest_mem_changed_pages) and stops
 * (vfork_child_sync), and the waiting parent copies those pages alone
 * (guest_mem_take_pages), leaving the rest as its threads left them. */
void vfork_child_sync(Cpu *c);
void guest_mem_note_pages(Cpu *c);
size_t guest_mem_changed_pages(Cpu *c, uint64_t **pages);
void guest_mem_take_pages(int child_pid, const uint64_t *pages, size_t n);

/* The run lock around a host call that may wait for another of the guest's threads in
 * cases only its handler tells apart (a FIFO's open, a lock's wait): given up as the
 * dispatcher gives it up for the calls that may always wait (syscall.c), so that the
 * thread the call waits for can run. Between the two, the handler touches the guest's
 * memory and its own thread's state only. */
bool syscall_wait_begin(Cpu *c);
void syscall_wait_end(Cpu *c, bool began);
/* Whether c's process has other threads (that a call of c's may wait for). */
bool syscall_others_run(const Cpu *c);

/* The x86-64 name of a system call number, or NULL (sys_names.c). */
const char *x64_syscall_name(uint64_t nr);

/* ---- the handlers, by group file ---- */

/* sys_io.c: reading and writing file descriptors, polling */
int64_t sys_process_vm_readv(Cpu *c, const uint64_t *a);
int64_t sys_process_vm_writev(Cpu *c, const uint64_t *a);
int64_t sys_read(Cpu *c, const uint64_t *a);
int64_t sys_write(Cpu *c, const uint64_t *a);
int64_t sys_readv(Cpu *c, const uint64_t *a);
int64_t sys_writev(Cpu *c, const uint64_t *a);
int64_t sys_pread64(Cpu *c, const uint64_t *a);
int64_t sys_pwrite64(Cpu *c, const uint64_t *a);
int64_t sys_preadv(Cpu *c, const uint64_t *a);
int64_t sys_pwritev(Cpu *c, const uint64_t *a);
int64_t sys_preadv2(Cpu *c, const uint64_t *a);
int64_t sys_pwritev2(Cpu *c, const uint64_t *a);
int64_t sys_lseek(Cpu *c, const uint64_t *a);
int64_t sys_sendfile(Cpu *c, const uint64_t *a);
int64_t sys_copy_file_range(Cpu *c, const uint64_t *a);
int64_t sys_getdents64(Cpu *c, const uint64_t *a);
int64_t sys_getdents(Cpu *c, const uint64_t *a);
int64_t sys_poll(Cpu *c, const uint64_t *a);
int64_t sys_ppoll(Cpu *c, const uint64_t *a);
int64_t sys_select(Cpu *c, const uint64_t *a);
int64_t sys_pselect6(Cpu *c, const uint64_t *a);
int64_t sys_fsync(Cpu *c, const uint64_t *a);
int64_t sys_fdatasync(Cpu *c, const uint64_t *a);
int64_t sys_syncfs(Cpu *c, const uint64_t *a);
int64_t sys_sync_file_range(Cpu *c, const uint64_t *a);
int64_t sys_readahead(Cpu *c, const uint64_t *a);
int64_t sys_splice(Cpu *c, const uint64_t *a);
int64_t sys_tee(Cpu *c, const uint64_t *a);
int64_t sys_vmsplice(Cpu *c, const uint64_t *a);
int64_t sys_ftruncate(Cpu *c, const uint64_t *a);
int64_t sys_fadvise64(Cpu *c, const uint64_t *a);
int64_t sys_fallocate(Cpu *c, const uint64_t *a);

/* sys_fd.c: opening, duplicating and controlling file descriptors */
int64_t sys_open(Cpu *c, const uint64_t *a);
int64_t sys_openat(Cpu *c, const uint64_t *a);
int64_t sys_openat2(Cpu *c, const uint64_t *a);
int64_t sys_creat(Cpu *c, const uint64_t *a);
int64_t sys_close(Cpu *c, const uint64_t *a);
int64_t sys_close_range(Cpu *c, const uint64_t *a);
int64_t sys_pipe(Cpu *c, const uint64_t *a);
int64_t sys_pipe2(Cpu *c, const uint64_t *a);
int64_t sys_memfd_create(Cpu *c, const uint64_t *a);
int64_t sys_eventfd(Cpu *c, const uint64_t *a);
int64_t sys_eventfd2(Cpu *c, const uint64_t *a);
int64_t sys_inotify_init(Cpu *c, const uint64_t *a);
int64_t sys_inotify_init1(Cpu *c, const uint64_t *a);
int64_t sys_inotify_add_watch(Cpu *c, const uint64_t *a);
int64_t sys_inotify_rm_watch(Cpu *c, const uint64_t *a);
int64_t sys_dup(Cpu *c, const uint64_t *a);
int64_t sys_dup2(Cpu *c, const uint64_t *a);
int64_t sys_dup3(Cpu *c, const uint64_t *a);
int64_t sys_fcntl(Cpu *c, const uint64_t *a);
int64_t sys_flock(Cpu *c, const uint64_t *a);
int64_t sys_ioctl(Cpu *c, const uint64_t *a);
int64_t sys_fchmod(Cpu *c, const uint64_t *a);
int64_t sys_fchown(Cpu *c, const uint64_t *a);
int64_t sys_fchdir(Cpu *c, const uint64_t *a);

/* sys_stat.c: the stat family, in the x86-64 layouts */
int64_t sys_stat(Cpu *c, const uint64_t *a);
int64_t sys_fstat(Cpu *c, const uint64_t *a);
int64_t sys_lstat(Cpu *c, const uint64_t *a);
int64_t sys_newfstatat(Cpu *c, const uint64_t *a);
int64_t sys_statx(Cpu *c, const uint64_t *a);
int64_t sys_statfs(Cpu *c, const uint64_t *a);
int64_t sys_getxattr(Cpu *c, const uint64_t *a);
int64_t sys_lgetxattr(Cpu *c, const uint64_t *a);
int64_t sys_fgetxattr(Cpu *c, const uint64_t *a);
int64_t sys_listxattr(Cpu *c, const uint64_t *a);
int64_t sys_llistxattr(Cpu *c, const uint64_t *a);
int64_t sys_flistxattr(Cpu *c, const uint64_t *a);
int64_t sys_setxattr(Cpu *c, const uint64_t *a);
int64_t sys_lsetxattr(Cpu *c, const uint64_t *a);
int64_t sys_fsetxattr(Cpu *c, const uint64_t *a);
int64_t sys_removexattr(Cpu *c, const uint64_t *a);
int64_t sys_lremovexattr(Cpu *c, const uint64_t *a);
int64_t sys_fremovexattr(Cpu *c, const uint64_t *a);
int64_t sys_fstatfs(Cpu *c, const uint64_t *a);

/* sys_path.c: calls that name files by path */
int64_t sys_access(Cpu *c, const uint64_t *a);
int64_t sys_faccessat(Cpu *c, const uint64_t *a);
int64_t sys_faccessat2(Cpu *c, const uint64_t *a);
int64_t sys_readlink(Cpu *c, const uint64_t *a);
int64_t sys_readlinkat(Cpu *c, const uint64_t *a);
int64_t sys_mkdir(Cpu *c, const uint64_t *a);
int64_t sys_mkdirat(Cpu *c, const uint64_t *a);
int64_t sys_mknod(Cpu *c, const uint64_t *a);
int64_t sys_mknodat(Cpu *c, const uint64_t *a);
int64_t sys_rmdir(Cpu *c, const uint64_t *a);
int64_t sys_unlink(Cpu *c, const uint64_t *a);
int64_t sys_unlinkat(Cpu *c, const uint64_t *a);
int64_t sys_rename(Cpu *c, const uint64_t *a);
int64_t sys_renameat(Cpu *c, const uint64_t *a);
int64_t sys_renameat2(Cpu *c, const uint64_t *a);
int64_t sys_link(Cpu *c, const uint64_t *a);
int64_t sys_linkat(Cpu *c, const uint64_t *a);
int64_t sys_symlink(Cpu *c, const uint64_t *a);
int64_t sys_symlinkat(Cpu *c, const uint64_t *a);
int64_t sys_chmod(Cpu *c, const uint64_t *a);
int64_t sys_fchmodat(Cpu *c, const uint64_t *a);
int64_t sys_fchmodat2(Cpu *c, const uint64_t *a);
int64_t sys_chown(Cpu *c, const uint64_t *a);
int64_t sys_lchown(Cpu *c, const uint64_t *a);
int64_t sys_fchownat(Cpu *c, const uint64_t *a);
int64_t sys_utimensat(Cpu *c, const uint64_t *a);
int64_t sys_utimes(Cpu *c, const uint64_t *a);
int64_t sys_futimesat(Cpu *c, const uint64_t *a);
int64_t sys_utime(Cpu *c, const uint64_t *a);
int64_t sys_truncate(Cpu *c, const uint64_t *a);
int64_t sys_getcwd(Cpu *c, const uint64_t *a);
int64_t sys_chdir(Cpu *c, const uint64_t *a);
int64_t sys_chroot(Cpu *c, const uint64_t *a);
int64_t sys_name_to_handle_at(Cpu *c, const uint64_t *a);
int64_t sys_open_by_handle_at(Cpu *c, const uint64_t *a);
int64_t sys_umask(Cpu *c, const uint64_t *a);
int64_t sys_sync(Cpu *c, const uint64_t *a);

/* sys_mem.c: the guest's address space */
int64_t sys_mmap(Cpu *c, const uint64_t *a);
int64_t sys_munmap(Cpu *c, const uint64_t *a);
int64_t sys_mprotect(Cpu *c, const uint64_t *a);
int64_t sys_mremap(Cpu *c, const uint64_t *a);
int64_t sys_madvise(Cpu *c, const uint64_t *a);
int64_t sys_msync(Cpu *c, const uint64_t *a);
int64_t sys_mincore(Cpu *c, const uint64_t *a);
int64_t sys_mlock(Cpu *c, const uint64_t *a);
int64_t sys_munlock(Cpu *c, const uint64_t *a);
int64_t sys_mlockall(Cpu *c, const uint64_t *a);
int64_t sys_munlockall(Cpu *c, const uint64_t *a);
int64_t sys_shmat(Cpu *c, const uint64_t *a);
int64_t sys_shmdt(Cpu *c, const uint64_t *a);
/* NUMA memory policy (sys_numa.c) */
int64_t sys_set_mempolicy(Cpu *c, const uint64_t *a);
int64_t sys_get_mempolicy(Cpu *c, const uint64_t *a);
int64_t sys_mbind(Cpu *c, const uint64_t *a);
int64_t sys_set_mempolicy_home_node(Cpu *c, const uint64_t *a);
int64_t sys_migrate_pages(Cpu *c, const uint64_t *a);
int64_t sys_move_pages(Cpu *c, const uint64_t *a);

/* sys_mqueue.c: POSIX message queues */
int64_t sys_mq_open(Cpu *c, const uint64_t *a);
int64_t sys_mq_unlink(Cpu *c, const uint64_t *a);
int64_t sys_mq_timedsend(Cpu *c, const uint64_t *a);
int64_t sys_mq_timedreceive(Cpu *c, const uint64_t *a);
int64_t sys_mq_notify(Cpu *c, const uint64_t *a);
int64_t sys_mq_getsetattr(Cpu *c, const uint64_t *a);

/* sys_ipc.c: System V IPC */
int64_t sys_msgget(Cpu *c, const uint64_t *a);
int64_t sys_msgsnd(Cpu *c, const uint64_t *a);
int64_t sys_msgrcv(Cpu *c, const uint64_t *a);
int64_t sys_msgctl(Cpu *c, const uint64_t *a);
int64_t sys_semget(Cpu *c, const uint64_t *a);
int64_t sys_semop(Cpu *c, const uint64_t *a);
int64_t sys_semtimedop(Cpu *c, const uint64_t *a);
int64_t sys_semctl(Cpu *c, const uint64_t *a);
int64_t sys_shmget(Cpu *c, const uint64_t *a);
int64_t sys_shmctl(Cpu *c, const uint64_t *a);
int64_t sys_mlock2(Cpu *c, const uint64_t *a);
int64_t sys_brk(Cpu *c, const uint64_t *a);

/* sys_proc.c: process identity, life and death */
int64_t sys_pidfd_getfd(Cpu *c, const uint64_t *a);
int64_t sys_kcmp(Cpu *c, const uint64_t *a);
int64_t sys_unshare(Cpu *c, const uint64_t *a);
int64_t sys_setns(Cpu *c, const uint64_t *a);
int64_t sys_exit(Cpu *c, const uint64_t *a);
int64_t sys_exit_group(Cpu *c, const uint64_t *a);
int64_t sys_getpid(Cpu *c, const uint64_t *a);
int64_t sys_getppid(Cpu *c, const uint64_t *a);
int64_t sys_gettid(Cpu *c, const uint64_t *a);
int64_t sys_getuid(Cpu *c, const uint64_t *a);
int64_t sys_geteuid(Cpu *c, const uint64_t *a);
int64_t sys_getgid(Cpu *c, const uint64_t *a);
int64_t sys_getegid(Cpu *c, const uint64_t *a);
int64_t sys_getresuid(Cpu *c, const uint64_t *a);
int64_t sys_getresgid(Cpu *c, const uint64_t *a);
int64_t sys_getgroups(Cpu *c, const uint64_t *a);
int64_t sys_setgroups(Cpu *c, const uint64_t *a);
int64_t sys_setuid(Cpu *c, const uint64_t *a);
int64_t sys_setgid(Cpu *c, const uint64_t *a);
int64_t sys_setreuid(Cpu *c, const uint64_t *a);
int64_t sys_setregid(Cpu *c, const uint64_t *a);
int64_t sys_setresuid(Cpu *c, const uint64_t *a);
int64_t sys_setresgid(Cpu *c, const uint64_t *a);
int64_t sys_setfsuid(Cpu *c, const uint64_t *a);
int64_t sys_setfsgid(Cpu *c, const uint64_t *a);
int64_t sys_getpgrp(Cpu *c, const uint64_t *a);
int64_t sys_getpgid(Cpu *c, const uint64_t *a);
int64_t sys_setpgid(Cpu *c, const uint64_t *a);
int64_t sys_getsid(Cpu *c, const uint64_t *a);
int64_t sys_setsid(Cpu *c, const uint64_t *a);
int64_t sys_kill(Cpu *c, const uint64_t *a);
int64_t sys_tkill(Cpu *c, const uint64_t *a);
int64_t sys_tgkill(Cpu *c, const uint64_t *a);
int64_t sys_ptrace(Cpu *c, const uint64_t *a);
int64_t sys_pidfd_open(Cpu *c, const uint64_t *a);
int64_t sys_pidfd_send_signal(Cpu *c, const uint64_t *a);
int64_t sys_capget(Cpu *c, const uint64_t *a);
int64_t sys_capset(Cpu *c, const uint64_t *a);
int64_t sys_ioprio_get(Cpu *c, const uint64_t *a);
int64_t sys_ioprio_set(Cpu *c, const uint64_t *a);
int64_t sys_wait4(Cpu *c, const uint64_t *a);
int64_t sys_waitid(Cpu *c, const uint64_t *a);
int64_t sys_fork(Cpu *c, const uint64_t *a);
int64_t sys_vfork(Cpu *c, const uint64_t *a);
int64_t sys_clone(Cpu *c, const uint64_t *a);
int64_t sys_clone3(Cpu *c, const uint64_t *a);

/* sys_epoll.c */
int64_t sys_epoll_create(Cpu *c, const uint64_t *a);
int64_t sys_epoll_create1(Cpu *c, const uint64_t *a);
int64_t sys_epoll_ctl(Cpu *c, const uint64_t *a);
int64_t sys_epoll_wait(Cpu *c, const uint64_t *a);
int64_t sys_epoll_pwait(Cpu *c, const uint64_t *a);
int64_t sys_epoll_pwait2(Cpu *c, const uint64_t *a);
int64_t sys_arch_prctl(Cpu *c, const uint64_t *a);
int64_t sys_prctl(Cpu *c, const uint64_t *a);
int64_t sys_personality(Cpu *c, const uint64_t *a);
int64_t sys_set_tid_address(Cpu *c, const uint64_t *a);
int64_t sys_set_robust_list(Cpu *c, const uint64_t *a);
int64_t sys_get_robust_list(Cpu *c, const uint64_t *a);
int64_t sys_rseq(Cpu *c, const uint64_t *a);
int64_t sys_getpriority(Cpu *c, const uint64_t *a);
int64_t sys_setpriority(Cpu *c, const uint64_t *a);

/* sys_net.c: sockets */
int64_t sys_socket(Cpu *c, const uint64_t *a);
int64_t sys_socketpair(Cpu *c, const uint64_t *a);
int64_t sys_connect(Cpu *c, const uint64_t *a);
int64_t sys_bind(Cpu *c, const uint64_t *a);
int64_t sys_listen(Cpu *c, const uint64_t *a);
int64_t sys_accept(Cpu *c, const uint64_t *a);
int64_t sys_accept4(Cpu *c, const uint64_t *a);
int64_t sys_shutdown(Cpu *c, const uint64_t *a);
int64_t sys_getsockname(Cpu *c, const uint64_t *a);
int64_t sys_getpeername(Cpu *c, const uint64_t *a);
int64_t sys_setsockopt(Cpu *c, const uint64_t *a);
int64_t sys_getsockopt(Cpu *c, const uint64_t *a);
int64_t sys_sendto(Cpu *c, const uint64_t *a);
int64_t sys_recvfrom(Cpu *c, const uint64_t *a);
int64_t sys_sendmsg(Cpu *c, const uint64_t *a);
int64_t sys_recvmsg(Cpu *c, const uint64_t *a);
int64_t sys_sendmmsg(Cpu *c, const uint64_t *a);
int64_t sys_recvmmsg(Cpu *c, const uint64_t *a);

/* sys_exec.c */
int64_t sys_execve(Cpu *c, const uint64_t *a);
int64_t sys_execveat(Cpu *c, const uint64_t *a);

/* sys_time.c */
int64_t sys_clock_adjtime(Cpu *c, const uint64_t *a);
int64_t sys_adjtimex(Cpu *c, const uint64_t *a);
int64_t sys_clock_gettime(Cpu *c, const uint64_t *a);
int64_t sys_clock_getres(Cpu *c, const uint64_t *a);
int64_t sys_clock_nanosleep(Cpu *c, const uint64_t *a);
int64_t sys_gettimeofday(Cpu *c, const uint64_t *a);
int64_t sys_clock_settime(Cpu *c, const uint64_t *a);
int64_t sys_settimeofday(Cpu *c, const uint64_t *a);
int64_t sys_time(Cpu *c, const uint64_t *a);
int64_t sys_nanosleep(Cpu *c, const uint64_t *a);
int64_t sys_futex(Cpu *c, const uint64_t *a);
int64_t sys_futex_waitv(Cpu *c, const uint64_t *a);
int64_t sys_cachestat(Cpu *c, const uint64_t *a);
int64_t sys_membarrier(Cpu *c, const uint64_t *a);
int64_t sys_times(Cpu *c, const uint64_t *a);
int64_t sys_getrusage(Cpu *c, const uint64_t *a);

/* sys_info.c: the machine and the process's limits */
int64_t sys_sched_setattr(Cpu *c, const uint64_t *a);
int64_t sys_sched_getattr(Cpu *c, const uint64_t *a);
int64_t sys_sethostname(Cpu *c, const uint64_t *a);
int64_t sys_setdomainname(Cpu *c, const uint64_t *a);
int64_t sys_syslog(Cpu *c, const uint64_t *a);
int64_t sys_uname(Cpu *c, const uint64_t *a);
int64_t sys_sysinfo(Cpu *c, const uint64_t *a);
int64_t sys_getrandom(Cpu *c, const uint64_t *a);
int64_t sys_getrlimit(Cpu *c, const uint64_t *a);
int64_t sys_setrlimit(Cpu *c, const uint64_t *a);
int64_t sys_prlimit64(Cpu *c, const uint64_t *a);
int64_t sys_sched_getaffinity(Cpu *c, const uint64_t *a);
int64_t sys_sched_setaffinity(Cpu *c, const uint64_t *a);
int64_t sys_sched_yield(Cpu *c, const uint64_t *a);
int64_t sys_sched_getscheduler(Cpu *c, const uint64_t *a);
int64_t sys_sched_setscheduler(Cpu *c, const uint64_t *a);
int64_t sys_sched_getparam(Cpu *c, const uint64_t *a);
int64_t sys_sched_setparam(Cpu *c, const uint64_t *a);
int64_t sys_sched_get_priority_max(Cpu *c, const uint64_t *a);
int64_t sys_sched_get_priority_min(Cpu *c, const uint64_t *a);
int64_t sys_sched_rr_get_interval(Cpu *c, const uint64_t *a);
int64_t sys_getcpu(Cpu *c, const uint64_t *a);

/* sys_signal.c: dispositions, mask, waiting for signals, the alternate stack */
int64_t sys_rt_sigaction(Cpu *c, const uint64_t *a);
int64_t sys_rt_sigprocmask(Cpu *c, const uint64_t *a);
int64_t sys_rt_sigpending(Cpu *c, const uint64_t *a);
int64_t sys_rt_sigsuspend(Cpu *c, const uint64_t *a);
int64_t sys_rt_sigtimedwait(Cpu *c, const uint64_t *a);
int64_t sys_rt_sigqueueinfo(Cpu *c, const uint64_t *a);
int64_t sys_signalfd(Cpu *c, const uint64_t *a);
int64_t sys_signalfd4(Cpu *c, const uint64_t *a);
int64_t sys_rt_tgsigqueueinfo(Cpu *c, const uint64_t *a);
int64_t sys_pause(Cpu *c, const uint64_t *a);
int64_t sys_sigaltstack(Cpu *c, const uint64_t *a);
int64_t sys_rt_sigreturn(Cpu *c, const uint64_t *a);

/* sys_timer.c: alarm, interval timers, POSIX timers */
int64_t sys_alarm(Cpu *c, const uint64_t *a);
int64_t sys_getitimer(Cpu *c, const uint64_t *a);
int64_t sys_setitimer(Cpu *c, const uint64_t *a);
int64_t sys_timer_create(Cpu *c, const uint64_t *a);
int64_t sys_timer_settime(Cpu *c, const uint64_t *a);
int64_t sys_timer_gettime(Cpu *c, const uint64_t *a);
int64_t sys_timer_getoverrun(Cpu *c, const uint64_t *a);
int64_t sys_timer_delete(Cpu *c, const uint64_t *a);
int64_t sys_timerfd_create(Cpu *c, const uint64_t *a);
int64_t sys_timerfd_settime(Cpu *c, const uint64_t *a);
int64_t sys_timerfd_gettime(Cpu *c, const uint64_t *a);

#endif
