/* gdb_target.h: the target description the gdb stub serves (qXfer:features:read of
 * target.xml): an x86-64 GNU/Linux target with the general registers, RIP and eflags,
 * the segment selectors, ST0-7 and the x87 control registers, XMM0-15 and MXCSR, the
 * FS and GS bases and orig_rax, numbered 0..GDB_REGS - 1 in that order, which is the
 * order of the stub's 'g' packet. */
#ifndef X64EMU_GDB_TARGET_H
#define X64EMU_GDB_TARGET_H

enum { GDB_REGS = 60 };

/* The XML, NUL-terminated; made on the first call. */
const char *gdb_target_xml(void);

#endif
