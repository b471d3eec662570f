/* gdbstub.h: -g PORT / --gdb=PORT, QEMU's way: the program waits before its first
 * instruction for gdb (`target remote :PORT`) on the loopback interface, then runs under
 * its commands: registers, memory, stepi, continue, breakpoints, kill, detach. */
#ifndef X64EMU_GDBSTUB_H
#define X64EMU_GDBSTUB_H

#include "interp/cpu.h"

/* Serves one gdb connection on 127.0.0.1:port for the program on c (exe_path is what
 * gdb is told to load), until the program ends or gdb kills or detaches; a detached
 * program runs to its end. Returns 0, or -1 with a message on stderr when the port
 * cannot be listened on. */
int gdb_serve(Cpu *c, int port, const char *exe_path);

#endif
