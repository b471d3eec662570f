/* capstone_lib.h: Capstone, loaded the first time x64emu needs it. */
#ifndef X64EMU_CAPSTONE_LIB_H
#define X64EMU_CAPSTONE_LIB_H

#include <capstone/capstone.h>
#include <stdbool.h>

/* The instruction table gives the length of every instruction x64emu runs, so most runs
 * never ask Capstone anything; linked at start-up, its library's 77,000 relocations were
 * a third of x64emu's start-up time. It is opened (dlopen) at the first question instead:
 * the length of bytes no row takes, disassembly text, its version. */
typedef struct CapstoneLib {
  typeof(cs_open) *open;
  typeof(cs_close) *close;
  typeof(cs_malloc) *malloc;
  typeof(cs_free) *free;
  typeof(cs_disasm_iter) *disasm_iter;
  typeof(cs_version) *version;
} CapstoneLib;

/* The library's functions, or NULL (once said on stderr) when it cannot be loaded.
 * Any thread may ask. */
const CapstoneLib *capstone_lib(void);

#endif
