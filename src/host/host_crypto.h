/* host_crypto.h: the host primitives that x86's AES, PCLMULQDQ and SHA instructions are
 * made of, each an inline function that runs the host's own crypto instruction or portable C.
 *
 * Names spell the FIPS-197 steps a primitive performs, in order: SB SubBytes, SR
 * ShiftRows, MC MixColumns, AK AddRoundKey (XOR with the round key), and ISB, ISR, IMC
 * their inverses. So every x86 instruction is one visible composition:
 *
 *   AESENC     aes_SB_SR_MC_AK(&d, &d, &s)      AESDEC     aes_ISB_ISR_IMC_AK(&d, &d, &s)
 *   AESENCLAST aes_SB_SR_AK(&d, &d, &s)         AESDECLAST aes_ISB_ISR_AK(&d, &d, &s)
 *   AESIMC     aes_IMC(&d, &s)                  AESKEYGENASSIST aes_keygen_assist(&d, &s, imm)
 *   PCLMULQDQ  clmul_64x64(&d, d.q[imm & 1], s.q[imm >> 4 & 1])
 *
 * The SHA extensions are one primitive each, named after the instruction (their
 * operands are the instruction's: d the destination, s the source, wk XMM0):
 *
 *   SHA1RNDS4  sha1_rnds4(&d, &d, &s, imm & 3)   SHA256RNDS2 sha256_rnds2(&d, &d, &s, &wk)
 *   SHA1NEXTE  sha1_nexte(&d, &d, &s)            SHA256MSG1  sha256_msg1(&d, &d, &s)
 *   SHA1MSG1   sha1_msg1(&d, &d, &s)             SHA256MSG2  sha256_msg2(&d, &d, &s)
 *   SHA1MSG2   sha1_msg2(&d, &d, &s)
 *
 * PSHUFB is a table lookup, and SSE's rearrangements by an immediate (PSHUFD, PALIGNR,
 * PSLLDQ, PSRLDQ) are lookups with constant index vectors (src/interp/byte_select.h):
 *
 *   PSHUFB     byte_shuffle(&d, &d, s.b)     PALIGNR byte_shuffle_pair(&d, &s, ia, &d, ib)
 *
 * Results go through a pointer that may equal an operand's: the blocks stay in memory,
 * which suits the XMM registers of the guest (no trips through general registers).
 *
 * Each picks, in one place (the host's crypto_accel.h, found by include path order:
 * src/host/<arch>/ before src/host/generic/): the host instruction when the compiler
 * already targets it (it then inlines), the host instruction when start-up detection
 * found it (compiled with a per-function target attribute, so the build still runs on
 * a CPU without it), or portable C. The tier can be changed at run time
 * (host_crypto_select) so every tier is testable on one machine. */
#ifndef X64EMU_HOST_CRYPTO_H
#define X64EMU_HOST_CRYPTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "XMM byte order is the host's");

/* 16 bytes in XMM register order: byte i of an XMM register is byte i of the AES state,
 * the column-major order of FIPS-197's input array, which is also Arm's lane order.
 * may_alias: an Xmm (src/interp/cpu.h has the same size and alignment) may be passed as
 * (Block128 *)&xmm. Guest memory operands are copied into an aligned temporary first. */
typedef union Block128 {
  uint8_t b[16];
  uint32_t d[4];
  uint64_t q[2];
} __attribute__((aligned(16), may_alias)) Block128;

/* Host CPU features the primitives can use, in one word detected once at start-up. */
enum {
  HOST_CPU_DETECTED = 1u << 0, /* detection ran: tells "found nothing" from "not looked" */
  HOST_CPU_AES = 1u << 1,      /* x86 AES-NI; Arm AESE, AESD, AESMC, AESIMC */
  HOST_CPU_CLMUL = 1u << 2,    /* x86 PCLMULQDQ; Arm PMULL, PMULL2 (64-bit) */
  HOST_CPU_SHA = 1u << 3,      /* x86 SHA extensions; Arm SHA1 and SHA256 both */
  HOST_CPU_SHUFFLE = 1u << 4,  /* x86 SSSE3 (PSHUFB); Arm TBL (every Armv8-A has it) */
  HOST_CPU_CRYPTO = HOST_CPU_AES | HOST_CPU_CLMUL | HOST_CPU_SHA | HOST_CPU_SHUFFLE,
};
extern uint32_t host_cpu_features; /* what the host has */
extern uint32_t host_crypto_accel; /* the HOST_CPU_* bits the primitives use now */

/* Reads the host's features once (later calls return the same word). */
uint32_t host_cpu_detect(void);

/* The portable tier, always present (crypto_portable.c). */
void aes_SB_SR_MC_AK_portable(Block128 *out, const Block128 *st, const Block128 *rk);
void aes_SB_SR_AK_portable(Block128 *out, const Block128 *st, const Block128 *rk);
void aes_ISB_ISR_IMC_AK_portable(Block128 *out, const Block128 *st, const Block128 *rk);
void aes_ISB_ISR_AK_portable(Block128 *out, const Block128 *st, const Block128 *rk);
void aes_IMC_portable(Block128 *out, const Block128 *st);
void aes_keygen_assist_portable(Block128 *out, const Block128 *src, uint8_t rcon);
void clmul_64x64_portable(Block128 *out, uint64_t a, uint64_t b);
void sha1_rnds4_portable(Block128 *out, const Block128 *d, const Block128 *s, unsigned f);
void sha1_nexte_portable(Block128 *out, const Block128 *d, const Block128 *s);
void sha1_msg1_portable(Block128 *out, const Block128 *d, const Block128 *s);
void sha1_msg2_portable(Block128 *out, const Block128 *d, const Block128 *s);
void sha256_rnds2_portable(Block128 *out, const Block128 *d, const Block128 *s,
                           const Block128 *wk);
void sha256_msg1_portable(Block128 *out, const Block128 *d, const Block128 *s);
void sha256_msg2_portable(Block128 *out, const Block128 *d, const Block128 *s);
void byte_shuffle_portable(Block128 *out, const Block128 *table, const uint8_t idx[16]);
void byte_shuffle_pair_portable(Block128 *out, const Block128 *a, const uint8_t ia[16],
                                const Block128 *b, const uint8_t ib[16]);

/* The host's tier: HAVE_AES_ACCEL, HAVE_CLMUL_ACCEL, HAVE_SHA_ACCEL, HAVE_SHUFFLE_ACCEL
 * and the *_accel functions. */
#include "crypto_accel.h"

/* AESENC: ShiftRows, SubBytes, MixColumns, then XOR the round key. */
static inline void aes_SB_SR_MC_AK(Block128 *out, const Block128 *st, const Block128 *rk) {
  if (HAVE_AES_ACCEL)
    aes_SB_SR_MC_AK_accel(out, st, rk);
  else
    aes_SB_SR_MC_AK_portable(out, st, rk);
}

/* AESENCLAST: the last round has no MixColumns. */
static inline void aes_SB_SR_AK(Block128 *out, const Block128 *st, const Block128 *rk) {
  if (HAVE_AES_ACCEL)
    aes_SB_SR_AK_accel(out, st, rk);
  else
    aes_SB_SR_AK_portable(out, st, rk);
}

/* AESDEC: InvShiftRows, InvSubBytes, InvMixColumns, then XOR the round key (the
 * equivalent inverse cipher of FIPS-197 5.3.5, hence keys prepared with aes_IMC). */
static inline void aes_ISB_ISR_IMC_AK(Block128 *out, const Block128 *st, const Block128 *rk) {
  if (HAVE_AES_ACCEL)
    aes_ISB_ISR_IMC_AK_accel(out, st, rk);
  else
    aes_ISB_ISR_IMC_AK_portable(out, st, rk);
}

/* AESDECLAST: InvShiftRows, InvSubBytes, then XOR the round key. */
static inline void aes_ISB_ISR_AK(Block128 *out, const Block128 *st, const Block128 *rk) {
  if (HAVE_AES_ACCEL)
    aes_ISB_ISR_AK_accel(out, st, rk);
  else
    aes_ISB_ISR_AK_portable(out, st, rk);
}

/* AESIMC: InvMixColumns alone. */
static inline void aes_IMC(Block128 *out, const Block128 *st) {
  if (HAVE_AES_ACCEL)
    aes_IMC_accel(out, st);
  else
    aes_IMC_portable(out, st);
}

/* AESKEYGENASSIST: with X1 = src.d[1] and X3 = src.d[3], the result's dwords are
 * SubWord(X1), RotWord(SubWord(X1)) ^ rcon, SubWord(X3), RotWord(SubWord(X3)) ^ rcon. */
static inline void aes_keygen_assist(Block128 *out, const Block128 *src, uint8_t rcon) {
  if (HAVE_AES_ACCEL)
    aes_keygen_assist_accel(out, src, rcon);
  else
    aes_keygen_assist_portable(out, src, rcon);
}

/* The 128-bit carry-less product of two 64-bit polynomials over GF(2). */
static inline void clmul_64x64(Block128 *out, uint64_t a, uint64_t b) {
  if (HAVE_CLMUL_ACCEL)
    clmul_64x64_accel(out, a, b);
  else
    clmul_64x64_portable(out, a, b);
}

/* SHA1RNDS4: four SHA-1 rounds of function f (0-3: Ch, Parity, Maj, Parity, with their
 * K) on the state A, B, C, D in d.d[3], d.d[2], d.d[1], d.d[0], with the rounds' words
 * in s.d[3] (W0 + E), s.d[2] (W1), s.d[1] (W2), s.d[0] (W3). */
static inline void sha1_rnds4(Block128 *out, const Block128 *d, const Block128 *s, unsigned f) {
  if (HAVE_SHA_ACCEL)
    sha1_rnds4_accel(out, d, s, f);
  else
    sha1_rnds4_portable(out, d, s, f);
}

/* SHA1NEXTE: s with ROL(d.d[3], 30) added to its top dword (the next rounds' E). */
static inline void sha1_nexte(Block128 *out, const Block128 *d, const Block128 *s) {
  if (HAVE_SHA_ACCEL)
    sha1_nexte_accel(out, d, s);
  else
    sha1_nexte_portable(out, d, s);
}

/* SHA1MSG1, SHA1MSG2: the two halves of the SHA-1 message schedule for four words. */
static inline void sha1_msg1(Block128 *out, const Block128 *d, const Block128 *s) {
  if (HAVE_SHA_ACCEL)
    sha1_msg1_accel(out, d, s);
  else
    sha1_msg1_portable(out, d, s);
}

static inline void sha1_msg2(Block128 *out, const Block128 *d, const Block128 *s) {
  if (HAVE_SHA_ACCEL)
    sha1_msg2_accel(out, d, s);
  else
    sha1_msg2_portable(out, d, s);
}

/* SHA256RNDS2: two SHA-256 rounds on the state C, D, G, H in d.d[3..0] and A, B, E, F
 * in s.d[3..0] (the SDM's SRC1 and SRC2), with W+K of the two rounds in wk.d[0] and
 * wk.d[1]; the result is the new A, B, E, F (A2, A1, E2, E1 in d.d[3..0]). */
static inline void sha256_rnds2(Block128 *out, const Block128 *d, const Block128 *s,
                                const Block128 *wk) {
  if (HAVE_SHA_ACCEL)
    sha256_rnds2_accel(out, d, s, wk);
  else
    sha256_rnds2_portable(out, d, s, wk);
}

/* SHA256MSG1, SHA256MSG2: the two halves of the SHA-256 message schedule. */
static inline void sha256_msg1(Block128 *out, const Block128 *d, const Block128 *s) {
  if (HAVE_SHA_ACCEL)
    sha256_msg1_accel(out, d, s);
  else
    sha256_msg1_portable(out, d, s);
}

static inline void sha256_msg2(Block128 *out, const Block128 *d, const Block128 *s) {
  if (HAVE_SHA_ACCEL)
    sha256_msg2_accel(out, d, s);
  else
    sha256_msg2_portable(out, d, s);
}

/* PSHUFB: byte i of out is 0 where idx[i] has its top bit set, else table.b[idx[i] & 15].
 * idx need not be aligned (the constant index vectors are read at any offset). */
static inline void byte_shuffle(Block128 *out, const Block128 *table, const uint8_t idx[16]) {
  if (HAVE_SHUFFLE_ACCEL)
    byte_shuffle_accel(out, table, idx);
  else
    byte_shuffle_portable(out, table, idx);
}

/* The lookup of a by ia OR that of b by ib: bytes from two registers (PALIGNR). */
static inline void byte_shuffle_pair(Block128 *out, const Block128 *a, const uint8_t ia[16],
                                     const Block128 *b, const uint8_t ib[16]) {
  if (HAVE_SHUFFLE_ACCEL)
    byte_shuffle_pair_accel(out, a, ia, b, ib);
  else
    byte_shuffle_pair_portable(out, a, ia, b, ib);
}

/* Tier selection: auto uses whatever the host has, native insists on the host's
 * instructions for every primitive, portable uses C even where the host has them. */
typedef enum HostCryptoMode {
  HOST_CRYPTO_AUTO,
  HOST_CRYPTO_NATIVE,
  HOST_CRYPTO_PORTABLE,
} HostCryptoMode;

/* "auto", "native" or "portable" (the --host-crypto= and X64EMU_HOST_CRYPTO values);
 * false for anything else. */
bool host_crypto_parse(const char *name, HostCryptoMode *mode);

/* Chooses the tier. Returns NULL, or (changing nothing) a message saying why the mode
 * cannot be had, e.g. native on a host without the instructions. */
const char *host_crypto_select(HostCryptoMode mode);
HostCryptoMode host_crypto_mode(void);

/* How one primitive family is computed right now. */
typedef enum HostCryptoTier {
  HOST_CRYPTO_TIER_COMPILED, /* host instruction, the compiler targets it */
  HOST_CRYPTO_TIER_DETECTED, /* host instruction, found at start-up */
  HOST_CRYPTO_TIER_PORTABLE, /* portable C */
} HostCryptoTier;
HostCryptoTier host_crypto_tier(uint32_t feature); /* HOST_CPU_AES, _CLMUL, _SHA or _SHUFFLE */

/* For --version / --host-info: one line per primitive with the x86 instruction it
 * serves and its tier. Writes at most size bytes like snprintf and returns the length
 * the whole text needs. */
int host_crypto_describe(char *buf, size_t size);

#endif
