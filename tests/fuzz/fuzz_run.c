/* fuzz_run.c: libFuzzer target for the decoder and the interpreter together, through the
 * public API: the bytes are code in a bare machine's memory (one page of code, one of
 * data and stack), run for at most 64 instructions from registers that point into the
 * data page. Faults, system calls and invalid instructions stop the run; none may crash
 * x64emu or give a sanitizer report. (Guest stores are not checked against the host's
 * memory, the threat model in the README says: code that builds an address of its own
 * may reach the fuzzer's. Where the pages are makes that unlikely, not impossible; run.sh
 * runs it without address randomization and without feeding the fuzzer's own compared
 * values back as inputs, so that a run at one commit always meets the same addresses.)
 * RDTSC reads the virtual clock of --deterministic (the instruction count), so that no
 * address depends on the time. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "x64emu/x64emu.h"

enum { PAGE = 4096 };
/* Near the top of the user address space, 2^40 below the libraries and the stack, and
 * clear of AddressSanitizer's shadow memory and heap: a register plus a displacement stays
 * far from anything mapped, and the sum of two registers is non-canonical (a #GP). */
static const uint64_t CODE = 0x7e0000000000ull, DATA = CODE + 16 * PAGE;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  x64emu *m;
  if (x64emu_open(&m) != X64EMU_OK) return 0;
  m->m->virtual_tsc = true;
  if (x64emu_mem_map(m, CODE, PAGE, X64EMU_PROT_READ | X64EMU_PROT_EXEC) != X64EMU_OK ||
      x64emu_mem_map(m, DATA, PAGE, X64EMU_PROT_READ | X64EMU_PROT_WRITE) != X64EMU_OK)
    abort(); /* nothing would be fuzzed */
  {
    x64emu_mem_write(m, CODE, data, size < PAGE ? size : PAGE);
    for (int r = X64EMU_REG_RAX; r <= X64EMU_REG_R15; r++) {
      uint64_t v = DATA + (uint64_t)r * 128;
      x64emu_reg_write(m, r, &v);
    }
    uint64_t rip = CODE;
    x64emu_reg_write(m, X64EMU_REG_RIP, &rip);
    x64emu_stop stop;
    x64emu_run(m, 0, 64, &stop);
  }
  x64emu_close(m);
  return 0;
}
