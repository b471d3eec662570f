/* sha_portable.c: the portable C tier of the SHA primitives, written from the Intel
 * SDM's pseudo-code for SHA1RNDS4, SHA1NEXTE, SHA1MSG1, SHA1MSG2, SHA256RNDS2,
 * SHA256MSG1 and SHA256MSG2, with the functions of FIPS 180-4 section 4.1.
 *
 * Lanes are named as the SDM names them. The SHA-1 instructions put the earliest word
 * (A, or W0) in the top dword, d[3]; SHA256MSG1 and SHA256MSG2 put it in the bottom
 * one, d[0]. Every function reads all its operands before it writes: out may be any of
 * them. */
#include "host_crypto.h"

static uint32_t rol(uint32_t x, unsigned n) { return x << n | x >> (32 - n); }

static uint32_t ror(uint32_t x, unsigned n) { return x >> n | x << (32 - n); }

/* ---- SHA-1 ---- */

/* FIPS 180-4 4.1.1 and 4.2.1: the function and constant of rounds 0-19, 20-39, 40-59
 * and 60-79, which SHA1RNDS4's immediate picks. */
static uint32_t sha1_f(unsigned f, uint32_t b, uint32_t c, uint32_t d) {
  switch (f) {
  case 0:
    return (b & c) ^ (~b & d); /* Ch */
  case 2:
    return (b & c) ^ (b & d) ^ (c & d); /* Maj */
  default:
    return b ^ c ^ d; /* Parity */
  }
}

static const uint32_t sha1_k[4] = {0x5a827999, 0x6ed9eba1, 0x8f1bbcdc, 0xca62c1d6};

/* Only the first of the four rounds takes E from the source (added to W0 by
 * SHA1NEXTE or the caller); the other three take it from the rotating state. */
void sha1_rnds4_portable(Block128 *out, const Block128 *d, const Block128 *s, unsigned f) {
  f &= 3;
  uint32_t a = d->d[3], b = d->d[2], c = d->d[1], dd = d->d[0], e = 0;
  for (int i = 0; i < 4; i++) {
    uint32_t t = sha1_f(f, b, c, dd) + rol(a, 5) + s->d[3 - i] + e + sha1_k[f];
    e = dd;
    dd = c;
    c = rol(b, 30);
    b = a;
    a = t;
  }
  Block128 r = {.d = {dd, c, b, a}};
  *out = r;
}

/* After four rounds E is the first round's A rotated by 30: the E of the next four. */
void sha1_nexte_portable(Block128 *out, const Block128 *d, const Block128 *s) {
  Block128 r = *s;
  r.d[3] += rol(d->d[3], 30);
  *out = r;
}

/* W0..W3 in d.d[3..0] and W4, W5 in s.d[3], s.d[2]: the W[t-16] ^ W[t-14] part of
 * W16..W19. */
void sha1_msg1_portable(Block128 *out, const Block128 *d, const Block128 *s) {
  uint32_t w0 = d->d[3], w1 = d->d[2], w2 = d->d[1], w3 = d->d[0];
  uint32_t w4 = s->d[3], w5 = s->d[2];
  Block128 r = {.d = {w5 ^ w3, w4 ^ w2, w3 ^ w1, w2 ^ w0}};
  *out = r;
}

/* d: SHA1MSG1's result XORed with W8..W11; s: W12..W15 in d[3..0] (W12 unused). W19
 * needs W16, computed in the same instruction. */
void sha1_msg2_portable(Block128 *out, const Block128 *d, const Block128 *s) {
  uint32_t w13 = s->d[2], w14 = s->d[1], w15 = s->d[0];
  uint32_t w16 = rol(d->d[3] ^ w13, 1);
  uint32_t w17 = rol(d->d[2] ^ w14, 1);
  uint32_t w18 = rol(d->d[1] ^ w15, 1);
  uint32_t w19 = rol(d->d[0] ^ w16, 1);
  Block128 r = {.d = {w19, w18, w17, w16}};
  *out = r;
}

/* ---- SHA-256 ---- */

/* FIPS 180-4 4.1.2. */
static uint32_t ch(uint32_t x, uint32_t y, uint32_t z) { return (x & y) ^ (~x & z); }
static uint32_t maj(uint32_t x, uint32_t y, uint32_t z) { return (x & y) ^ (x & z) ^ (y & z); }
static uint32_t big_sigma0(uint32_t x) { return ror(x, 2) ^ ror(x, 13) ^ ror(x, 22); }
static uint32_t big_sigma1(uint32_t x) { return ror(x, 6) ^ ror(x, 11) ^ ror(x, 25); }
static uint32_t sigma0(uint32_t x) { return ror(x, 7) ^ ror(x, 18) ^ x >> 3; }
static uint32_t sigma1(uint32_t x) { return ror(x, 17) ^ ror(x, 19) ^ x >> 10; }

/* The SDM's SRC1, the destination, holds C,D,G,H and SRC2 holds A,B,E,F: the result
 * replaces the older half of the state, which is why code alternates the two registers
 * as destination. The instruction leaves C,D,G,H to the caller: after two rounds they
 * are the old A,B,E,F. */
void sha256_rnds2_portable(Block128 *out, const Block128 *d, const Block128 *s,
                           const Block128 *wk) {
  uint32_t a = s->d[3], b = s->d[2], c = d->d[3], dd = d->d[2];
  uint32_t e = s->d[1], f = s->d[0], g = d->d[1], h = d->d[0];
  for (int i = 0; i < 2; i++) {
    uint32_t t1 = ch(e, f, g) + big_sigma1(e) + wk->d[i] + h;
    uint32_t t2 = maj(a, b, c) + big_sigma0(a);
    h = g;
    g = f;
    f = e;
    e = dd + t1;
    dd = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  Block128 r = {.d = {f, e, b, a}};
  *out = r;
}

/* W0..W3 in d.d[0..3] and W4 in s.d[0]: the W[t-16] + sigma0(W[t-15]) part of
 * W16..W19. */
void sha256_msg1_portable(Block128 *out, const Block128 *d, const Block128 *s) {
  uint32_t w0 = d->d[0], w1 = d->d[1], w2 = d->d[2], w3 = d->d[3], w4 = s->d[0];
  Block128 r = {.d = {w0 + sigma0(w1), w1 + sigma0(w2), w2 + sigma0(w3), w3 + sigma0(w4)}};
  *out = r;
}

/* d: SHA256MSG1's result plus W9..W12; s: W12..W15 in d[0..3] (only W14, W15 used). W18
 * and W19 need W16 and W17, computed in the same instruction. */
void sha256_msg2_portable(Block128 *out, const Block128 *d, const Block128 *s) {
  uint32_t w14 = s->d[2], w15 = s->d[3];
  uint32_t w16 = d->d[0] + sigma1(w14);
  uint32_t w17 = d->d[1] + sigma1(w15);
  uint32_t w18 = d->d[2] + sigma1(w16);
  uint32_t w19 = d->d[3] + sigma1(w17);
  Block128 r = {.d = {w16, w17, w18, w19}};
  *out = r;
}
