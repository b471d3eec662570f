/* xsave.c: the XSAVE feature set for the model's XCR0 (x87 | SSE, and AVX with the AVX
 * feature): XGETBV, XSAVE, XSAVEOPT, XSAVEC and XRSTOR, and the image a signal frame
 * holds. An XSAVE area is the FXSAVE region (x87: bytes 0-23 and 32-159; SSE: MXCSR at
 * 24-31 and the XMM registers at 160-415), the 64-byte header (XSTATE_BV, XCOMP_BV,
 * reserved), then the AVX component: the upper halves of YMM0-15, at 576 in the standard
 * and in the compacted form alike (the components before it live in the legacy region).
 *
 * XINUSE, the components in use, decides the XSTATE_BV bits XSAVE writes and what
 * XSAVEOPT and XSAVEC may leave out. Intel's CPUs keep it as a record of writes, not of
 * values (measured): an instruction that writes a component puts it in use, whatever
 * value it writes, and only XRSTOR initializing the component, VZEROUPPER (AVX) and
 * VZEROALL (SSE and AVX) take it out. The model keeps that record where a component is
 * loaded or cleared as a whole (XRSTOR, VZEROUPPER, VZEROALL, signal delivery:
 * Cpu.xstate_in_use) and counts every other write by its effect, a component not in its
 * initial configuration being in use: a record kept by every handler that writes one
 * would cost more than the difference it hides, a write that leaves a component out of
 * use in that configuration (docs/cpu-model.md). */
#include <string.h>

#include "access.h"
#include "cpuid.h"
#include "machine.h"
#include "mxcsr.h"
#include "ops_sse.h"
#include "run.h"
#include "x87.h"

enum { X87_STATE = XSTATE_X87, SSE_STATE = XSTATE_SSE, AVX_STATE = XSTATE_AVX };
enum { XSTATE_BV = XSAVE_HEADER, XCOMP_BV = XSAVE_HEADER + 8 };
#define COMPACTED (1ull << 63)

/* The legacy region's bytes of each component, [from, to) pairs. */
static const unsigned x87_bytes[][2] = {{0, 24}, {32, 160}};
static const unsigned mxcsr_bytes[2] = {24, 32}, xmm_bytes[2] = {160, 416};

static uint64_t get64(const uint8_t *p) {
  uint64_t v;
  memcpy(&v, p, 8);
  return v;
}

static void put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

/* The components in use: those XRSTOR loaded since anything took them out of use, and
 * those not in their initial configuration: x87 as after FNINIT with every register 0,
 * SSE with every XMM register 0 (MXCSR is not part of it), AVX with every upper half 0. */
static uint64_t xinuse(const Cpu *c) {
  uint8_t img[FX_IMAGE_WRITTEN], init[FX_IMAGE_WRITTEN] = {0x7F, 0x03};
  fx_image_save(c, img, true);
  uint64_t used = 0;
  for (unsigned k = 0; k < 2; k++)
    if (memcmp(img + x87_bytes[k][0], init + x87_bytes[k][0], x87_bytes[k][1] - x87_bytes[k][0]))
      used |= X87_STATE;
  for (unsigned i = xmm_bytes[0]; i < xmm_bytes[1]; i++)
    if (img[i]) {
      used |= SSE_STATE;
      break;
    }
  static const Xmm zero[16];
  if (memcmp(c->ymmh, zero, sizeof zero)) used |= AVX_STATE;
  return used | c->xstate_in_use;
}

static uint64_t xcr0(const Cpu *c) { return cpuid_xcr0(&c->m->model); }

/* EDX:EAX masked by XCR0. */
static uint64_t rfbm_of(const Cpu *c) {
  return ((uint64_t)(uint32_t)c->r[RDX] << 32 | (uint32_t)c->r[RAX]) & xcr0(c);
}

/* Every component of the machine's state where an XSAVE area holds it; the header and
 * the legacy region's unused bytes zero. */
static void state_area(const Cpu *c, uint8_t area[XSAVE_AREA_MAX], bool ptr64) {
  memset(area, 0, XSAVE_AREA_MAX);
  fx_image_save(c, area, ptr64);
  memcpy(area + XSAVE_YMM, c->ymmh, sizeof c->ymmh);
}

/* A byte range [from, to) of an XSAVE area. */
typedef struct Span {
  unsigned from, to;
} Span;

/* The bytes of the components in `save` and, with `mxcsr`, of MXCSR and its mask: what
 * a save writes of them, and nothing else (bytes 416-511 of the legacy region are left
 * to software, and a component not saved keeps what the area held). Returns the count. */
static unsigned component_spans(uint64_t save, bool mxcsr, Span spans[5]) {
  unsigned n = 0;
  if (save & X87_STATE)
    for (unsigned k = 0; k < 2; k++) spans[n++] = (Span){x87_bytes[k][0], x87_bytes[k][1]};
  if (mxcsr) spans[n++] = (Span){mxcsr_bytes[0], mxcsr_bytes[1]};
  if (save & SSE_STATE) spans[n++] = (Span){xmm_bytes[0], xmm_bytes[1]};
  if (save & AVX_STATE) spans[n++] = (Span){XSAVE_YMM, XSAVE_AREA_MAX};
  return n;
}

void xsave_image(const Cpu *c, uint8_t area[XSAVE_AREA_MAX]) {
  state_area(c, area, true);
  /* The kernel marks x87 and SSE present in frames, AVX as XINUSE says. */
  put64(area + XSTATE_BV, (X87_STATE | SSE_STATE) | (xcr0(c) & xinuse(c)));
}

/* The checks of the header, whose failure is #GP: in the standard form XSTATE_BV within
 * XCR0 and bytes 8-23 zero; in the compacted form XCOMP_BV within XCR0, XSTATE_BV within
 * XCOMP_BV and bytes 16-63 zero. */
static bool header_valid(const uint8_t *area, uint64_t xcr0) {
  uint64_t bv = get64(area + XSTATE_BV), comp = get64(area + XCOMP_BV);
  unsigned zero_from = comp & COMPACTED ? 16 : 8, zero_to = comp & COMPACTED ? 64 : 24;
  for (unsigned i = zero_from; i < zero_to; i++)
    if (area[XSAVE_HEADER + i]) return false;
  if (comp & COMPACTED) return !(comp & ~COMPACTED & ~xcr0) && !(bv & ~(comp & ~COMPACTED));
  return !(bv & ~xcr0);
}

/* The components in `init` in their initial configuration, SSE with MXCSR's default
 * (which the standard form then loads from the area). */
static void init_components(Cpu *c, uint64_t init) {
  if (init & X87_STATE) {
    memset(&c->fpu, 0, sizeof c->fpu);
    x87_init(&c->fpu);
  }
  if (init & SSE_STATE) {
    memset(c->xmm, 0, sizeof c->xmm);
    c->mxcsr = MXCSR_DEFAULT;
  }
  if (init & AVX_STATE) memset(c->ymmh, 0, sizeof c->ymmh);
}

bool xrstor_image(Cpu *c, const uint8_t area[XSAVE_AREA_MAX], uint64_t rfbm, bool ptr64) {
  if (!header_valid(area, xcr0(c))) return false;
  uint64_t load = rfbm & get64(area + XSTATE_BV);
  bool compacted = get64(area + XCOMP_BV) & COMPACTED;
  /* MXCSR: the standard form loads it with the SSE or the AVX component requested,
   * whatever XSTATE_BV says; the compacted form with the SSE component it loads, else the
   * requested SSE component's initial state has its default (measured). */
  bool load_mxcsr = compacted ? load & SSE_STATE : rfbm & (SSE_STATE | AVX_STATE);
  bool mxcsr_valid = !load_mxcsr || fx_mxcsr_valid(area);
  /* An MXCSR with reserved bits set is #GP. The standard form finds it before it changes
   * anything; the compacted form only after it has initialized the components it does
   * not load and loaded the x87 and XMM registers, which keep what it did (measured on
   * Intel: the upper halves it would load keep their values). */
  if (!mxcsr_valid && !compacted) return false;
  init_components(c, rfbm & ~load);
  if (load & X87_STATE) fx_load_x87(c, area, ptr64);
  if (load & SSE_STATE) fx_load_xmm(c, area);
  uint64_t done = rfbm;
  if (mxcsr_valid) {
    if (load_mxcsr) fx_load_mxcsr(c, area);
    if (load & AVX_STATE) memcpy(c->ymmh, area + XSAVE_YMM, sizeof c->ymmh);
  } else {
    done &= ~(load & AVX_STATE);
  }
  /* What it loaded is in use, whatever the values; what it initialized is not (loading
   * MXCSR alone puts nothing in use). */
  c->xstate_in_use = (uint8_t)((c->xstate_in_use & ~done) | (load & done));
  cpu_fp_controls_loaded(c);
  return mxcsr_valid;
}

/* 0F 01 D0: XCR0 for ECX 0; any other XCR is #GP. */
void op_xgetbv(Cpu *c, const Insn *in) {
  if ((uint32_t)c->r[RCX] != 0) guest_gp(c, 0);
  c->r[RAX] = (uint32_t)xcr0(c);
  c->r[RDX] = xcr0(c) >> 32;
  DISPATCH_NEXT(c, in);
}

/* The area must be 64-byte aligned: #GP, once its address is found canonical, as for
 * FXSAVE (run.h's guest_misaligned; measured on an Intel Xeon). */
static uint64_t area_at(Cpu *c, const Insn *in) {
  uint64_t a = ea(c, in);
  if (a & 63) guest_misaligned(c, a);
  return a;
}

/* 0F AE /4 XSAVE, 0F AE /6 XSAVEOPT (op 1), 0F C7 /4 XSAVEC (op 2); osz 8: the REX.W
 * forms' 64-bit FPU pointers. XSAVE writes each requested component and sets its
 * XSTATE_BV bit to XINUSE, leaving the others; XSAVEOPT leaves out the components not
 * in use; both write MXCSR with a requested SSE or AVX component.
 * XSAVEC writes only the components in use, MXCSR with a saved SSE component, all of
 * XSTATE_BV, and XCOMP_BV. (The MXCSR rules were measured: the SDM ties MXCSR to AVX
 * state as well as to SSE state.) */
enum { XSAVE, XSAVEOPT, XSAVEC };
void op_xsave(Cpu *c, const Insn *in) {
  uint64_t a = area_at(c, in), rfbm = rfbm_of(c), used = xinuse(c);
  unsigned size = rfbm & AVX_STATE ? XSAVE_AREA_MAX : XSAVE_YMM; /* what it may write */
  /* Its last byte, then its first, before anything is written, as the CPU checks them
   * (measured on an Intel Xeon: tests/guest/state_images.c). */
  probe_write8(a + size - 1);
  probe_write8(a);
  access_in_order();
  /* XSAVEC keeps an MXCSR other than its default by saving SSE as in use: its XRSTOR
   * sets MXCSR to the default with the component's initial state. */
  if (in->op == XSAVEC && c->mxcsr != MXCSR_DEFAULT) used |= SSE_STATE;
  uint64_t save = in->op == XSAVE ? rfbm : rfbm & used;
  bool mxcsr = in->op == XSAVEC ? save & SSE_STATE : rfbm & (SSE_STATE | AVX_STATE);
  uint8_t state[XSAVE_AREA_MAX];
  state_area(c, state, in->osz == 8);
  Span spans[5];
  for (unsigned i = 0, n = component_spans(save, mxcsr, spans); i < n; i++)
    st_bytes(a + spans[i].from, state + spans[i].from, spans[i].to - spans[i].from);
  if (in->op == XSAVEC) {
    st64(a + XSTATE_BV, rfbm & used);
    st64(a + XCOMP_BV, COMPACTED | rfbm);
  } else {
    st64(a + XSTATE_BV, (ld64(a + XSTATE_BV) & ~rfbm) | (rfbm & used));
  }
  DISPATCH_NEXT(c, in);
}

/* 0F AE /5 XRSTOR (osz 8: XRSTOR64). */
void op_xrstor(Cpu *c, const Insn *in) {
  uint64_t a = area_at(c, in), rfbm = rfbm_of(c);
  uint8_t area[XSAVE_AREA_MAX];
  /* XCOMP_BV, which tells the form, its first byte, then the last byte of the requested
   * components, the AVX one even where XSTATE_BV leaves it in its initial state, are
   * checked first (measured on an Intel Xeon: tests/guest/state_images.c). */
  unsigned size = rfbm & AVX_STATE ? XSAVE_AREA_MAX : XSAVE_YMM;
  (void)probe8(a + XCOMP_BV);
  (void)probe8(a);
  (void)probe8(a + size - 1);
  access_in_order();
  ld_bytes(a, area, size);
  if (!xrstor_image(c, area, rfbm, in->osz == 8)) guest_gp(c, 0);
  DISPATCH_NEXT(c, in);
}
