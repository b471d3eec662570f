/* own_fds.h: the descriptors x64emu keeps for itself in the process the guest runs in.
 *
 * The guest and x64emu share one descriptor table, the host process's. The kernel hands
 * the guest the lowest free numbers and lets it name any other, so x64emu's own files
 * (the trace, gdb's connection, its own executable after a chroot, a vfork's socket, the
 * deterministic timerfds' wake ends) live at OWN_FD_BASE and above, and the guest never
 * reaches them: a call that names one fails as for a closed descriptor (the system call
 * layer passes NOT_A_FD instead), close_range passes over them, dup2 or dup3 onto one
 * first moves x64emu's elsewhere, as if the number had been free, /proc/self/fd neither
 * lists nor finds them (proc_self.h), and in poll's array, select's sets and SCM_RIGHTS
 * they are closed descriptors too (POLLNVAL, EBADF).
 *
 * Each is kept with its holder, the int that x64emu reads it from, which a move updates.
 * The table is changed only by system calls, under the machine's lock, and before the
 * guest runs; it is one per host process, as the descriptor table is (a forked child
 * has a copy of both). */
#ifndef X64EMU_OWN_FDS_H
#define X64EMU_OWN_FDS_H

#include <limits.h>
#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { OWN_FD_BASE = 512 };

/* A number no descriptor has: what the guest's calls get in place of one of x64emu's. */
#define NOT_A_FD INT_MAX

/* Makes *holder x64emu's: moved to OWN_FD_BASE or above (close-on-exec) unless there
 * already, and remembered with holder (a descriptor already kept moves to the new
 * holder). */
void own_fd_keep(int *holder);

/* Closes *holder's descriptor, forgets it and sets *holder to -1. */
void own_fd_close(int *holder);

/* Whether fd is one of x64emu's own. */
bool own_fd(int fd);

/* Whether x64emu keeps any descriptor of its own. */
bool own_fds_any(void);

/* Before the guest's dup2 or dup3 makes fd its own: one of x64emu's there moves to
 * another number first. 0, or -errno when it cannot move. */
int own_fd_make_room(int fd);

/* The guest's close_range(first, last, flags) without x64emu's own: 0 or -errno. */
int64_t own_fds_close_range(unsigned first, unsigned last, unsigned flags);

/* poll's n entries as the kernel is to see them: fds itself, or when they name any of
 * x64emu's own, a copy where those are NOT_A_FD (POLLNVAL); own_fds_polled_done then
 * gives the copy's results back to fds. */
struct pollfd *own_fds_polled(struct pollfd *fds, size_t n);
void own_fds_polled_done(struct pollfd *fds, struct pollfd *shown, size_t n);

/* Whether select's sets (each NULL or nfds bits) name one of x64emu's own: the kernel's
 * EBADF. */
bool own_fd_selected(int nfds, void *const sets[3]);

/* For a message's control data of len bytes whose SCM_RIGHTS name any of x64emu's own: a
 * copy (the caller's to free) in which they are NOT_A_FD (EBADF); else NULL. */
void *own_fds_sent(const void *control, size_t len);

#endif
