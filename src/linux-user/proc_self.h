/* proc_self.h: the guest's /proc/self: its maps, smaps and mem show and reach the guest's
 * mappings only, as QEMU's linux-user shows them, never the emulator's memory. */
#ifndef X64EMU_PROC_SELF_H
#define X64EMU_PROC_SELF_H

#include <stdbool.h>
#include <stdint.h>

#include "../interp/cpu.h"

/* open of a /proc/self entry that must show the guest (exe: the guest program; maps,
 * smaps: a snapshot of the guest's mappings in the kernel's format; mem: the real file,
 * remembered): true with the descriptor or -errno in *ret, false when path is none of
 * them. */
bool proc_self_open(Cpu *c, int dirfd, const char *path, int host_flags, int mode, int64_t *ret);

/* For a transfer of len bytes at file offset off (-1: the descriptor's own) on fd: when fd
 * is a /proc/self/mem the guest opened, the part the guest may reach there (its mapped
 * memory from off on, written or read), or -EIO where the kernel's would find nothing;
 * len itself for any other file. */
int64_t proc_mem_room(Cpu *c, int fd, int64_t off, uint64_t len);

/* Whether fd is a /proc/self/mem the guest opened (sendfile and copy_file_range, which
 * the kernel's file does not support, refuse it). */
bool proc_mem_file(Cpu *c, int fd);

/* After a write of len bytes at off through such a descriptor: code decoded from there
 * is dropped (the kernel's write bypasses the page protections x64emu watches code by). */
void proc_mem_written(Cpu *c, int fd, int64_t off, uint64_t len);

/* Whether dirfd and path name fd/N or fdinfo/N under the process's own /proc directory
 * for one of x64emu's own descriptors N (own_fds.h), which the guest's calls find missing
 * (ENOENT), as the kernel would. */
bool path_own_fd(int dirfd, const char *path);

/* len bytes of getdents64 records read from dirfd, without x64emu's own descriptors when
 * dirfd is the process's own fd or fdinfo directory: the length left. */
int64_t proc_self_fds_unlisted(int dirfd, void *records, int64_t len);

#endif
