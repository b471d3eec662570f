/* fuzz_decode.c: libFuzzer target for the decoder: any bytes in an executable page decode
 * into a block (ending at an invalid or unimplemented instruction where there is one),
 * never a crash or a sanitizer report. The page is guest memory of a bare machine. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "decoder/block.h"
#include "interp/machine.h"

enum { PAGE = 4096 };
/* High in the user address space, clear of AddressSanitizer's shadow memory and heap. */
static const uint64_t AT = 0x500000000000ull;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static Machine m;
  static uint8_t *code;
  if (!code) {
    void *at = mmap((void *)(uintptr_t)AT, 2 * PAGE, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    if (at == MAP_FAILED || !machine_init(&m)) abort(); /* nothing would be fuzzed */
    code = at;
    ranges_add(&m.mem, AT, AT + 2 * PAGE, GUEST_PROT_READ | GUEST_PROT_EXEC);
    m.code.exec_map = &m.mem;
  }
  /* The bytes end the first page, so that decoding runs into the second (zeros). */
  size_t n = size < PAGE ? size : PAGE;
  memset(code, 0, 2 * PAGE);
  memcpy(code + PAGE - n, data, n);
  block_flush_all(&m.code);
  block_get(&m.code, AT + PAGE - n);
  return 0;
}
