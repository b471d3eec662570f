/* hex_block.h: 16-byte values typed in as the publications print them. */
#ifndef TEST_HEX_BLOCK_H
#define TEST_HEX_BLOCK_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

static unsigned hex_digit(char c) {
  return c <= '9' ? (unsigned)(c - '0') : (unsigned)((c | 0x20) - 'a' + 10);
}

/* 32 hex digits into 16 bytes: byte 0 first (AES states, keys and GCM blocks), or, with
 * byte15_first, as one 128-bit number (XMM registers in Intel's papers). */
static void hex_block(const char *hex, uint8_t out[16], bool byte15_first) {
  assert_int_equal(strlen(hex), 32);
  for (int i = 0; i < 16; i++)
    out[byte15_first ? 15 - i : i] =
        (uint8_t)(hex_digit(hex[2 * i]) << 4 | hex_digit(hex[2 * i + 1]));
}

#endif
