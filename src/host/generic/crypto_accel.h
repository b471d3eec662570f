/* generic/crypto_accel.h: a host without an accelerated tier: every primitive is
 * portable C. Include host_crypto.h. */
#ifndef X64EMU_HOST_CRYPTO_ACCEL_H
#define X64EMU_HOST_CRYPTO_ACCEL_H

#define HOST_CRYPTO_ARCH "generic build: portable C only"
#define HOST_AES_NAME "AES instructions"
#define HOST_CLMUL_NAME "carry-less multiply instructions"
#define HOST_SHA_NAME "SHA instructions"
#define HOST_SHUFFLE_NAME "byte-shuffle instructions"
#define HOST_AES_COMPILED false
#define HOST_CLMUL_COMPILED false
#define HOST_SHA_COMPILED false
#define HOST_SHUFFLE_COMPILED false
#define SHUFFLE_ACCEL_BEGIN
#define SHUFFLE_ACCEL_END

#define HAVE_AES_ACCEL false
#define HAVE_CLMUL_ACCEL false
/* No host version of any primitive: the portable one stands in. */
#define HOST_ACCEL(p) p##_portable
#define HAVE_SHA_ACCEL false
#define HAVE_SHUFFLE_ACCEL false

static inline uint32_t host_cpu_probe(void) { return HOST_CPU_DETECTED; }

/* Declared so that the callers in host_crypto.h compile, where HAVE_*_ACCEL being
 * false removes every call; a call that survives is a build error. */
#define NO_ACCEL __attribute__((error("no accelerated host crypto on this host")))
void aes_SB_SR_MC_AK_accel(Block128 *out, const Block128 *st, const Block128 *rk) NO_ACCEL;
void aes_SB_SR_AK_accel(Block128 *out, const Block128 *st, const Block128 *rk) NO_ACCEL;
void aes_ISB_ISR_IMC_AK_accel(Block128 *out, const Block128 *st, const Block128 *rk) NO_ACCEL;
void aes_ISB_ISR_AK_accel(Block128 *out, const Block128 *st, const Block128 *rk) NO_ACCEL;
void aes_IMC_accel(Block128 *out, const Block128 *st) NO_ACCEL;
void aes_keygen_assist_accel(Block128 *out, const Block128 *src, uint8_t rcon) NO_ACCEL;
void clmul_64x64_accel(Block128 *out, uint64_t a, uint64_t b) NO_ACCEL;
void sha1_rnds4_accel(Block128 *out, const Block128 *d, const Block128 *s, unsigned f) NO_ACCEL;
void sha1_nexte_accel(Block128 *out, const Block128 *d, const Block128 *s) NO_ACCEL;
void sha1_msg1_accel(Block128 *out, const Block128 *d, const Block128 *s) NO_ACCEL;
void sha1_msg2_accel(Block128 *out, const Block128 *d, const Block128 *s) NO_ACCEL;
void sha256_rnds2_accel(Block128 *out, const Block128 *d, const Block128 *s,
                        const Block128 *wk) NO_ACCEL;
void sha256_msg1_accel(Block128 *out, const Block128 *d, const Block128 *s) NO_ACCEL;
void sha256_msg2_accel(Block128 *out, const Block128 *d, const Block128 *s) NO_ACCEL;
void byte_shuffle_accel(Block128 *out, const Block128 *table, const uint8_t idx[16]) NO_ACCEL;
void byte_shuffle_pair_accel(Block128 *out, const Block128 *a, const uint8_t ia[16],
                             const Block128 *b, const uint8_t ib[16]) NO_ACCEL;
#undef NO_ACCEL

#endif
