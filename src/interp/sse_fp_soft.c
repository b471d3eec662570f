/* sse_fp_soft.c: the portable tier of the SSE float kernels: host C arithmetic under
 * <fenv.h> for rounding and exception flags, with the x86 rules written out. */
#include <fenv.h>
#include <math.h>
#include <string.h>

#include "sse_fp.h"

/* One IEEE binary format, described by its bit fields so that the rules below are
 * written once for f32 and f64. */
typedef struct Fmt {
  bool f64;
  uint64_t sign, exp, frac, quiet, default_nan, min_normal;
} Fmt;

static const Fmt F32 = {false, 0x80000000u, 0x7F800000u, 0x007FFFFFu, 0x00400000u, 0xFFC00000u,
                        0x00800000u};
static const Fmt F64 = {true, 1ull << 63, 0x7FF0000000000000ull, 0x000FFFFFFFFFFFFFull,
                        1ull << 51, 0xFFF8000000000000ull, 1ull << 52};

static bool is_nan(const Fmt *f, uint64_t u) { return (u & ~f->sign) > f->exp; }
static bool is_snan(const Fmt *f, uint64_t u) { return is_nan(f, u) && !(u & f->quiet); }
static bool is_denormal(const Fmt *f, uint64_t u) { return !(u & f->exp) && (u & f->frac); }
static bool is_zero(const Fmt *f, uint64_t u) { return !(u & ~f->sign); }

/* DAZ: a denormal source reads as a zero of its sign (and raises no DE). */
static uint64_t daz(const Fmt *f, uint64_t u, uint32_t mx) {
  return (mx & MXCSR_DAZ) && is_denormal(f, u) ? u & f->sign : u;
}

static float u2f(uint32_t u) { float x; memcpy(&x, &u, 4); return x; }
static double u2d(uint64_t u) { double x; memcpy(&x, &u, 8); return x; }
static uint32_t f2u(float x) { uint32_t u; memcpy(&u, &x, 4); return u; }
static uint64_t d2u(double x) { uint64_t u; memcpy(&u, &x, 8); return u; }
static double as_double(const Fmt *f, uint64_t u) { return f->f64 ? u2d(u) : u2f((uint32_t)u); }
/* A double that f represents exactly, as f's bits. */
static uint64_t of_double(const Fmt *f, double x) { return f->f64 ? d2u(x) : f2u((float)x); }

static int fe_rounding(uint32_t mx) {
  switch ((mx & MXCSR_RC) >> MXCSR_RC_SHIFT) {
  case 0: return FE_TONEAREST;
  case 1: return FE_DOWNWARD;
  case 2: return FE_UPWARD;
  default: return FE_TOWARDZERO;
  }
}

static uint32_t mxcsr_flags_of(int e) {
  return (e & FE_INVALID ? MXCSR_IE : 0) | (e & FE_DIVBYZERO ? MXCSR_ZE : 0) |
         (e & FE_OVERFLOW ? MXCSR_OE : 0) | (e & FE_UNDERFLOW ? MXCSR_UE : 0) |
         (e & FE_INEXACT ? MXCSR_PE : 0);
}

/* A host operation run in the guest's rounding mode, its flags collected. Volatile
 * operands keep the compiler from moving the arithmetic across the fenv calls. */
typedef struct HostFp {
  int saved_round;
} HostFp;

static HostFp host_begin(uint32_t mx) {
  HostFp h = {fegetround()};
  fesetround(fe_rounding(mx));
  feclearexcept(FE_ALL_EXCEPT);
  return h;
}

static uint32_t host_end(HostFp h) {
  int e = fetestexcept(FE_ALL_EXCEPT);
  fesetround(h.saved_round);
  return mxcsr_flags_of(e);
}

/* The rounded host result of a op b (or sqrt b); the inputs are not NaN. */
static uint64_t host_arith(const Fmt *f, enum FpOp op, uint64_t a, uint64_t b, uint32_t mx,
                           uint32_t *raised) {
  HostFp h = host_begin(mx);
  uint64_t r;
  if (f->f64) {
    volatile double x = u2d(a), y = u2d(b), z;
    switch (op) {
    case FP_ADD: z = x + y; break;
    case FP_SUB: z = x - y; break;
    case FP_MUL: z = x * y; break;
    case FP_DIV: z = x / y; break;
    default: z = __builtin_sqrt(y); break;
    }
    r = d2u(z);
  } else {
    volatile float x = u2f((uint32_t)a), y = u2f((uint32_t)b), z;
    switch (op) {
    case FP_ADD: z = x + y; break;
    case FP_SUB: z = x - y; break;
    case FP_MUL: z = x * y; break;
    case FP_DIV: z = x / y; break;
    default: z = __builtin_sqrtf(y); break;
    }
    r = f2u(z);
  }
  *raised |= host_end(h);
  return r;
}

/* The rounded host fma of m1*m2 + add; the inputs are not NaN. */
static uint64_t host_fma(const Fmt *f, uint64_t m1, uint64_t m2, uint64_t add, uint32_t mx,
                         uint32_t *raised) {
  HostFp h = host_begin(mx);
  uint64_t r;
  if (f->f64) {
    volatile double x = u2d(m1), y = u2d(m2), z = u2d(add), w;
    w = fma(x, y, z);
    r = d2u(w);
  } else {
    volatile float x = u2f((uint32_t)m1), y = u2f((uint32_t)m2), z = u2f((uint32_t)add), w;
    w = fmaf(x, y, z);
    r = f2u(w);
  }
  *raised |= host_end(h);
  return r;
}

/* Underflow is a tiny result; x86 calls a result tiny when, rounded with an unbounded
 * exponent, it is below the smallest normal number. Arm decides before rounding, so its
 * underflow flag also comes with results that round up to the smallest normal. For
 * those the operation is redone scaled into the normal range, where its rounding is the
 * unbounded one. (Only multiply, divide and narrowing can underflow inexactly: a tiny sum
 * is always exact.) */
static bool tiny_after_rounding(const Fmt *f, enum FpOp op, uint64_t a, uint64_t b, uint32_t mx) {
  HostFp h = host_begin(mx);
  bool tiny;
  if (f->f64) {
    volatile double x = u2d(a), y = u2d(b), z;
    if (op == FP_MUL && fabs(x) > fabs(y)) y = y * 0x1p64; /* scale the smaller factor */
    else x = x * 0x1p64;
    z = op == FP_MUL ? x * y : x / y;
    tiny = fabs(z) < 0x1p-958;
  } else {
    volatile float x = u2f((uint32_t)a), y = u2f((uint32_t)b), z;
    if (op == FP_MUL && fabsf(x) > fabsf(y)) y = y * 0x1p32f;
    else x = x * 0x1p32f;
    z = op == FP_MUL ? x * y : x / y;
    tiny = fabsf(z) < 0x1p-94f;
  }
  host_end(h);
  return tiny;
}

static bool narrowing_tiny_after_rounding(uint64_t u, uint32_t mx) {
  HostFp h = host_begin(mx);
  volatile double x = u2d(u) * 0x1p32;
  volatile float z = (float)x;
  bool tiny = fabsf(z) < 0x1p-94f;
  host_end(h);
  return tiny;
}

/* The x86 ending of a rounded result: an invalid operation gives the negative default
 * NaN, and with FTZ a tiny result (UE already raised as x86 would, or an exact denormal)
 * becomes a zero of its sign with UE and PE. */
static uint64_t finish(const Fmt *f, uint64_t r, uint32_t mx, uint32_t *fl, uint32_t raised) {
  if (is_nan(f, r)) r = f->default_nan;
  if ((mx & MXCSR_FTZ) && ((raised & MXCSR_UE) || is_denormal(f, r))) {
    r &= f->sign;
    raised |= MXCSR_UE | MXCSR_PE;
  }
  *fl |= raised;
  return r;
}

/* ---- the trapping response ----
 *
 * With overflow or underflow unmasked (mxcsr_traps_range) a lane whose result overflows,
 * or is tiny, gets no result, and the flags are not the masked ones: OE or UE, and PE
 * only if the result rounded with an unbounded exponent is inexact; a tiny result
 * underflows then even when it is exact, and FTZ does not apply (SDM vol. 1, 11.5.2.4
 * and 11.5.2.5; measured). The unbounded rounding is the operation redone on operands
 * scaled by powers of two, exactly, into a range where nothing overflows or is tiny. */

/* Whether a lane with the rounded result r, which raised these flags, traps. */
static bool traps(const Fmt *f, uint64_t r, uint32_t raised, uint32_t mx) {
  uint32_t unmasked = ~mx >> 7;
  if (raised & MXCSR_OE) return unmasked & MXCSR_OE;
  return (unmasked & MXCSR_UE) && ((raised & MXCSR_UE) || is_denormal(f, r));
}

/* The flags of a lane that traps: DE if it was raised, OE or UE, PE if inexact. */
static uint32_t trap_flags(uint32_t raised, bool inexact) {
  return (raised & MXCSR_DE) | (raised & MXCSR_OE ? MXCSR_OE : MXCSR_UE) | (inexact ? MXCSR_PE : 0);
}

/* Whether m1*m2 + add (finite numbers of f) is inexact with an unbounded exponent: the
 * factors scaled into [0.5, 1), the addend by as much. An addend that lies wholly above
 * or below the product's bits (more than p + 2 binades above the product, or more than
 * 2p + 4 below) leaves a sum wider than the p-bit significand. */
static bool fma_inexact(const Fmt *f, uint64_t m1, uint64_t m2, uint64_t add, uint32_t mx) {
  int p = f->f64 ? 53 : 24, e1, e2, e3;
  double x = frexp(as_double(f, m1), &e1), y = frexp(as_double(f, m2), &e2);
  double z = frexp(as_double(f, add), &e3);
  if (x == 0 || y == 0) return false; /* the addend alone */
  if (z != 0) {
    int d = e3 - e1 - e2;
    if (d > p + 2 || d < -2 * p - 4) return true;
    z = ldexp(z, d);
  }
  uint32_t raised = 0;
  host_fma(f, of_double(f, x), of_double(f, y), of_double(f, z), mx, &raised);
  return raised & MXCSR_PE;
}

/* The same for a op b: sums and products as multiply-adds, quotients of the operands
 * scaled into [0.5, 1). (A square root neither overflows nor is tiny.) */
static bool arith_inexact(const Fmt *f, enum FpOp op, uint64_t a, uint64_t b, uint32_t mx) {
  uint64_t one = of_double(f, 1.0), zero = 0;
  switch (op) {
  case FP_ADD: return fma_inexact(f, a, one, b, mx);
  case FP_SUB: return fma_inexact(f, a, one, b ^ f->sign, mx);
  case FP_MUL: return fma_inexact(f, a, b, zero, mx);
  default: {
    int ea, eb;
    double x = frexp(as_double(f, a), &ea), y = frexp(as_double(f, b), &eb);
    uint32_t raised = 0;
    host_arith(f, FP_DIV, of_double(f, x), of_double(f, y), mx, &raised);
    return raised & MXCSR_PE;
  }
  }
}

static unsigned lanes_of(enum FpShape sh) { return sh == FP_PS ? 4 : sh == FP_PD ? 2 : 1; }
static const Fmt *fmt_of(enum FpShape sh) { return sh == FP_PS || sh == FP_SS ? &F32 : &F64; }

static uint64_t lane_get(const Fmt *f, const Xmm *x, unsigned i) {
  return f->f64 ? x->q[i] : x->d[i];
}
static void lane_set(const Fmt *f, Xmm *x, unsigned i, uint64_t v) {
  if (f->f64) x->q[i] = v;
  else x->d[i] = (uint32_t)v;
}

/* The flags here are all the lanes' together (one lane's masked overflow must not hide
 * another's tiny result), so each lane's result only shows whether it is tiny. */
bool soft_range_traps(uint32_t mx, uint32_t raised, const Xmm *r, enum FpShape sh) {
  const Fmt *f = fmt_of(sh);
  uint32_t unmasked = ~mx >> 7;
  if ((raised & MXCSR_OE) && (unmasked & MXCSR_OE)) return true;
  if (!(unmasked & MXCSR_UE)) return false;
  if (raised & MXCSR_UE) return true;
  for (unsigned i = 0; i < lanes_of(sh); i++)
    if (is_denormal(f, lane_get(f, r, i))) return true; /* an exact tiny result */
  return false;
}

/* NaN operands of arithmetic: the first NaN operand, quieted; an SNaN is invalid. */
static uint64_t propagate_nan(const Fmt *f, uint64_t a, uint64_t b, uint32_t *fl) {
  if (is_snan(f, a) || is_snan(f, b)) *fl |= MXCSR_IE;
  return (is_nan(f, a) ? a : b) | f->quiet;
}

static uint64_t lane_arith(const Fmt *f, enum FpOp op, uint64_t a, uint64_t b, uint32_t mx,
                           uint32_t *fl) {
  a = daz(f, a, mx);
  b = daz(f, b, mx);
  if (op == FP_SQRT) {
    if (is_nan(f, b)) return propagate_nan(f, b, b, fl);
    if ((b & f->sign) && !is_zero(f, b)) { /* invalid outranks the denormal flag */
      *fl |= MXCSR_IE;
      return f->default_nan;
    }
    if (is_denormal(f, b)) *fl |= MXCSR_DE;
  } else if (op == FP_MIN || op == FP_MAX) {
    /* The source whenever the operands are unordered or both zero, and any NaN (not
     * only a signalling one) is invalid. */
    if (is_nan(f, a) || is_nan(f, b)) {
      *fl |= MXCSR_IE;
      return b;
    }
    if (is_denormal(f, a) || is_denormal(f, b)) *fl |= MXCSR_DE;
    double x = as_double(f, a), y = as_double(f, b);
    if (op == FP_MIN) return x < y ? a : b;
    return x > y ? a : b;
  } else {
    if (is_nan(f, a) || is_nan(f, b)) return propagate_nan(f, a, b, fl);
    /* Division by zero outranks the denormal flag too. */
    if ((is_denormal(f, a) || is_denormal(f, b)) && !(op == FP_DIV && is_zero(f, b)))
      *fl |= MXCSR_DE;
  }
  uint32_t raised = 0;
  uint64_t r = host_arith(f, op, a, b, mx, &raised);
  if ((raised & MXCSR_UE) && (r & ~f->sign) == f->min_normal &&
      (op == FP_MUL || op == FP_DIV) && !tiny_after_rounding(f, op, a, b, mx))
    raised &= ~(uint32_t)MXCSR_UE;
  if (traps(f, r, raised, mx)) {
    *fl |= trap_flags(raised, arith_inexact(f, op, a, b, mx));
    return r;
  }
  return finish(f, r, mx, fl, raised);
}

uint32_t soft_arith(enum FpOp op, enum FpShape sh, Xmm *d, const Xmm *s, uint32_t mx) {
  const Fmt *f = fmt_of(sh);
  uint32_t fl = 0;
  for (unsigned i = 0; i < lanes_of(sh); i++)
    lane_set(f, d, i, lane_arith(f, op, lane_get(f, d, i), lane_get(f, s, i), mx, &fl));
  return fl;
}

/* ---- compares ---- */

enum Relation { REL_LT, REL_EQ, REL_GT, REL_UNORDERED };

/* Orders two DAZ-adjusted operands; sets IE for an SNaN, or for any NaN when
 * signalling, and DE for a denormal when neither is a NaN. */
static enum Relation relate(const Fmt *f, uint64_t a, uint64_t b, bool signalling, uint32_t *fl) {
  if (is_nan(f, a) || is_nan(f, b)) {
    if (signalling || is_snan(f, a) || is_snan(f, b)) *fl |= MXCSR_IE;
    return REL_UNORDERED;
  }
  if (is_denormal(f, a) || is_denormal(f, b)) *fl |= MXCSR_DE;
  double x = as_double(f, a), y = as_double(f, b);
  return x < y ? REL_LT : x > y ? REL_GT : REL_EQ;
}

uint32_t soft_cmp(enum FpShape sh, unsigned pred, Xmm *d, const Xmm *s, uint32_t mx) {
  const Fmt *f = fmt_of(sh);
  uint64_t ones = f->f64 ? ~0ull : 0xFFFFFFFFull;
  /* LT, LE, NLT and NLE signal on QNaN operands; the others only on SNaN. */
  bool signalling = pred == 1 || pred == 2 || pred == 5 || pred == 6;
  uint32_t fl = 0;
  for (unsigned i = 0; i < lanes_of(sh); i++) {
    enum Relation r = relate(f, daz(f, lane_get(f, d, i), mx), daz(f, lane_get(f, s, i), mx),
                             signalling, &fl);
    bool t;
    switch (pred & 7) {
    case 0: t = r == REL_EQ; break;
    case 1: t = r == REL_LT; break;
    case 2: t = r == REL_LT || r == REL_EQ; break;
    case 3: t = r == REL_UNORDERED; break;
    case 4: t = r != REL_EQ; break;
    case 5: t = r != REL_LT; break;
    case 6: t = !(r == REL_LT || r == REL_EQ); break;
    default: t = r != REL_UNORDERED; break;
    }
    lane_set(f, d, i, t ? ones : 0);
  }
  return fl;
}

uint32_t soft_comi(bool f64, bool quiet, const Xmm *a, const Xmm *b, uint32_t mx, uint64_t *zpc) {
  const Fmt *f = f64 ? &F64 : &F32;
  uint32_t fl = 0;
  enum Relation r = relate(f, daz(f, lane_get(f, a, 0), mx), daz(f, lane_get(f, b, 0), mx),
                           !quiet, &fl);
  static const uint64_t bits[] = {[REL_LT] = F_CF, [REL_EQ] = F_ZF, [REL_GT] = 0,
                                  [REL_UNORDERED] = F_ZF | F_PF | F_CF};
  *zpc = bits[r];
  return fl;
}

/* ---- reciprocal approximations ---- */

/* 1/x or 1/sqrt(x) rounded to 12 significant bits; denormal inputs read as zero and
 * results below the normal range flush to zero, as on x86. */
static uint32_t approx_lane(uint32_t u, bool rsqrt) {
  const Fmt *f = &F32;
  if (is_nan(f, u)) return u | f->quiet;
  if (is_denormal(f, u)) u &= f->sign;
  uint32_t sign = u & 0x80000000u;
  if (is_zero(f, u)) return sign | 0x7F800000u;
  if (rsqrt && sign) return (uint32_t)f->default_nan;
  if ((u & 0x7FFFFFFFu) == 0x7F800000u) return sign;
  double x = u2f(u);
  double r = rsqrt ? 1.0 / sqrt(x) : 1.0 / x;
  int e;
  double m = frexp(r, &e);             /* r = m * 2^e, 0.5 <= |m| < 1 */
  m = nearbyint(m * 4096.0) / 4096.0;  /* 12 significant bits */
  r = ldexp(m, e);
  if (fabs(r) < 0x1p-126) return sign;
  return f2u((float)r);
}

void soft_rcp(enum FpShape sh, bool rsqrt, Xmm *d, const Xmm *s) {
  for (unsigned i = 0; i < lanes_of(sh); i++) d->d[i] = approx_lane(s->d[i], rsqrt);
}

/* ---- conversions ---- */

/* f32 -> f64 is exact; a NaN keeps its payload (quieted). */
static uint64_t widen(uint32_t u, uint32_t mx, uint32_t *fl) {
  u = (uint32_t)daz(&F32, u, mx);
  if (is_nan(&F32, u)) {
    if (is_snan(&F32, u)) *fl |= MXCSR_IE;
    return (uint64_t)(u & 0x80000000u) << 32 | F64.exp | F64.quiet |
           (uint64_t)(u & F32.frac) << 29;
  }
  if (is_denormal(&F32, u)) *fl |= MXCSR_DE;
  return d2u((double)u2f(u));
}

static uint32_t narrow(uint64_t u, uint32_t mx, uint32_t *fl) {
  u = daz(&F64, u, mx);
  if (is_nan(&F64, u)) {
    if (is_snan(&F64, u)) *fl |= MXCSR_IE;
    return (uint32_t)(u >> 32 & 0x80000000u) | 0x7F800000u | 0x00400000u |
           (uint32_t)((u & F64.frac) >> 29);
  }
  if (is_denormal(&F64, u)) *fl |= MXCSR_DE;
  uint32_t raised = 0;
  HostFp h = host_begin(mx);
  volatile double x = u2d(u);
  volatile float z = (float)x;
  raised |= host_end(h);
  uint32_t r = f2u(z);
  if ((raised & MXCSR_UE) && (r & 0x7FFFFFFFu) == F32.min_normal &&
      !narrowing_tiny_after_rounding(u, mx))
    raised &= ~(uint32_t)MXCSR_UE;
  if (traps(&F32, r, raised, mx)) { /* inexact if the significand needs over 24 bits */
    int e;
    double m = frexp(u2d(u), &e);
    *fl |= trap_flags(raised, (double)(float)m != m);
    return r;
  }
  return (uint32_t)finish(&F32, r, mx, fl, raised);
}

static uint64_t from_int(bool f64, int64_t v, uint32_t mx, uint32_t *fl) {
  HostFp h = host_begin(mx);
  volatile int64_t x = v;
  uint64_t r;
  if (f64) {
    volatile double z = (double)x;
    r = d2u(z);
  } else {
    volatile float z = (float)x;
    r = f2u(z);
  }
  *fl |= host_end(h);
  return r;
}

/* Rounds to an integer in the guest's mode without touching the host's. */
static double round_by_mode(double v, uint32_t mx) {
  switch ((mx & MXCSR_RC) >> MXCSR_RC_SHIFT) {
  case 1: return floor(v);
  case 2: return ceil(v);
  case 3: return trunc(v);
  default: {
    double r = floor(v), diff = v - r; /* exact: |v| < 2^52 or v is integral */
    if (diff > 0.5 || (diff == 0.5 && fmod(r, 2.0) != 0.0)) r += 1.0;
    return r;
  }
  }
}

/* To a signed integer of size bytes; NaN or out of range gives the "integer indefinite"
 * (only the sign bit set) and IE. DAZ decides whether a denormal is inexact. */
static uint64_t to_int(const Fmt *f, uint64_t u, bool truncate, unsigned size, uint32_t mx,
                       uint32_t *fl) {
  uint64_t indefinite = size == 8 ? 1ull << 63 : 1ull << 31;
  u = daz(f, u, mx);
  if (is_nan(f, u)) {
    *fl |= MXCSR_IE;
    return indefinite;
  }
  double v = as_double(f, u);
  double r = truncate ? trunc(v) : round_by_mode(v, mx);
  double limit = size == 8 ? 0x1p63 : 0x1p31;
  if (!(r >= -limit && r < limit)) {
    *fl |= MXCSR_IE;
    return indefinite;
  }
  if (r != v) *fl |= MXCSR_PE;
  return (uint64_t)(int64_t)r & (size == 8 ? ~0ull : 0xFFFFFFFFull);
}

uint32_t soft_cvt(enum FpCvt op, Xmm *d, const Xmm *s, uint32_t mx) {
  uint32_t fl = 0;
  Xmm r = *d;
  switch (op) {
  case CVT_SS2SD: r.q[0] = widen(s->d[0], mx, &fl); break;
  case CVT_SD2SS: r.d[0] = narrow(s->q[0], mx, &fl); break;
  case CVT_PS2PD:
    r.q[0] = widen(s->d[0], mx, &fl);
    r.q[1] = widen(s->d[1], mx, &fl);
    break;
  case CVT_PD2PS:
    r.d[0] = narrow(s->q[0], mx, &fl);
    r.d[1] = narrow(s->q[1], mx, &fl);
    r.q[1] = 0;
    break;
  case CVT_DQ2PS:
    for (int i = 0; i < 4; i++) r.d[i] = (uint32_t)from_int(false, s->sd[i], mx, &fl);
    break;
  case CVT_DQ2PD:
    r.q[0] = d2u((double)s->sd[0]);
    r.q[1] = d2u((double)s->sd[1]);
    break;
  case CVT_PS2DQ: case CVT_TPS2DQ:
    for (int i = 0; i < 4; i++)
      r.d[i] = (uint32_t)to_int(&F32, s->d[i], op == CVT_TPS2DQ, 4, mx, &fl);
    break;
  case CVT_PD2DQ: case CVT_TPD2DQ:
    r.d[0] = (uint32_t)to_int(&F64, s->q[0], op == CVT_TPD2DQ, 4, mx, &fl);
    r.d[1] = (uint32_t)to_int(&F64, s->q[1], op == CVT_TPD2DQ, 4, mx, &fl);
    r.q[1] = 0;
    break;
  }
  *d = r;
  return fl;
}

uint32_t soft_cvt_from_int(bool f64, int64_t v, Xmm *d, uint32_t mx) {
  uint32_t fl = 0;
  uint64_t r = from_int(f64, v, mx, &fl);
  if (f64) d->q[0] = r;
  else d->d[0] = (uint32_t)r;
  return fl;
}

uint32_t soft_cvt_to_int(bool f64, bool truncate, unsigned size, const Xmm *s, uint32_t mx,
                         uint64_t *out) {
  uint32_t fl = 0;
  *out = f64 ? to_int(&F64, s->q[0], truncate, size, mx, &fl)
             : to_int(&F32, s->d[0], truncate, size, mx, &fl);
  return fl;
}

/* ---- fused multiply-add ---- */

/* Whether m1*m2 + add, rounded with an unbounded exponent, is below the smallest normal
 * (x86's tininess; see tiny_after_rounding): the same fma scaled by 2^64 (2^32 for f32)
 * through the smaller factor and the addend. An addend too large to scale leaves no tiny
 * result. */
static bool fma_tiny_after_rounding(const Fmt *f, uint64_t m1, uint64_t m2, uint64_t add, uint32_t mx) {
  HostFp h = host_begin(mx);
  bool tiny;
  if (f->f64) {
    volatile double x = u2d(m1), y = u2d(m2), z = u2d(add) * 0x1p64, w;
    if (fabs(x) > fabs(y)) y = y * 0x1p64;
    else x = x * 0x1p64;
    w = fma(x, y, z);
    tiny = !isinf(z) && fabs(w) < 0x1p-958;
  } else {
    volatile float x = u2f((uint32_t)m1), y = u2f((uint32_t)m2), z = u2f((uint32_t)add) * 0x1p32f, w;
    if (fabsf(x) > fabsf(y)) y = y * 0x1p32f;
    else x = x * 0x1p32f;
    w = fmaf(x, y, z);
    tiny = !isinf(z) && fabsf(w) < 0x1p-94f;
  }
  host_end(h);
  return tiny;
}

/* One lane: a, b, c are the instruction's operands in order; sub negates the addend. A
 * NaN comes out as it went in, quieted: the negations apply to numbers only. */
static uint64_t lane_fma(const Fmt *f, enum FmaKind kind, enum FmaOrder order, bool sub,
                         uint64_t a, uint64_t b, uint64_t c, uint32_t mx, uint32_t *fl) {
  a = daz(f, a, mx);
  b = daz(f, b, mx);
  c = daz(f, c, mx);
  uint64_t m1 = order == FMA_132 ? a : b, m2 = order == FMA_213 ? a : c;
  uint64_t add = order == FMA_132 ? b : order == FMA_213 ? c : a;
  if (is_nan(f, a) || is_nan(f, b) || is_nan(f, c)) { /* even 0 * inf is valid then */
    if (is_snan(f, a) || is_snan(f, b) || is_snan(f, c)) *fl |= MXCSR_IE;
    /* The first NaN of the factors, in their order, then of the addend (measured). */
    return (is_nan(f, m1) ? m1 : is_nan(f, m2) ? m2 : add) | f->quiet;
  }
  if (kind == FMA_NADD || kind == FMA_NSUB) m1 ^= f->sign;
  if (sub) add ^= f->sign;
  uint32_t raised = 0;
  uint64_t r = host_fma(f, m1, m2, add, mx, &raised);
  /* An invalid operation (0 * inf, inf - inf) outranks the denormal flag (measured). */
  if (!(raised & MXCSR_IE) && (is_denormal(f, a) || is_denormal(f, b) || is_denormal(f, c)))
    raised |= MXCSR_DE;
  if ((raised & MXCSR_UE) && (r & ~f->sign) == f->min_normal &&
      !fma_tiny_after_rounding(f, m1, m2, add, mx))
    raised &= ~(uint32_t)MXCSR_UE;
  if (traps(f, r, raised, mx)) {
    *fl |= trap_flags(raised, fma_inexact(f, m1, m2, add, mx));
    return r;
  }
  return finish(f, r, mx, fl, raised);
}

uint32_t soft_fma(enum FpShape sh, enum FmaKind kind, enum FmaOrder order, Xmm *a, const Xmm *b,
                  const Xmm *c, uint32_t mx) {
  const Fmt *f = fmt_of(sh);
  uint32_t fl = 0;
  for (unsigned i = 0; i < lanes_of(sh); i++) {
    bool sub = kind == FMA_SUB || kind == FMA_NSUB || (kind == FMA_ADDSUB && !(i & 1)) ||
               (kind == FMA_SUBADD && (i & 1));
    lane_set(f, a, i, lane_fma(f, kind, order, sub, lane_get(f, a, i), lane_get(f, b, i),
                               lane_get(f, c, i), mx, &fl));
  }
  return fl;
}

/* ---- F16C: half-precision conversions, written out in integers (not every compiler
 * has _Float16 on every host) ---- */

/* A half's bits as a float's (exact); NaNs are handled by the caller. */
static uint32_t half_to_float_bits(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000) << 16, e = h >> 10 & 31, m = h & 0x3FF;
  if (e == 31) return sign | 0x7F800000u | m << 13;
  if (e == 0) {
    if (!m) return sign;
    int k = 1; /* a denormal: normalize its significand */
    while (!(m & 0x400)) m <<= 1, k--;
    return sign | (uint32_t)(k + 112) << 23 | (m & 0x3FF) << 13;
  }
  return sign | (e + 112) << 23 | m << 13;
}

uint32_t soft_cvtph2ps(Xmm *d, const Xmm *s, uint32_t mx) {
  (void)mx; /* exact, DAZ does not apply (measured) */
  uint32_t fl = 0;
  Xmm r;
  for (unsigned i = 0; i < 4; i++) {
    uint16_t h = s->w[i];
    if ((h & 0x7C00) == 0x7C00 && (h & 0x3FF)) { /* NaN: quieted, its payload kept */
      if (!(h & 0x200)) fl |= MXCSR_IE;
      r.d[i] = (uint32_t)(h & 0x8000) << 16 | 0x7FC00000u | (uint32_t)(h & 0x1FF) << 13;
    } else {
      r.d[i] = half_to_float_bits(h);
    }
  }
  *d = r;
  return fl;
}

/* sig >> shift rounded by MXCSR rounding rc for a number of sign neg; *inexact is set
 * when bits were dropped. */
static uint64_t round_shift(uint64_t sig, int shift, bool neg, unsigned rc, bool *inexact) {
  if (shift <= 0) return sig << -shift;
  uint64_t kept = shift >= 64 ? 0 : sig >> shift;
  uint64_t rem = shift >= 64 ? sig : sig & ((1ull << shift) - 1);
  uint64_t half = shift > 64 ? ~0ull : 1ull << (shift - 1);
  if (rem) *inexact = true;
  switch (rc) {
  case 0: if (rem > half || (rem == half && (kept & 1))) kept++; break; /* nearest, even */
  case 1: if (rem && neg) kept++; break;                                 /* down */
  case 2: if (rem && !neg) kept++; break;                                /* up */
  default: break;                                                        /* toward zero */
  }
  return kept;
}

/* A float's bits (not NaN; DAZ applied) as a half's, rounded by rc; the flags the
 * conversion raises (PE, OE, UE as x86 reports them: tiny after rounding), and the
 * trapping response where mx unmasks overflow or underflow. */
static uint16_t float_to_half(uint32_t u, unsigned rc, uint32_t mx, uint32_t *fl) {
  uint16_t sign = (uint16_t)(u >> 16 & 0x8000);
  bool neg = sign != 0;
  uint32_t e = u >> 23 & 0xFF, m = u & 0x7FFFFF;
  if (e == 0xFF) return sign | 0x7C00;
  if (e == 0 && m == 0) return sign;
  uint64_t sig = e ? (m | 0x800000) : m;
  int exp = (int)(e ? e : 1) - 150;               /* value = sig * 2^exp */
  int top = 63 - __builtin_clzll(sig) + exp;       /* floor(log2(value)) */
  int q = top - 10 < -24 ? -24 : top - 10;         /* the half's quantum */
  bool inexact = false;
  uint64_t kept = round_shift(sig, q - exp, neg, rc, &inexact);
  if (kept >= 2048) kept >>= 1, q++;               /* rounded up to the next binade */
  bool tiny = false, over = kept >= 1024 && q + 25 >= 31;
  if (top <= -15) { /* tiny unless 11 bits with an unbounded exponent round up to 2^-14 */
    bool ignored = false;
    tiny = top < -15 || round_shift(sig, top - 10 - exp, neg, rc, &ignored) < 2048;
  }
  uint32_t unmasked = ~mx >> 7;
  if ((over && (unmasked & MXCSR_OE)) || (tiny && (unmasked & MXCSR_UE))) {
    bool wide = 64 - __builtin_clzll(sig) - __builtin_ctzll(sig) > 11; /* inexact unbounded */
    *fl |= (over ? MXCSR_OE : MXCSR_UE) | (wide ? MXCSR_PE : 0);
    return sign;
  }
  if (tiny && inexact) *fl |= MXCSR_UE;
  if (inexact) *fl |= MXCSR_PE;
  if (over) { /* infinity, or the largest finite */
    *fl |= MXCSR_OE | MXCSR_PE;
    bool to_inf = rc == 0 || (rc == 1 && neg) || (rc == 2 && !neg);
    return sign | (to_inf ? 0x7C00 : 0x7BFF);
  }
  if (kept < 1024) return sign | (uint16_t)kept;   /* a denormal half */
  return sign | (uint16_t)((q + 25) << 10 | (kept - 1024));
}

uint32_t soft_cvtps2ph(Xmm *d, const Xmm *s, unsigned imm, uint32_t mx) {
  unsigned rc = imm & 4 ? (mx & MXCSR_RC) >> MXCSR_RC_SHIFT : imm & 3;
  uint32_t fl = 0;
  Xmm r = {.q = {0, 0}};
  for (unsigned i = 0; i < 4; i++) {
    uint32_t u = (uint32_t)daz(&F32, s->d[i], mx);
    if (is_nan(&F32, u)) {
      if (is_snan(&F32, u)) fl |= MXCSR_IE;
      r.w[i] = (uint16_t)((u >> 16 & 0x8000) | 0x7E00 | (u >> 13 & 0x1FF));
      continue;
    }
    if (is_denormal(&F32, u)) fl |= MXCSR_DE;
    r.w[i] = float_to_half(u, rc, mx, &fl);
  }
  *d = r;
  return fl;
}
