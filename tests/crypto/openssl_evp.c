/* openssl_evp.c: a static guest program linked with OpenSSL's libcrypto.a: AES-128 and
 * AES-256 in GCM, CTR, CBC, XTS, CCM and OCB, ChaCha20-Poly1305, and SHA-1, SHA-256 and
 * SHA-512 on fixed inputs of many lengths (whole and in pieces, so that OpenSSL's bulk
 * and tail code both run), and modular exponentiation of fixed numbers of 512 to 4096
 * bits (Montgomery multiplication, OpenSSL's bn_mul_mont family: with BMI2 and ADX its
 * MULX/ADCX/ADOX code). Prints what it computes, to be compared byte for byte with
 * the native run; OpenSSL picks its code paths (AES-NI, PCLMULQDQ or software) from
 * CPUID, which is what runs under x64emu with and without --cpu=-aes,-pclmulqdq (and
 * its AVX code, stitched AES-GCM among it, with and without --cpu=-avx).
 *
 * usage: openssl_evp          the computations
 *        openssl_evp --caps   the CPUID words OpenSSL read (differ between CPUs) */
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fill.h"

/* OpenSSL's copy of CPUID.1:EDX, CPUID.1:ECX, CPUID.7:EBX and CPUID.7:ECX. */
extern unsigned int OPENSSL_ia32cap_P[4];

static const size_t lengths[] = {0,  1,  15,  16,  17,  31,   32,   33,   63,    64,
                                 65, 95, 127, 128, 129, 255, 256, 1000, 4109, 16389};
enum { N_LENGTHS = sizeof lengths / sizeof *lengths, MAX_LEN = 16389 };

static uint8_t plain[MAX_LEN], out[MAX_LEN + 32], back[MAX_LEN + 32];
static int failures;

/* Short outputs in full; long ones as their length, first bytes and an FNV-1a hash
 * (plain C: a checksum that does not depend on the code under test). */
static void print_bytes(const char *what, const uint8_t *p, size_t n) {
  printf(" %s=", what);
  size_t shown = n <= 64 ? n : 16;
  for (size_t i = 0; i < shown; i++) printf("%02x", p[i]);
  if (shown < n) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ull;
    printf("...(%zu bytes, fnv %016llx)", n, (unsigned long long)h);
  }
}

static void fail(const char *what) {
  printf(" FAILED: %s", what);
  unsigned long e;
  while ((e = ERR_get_error()) != 0) printf(" [%s]", ERR_error_string(e, NULL));
  failures++;
}

/* ---- ciphers ---- */

typedef struct Cipher {
  const char *name;
  bool aead, ccm, xts;
  size_t iv_len;
} Cipher;

static const Cipher ciphers[] = {
    {"AES-128-GCM", true, false, false, 12},  {"AES-256-GCM", true, false, false, 12},
    {"AES-128-GCM", true, false, false, 16},  /* a 16-byte IV: J0 from GHASH */
    {"AES-128-CTR", false, false, false, 16}, {"AES-256-CTR", false, false, false, 16},
    {"AES-128-CBC", false, false, false, 16}, {"AES-256-CBC", false, false, false, 16},
    {"AES-128-XTS", false, false, true, 16},  {"AES-256-XTS", false, false, true, 16},
    {"AES-128-CCM", true, true, false, 12},   {"AES-256-CCM", true, true, false, 12},
    {"AES-128-OCB", true, false, false, 12},  {"AES-256-OCB", true, false, false, 12},
    {"ChaCha20-Poly1305", true, false, false, 12},
};

/* Runs the cipher over in[0..n) into dst, in pieces of `piece` bytes (0: at once).
 * For an AEAD, tag is written (encrypting) or checked (decrypting). Returns the output
 * length, or -1 on an error (or a tag that does not verify). */
static long run_crypt(const Cipher *c, EVP_CIPHER *ev, bool enc, const uint8_t *key,
                  const uint8_t *iv, const uint8_t *aad, size_t aad_len, const uint8_t *in,
                  size_t n, size_t piece, uint8_t *dst, uint8_t *tag) {
  EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
  long total = -1;
  int len = 0;
  if (!ctx || !EVP_CipherInit_ex(ctx, ev, NULL, NULL, NULL, enc)) goto done;
  if (c->aead && !EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_IVLEN, (int)c->iv_len, NULL))
    goto done;
  if (c->ccm && !EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, 16, enc ? NULL : tag))
    goto done;
  if (c->aead && !c->ccm && strstr(c->name, "OCB") &&
      !EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, 16, NULL))
    goto done;
  if (!EVP_CipherInit_ex(ctx, NULL, NULL, key, iv, enc)) goto done;
  /* CCM wants the total length first and takes the data in one call. */
  if (c->ccm && !EVP_CipherUpdate(ctx, NULL, &len, NULL, (int)n)) goto done;
  if (c->aead && aad_len && !EVP_CipherUpdate(ctx, NULL, &len, aad, (int)aad_len)) goto done;
  if (c->ccm || c->xts) piece = 0;
  total = 0;
  for (size_t at = 0; at < n || (at == 0 && n == 0);) {
    size_t k = piece && n - at > piece ? piece : n - at;
    if (!EVP_CipherUpdate(ctx, dst + total, &len, in + at, (int)k)) {
      total = -1;
      goto done;
    }
    total += len;
    at += k;
    if (n == 0) break;
  }
  if (c->aead && !c->ccm && !enc && !EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, 16, tag)) {
    total = -1;
    goto done;
  }
  if (!EVP_CipherFinal_ex(ctx, dst + total, &len)) {
    total = -1;
    goto done;
  }
  total += len;
  if (c->aead && enc && !EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, tag)) total = -1;
done:
  EVP_CIPHER_CTX_free(ctx);
  return total;
}

static void run_cipher(const Cipher *c, unsigned index) {
  EVP_CIPHER *ev = EVP_CIPHER_fetch(NULL, c->name, NULL);
  if (!ev) {
    printf("%s:", c->name);
    fail("no such cipher");
    printf("\n");
    return;
  }
  uint8_t key[64], iv[16], aad[40];
  fill(key, sizeof key, 100 + index);
  fill(iv, sizeof iv, 200 + index);
  fill(aad, sizeof aad, 300 + index);
  if (c->xts) key[EVP_CIPHER_get_key_length(ev) / 2] ^= 0x5A; /* the halves must differ */
  for (size_t l = 0; l < N_LENGTHS; l++) {
    size_t n = lengths[l];
    if (c->xts && n < 16) continue; /* XTS needs a whole block */
    fill(plain, n, 400 + l);
    uint8_t tag[16] = {0}, tag2[16] = {0};
    printf("%s iv%zu len %zu:", c->name, c->iv_len, n);
    long got = run_crypt(c, ev, true, key, iv, aad, l % 3 ? sizeof aad : 0, plain, n, 0, out, tag);
    if (got < 0) {
      fail("encrypt");
    } else {
      print_bytes("ct", out, (size_t)got);
      if (c->aead) print_bytes("tag", tag, 16);
      /* The same in odd-sized pieces must give the same bytes. */
      long got2 = run_crypt(c, ev, true, key, iv, aad, l % 3 ? sizeof aad : 0, plain, n,
                            7 + 16 * (l % 5), back, tag2);
      if (got2 != got || memcmp(out, back, (size_t)got) || memcmp(tag, tag2, 16))
        fail("pieces differ");
      long dec = run_crypt(c, ev, false, key, iv, aad, l % 3 ? sizeof aad : 0, out, (size_t)got,
                           0, back, tag);
      if (dec != (long)n || memcmp(back, plain, n)) fail("decrypt");
      if (c->aead) {
        tag[l % 16] ^= 1;
        ERR_set_mark();
        if (run_crypt(c, ev, false, key, iv, aad, l % 3 ? sizeof aad : 0, out, (size_t)got, 0,
                      back, tag) >= 0)
          fail("a wrong tag was accepted");
        ERR_pop_to_mark();
      }
    }
    printf("\n");
  }
  EVP_CIPHER_free(ev);
}

/* ---- digests ---- */

static void run_digest(const char *name) {
  EVP_MD *md = EVP_MD_fetch(NULL, name, NULL);
  static uint8_t big[100003];
  fill(big, sizeof big, 7);
  static const size_t sizes[] = {0,   1,   3,   55,  56,  63,   64,    65,
                                 111, 112, 127, 128, 129, 1000, 100003};
  for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
    uint8_t digest[EVP_MAX_MD_SIZE], digest2[EVP_MAX_MD_SIZE];
    unsigned len = 0, len2 = 0;
    const uint8_t *data = i == 2 ? (const uint8_t *)"abc" : big;
    printf("%s len %zu:", name, sizes[i]);
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    if (!md || !EVP_Digest(data, sizes[i], digest, &len, md, NULL) ||
        !EVP_DigestInit_ex(ctx, md, NULL)) {
      fail("digest");
    } else {
      for (size_t at = 0; at < sizes[i]; at += 37)
        EVP_DigestUpdate(ctx, data + at, sizes[i] - at < 37 ? sizes[i] - at : 37);
      EVP_DigestFinal_ex(ctx, digest2, &len2);
      print_bytes("md", digest, len);
      if (len != len2 || memcmp(digest, digest2, len)) fail("pieces differ");
    }
    EVP_MD_CTX_free(ctx);
    printf("\n");
  }
  EVP_MD_free(md);
}

/* ---- bignums ---- */

/* base ^ exponent mod m for an odd modulus of `bits` bits, all from fill(): printed, and
 * checked against the same computed without Montgomery multiplication (BN_mod_exp_simple). */
static void run_mod_exp(int bits) {
  static uint8_t bytes[3][512];
  size_t n = (size_t)bits / 8;
  for (int i = 0; i < 3; i++) fill(bytes[i], n, (uint64_t)bits * 3 + (uint64_t)i);
  bytes[0][0] |= 0x80, bytes[0][n - 1] |= 1; /* a full-size odd modulus */
  BIGNUM *m = BN_bin2bn(bytes[0], (int)n, NULL), *b = BN_bin2bn(bytes[1], (int)n, NULL);
  BIGNUM *e = BN_bin2bn(bytes[2], 32, NULL), *r = BN_new(), *check = BN_new();
  BN_CTX *ctx = BN_CTX_new();
  printf("mod_exp %d bits:", bits);
  if (!m || !b || !e || !r || !check || !ctx || !BN_mod(b, b, m, ctx) ||
      !BN_mod_exp_mont(r, b, e, m, ctx, NULL) || !BN_mod_exp_simple(check, b, e, m, ctx)) {
    fail("mod_exp");
  } else {
    char *hex = BN_bn2hex(r);
    printf(" %s", hex ? hex : "?");
    OPENSSL_free(hex);
    if (BN_cmp(r, check)) fail("Montgomery and simple exponentiation differ");
  }
  printf("\n");
  BN_free(m), BN_free(b), BN_free(e), BN_free(r), BN_free(check);
  BN_CTX_free(ctx);
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "--caps") == 0) {
    EVP_MD_free(EVP_MD_fetch(NULL, "SHA256", NULL)); /* OpenSSL is initialised */
    printf("OPENSSL_ia32cap_P: %08x %08x %08x %08x\n", OPENSSL_ia32cap_P[0], OPENSSL_ia32cap_P[1],
           OPENSSL_ia32cap_P[2], OPENSSL_ia32cap_P[3]);
    printf("aes %s, pclmulqdq %s, bmi2 %s, adx %s, avx %s, avx2 %s\n",
           OPENSSL_ia32cap_P[1] >> 25 & 1 ? "yes" : "no", OPENSSL_ia32cap_P[1] >> 1 & 1 ? "yes" : "no",
           OPENSSL_ia32cap_P[2] >> 8 & 1 ? "yes" : "no", OPENSSL_ia32cap_P[2] >> 19 & 1 ? "yes" : "no",
           OPENSSL_ia32cap_P[1] >> 28 & 1 ? "yes" : "no", OPENSSL_ia32cap_P[2] >> 5 & 1 ? "yes" : "no");
    return 0;
  }
  for (unsigned i = 0; i < sizeof ciphers / sizeof *ciphers; i++) run_cipher(&ciphers[i], i);
  run_digest("SHA1");
  run_digest("SHA256");
  run_digest("SHA512");
  static const int bits[] = {512, 1024, 2048, 3072, 4096};
  for (size_t i = 0; i < sizeof bits / sizeof *bits; i++) run_mod_exp(bits[i]);
  printf("%s\n", failures ? "FAILED" : "all consistent");
  return failures ? 1 : 0;
}
