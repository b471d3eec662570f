/* byte_select.h: the rearrangements SSE takes from an immediate (PSHUFD, PSLLDQ/PSRLDQ,
 * PALIGNR) as host byte shuffles (host_crypto.h) with constant index vectors. Built lane
 * by lane in C they went through a temporary written in pieces and read back whole,
 * which no host forwards from its store buffer: the read waited for the pieces to reach
 * the cache on every execution (perf on OpenSSL's SHA-NI SHA-256: most of the time of
 * op_pshufd and op_palignr). `accel` picks the tier, a constant in each handler
 * (byte_shuffles.c). */
#ifndef X64EMU_BYTE_SELECT_H
#define X64EMU_BYTE_SELECT_H

#include "crypto_forms.h"

/* The index vector of PSHUFD with each immediate: dword i of the result is dword
 * imm >> 2i & 3 of the source. */
extern const uint8_t pshufd_index[256][16];
/* byte_window[k] is k - 16 for 16 <= k < 32 and 0x80 (a zero byte) elsewhere: the 16
 * bytes from 16 + n shift a register right by n bytes, those from 16 - n left by n. */
extern const uint8_t byte_window[64];

/* PSHUFB: out = the bytes of table that idx picks; out may be either operand. */
static inline __attribute__((always_inline)) void pick_bytes(Xmm *out, const Xmm *table,
                                                             const uint8_t idx[16], bool accel) {
  TIER(accel, byte_shuffle)(block(out), (const Block128 *)table, idx);
}
/* PSHUFD: out = the dwords of s that imm picks. */
static inline __attribute__((always_inline)) void select_dwords(Xmm *out, const Xmm *s,
                                                                unsigned imm, bool accel) {
  pick_bytes(out, s, pshufd_index[imm & 255], accel);
}
/* PSRLDQ: x shifted right (towards byte 0) by n bytes, zeros in; 16 or more clears it. */
static inline __attribute__((always_inline)) void shift_bytes_right(Xmm *x, uint64_t n,
                                                                    bool accel) {
  pick_bytes(x, x, byte_window + 16 + (n > 16 ? 16 : n), accel);
}
/* PSLLDQ: x shifted left (away from byte 0) by n bytes. */
static inline __attribute__((always_inline)) void shift_bytes_left(Xmm *x, uint64_t n,
                                                                   bool accel) {
  pick_bytes(x, x, byte_window + 16 - (n > 16 ? 16 : n), accel);
}
/* PALIGNR: bytes n.. of the 32-byte value hi:lo (lo in bytes 0-15), zeros past its end,
 * written to hi. */
static inline __attribute__((always_inline)) void align_bytes(Xmm *hi, const Xmm *lo, uint64_t n,
                                                              bool accel) {
  if (n > 32) n = 32;
  TIER(accel, byte_shuffle_pair)(block(hi), (const Block128 *)lo, byte_window + 16 + n,
                                 (const Block128 *)hi, byte_window + n);
}

#endif
