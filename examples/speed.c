/* speed.c: a static program that measures OpenSSL's EVP ciphers and digests the way
 * `openssl speed -evp` does (a SIGALRM ends each loop) and prints the same table.
 *
 * usage: speed [-seconds S] [-bytes N]... [-evp NAME]... [-elapsed] [-mr] [-v]
 *   -seconds S  time per algorithm and size (default 3; fractions such as 0.1 use
 *               setitimer instead of alarm)
 *   -bytes N    only this block size (may be given more than once)
 *   -evp NAME   only this cipher or digest, by OpenSSL's name (may be given more than once)
 *   -elapsed    rates from wall-clock time instead of the process's CPU time
 *   -mr         machine-readable output, as `openssl speed -mr`
 *   -v          the CPU features OpenSSL found (OPENSSL_ia32cap), decoded on stderr
 *
 * As openssl speed's EVP loops: ciphers encrypt the buffer in place with EVP_EncryptUpdate
 * on one context (GCM and CCM: a whole message with its key, IV and tag each time),
 * digests hash it whole with EVP_Digest each time. */
#define _GNU_SOURCE
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

/* OpenSSL's copy of CPUID.1:EDX, CPUID.1:ECX, CPUID.7:EBX and CPUID.7:ECX. */
extern unsigned int OPENSSL_ia32cap_P[4];

static const char *const default_algorithms[] = {
    "aes-128-gcm", "aes-128-ctr", "aes-128-cbc", "aes-256-gcm", "sha256", "chacha20-poly1305",
};
static const int default_sizes[] = {16, 64, 256, 1024, 8192, 16384};

enum { MAX_ITEMS = 32 };

typedef struct Options {
  double seconds;
  int sizes[MAX_ITEMS];
  int n_sizes;
  const char *algorithms[MAX_ITEMS];
  int n_algorithms;
  bool elapsed, machine_readable, verbose;
} Options;

typedef struct Algorithm {
  const char *label; /* as openssl speed names the row */
  EVP_CIPHER *cipher;
  EVP_MD *md;
} Algorithm;

static volatile sig_atomic_t time_is_up;

static void on_alarm(int sig) {
  (void)sig;
  time_is_up = 1;
}

static void die(const char *what) {
  fprintf(stderr, "speed: %s\n", what);
  unsigned long e;
  while ((e = ERR_get_error()) != 0) fprintf(stderr, "speed: %s\n", ERR_error_string(e, NULL));
  exit(1);
}

static void usage(FILE *to, int status) {
  fprintf(to,
          "usage: speed [-seconds S] [-bytes N]... [-evp NAME]... [-elapsed] [-mr] [-v]\n"
          "  default: %g s for each of", 3.0);
  for (size_t i = 0; i < sizeof default_algorithms / sizeof *default_algorithms; i++)
    fprintf(to, " %s", default_algorithms[i]);
  fprintf(to, "\n  at 16, 64, 256, 1024, 8192 and 16384 bytes\n");
  exit(status);
}

static Options parse_options(int argc, char **argv) {
  Options o = {.seconds = 3};
  for (int i = 1; i < argc; i++) {
    const char *opt = argv[i];
    if (strcmp(opt, "-h") == 0 || strcmp(opt, "-help") == 0 || strcmp(opt, "--help") == 0)
      usage(stdout, 0);
    if (strcmp(opt, "-elapsed") == 0) {
      o.elapsed = true;
      continue;
    }
    if (strcmp(opt, "-mr") == 0) {
      o.machine_readable = true;
      continue;
    }
    if (strcmp(opt, "-v") == 0) {
      o.verbose = true;
      continue;
    }
    if (i + 1 >= argc) usage(stderr, 1);
    const char *value = argv[++i];
    char *end;
    if (strcmp(opt, "-seconds") == 0) {
      o.seconds = strtod(value, &end);
      if (*end || !(o.seconds > 0) || o.seconds > 1e6) die("-seconds takes a positive number");
    } else if (strcmp(opt, "-bytes") == 0) {
      long n = strtol(value, &end, 10);
      if (*end || n <= 0 || n > (1 << 24)) die("-bytes takes a size from 1 to 16777216");
      if (o.n_sizes == MAX_ITEMS) die("too many -bytes");
      o.sizes[o.n_sizes++] = (int)n;
    } else if (strcmp(opt, "-evp") == 0) {
      if (o.n_algorithms == MAX_ITEMS) die("too many -evp");
      o.algorithms[o.n_algorithms++] = value;
    } else {
      usage(stderr, 1);
    }
  }
  if (o.n_sizes == 0) {
    o.n_sizes = sizeof default_sizes / sizeof *default_sizes;
    memcpy(o.sizes, default_sizes, sizeof default_sizes);
  }
  if (o.n_algorithms == 0) {
    o.n_algorithms = sizeof default_algorithms / sizeof *default_algorithms;
    memcpy(o.algorithms, default_algorithms, sizeof default_algorithms);
  }
  return o;
}

/* A cipher by that name, else a digest; openssl speed labels a cipher's row with
 * OpenSSL's own name for it and a digest's with the name it was given. */
static Algorithm fetch_algorithm(const char *name) {
  Algorithm a = {.label = name};
  ERR_set_mark();
  a.cipher = EVP_CIPHER_fetch(NULL, name, NULL);
  if (a.cipher) {
    a.label = EVP_CIPHER_get0_name(a.cipher);
  } else {
    a.md = EVP_MD_fetch(NULL, name, NULL);
  }
  ERR_pop_to_mark();
  if (!a.cipher && !a.md) {
    fprintf(stderr, "speed: %s is neither a cipher nor a digest OpenSSL knows\n", name);
    exit(1);
  }
  return a;
}

static double now(bool elapsed) {
  struct timespec ts;
  clock_gettime(elapsed ? CLOCK_MONOTONIC : CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* alarm() as openssl speed does for whole seconds; setitimer for fractions. */
static void start_timer(double seconds) {
  time_is_up = 0;
  if (seconds == floor(seconds)) {
    alarm((unsigned)seconds);
    return;
  }
  struct itimerval t = {0};
  t.it_value.tv_sec = (time_t)seconds;
  t.it_value.tv_usec = (suseconds_t)((seconds - floor(seconds)) * 1e6);
  if (t.it_value.tv_sec == 0 && t.it_value.tv_usec == 0) t.it_value.tv_usec = 1;
  if (setitimer(ITIMER_REAL, &t, NULL) != 0) die("setitimer failed");
}

/* Encrypts the buffer in place until the timer fires; returns the number of updates.
 * A stream of updates on one context, as openssl speed's EVP_Update_loop. */
static long cipher_stream_loop(EVP_CIPHER_CTX *ctx, const unsigned char *iv, unsigned char *buf,
                               int size) {
  long count = 0;
  int out_len;
  while (!time_is_up) {
    if (!EVP_EncryptUpdate(ctx, buf, &out_len, buf, size)) {
      /* A counter that ran out (GCM after 2^36 bytes): start over with the same IV. */
      if (!EVP_EncryptInit_ex(ctx, NULL, NULL, NULL, iv) ||
          !EVP_EncryptUpdate(ctx, buf, &out_len, buf, size))
        die("EVP_EncryptUpdate failed");
    }
    count++;
  }
  return count;
}

/* One whole message each time: key, IV, data and tag, as openssl speed of OpenSSL 3.0
 * times GCM (CCM too here: it cannot stream). */
static long cipher_message_loop(EVP_CIPHER_CTX *ctx, const unsigned char *key,
                                const unsigned char *iv, unsigned char *buf, int size, bool ccm) {
  long count = 0;
  int out_len, tail_len;
  while (!time_is_up) {
    if (!EVP_EncryptInit_ex(ctx, NULL, NULL, key, iv) ||
        (ccm && !EVP_EncryptUpdate(ctx, NULL, &out_len, NULL, size)) ||
        !EVP_EncryptUpdate(ctx, buf, &out_len, buf, size) ||
        !EVP_EncryptFinal_ex(ctx, buf + out_len, &tail_len))
      die("encrypting a message failed");
    count++;
  }
  return count;
}

static long digest_loop(const EVP_MD *md, const unsigned char *buf, int size) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  long count = 0;
  while (!time_is_up) {
    if (!EVP_Digest(buf, (size_t)size, digest, NULL, md, NULL)) die("EVP_Digest failed");
    count++;
  }
  return count;
}

/* Bytes per second for one algorithm at one size. */
static double measure(const Algorithm *a, const Options *o, unsigned char *buf, int size) {
  static const unsigned char key[64] = "speed example key: 64 bytes of anything will do...";
  static const unsigned char iv[EVP_MAX_IV_LENGTH] = "speed iv bytes";
  EVP_CIPHER_CTX *ctx = NULL;
  int mode = a->cipher ? EVP_CIPHER_get_mode(a->cipher) : 0;
  if (a->cipher) {
    ctx = EVP_CIPHER_CTX_new();
    if (!ctx || !EVP_EncryptInit_ex(ctx, a->cipher, NULL, key, iv))
      die("cannot set up the cipher");
    EVP_CIPHER_CTX_set_padding(ctx, 0);
  }
  if (o->machine_readable)
    fprintf(stderr, "+DT:%s:%g:%d\n", a->label, o->seconds, size);
  else
    fprintf(stderr, "Doing %s for %gs on %d size blocks: ", a->label, o->seconds, size);

  start_timer(o->seconds);
  double start = now(o->elapsed);
  long count;
  if (!a->cipher)
    count = digest_loop(a->md, buf, size);
  else if (mode == EVP_CIPH_GCM_MODE || mode == EVP_CIPH_CCM_MODE)
    count = cipher_message_loop(ctx, key, iv, buf, size, mode == EVP_CIPH_CCM_MODE);
  else
    count = cipher_stream_loop(ctx, iv, buf, size);
  double taken = now(o->elapsed) - start;

  if (o->machine_readable)
    fprintf(stderr, "+R:%ld:%s:%f\n", count, a->label, taken);
  else
    fprintf(stderr, "%ld %s's in %.2fs\n", count, a->label, taken);
  EVP_CIPHER_CTX_free(ctx);
  return taken > 0 ? (double)count * size / taken : 0;
}

/* Which of OpenSSL's code paths the CPU words allow, in words. */
static void print_cpu_features(void) {
  static const struct {
    int word, bit;
    const char *name;
  } features[] = {
      {1, 9, "ssse3"}, {1, 19, "sse4.1"}, {1, 20, "sse4.2"}, {1, 22, "movbe"},
      {1, 25, "aes"},  {1, 1, "pclmulqdq"}, {1, 28, "avx"}, {2, 5, "avx2"},
      {2, 19, "adx"},  {2, 29, "sha"},      {2, 16, "avx512f"}, {3, 9, "vaes"},
      {3, 10, "vpclmulqdq"},
  };
  fprintf(stderr, "OpenSSL sees:");
  for (size_t i = 0; i < sizeof features / sizeof *features; i++)
    fprintf(stderr, " %s=%s", features[i].name,
            OPENSSL_ia32cap_P[features[i].word] >> features[i].bit & 1 ? "yes" : "no");
  fprintf(stderr, "\n");
}

int main(int argc, char **argv) {
  Options o = parse_options(argc, argv);
  Algorithm algorithms[MAX_ITEMS];
  for (int i = 0; i < o.n_algorithms; i++) algorithms[i] = fetch_algorithm(o.algorithms[i]);

  int largest = 0;
  for (int i = 0; i < o.n_sizes; i++)
    if (o.sizes[i] > largest) largest = o.sizes[i];
  /* Room for a block cipher's padding and a digest's worth of slack, 64-byte aligned. */
  size_t buf_size = ((size_t)largest + 64 + 63) & ~(size_t)63;
  unsigned char *buf = aligned_alloc(64, buf_size);
  if (!buf) die("out of memory");
  for (size_t i = 0; i < buf_size; i++) buf[i] = (unsigned char)(i * 7 + 1);

  struct sigaction sa = {.sa_handler = on_alarm};
  sigemptyset(&sa.sa_mask);
  if (sigaction(SIGALRM, &sa, NULL) != 0) die("sigaction failed");

  if (o.verbose) {
    fprintf(stderr, "%s\n", OpenSSL_version(OPENSSL_VERSION));
    print_cpu_features();
  }

  static double rates[MAX_ITEMS][MAX_ITEMS];
  for (int a = 0; a < o.n_algorithms; a++)
    for (int s = 0; s < o.n_sizes; s++) rates[a][s] = measure(&algorithms[a], &o, buf, o.sizes[s]);

  if (o.machine_readable) {
    printf("+H");
    for (int s = 0; s < o.n_sizes; s++) printf(":%d", o.sizes[s]);
    printf("\n");
    for (int a = 0; a < o.n_algorithms; a++) {
      printf("+F:%d:%s", a, algorithms[a].label);
      for (int s = 0; s < o.n_sizes; s++) printf(":%.2f", rates[a][s]);
      printf("\n");
    }
  } else {
    printf("version: %s\n", OpenSSL_version(OPENSSL_VERSION_STRING));
    printf("%s\n", OpenSSL_version(OPENSSL_BUILT_ON));
    const char *cpu = OpenSSL_version(OPENSSL_CPU_INFO);
    if (cpu && strncmp(cpu, "CPUINFO: ", 9) == 0) printf("%s\n", cpu);
    printf("The 'numbers' are in 1000s of bytes per second processed.\n");
    printf("type        ");
    for (int s = 0; s < o.n_sizes; s++) printf("%7d bytes", o.sizes[s]);
    printf("\n");
    for (int a = 0; a < o.n_algorithms; a++) {
      printf("%-13s", algorithms[a].label);
      for (int s = 0; s < o.n_sizes; s++) {
        /* openssl speed shows a tiny rate in bytes, without the k. */
        if (rates[a][s] > 10000)
          printf(" %11.2fk", rates[a][s] / 1e3);
        else
          printf(" %11.2f ", rates[a][s]);
      }
      printf("\n");
    }
  }

  for (int a = 0; a < o.n_algorithms; a++) {
    EVP_CIPHER_free(algorithms[a].cipher);
    EVP_MD_free(algorithms[a].md);
  }
  free(buf);
  return 0;
}
