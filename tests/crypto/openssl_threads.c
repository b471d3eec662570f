/* openssl_threads.c: a static guest program linked with OpenSSL's libcrypto.a whose
 * threads run AES at the same time: each of four encrypts its own data in CBC with
 * AES-128, AES-192 and AES-256 (OpenSSL's loop over one block's rounds, aesni_cbc_encrypt)
 * and decrypts it again. Then the main thread prints, in the threads' order, the SHA-256
 * of each ciphertext and whether each round trip gave the plaintext back, to be compared
 * byte for byte with the native run. Threads that run at once are what makes x64emu on
 * an aarch64 host decode with its ordered copy of the handlers, whose fused AES code
 * this runs there.
 *
 * usage: openssl_threads */
#include <openssl/evp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fill.h"

enum { THREADS = 4, CIPHERS = 3, LEN = 65536 };

typedef struct {
  unsigned index;
  uint8_t digest[CIPHERS][32];
  int round_trip[CIPHERS];
} Work;

static pthread_barrier_t started;

static const EVP_CIPHER *cipher(unsigned k) {
  return k == 0 ? EVP_aes_128_cbc() : k == 1 ? EVP_aes_192_cbc() : EVP_aes_256_cbc();
}

/* LEN bytes of in through the cipher into out, without padding; whether all went. */
static int crypt(const EVP_CIPHER *c, int enc, const uint8_t *key, const uint8_t *iv,
                 const uint8_t *in, uint8_t *out) {
  EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
  int n = 0, m = 0;
  int ok = ctx && EVP_CipherInit_ex(ctx, c, NULL, key, iv, enc) &&
           EVP_CIPHER_CTX_set_padding(ctx, 0) && EVP_CipherUpdate(ctx, out, &n, in, LEN) &&
           EVP_CipherFinal_ex(ctx, out + n, &m);
  EVP_CIPHER_CTX_free(ctx);
  return ok && n + m == LEN;
}

static void *work(void *arg) {
  Work *w = arg;
  uint8_t *plain = malloc(LEN), *enc = malloc(LEN), *back = malloc(LEN);
  uint8_t key[32], iv[16];
  if (!plain || !enc || !back) return NULL;
  fill(plain, LEN, w->index);
  fill(key, sizeof key, 100 + w->index);
  fill(iv, sizeof iv, 200 + w->index);
  pthread_barrier_wait(&started); /* all four at once */
  for (unsigned k = 0; k < CIPHERS; k++) {
    w->round_trip[k] = crypt(cipher(k), 1, key, iv, plain, enc) &&
                       crypt(cipher(k), 0, key, iv, enc, back) && memcmp(back, plain, LEN) == 0;
    unsigned len = 0;
    EVP_Digest(enc, LEN, w->digest[k], &len, EVP_sha256(), NULL);
  }
  free(plain);
  free(enc);
  free(back);
  return NULL;
}

int main(void) {
  static const char *names[CIPHERS] = {"AES-128-CBC", "AES-192-CBC", "AES-256-CBC"};
  pthread_t threads[THREADS];
  Work works[THREADS];
  memset(works, 0, sizeof works);
  pthread_barrier_init(&started, NULL, THREADS);
  for (unsigned i = 0; i < THREADS; i++) {
    works[i].index = i;
    if (pthread_create(&threads[i], NULL, work, &works[i]) != 0) {
      perror("openssl_threads: pthread_create");
      return 1;
    }
  }
  int failures = 0;
  for (unsigned i = 0; i < THREADS; i++) {
    pthread_join(threads[i], NULL);
    for (unsigned k = 0; k < CIPHERS; k++) {
      printf("thread %u %s: %s, sha256 ", i, names[k],
             works[i].round_trip[k] ? "round trip" : "ROUND TRIP FAILED");
      for (unsigned b = 0; b < 32; b++) printf("%02x", works[i].digest[k][b]);
      printf("\n");
      failures += !works[i].round_trip[k];
    }
  }
  return failures != 0;
}
