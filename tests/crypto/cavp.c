/* cavp.c: a static guest program that checks NIST CAVP AES vectors (ECB, CBC, CFB128 and
 * OFB KAT and MMT, GCM encrypt and decrypt) and the RFC 3686 CTR vectors, with AES-NI
 * and PCLMULQDQ: the key schedule with AESKEYGENASSIST, rounds with AESENC/AESENCLAST,
 * AESDEC/AESDECLAST and AESIMC, GHASH with PCLMULQDQ. Nothing beyond SSE2 otherwise, so
 * that it runs on any emulated CPU with AES and PCLMULQDQ.
 *
 * usage: cavp DIR, where DIR is the ciphers/AES folder of python3-cryptography-vectors.
 * Prints one line per file and exits 0 when every vector passes. */
#include <immintrin.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../guest/test_env.h"

/* ---- AES with AES-NI ---- */

typedef struct Aes {
  __m128i enc[15], dec[15]; /* round keys; dec for the equivalent inverse cipher */
  int rounds;
} Aes;

/* SubWord(w) in dword 0 and RotWord(SubWord(w)) ^ rcon in dword 1, from AESKEYGENASSIST
 * with w in dword 1; rcon must be an immediate, hence one case per value. */
static __m128i keygen_assist(uint32_t w, int rcon) {
  __m128i x = _mm_set_epi32(0, 0, (int)w, 0);
  switch (rcon) {
#define RCON(v) case v: return _mm_aeskeygenassist_si128(x, v);
  RCON(0x00) RCON(0x01) RCON(0x02) RCON(0x04) RCON(0x08) RCON(0x10) RCON(0x20) RCON(0x40)
  RCON(0x80) RCON(0x1b) RCON(0x36)
#undef RCON
  default: abort();
  }
}

/* FIPS-197 5.2, word by word, for 4, 6 or 8 words of key. */
static void aes_init(Aes *a, const uint8_t *key, size_t key_len) {
  static const uint8_t rcon[11] = {0, 0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x1b, 0x36};
  uint32_t w[60];
  int nk = (int)key_len / 4;
  a->rounds = nk + 6;
  memcpy(w, key, key_len);
  for (int i = nk; i < 4 * (a->rounds + 1); i++) {
    uint32_t t = w[i - 1];
    if (i % nk == 0)
      t = (uint32_t)_mm_cvtsi128_si32(_mm_srli_si128(keygen_assist(t, rcon[i / nk]), 4));
    else if (nk > 6 && i % nk == 4)
      t = (uint32_t)_mm_cvtsi128_si32(keygen_assist(t, 0));
    w[i] = w[i - nk] ^ t;
  }
  for (int r = 0; r <= a->rounds; r++) a->enc[r] = _mm_loadu_si128((const __m128i *)&w[4 * r]);
  a->dec[0] = a->enc[a->rounds];
  for (int r = 1; r < a->rounds; r++) a->dec[r] = _mm_aesimc_si128(a->enc[a->rounds - r]);
  a->dec[a->rounds] = a->enc[0];
}

static __m128i aes_encrypt(const Aes *a, __m128i x) {
  x = _mm_xor_si128(x, a->enc[0]);
  for (int r = 1; r < a->rounds; r++) x = _mm_aesenc_si128(x, a->enc[r]);
  return _mm_aesenclast_si128(x, a->enc[a->rounds]);
}

static __m128i aes_decrypt(const Aes *a, __m128i x) {
  x = _mm_xor_si128(x, a->dec[0]);
  for (int r = 1; r < a->rounds; r++) x = _mm_aesdec_si128(x, a->dec[r]);
  return _mm_aesdeclast_si128(x, a->dec[a->rounds]);
}

static __m128i load(const uint8_t *p) { return _mm_loadu_si128((const __m128i *)p); }
static void store(uint8_t *p, __m128i x) { _mm_storeu_si128((__m128i *)p, x); }

/* ---- modes ---- */

enum Mode { ECB, CBC, CFB128, OFB, CTR };

/* Whole blocks (n a multiple of 16 for ECB and CBC; any n for the stream modes). */
static void cipher(enum Mode mode, const Aes *a, bool encrypt, const uint8_t *iv,
                   const uint8_t *in, uint8_t *out, size_t n) {
  uint8_t chain[16];
  if (iv) memcpy(chain, iv, 16);
  for (size_t at = 0; at < n; at += 16) {
    size_t len = n - at < 16 ? n - at : 16;
    uint8_t block[16] = {0}, ks[16];
    memcpy(block, in + at, len);
    __m128i x = load(block), c = load(chain);
    switch (mode) {
    case ECB:
      store(out + at, encrypt ? aes_encrypt(a, x) : aes_decrypt(a, x));
      break;
    case CBC:
      if (encrypt) {
        store(chain, aes_encrypt(a, _mm_xor_si128(x, c)));
        memcpy(out + at, chain, 16);
      } else {
        store(out + at, _mm_xor_si128(aes_decrypt(a, x), c));
        memcpy(chain, block, 16);
      }
      break;
    case CFB128:
    case OFB:
    case CTR:
      store(ks, aes_encrypt(a, c));
      for (size_t i = 0; i < len; i++) out[at + i] = in[at + i] ^ ks[i];
      if (mode == OFB) memcpy(chain, ks, 16);
      else if (mode == CFB128) memcpy(chain, encrypt ? out + at : in + at, 16);
      else
        for (int i = 15; i >= 0 && ++chain[i] == 0; i--) {} /* 128-bit big-endian counter */
      break;
    }
  }
}

/* ---- GCM (NIST SP 800-38D) with PCLMULQDQ ---- */

/* Byte reversal with SSE2 alone: GHASH reads blocks as big-endian numbers. */
static __m128i reverse16(__m128i x) {
  x = _mm_shuffle_epi32(x, 0x1B);
  x = _mm_shufflelo_epi16(_mm_shufflehi_epi16(x, 0xB1), 0xB1);
  return _mm_or_si128(_mm_slli_epi16(x, 8), _mm_srli_epi16(x, 8));
}

/* Multiplication in GF(2^128) as in Intel's "Carry-Less Multiplication Instruction and
 * its Usage for Computing the GCM Mode", Algorithm 5: four products, a shift left by one
 * (GCM's bits are reflected), reduction modulo x^128 + x^7 + x^2 + x + 1. */
static __m128i gfmul(__m128i a, __m128i b) {
  __m128i lo = _mm_clmulepi64_si128(a, b, 0x00), hi = _mm_clmulepi64_si128(a, b, 0x11);
  __m128i mid = _mm_xor_si128(_mm_clmulepi64_si128(a, b, 0x10), _mm_clmulepi64_si128(a, b, 0x01));
  lo = _mm_xor_si128(lo, _mm_slli_si128(mid, 8));
  hi = _mm_xor_si128(hi, _mm_srli_si128(mid, 8));
  /* The 256-bit hi:lo shifted left by one bit. */
  __m128i lo_carry = _mm_srli_epi32(lo, 31), hi_carry = _mm_srli_epi32(hi, 31);
  lo = _mm_or_si128(_mm_slli_epi32(lo, 1), _mm_slli_si128(lo_carry, 4));
  hi = _mm_or_si128(_mm_or_si128(_mm_slli_epi32(hi, 1), _mm_slli_si128(hi_carry, 4)),
                    _mm_srli_si128(lo_carry, 12));
  /* Reduction. */
  __m128i a1 = _mm_xor_si128(_mm_xor_si128(_mm_slli_epi32(lo, 31), _mm_slli_epi32(lo, 30)),
                             _mm_slli_epi32(lo, 25));
  __m128i a2 = _mm_srli_si128(a1, 4);
  lo = _mm_xor_si128(lo, _mm_slli_si128(a1, 12));
  __m128i b1 = _mm_xor_si128(_mm_xor_si128(_mm_srli_epi32(lo, 1), _mm_srli_epi32(lo, 2)),
                             _mm_srli_epi32(lo, 7));
  lo = _mm_xor_si128(lo, _mm_xor_si128(b1, a2));
  return _mm_xor_si128(hi, lo);
}

/* y = (y ^ block) * h over the data, zero-padded to whole blocks; h and y reversed. */
static __m128i ghash_update(__m128i y, __m128i h, const uint8_t *data, size_t n) {
  for (size_t at = 0; at < n; at += 16) {
    uint8_t block[16] = {0};
    memcpy(block, data + at, n - at < 16 ? n - at : 16);
    y = gfmul(_mm_xor_si128(y, reverse16(load(block))), h);
  }
  return y;
}

static __m128i ghash_lengths(__m128i y, __m128i h, uint64_t a_bytes, uint64_t c_bytes) {
  uint8_t block[16];
  for (int i = 0; i < 8; i++) {
    block[i] = (uint8_t)(a_bytes * 8 >> (56 - 8 * i));
    block[8 + i] = (uint8_t)(c_bytes * 8 >> (56 - 8 * i));
  }
  return ghash_update(y, h, block, 16);
}

static void inc32(uint8_t *block) {
  for (int i = 15; i >= 12 && ++block[i] == 0; i--) {}
}

/* Encrypts or decrypts n bytes and computes the full 16-byte tag. */
static void gcm(const Aes *a, bool encrypt, const uint8_t *iv, size_t iv_len, const uint8_t *aad,
                size_t aad_len, const uint8_t *in, uint8_t *out, size_t n, uint8_t tag[16]) {
  uint8_t j0[16] = {0}, ctr[16];
  __m128i h = reverse16(aes_encrypt(a, _mm_setzero_si128()));
  if (iv_len == 12) {
    memcpy(j0, iv, 12);
    j0[15] = 1;
  } else {
    __m128i y = ghash_update(_mm_setzero_si128(), h, iv, iv_len);
    store(j0, reverse16(ghash_lengths(y, h, 0, iv_len)));
  }
  memcpy(ctr, j0, 16);
  for (size_t at = 0; at < n; at += 16) {
    uint8_t ks[16];
    inc32(ctr);
    store(ks, aes_encrypt(a, load(ctr)));
    for (size_t i = 0; i < 16 && at + i < n; i++) out[at + i] = in[at + i] ^ ks[i];
  }
  __m128i y = ghash_update(_mm_setzero_si128(), h, aad, aad_len);
  y = ghash_update(y, h, encrypt ? out : in, n);
  y = ghash_lengths(y, h, aad_len, n);
  store(tag, _mm_xor_si128(reverse16(y), aes_encrypt(a, load(j0))));
}

/* ---- .rsp files ---- */

enum { MAX_FIELD = 1024 };

typedef struct Field {
  uint8_t v[MAX_FIELD];
  size_t n;
  bool present;
} Field;

/* One test vector: the fields every format uses, by their names in the files. */
typedef struct Vector {
  Field key, iv, pt, ct, aad, tag;
  bool fail;      /* GCM decrypt: the tag must not verify */
  bool decrypt;   /* in a [DECRYPT] section */
  long line;
} Vector;

static int hex_value(int c) {
  if (c >= '0' && c <= '9') return c - '0';
  c |= 0x20;
  return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static bool parse_hex(const char *s, Field *f) {
  f->n = 0;
  f->present = true;
  while (s[0] && s[0] != '\r' && s[0] != '\n' && s[0] != ' ') {
    int hi = hex_value(s[0]), lo = hex_value(s[1]);
    if (hi < 0 || lo < 0 || f->n >= MAX_FIELD) return false;
    f->v[f->n++] = (uint8_t)(hi << 4 | lo);
    s += 2;
  }
  return true;
}

static void print_hex(const char *what, const uint8_t *p, size_t n) {
  printf("    %s ", what);
  for (size_t i = 0; i < n; i++) printf("%02x", p[i]);
  printf("\n");
}

static bool same(const char *what, const uint8_t *got, const Field *want, size_t n) {
  if (memcmp(got, want->v, n) == 0) return true;
  print_hex(what, got, n);
  print_hex("expected", want->v, n);
  return false;
}

/* Runs one vector of the given mode; true when it passes. */
static bool run_vector(const char *kind, const Vector *v) {
  static uint8_t out[MAX_FIELD], back[MAX_FIELD];
  if (!v->key.present || (v->key.n != 16 && v->key.n != 24 && v->key.n != 32)) return false;
  Aes a;
  aes_init(&a, v->key.v, v->key.n);
  if (strcmp(kind, "GCM") == 0) {
    uint8_t tag[16];
    if (!v->decrypt) {
      gcm(&a, true, v->iv.v, v->iv.n, v->aad.v, v->aad.n, v->pt.v, out, v->pt.n, tag);
      return same("CT", out, &v->ct, v->ct.n) && v->ct.n == v->pt.n &&
             same("Tag", tag, &v->tag, v->tag.n);
    }
    gcm(&a, false, v->iv.v, v->iv.n, v->aad.v, v->aad.n, v->ct.v, out, v->ct.n, tag);
    bool tag_ok = memcmp(tag, v->tag.v, v->tag.n) == 0;
    if (v->fail) return !tag_ok;
    return tag_ok && same("PT", out, &v->pt, v->pt.n) && v->pt.n == v->ct.n;
  }
  enum Mode mode = strcmp(kind, "ECB") == 0   ? ECB
                   : strcmp(kind, "CBC") == 0 ? CBC
                   : strcmp(kind, "CFB") == 0 ? CFB128
                   : strcmp(kind, "OFB") == 0 ? OFB
                                              : CTR;
  if (v->pt.n != v->ct.n || (mode != ECB && v->iv.n != 16)) return false;
  /* Both directions, whichever section the vector is in. */
  const uint8_t *iv = mode == ECB ? NULL : v->iv.v;
  cipher(mode, &a, true, iv, v->pt.v, out, v->pt.n);
  cipher(mode, &a, false, iv, v->ct.v, back, v->ct.n);
  return same("encrypted", out, &v->ct, v->ct.n) && same("decrypted", back, &v->pt, v->pt.n);
}

/* 1 in this many GCM vectors is checked: every one, but every fourth where x64emu is slow
 * (test_env.h), each section's lengths still among them. */
static long gcm_stride = 1;

/* Reads every vector of a file and checks them (GCM's: 1 in gcm_stride); returns the number
 * that failed, or -1 if unreadable. *count is the number checked. */
static long run_file(const char *dir, const char *name, const char *kind, long *count) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "r");
  if (!f) {
    printf("%s: cannot open\n", name);
    return -1;
  }
  static Vector v;
  static char line[4096];
  memset(&v, 0, sizeof v);
  /* GCM files have no [ENCRYPT]/[DECRYPT] sections: their names say. */
  bool decrypt = strstr(name, "Decrypt") != NULL, in_vector = false, checked = false;
  long failed = 0, lineno = 0, seen = 0;
  long stride = strcmp(kind, "GCM") == 0 ? gcm_stride : 1;
  *count = 0;
  for (;;) {
    bool eof = !fgets(line, sizeof line, f);
    lineno += !eof;
    bool blank = eof || line[strspn(line, " \t\r\n")] == 0;
    if (blank && in_vector) {
      v.decrypt = decrypt;
      if (checked) {
        ++*count;
        if (!run_vector(kind, &v)) {
          printf("%s: vector at line %ld FAILED\n", name, v.line);
          failed++;
        }
      }
      memset(&v, 0, sizeof v);
      in_vector = false;
    }
    if (eof) break;
    if (blank || line[0] == '#') continue;
    if (line[0] == '[') {
      if (strncmp(line, "[ENCRYPT]", 9) == 0) decrypt = false;
      else if (strncmp(line, "[DECRYPT]", 9) == 0) decrypt = true;
      continue;
    }
    if (strncmp(line, "FAIL", 4) == 0) {
      v.fail = true;
      continue;
    }
    char *eq = strstr(line, " = ");
    const char *value = eq ? eq + 3 : NULL;
    if (!eq) {
      /* "PT = " with nothing after it may have lost its trailing space. */
      eq = strstr(line, " =");
      value = "";
    }
    if (!eq) {
      printf("%s:%ld: cannot parse\n", name, lineno);
      failed++;
      continue;
    }
    *eq = 0;
    static const struct {
      const char *name;
      size_t offset;
    } fields[] = {
        {"KEY", offsetof(Vector, key)},       {"IV", offsetof(Vector, iv)},
        {"PLAINTEXT", offsetof(Vector, pt)},  {"PT", offsetof(Vector, pt)},
        {"CIPHERTEXT", offsetof(Vector, ct)}, {"CT", offsetof(Vector, ct)},
        {"AAD", offsetof(Vector, aad)},       {"TAG", offsetof(Vector, tag)},
    };
    if (!in_vector) {
      v.line = lineno;
      checked = seen++ % stride == 0;
    }
    in_vector = true;
    if (!checked) continue; /* nor its fields parsed: they cost more than the check */
    for (size_t i = 0; i < sizeof fields / sizeof *fields; i++)
      if (strcasecmp(line, fields[i].name) == 0 &&
          !parse_hex(value, (Field *)((char *)&v + fields[i].offset))) {
        printf("%s:%ld: bad hex\n", name, lineno);
        failed++;
      }
  }
  fclose(f);
  return failed;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s DIR (the ciphers/AES folder of python3-cryptography-vectors)\n",
            argv[0]);
    return 2;
  }
  static const char *const kat_mmt[] = {"GFSbox", "KeySbox", "VarKey", "VarTxt", "MMT"};
  static const char *const sizes[] = {"128", "192", "256"};
  static const struct {
    const char *kind, *folder, *prefix;
  } block_modes[] = {
      {"ECB", "ECB", "ECB"}, {"CBC", "CBC", "CBC"},
      {"CFB", "CFB", "CFB128"}, {"OFB", "OFB", "OFB"}};
  if (fewer_rounds()) gcm_stride = 4;
  char name[256];
  long total = 0, bad = 0, count;
  for (size_t m = 0; m < sizeof block_modes / sizeof *block_modes; m++)
    for (size_t t = 0; t < 5; t++)
      for (size_t s = 0; s < 3; s++) {
        snprintf(name, sizeof name, "%s/%s%s%s.rsp", block_modes[m].folder, block_modes[m].prefix,
                 kat_mmt[t], sizes[s]);
        long failed = run_file(argv[1], name, block_modes[m].kind, &count);
        printf("%s: %ld vectors, %ld failed\n", name, count, failed);
        total += count;
        bad += failed < 0 || count == 0 ? 1 : failed;
      }
  for (size_t s = 0; s < 3; s++) {
    snprintf(name, sizeof name, "CTR/aes-%s-ctr.txt", sizes[s]);
    long failed = run_file(argv[1], name, "CTR", &count);
    printf("%s: %ld vectors, %ld failed\n", name, count, failed);
    total += count;
    bad += failed < 0 || count == 0 ? 1 : failed;
  }
  static const char *const gcm_files[] = {"gcmEncryptExtIV", "gcmDecrypt"};
  for (size_t g = 0; g < 2; g++)
    for (size_t s = 0; s < 3; s++) {
      snprintf(name, sizeof name, "GCM/%s%s.rsp", gcm_files[g], sizes[s]);
      long failed = run_file(argv[1], name, "GCM", &count);
      printf("%s: %ld vectors, %ld failed\n", name, count, failed);
      total += count;
      bad += failed < 0 || count == 0 ? 1 : failed;
    }
  printf("%ld vectors: %s\n", total, bad ? "FAILED" : "all passed");
  return bad ? 1 : 0;
}
