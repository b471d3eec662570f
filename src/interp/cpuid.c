/* cpuid.c: the guest's CPUID answers. Guests (glibc, OpenSSL) choose code paths from
 * these bits, so every advertised feature must be implemented and nothing more. */
#include "cpuid.h"

#include <stdio.h>
#include <string.h>

/* CPUID.1:EDX */
#define EDX1_FPU (1u << 0)
#define EDX1_TSC (1u << 4)
#define EDX1_CX8 (1u << 8)
#define EDX1_CMOV (1u << 15)
#define EDX1_CLFSH (1u << 19) /* CLFLUSH, with its line size in CPUID.1:EBX[15:8] */
#define EDX1_MMX (1u << 23)
#define EDX1_FXSR (1u << 24)
#define EDX1_SSE (1u << 25)
#define EDX1_SSE2 (1u << 26)
/* CPUID.1:ECX */
#define ECX1_SSE3 (1u << 0)
#define ECX1_PCLMULQDQ (1u << 1)
#define ECX1_SSSE3 (1u << 9)
#define ECX1_FMA (1u << 12)
#define ECX1_CX16 (1u << 13)
#define ECX1_SSE41 (1u << 19)
#define ECX1_SSE42 (1u << 20)
#define ECX1_MOVBE (1u << 22)
#define ECX1_POPCNT (1u << 23)
#define ECX1_AES (1u << 25)
#define ECX1_XSAVE (1u << 26)
#define ECX1_OSXSAVE (1u << 27) /* the OS enabled XSAVE (CR4.OSXSAVE): with XSAVE */
#define ECX1_AVX (1u << 28)
#define ECX1_F16C (1u << 29)
/* CPUID.0D.1 */
#define EAXD1_XSAVEOPT (1u << 0)
#define EAXD1_XSAVEC (1u << 1)
/* CPUID.7.0 */
#define EBX7_BMI1 (1u << 3)
#define EBX7_AVX2 (1u << 5)
#define EBX7_BMI2 (1u << 8)
#define EBX7_ADX (1u << 19)
#define EBX7_SHA (1u << 29)
#define ECX7_VAES (1u << 9)
#define ECX7_VPCLMULQDQ (1u << 10)
/* CPUID.80000001 */
#define ECX81_LAHF (1u << 0)
#define ECX81_ABM (1u << 5) /* LZCNT */
#define EDX81_SYSCALL (1u << 11)
#define EDX81_NX (1u << 20)
#define EDX81_RDTSCP (1u << 27)
#define EDX81_LM (1u << 29)

static const uint32_t leaf1_edx =
    EDX1_FPU | EDX1_TSC | EDX1_CX8 | EDX1_CMOV | EDX1_CLFSH | EDX1_MMX | EDX1_FXSR | EDX1_SSE | EDX1_SSE2;
static const uint32_t leaf1_ecx = ECX1_SSE3 | ECX1_PCLMULQDQ | ECX1_SSSE3 | ECX1_FMA | ECX1_CX16 |
                                  ECX1_SSE41 | ECX1_SSE42 | ECX1_MOVBE | ECX1_POPCNT |
                                  ECX1_AES | ECX1_XSAVE | ECX1_OSXSAVE | ECX1_AVX | ECX1_F16C;
static const uint32_t leaf7_ebx = EBX7_BMI1 | EBX7_AVX2 | EBX7_BMI2 | EBX7_ADX | EBX7_SHA;
static const uint32_t leaf7_ecx = ECX7_VAES | ECX7_VPCLMULQDQ;
static const uint32_t ext1_ecx = ECX81_LAHF | ECX81_ABM;
static const uint32_t ext1_edx = EDX81_SYSCALL | EDX81_NX | EDX81_RDTSCP | EDX81_LM;
static const uint32_t leafd1_eax = EAXD1_XSAVEOPT | EAXD1_XSAVEC;

static uint32_t implemented(unsigned word) {
  switch (word) {
  case CPUID_1_EDX: return leaf1_edx;
  case CPUID_1_ECX: return leaf1_ecx;
  case CPUID_7_EBX: return leaf7_ebx;
  case CPUID_81_ECX: return ext1_ecx;
  case CPUID_D1_EAX: return leafd1_eax;
  case CPUID_7_ECX: return leaf7_ecx;
  default: return ext1_edx;
  }
}

/* The bits of a feature word the model m shows. */
static uint32_t enabled(const CpuModel *m, unsigned word) {
  return implemented(word) & ~m->removed[word];
}

uint32_t cpuid_hwcap(const CpuModel *m) { return enabled(m, CPUID_1_EDX); }

uint64_t cpuid_xcr0(const CpuModel *m) {
  if (!(enabled(m, CPUID_1_ECX) & ECX1_XSAVE)) return XSTATE_X87 | XSTATE_SSE;
  return XSTATE_X87 | XSTATE_SSE | (enabled(m, CPUID_1_ECX) & ECX1_AVX ? XSTATE_AVX : 0);
}

unsigned cpuid_xsave_size(const CpuModel *m) {
  return cpuid_xcr0(m) & XSTATE_AVX ? XSAVE_AREA_MAX : XSAVE_YMM;
}

/* Deterministic cache descriptions (leaf 4) so that glibc sizes its memcpy thresholds
 * the same way on every host: 32 KiB L1d/L1i, 1 MiB L2, 8 MiB L3, 64-byte lines. */
static CpuidRegs cache_leaf(uint32_t index) {
  /* type, level, ways, sets */
  static const uint32_t caches[][4] = {
      {1, 1, 8, 64}, {2, 1, 8, 64}, {3, 2, 16, 1024}, {3, 3, 16, 8192}};
  CpuidRegs r = {0, 0, 0, 0};
  if (index >= sizeof caches / sizeof caches[0]) return r;
  const uint32_t *k = caches[index];
  r.eax = k[0] | k[1] << 5 | 1u << 8 /* self-initializing */;
  r.ebx = (64 - 1) | (1 - 1) << 12 | (k[2] - 1) << 22;
  r.ecx = k[3] - 1;
  return r;
}

static void brand(uint32_t leaf, CpuidRegs *r) {
  static const char name[48] = "x64emu virtual x86-64 CPU";
  memcpy(r, name + (leaf - 0x80000002u) * 16, 16);
}

CpuidRegs cpuid_query(const CpuModel *m, uint32_t leaf, uint32_t subleaf) {
  CpuidRegs r = {0, 0, 0, 0};
  switch (leaf) {
  case 0:
    r.eax = 0xD;
    memcpy(&r.ebx, "Genu", 4);
    memcpy(&r.edx, "ineI", 4);
    memcpy(&r.ecx, "ntel", 4);
    break;
  case 1:
    r.eax = 0x000106A5;      /* family 6, model 0x1A, stepping 5 */
    r.ebx = 8u << 8 | 1u << 16; /* 64-byte CLFLUSH line, one logical processor */
    r.ecx = enabled(m, CPUID_1_ECX);
    r.edx = enabled(m, CPUID_1_EDX);
    break;
  case 2:
    r.eax = 0x0000FF01; /* one round; descriptor FF: "see leaf 4" */
    break;
  case 4:
    r = cache_leaf(subleaf);
    break;
  case 7:
    if (subleaf == 0) { /* EAX 0: no subleaf 1 */
      r.ebx = enabled(m, CPUID_7_EBX);
      r.ecx = enabled(m, CPUID_7_ECX);
    }
    break;
  case 0xD: /* the XSAVE components: x87, SSE and AVX (xsave.c) */
    if (!(enabled(m, CPUID_1_ECX) & ECX1_XSAVE)) break;
    if (subleaf == 0) {
      r.eax = (uint32_t)cpuid_xcr0(m);
      r.ebx = r.ecx = cpuid_xsave_size(m); /* for XCR0 as it is, and for every component */
    } else if (subleaf == 1) {
      r.eax = enabled(m, CPUID_D1_EAX);
      r.ebx = cpuid_xsave_size(m);
    } else if (subleaf == 2 && (cpuid_xcr0(m) & XSTATE_AVX)) {
      r.eax = XSAVE_AREA_MAX - XSAVE_YMM; /* YMM upper halves: size, offset */
      r.ebx = XSAVE_YMM;
    }
    break;
  case 0x80000000:
    r.eax = 0x80000004;
    break;
  case 0x80000001:
    r.ecx = enabled(m, CPUID_81_ECX);
    r.edx = enabled(m, CPUID_81_EDX);
    break;
  case 0x80000002: case 0x80000003: case 0x80000004:
    brand(leaf, &r);
    break;
  default:
    break;
  }
  return r;
}

/* ---- --cpu ---- */

/* QEMU's names (and its aliases) for the features --cpu may change. */
static const struct {
  const char *name;
  CpuFeature feature;
} feature_names[] = {
    {"mmx", CPU_FEATURE_MMX},
    {"sse3", CPU_FEATURE_SSE3},       {"pni", CPU_FEATURE_SSE3},
    {"pclmulqdq", CPU_FEATURE_PCLMULQDQ}, {"pclmuldq", CPU_FEATURE_PCLMULQDQ},
    {"ssse3", CPU_FEATURE_SSSE3},     {"cx16", CPU_FEATURE_CX16},
    {"sse4.1", CPU_FEATURE_SSE41},    {"sse4_1", CPU_FEATURE_SSE41},
    {"sse4-1", CPU_FEATURE_SSE41},    {"sse4.2", CPU_FEATURE_SSE42},
    {"sse4_2", CPU_FEATURE_SSE42},    {"sse4-2", CPU_FEATURE_SSE42},
    {"movbe", CPU_FEATURE_MOVBE},     {"popcnt", CPU_FEATURE_POPCNT},
    {"aes", CPU_FEATURE_AES},
    {"abm", CPU_FEATURE_LZCNT},       {"lzcnt", CPU_FEATURE_LZCNT},
    {"sha-ni", CPU_FEATURE_SHA},      {"sha", CPU_FEATURE_SHA},
    {"bmi1", CPU_FEATURE_BMI1},       {"bmi2", CPU_FEATURE_BMI2},
    {"adx", CPU_FEATURE_ADX},         {"xsave", CPU_FEATURE_XSAVE},
    {"xsaveopt", CPU_FEATURE_XSAVEOPT}, {"xsavec", CPU_FEATURE_XSAVEC},
    {"avx", CPU_FEATURE_AVX},         {"avx2", CPU_FEATURE_AVX2},
    {"vaes", CPU_FEATURE_VAES},       {"vpclmulqdq", CPU_FEATURE_VPCLMULQDQ},
    {"fma", CPU_FEATURE_FMA},         {"f16c", CPU_FEATURE_F16C},
};

/* Sets feature bits of m on or off. */
static void set_bits(CpuModel *m, unsigned word, uint32_t bits, bool on) {
  if (on) m->removed[word] &= ~bits;
  else m->removed[word] |= bits;
}

/* Without AVX: no FMA, F16C, AVX2, VAES, VPCLMULQDQ. */
static void remove_avx_dependents(CpuModel *m) {
  set_bits(m, CPUID_1_ECX, ECX1_FMA | ECX1_F16C, false);
  set_bits(m, CPUID_7_EBX, EBX7_AVX2, false);
  set_bits(m, CPUID_7_ECX, ECX7_VAES | ECX7_VPCLMULQDQ, false);
}

/* One item of the list, applied to m; NULL or why it cannot be. */
static const char *apply_item(const char *item, CpuModel *m) {
  static __thread char why[96]; /* the message returned */
  bool on = true;
  size_t len = strlen(item);
  if (*item == '+' || *item == '-') {
    on = *item++ == '+';
    len--;
  } else if (len > 3 && strcmp(item + len - 3, "=on") == 0) {
    len -= 3;
  } else if (len > 4 && strcmp(item + len - 4, "=off") == 0) {
    on = false;
    len -= 4;
  }
  for (size_t i = 0; i < sizeof feature_names / sizeof *feature_names; i++) {
    if (strlen(feature_names[i].name) != len || strncmp(feature_names[i].name, item, len))
      continue;
    CpuFeature f = feature_names[i].feature;
    unsigned word = f / 32;
    uint32_t bit = 1u << f % 32;
    bool needs_xsave = f == CPU_FEATURE_XSAVEOPT || f == CPU_FEATURE_XSAVEC || f == CPU_FEATURE_AVX;
    if (on && needs_xsave && !(enabled(m, CPUID_1_ECX) & ECX1_XSAVE)) {
      snprintf(why, sizeof why, "--cpu: '%.*s' needs xsave", (int)len, item);
      return why;
    }
    bool needs_avx = f == CPU_FEATURE_AVX2 || f == CPU_FEATURE_VAES || f == CPU_FEATURE_VPCLMULQDQ ||
                     f == CPU_FEATURE_FMA || f == CPU_FEATURE_F16C;
    if (on && needs_avx && !(enabled(m, CPUID_1_ECX) & ECX1_AVX)) {
      snprintf(why, sizeof why, "--cpu: '%.*s' needs avx", (int)len, item);
      return why;
    }
    if (on && !(implemented(word) & bit)) {
      snprintf(why, sizeof why, "--cpu: '%.*s' is not implemented by x64emu", (int)len, item);
      return why;
    }
    set_bits(m, word, bit, on);
    if (f == CPU_FEATURE_AVX && !on) remove_avx_dependents(m);
    if (f == CPU_FEATURE_XSAVE) { /* the OS's enabling and the extensions go with it */
      set_bits(m, CPUID_1_ECX, ECX1_OSXSAVE, on);
      set_bits(m, CPUID_D1_EAX, EAXD1_XSAVEOPT | EAXD1_XSAVEC, on);
      if (!on) { /* and AVX's state with it */
        set_bits(m, CPUID_1_ECX, ECX1_AVX, false);
        remove_avx_dependents(m);
      }
    }
    return NULL;
  }
  snprintf(why, sizeof why, "--cpu: unknown feature '%.*s'", (int)len, item);
  return why;
}

/* "x86-64-v2": the model without the features that came with its x86-64-v3 work, so that
 * runs can be compared with the model before it (AES-NI, SHA, MOVBE, LZCNT stay). */
static const char *const v2_removes[] = {"-bmi1", "-bmi2", "-adx", "-xsave", "-avx"};

const char *cpuid_apply_option(CpuModel *m, const char *list) {
  CpuModel next = *m;
  for (const char *p = list; *p;) {
    size_t n = strcspn(p, ",");
    char item[64];
    if (n == 0 || n >= sizeof item) return "--cpu: expected a list like -aes,-pclmulqdq";
    memcpy(item, p, n);
    item[n] = 0;
    if (!strcmp(item, "x86-64-v2")) {
      for (size_t i = 0; i < sizeof v2_removes / sizeof *v2_removes; i++) apply_item(v2_removes[i], &next);
    } else if (strcmp(item, "max") != 0) {
      const char *why = apply_item(item, &next);
      if (why) return why;
    }
    p += n;
    if (*p == ',' && *++p == 0) return "--cpu: expected a list like -aes,-pclmulqdq";
  }
  *m = next;
  return NULL;
}

void cpuid_reset_features(CpuModel *m) { memset(m, 0, sizeof *m); }

/* ---- what the model lacks, for messages ---- */

/* A VEX instruction that is none of x86-64-v3's (AVX-VNNI, GFNI's VEX forms...), one of a
 * feature --cpu took away, or an encoding the CPU refuses (a VEX.L or VEX.W it has not). */
#define VEX_OUTSIDE                                                                        \
  "a VEX instruction outside the CPU model (AVX, AVX2, FMA, F16C, VAES, VPCLMULQDQ unless " \
  "--cpu took them away), or an encoding the CPU refuses"

const char *cpuid_missing_set(const uint8_t *b, unsigned n) {
  unsigned i = 0;
  bool p66 = false, rep = false;
  for (; i < n; i++) { /* legacy prefixes, then REX */
    if (b[i] == 0x66) p66 = true;
    else if (b[i] == 0xF2 || b[i] == 0xF3) rep = true;
    else if (b[i] != 0x67 && b[i] != 0xF0 && b[i] != 0x2E && b[i] != 0x36 && b[i] != 0x3E &&
             b[i] != 0x26 && b[i] != 0x64 && b[i] != 0x65)
      break;
  }
  if (i < n && (b[i] & 0xF0) == 0x40) i++;
  if (i >= n) return NULL;
  if ((b[i] == 0xC4 || b[i] == 0xC5) && i + 3 < n) {
    /* BMI1 and BMI2 are the VEX instructions on general registers: map 0F 38 F2, F3, F5,
     * F6, F7 and map 0F 3A F0 (RORX). */
    bool three = b[i] == 0xC4;
    unsigned map = three ? b[i + 1] & 0x1F : 1, opc = b[i + (three ? 3 : 2)];
    if ((map == 2 && (opc == 0xF2 || opc == 0xF3 || opc == 0xF5 || opc == 0xF6 || opc == 0xF7)) ||
        (map == 3 && opc == 0xF0))
      return "BMI1 or BMI2 is off (--cpu=-bmi1, --cpu=-bmi2), or the encoding is one the CPU refuses";
    return VEX_OUTSIDE;
  }
  if (b[i] == 0xC4 || b[i] == 0xC5)
    return VEX_OUTSIDE;
  if (b[i] == 0x62) return "the CPU model has no AVX-512 (EVEX encoding): build for x86-64-v3 or lower";
  if (b[i] != 0x0F || i + 1 >= n) return NULL;
  uint8_t op = b[i + 1], modrm = i + 2 < n ? b[i + 2] : 0, reg = (modrm >> 3) & 7;
  bool reg_form = (modrm >> 6) == 3;
  if (op == 0x0F) return "the CPU model has no 3DNow! (AMD only)";
  if (op == 0x38 && i + 2 < n) {
    uint8_t op3 = b[i + 2];
    if (op3 >= 0xC8 && op3 <= 0xCD && !p66 && !rep) return "the SHA extensions are off (--cpu=-sha)";
    if (op3 == 0xF6 && (p66 || rep)) return "ADX is off (--cpu=-adx)";
    return NULL;
  }
  if (op == 0x3A && i + 2 < n && b[i + 2] == 0xCC && !p66 && !rep)
    return "the SHA extensions are off (--cpu=-sha)";
  if (op == 0xC7 && reg_form && (reg == 6 || reg == 7)) return "the CPU model has no RDRAND or RDSEED";
  if (op == 0xC7 && !reg_form && (reg == 3 || reg == 5)) return "the CPU model has no XSAVES or XRSTORS";
  if ((op == 0xAE && !reg_form && reg >= 4 && reg <= 6 && !p66 && !rep) ||
      (op == 0xC7 && !reg_form && reg == 4) || (op == 0x01 && (modrm == 0xD0 || modrm == 0xD1)))
    return "XSAVE is off (--cpu=-xsave)";
  return NULL;
}
