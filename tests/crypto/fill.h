/* fill.h: the crypto guest programs' deterministic inputs (header-only: each program is
 * one file and this header, built with a plain compiler command). */
#ifndef CRYPTO_FILL_H
#define CRYPTO_FILL_H

#include <stddef.h>
#include <stdint.h>

/* Deterministic bytes (a 64-bit LCG), different for each seed. */
static void fill(uint8_t *p, size_t n, uint64_t seed) {
  uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
  for (size_t i = 0; i < n; i++) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    p[i] = (uint8_t)(x >> 56);
  }
}

#endif
