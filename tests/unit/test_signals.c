/* test_signals.c: the x86-64 signal frame (layout, placement, contents, rt_sigreturn) and
 * delivery through the shim: handler entry, masks, and the kernel's syscall restart rules. */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>

#include <cmocka.h>

#include "interp/flags.h"
#include "linux-user/sigframe.h"
#include "linux-user/signals.h"
#include "test_syscall_util.h"

/* ---- layout: offsets from the kernel's uapi headers, written out ---- */

static void test_layout_matches_the_kernel(void **state) {
  /* struct rt_sigframe: pretcode, then struct ucontext, then siginfo */
  assert_int_equal(offsetof(X64RtSigframe, uc), 8);
  assert_int_equal(offsetof(X64RtSigframe, info), 312);
  assert_int_equal(sizeof(X64RtSigframe), 440);
  /* struct ucontext */
  assert_int_equal(offsetof(X64Ucontext, uc_link), 8);
  assert_int_equal(offsetof(X64Ucontext, uc_stack), 16);
  assert_int_equal(offsetof(X64Ucontext, uc_mcontext), 40);
  assert_int_equal(offsetof(X64Ucontext, uc_sigmask), 296);
  assert_int_equal(sizeof(X64StackT), 24);
  assert_int_equal(offsetof(X64StackT, ss_flags), 8);
  assert_int_equal(offsetof(X64StackT, ss_size), 16);
  /* struct sigcontext: r8..r15, rdi, rsi, rbp, rbx, rdx, rax, rcx, rsp, rip, eflags... */
  assert_int_equal(offsetof(X64Sigcontext, r15), 56);
  assert_int_equal(offsetof(X64Sigcontext, rdi), 64);
  assert_int_equal(offsetof(X64Sigcontext, rax), 104);
  assert_int_equal(offsetof(X64Sigcontext, rsp), 120);
  assert_int_equal(offsetof(X64Sigcontext, rip), 128);
  assert_int_equal(offsetof(X64Sigcontext, eflags), 136);
  assert_int_equal(offsetof(X64Sigcontext, cs), 144);
  assert_int_equal(offsetof(X64Sigcontext, ss), 150);
  assert_int_equal(offsetof(X64Sigcontext, err), 152);
  assert_int_equal(offsetof(X64Sigcontext, trapno), 160);
  assert_int_equal(offsetof(X64Sigcontext, oldmask), 168);
  assert_int_equal(offsetof(X64Sigcontext, cr2), 176);
  assert_int_equal(offsetof(X64Sigcontext, fpstate), 184);
  assert_int_equal(sizeof(X64Sigcontext), 256);
  /* siginfo: signo, errno, code, then the union at 16 */
  assert_int_equal(offsetof(X64Siginfo, si_code), 8);
  assert_int_equal(offsetof(X64Siginfo, u), 16);
}

/* On an x86-64 host, glibc's own view of the same bytes agrees. */
static void test_layout_matches_the_host_libc(void **state) {
#if defined(__x86_64__)
  assert_int_equal(offsetof(ucontext_t, uc_mcontext), offsetof(X64Ucontext, uc_mcontext));
  assert_int_equal(offsetof(ucontext_t, uc_sigmask), offsetof(X64Ucontext, uc_sigmask));
  assert_int_equal(offsetof(ucontext_t, uc_mcontext.gregs[REG_RIP]),
                   offsetof(X64Ucontext, uc_mcontext.rip));
  assert_int_equal(offsetof(ucontext_t, uc_mcontext.gregs[REG_CR2]),
                   offsetof(X64Ucontext, uc_mcontext.cr2));
  assert_int_equal(offsetof(ucontext_t, uc_mcontext.fpregs),
                   offsetof(X64Ucontext, uc_mcontext.fpstate));
  assert_int_equal(offsetof(struct sigcontext, r8), offsetof(X64Sigcontext, r8));
  assert_int_equal(offsetof(struct sigcontext, rcx), offsetof(X64Sigcontext, rcx));
  assert_int_equal(offsetof(struct sigcontext, eflags), offsetof(X64Sigcontext, eflags));
  assert_int_equal(offsetof(struct sigcontext, err), offsetof(X64Sigcontext, err));
  assert_int_equal(offsetof(struct sigcontext, fpstate), offsetof(X64Sigcontext, fpstate));
  assert_int_equal(sizeof(struct sigcontext), sizeof(X64Sigcontext));
  assert_int_equal(offsetof(siginfo_t, si_addr), offsetof(X64Siginfo, u.addr));
  assert_int_equal(offsetof(struct _libc_fpstate, mxcsr), 24);
  assert_int_equal(offsetof(struct _libc_fpstate, _xmm), 160);
#else
  skip();
#endif
}

/* ---- placement ---- */

static void test_frame_placement(void **state) {
  uint64_t fp;
  /* Without AVX: fpstate = (sp - 580) rounded down to 64 (the XSAVE area of x87 and SSE,
   * and the 4-byte FP_XSTATE_MAGIC2); frame = ((fpstate - 440) & ~15) - 8 */
  CpuModel model = {0};
  assert_int_equal(sigframe_fpstate_size(&model), 836); /* the default model has AVX */
  assert_null(cpuid_apply_option(&model, "-avx"));
  assert_int_equal(sigframe_fpstate_size(&model), 580);
  assert_int_equal(sigframe_place(0x7fff0000, 580, &fp), 0x7ffefbb8);
  assert_int_equal(fp, 0x7ffefd80);
  assert_int_equal(sigframe_place(0x7fff0003, 580, &fp), 0x7ffefbb8);
  assert_int_equal(fp, 0x7ffefd80);
  assert_int_equal(sigframe_place(0x7fff0004, 580, &fp), 0x7ffefbf8);
  assert_int_equal(fp, 0x7ffefdc0);
  /* With AVX, 256 bytes of YMM upper halves more: (sp - 836) rounded down to 64. */
  assert_null(cpuid_apply_option(&model, "+avx"));
  assert_int_equal(sigframe_fpstate_size(&model), 836);
  assert_int_equal(sigframe_place(0x7fff0000, 836, &fp), 0x7ffefab8);
  assert_int_equal(fp, 0x7ffefc80);
  for (uint64_t sp = 0x10000; sp < 0x10100; sp += 7) {
    uint64_t frame = sigframe_place(sp, 836, &fp);
    assert_int_equal(fp % 64, 0);
    assert_true(fp + 836 <= sp);
    assert_true(frame + sizeof(X64RtSigframe) <= fp);
    assert_int_equal((frame + 8) % 16, 0); /* as after a call */
  }
}

/* ---- contents, handler entry, rt_sigreturn ---- */

static _Alignas(64) uint8_t stack[16384];
#define STACK_TOP ((uint64_t)(uintptr_t)(stack + sizeof stack))

static void fill_cpu(Cpu *c) {
  for (int i = 0; i < 16; i++) c->r[i] = 0x1000 + (uint64_t)i;
  c->r[RSP] = STACK_TOP - 256;
  c->rip = 0x401234;
  flags_set(c, 0x202 | F_CF | F_ZF | F_DF);
  for (int i = 0; i < 16; i++) memset(&c->xmm[i], 0x40 + i, 16);
  c->mxcsr = 0x7f80;
  c->fpu.cw = 0x027f;
}

static void test_frame_contents_and_handler_entry(void **state) {
  catch_guest_faults();
  Cpu *c = test_cpu("/prog");
  fill_cpu(c);
  uint64_t fp, frame = sigframe_place(c->r[RSP] - X64_REDZONE, sigframe_fpstate_size(&c->m->model), &fp);
  X64Siginfo info = {.si_signo = SIGSEGV, .si_code = 2};
  info.u.addr = 0xdead000;
  SigframeArgs a = {.sig = SIGSEGV, .handler = 0x402000, .restorer = 0x403000, .mask = 0x5,
                    .altstack = {.ss_flags = 2}, .err = 6, .trapno = 14, .cr2 = 0xdead000,
                    .fault = true, .info = &info};
  assert_true(sigframe_push(c, frame, fp, &a));

  const uint8_t *f = (const uint8_t *)(uintptr_t)frame;
#define AT(off, type) (*(const type *)(f + (off)))
  assert_int_equal(AT(0, uint64_t), 0x403000);                   /* pretcode */
  assert_int_equal(AT(8, uint64_t), 7);                          /* uc_flags: FP_XSTATE, SS, STRICT_SS */
  assert_int_equal(AT(8 + 16 + 8, int32_t), 2);                  /* uc_stack.ss_flags */
  assert_int_equal(AT(8 + 40 + 0, uint64_t), 0x1000 + R8);       /* r8 */
  assert_int_equal(AT(8 + 40 + 64, uint64_t), 0x1000 + RDI);     /* rdi */
  assert_int_equal(AT(8 + 40 + 104, uint64_t), 0x1000 + RAX);    /* rax */
  assert_int_equal(AT(8 + 40 + 120, uint64_t), STACK_TOP - 256); /* rsp */
  assert_int_equal(AT(8 + 40 + 128, uint64_t), 0x401234);        /* rip */
  assert_int_equal(AT(8 + 40 + 136, uint64_t), 0x10000 | 0x202 | F_CF | F_ZF | F_DF);
  assert_int_equal(AT(8 + 40 + 144, uint16_t), 0x33);            /* cs */
  assert_int_equal(AT(8 + 40 + 150, uint16_t), 0x2b);            /* ss */
  assert_int_equal(AT(8 + 40 + 152, uint64_t), 6);               /* err */
  assert_int_equal(AT(8 + 40 + 160, uint64_t), 14);              /* trapno */
  assert_int_equal(AT(8 + 40 + 168, uint64_t), 5);               /* oldmask */
  assert_int_equal(AT(8 + 40 + 176, uint64_t), 0xdead000);       /* cr2 */
  assert_int_equal(AT(8 + 40 + 184, uint64_t), fp);              /* fpstate */
  assert_int_equal(AT(8 + 296, uint64_t), 5);                    /* uc_sigmask */
  assert_int_equal(AT(312, int32_t), SIGSEGV);                   /* si_signo */
  assert_int_equal(AT(312 + 8, int32_t), 2);                     /* si_code */
  assert_int_equal(AT(312 + 16, uint64_t), 0xdead000);           /* si_addr */
  /* The FXSAVE image: MXCSR at 24, the x87 control word at 0, XMM0 at 160, XMM15 at 400. */
  const uint8_t *fx = (const uint8_t *)(uintptr_t)fp;
  assert_int_equal(*(const uint32_t *)(fx + 24), 0x7f80);
  assert_int_equal(*(const uint16_t *)fx, 0x027f);
  assert_int_equal(fx[160], 0x40);
  assert_int_equal(fx[400 + 15], 0x4f);
  /* The XSAVE frame's marks (the kernel's struct _fpx_sw_bytes at 464): FP_XSTATE_MAGIC1,
   * the extended size (832 + 4), the features (x87 | SSE | AVX), the XSAVE size (832); the
   * XSAVE header's XSTATE_BV at 512 (AVX not in use: every YMM upper half is 0), and
   * FP_XSTATE_MAGIC2 after the area. */
  assert_int_equal(*(const uint32_t *)(fx + 464), 0x46505853);
  assert_int_equal(*(const uint32_t *)(fx + 468), 836);
  assert_int_equal(*(const uint64_t *)(fx + 472), 7);
  assert_int_equal(*(const uint32_t *)(fx + 480), 832);
  assert_int_equal(*(const uint64_t *)(fx + 512), 3);
  assert_int_equal(*(const uint32_t *)(fx + 832), 0x46505845);

  /* The handler's registers. */
  assert_int_equal(c->rip, 0x402000);
  assert_int_equal(c->r[RDI], SIGSEGV);
  assert_int_equal(c->r[RSI], frame + 312);
  assert_int_equal(c->r[RDX], frame + 8);
  assert_int_equal(c->r[RAX], 0);
  assert_int_equal(c->r[RSP], frame);
  assert_int_equal(c->r[RBX], 0x1000 + RBX); /* the others stay */
  assert_false(flags_get(c) & F_DF);
  assert_int_equal(c->mxcsr, 0x1f80);
  assert_int_equal(c->fpu.cw, 0x037f);
  Xmm zero = {0};
  assert_memory_equal(&c->xmm[3], &zero, 16);
#undef AT
}

/* A CPU as fill_cpu leaves it, interrupted by SIGUSR1: its frame (and *fp, the fpstate). */
static uint64_t usr1_frame(Cpu **cpu, uint64_t *fp) {
  Cpu *c = *cpu = test_cpu("/prog");
  fill_cpu(c);
  uint64_t frame = sigframe_place(c->r[RSP] - X64_REDZONE, sigframe_fpstate_size(&c->m->model), fp);
  SigframeArgs a = {.sig = SIGUSR1, .handler = 0x402000, .restorer = 0x403000, .mask = 0};
  assert_true(sigframe_push(c, frame, *fp, &a));
  return frame;
}

static void test_sigreturn_takes_the_changed_frame(void **state) {
  catch_guest_faults();
  Cpu *c;
  uint64_t fp, frame = usr1_frame(&c, &fp);

  /* The handler changes the interrupted context. */
  X64RtSigframe *f = (X64RtSigframe *)(uintptr_t)frame;
  f->uc.uc_mcontext.rip = 0x405000;
  f->uc.uc_mcontext.rbx = 0x77;
  f->uc.uc_mcontext.eflags = F_OF | F_TF | F_ID | 0x2; /* TF is the frame's to set, ID is not */
  uint8_t *fx = (uint8_t *)(uintptr_t)fp;
  memset(fx + 160 + 16 * 2, 0xaa, 16); /* XMM2 */
  *(uint32_t *)(fx + 24) = 0x3f80;     /* MXCSR */

  c->r[RSP] = frame + 8; /* the restorer was returned to */
  X64Ucontext uc;
  assert_true(sigframe_read(c, &uc));
  assert_true(sigcontext_restore(c, &uc.uc_mcontext));
  assert_int_equal(c->rip, 0x405000);
  assert_int_equal(c->r[RBX], 0x77);
  assert_int_equal(c->r[RSP], STACK_TOP - 256);
  assert_int_equal(c->r[R15], 0x1000 + R15);
  assert_int_equal(flags_get(c) & (F_OF | F_CF | F_ZF | F_DF | F_TF | F_ID | F_IF), F_OF | F_TF | F_IF);
  assert_int_equal(c->mxcsr, 0x3f80);
  assert_int_equal(c->xmm[2].b[0], 0xaa);
  assert_int_equal(c->xmm[5].b[0], 0x45);
  assert_int_equal(c->fpu.cw, 0x027f);

  /* Reserved MXCSR bits make the FPU state, and so rt_sigreturn, fail. */
  *(uint32_t *)(fx + 24) = 0xffffffff;
  assert_false(sigcontext_restore(c, &uc.uc_mcontext));
  uc.uc_mcontext.fpstate = 0; /* no FPU state: a fresh one */
  assert_true(sigcontext_restore(c, &uc.uc_mcontext));
  assert_int_equal(c->mxcsr, 0x1f80);
}

/* rt_sigreturn reads the XSAVE area as the kernel does: a component whose XSTATE_BV bit
 * the handler cleared comes back in its initial state (XMM registers 0); without
 * FP_XSTATE_MAGIC1, or with FP_XSTATE_MAGIC2 overwritten, the FXSAVE image alone. */
static void test_sigreturn_reads_the_xsave_header(void **state) {
  catch_guest_faults();
  for (int how = 0; how < 3; how++) {
    Cpu *c;
    uint64_t fp, frame = usr1_frame(&c, &fp);
    uint8_t *fx = (uint8_t *)(uintptr_t)fp;
    *(uint64_t *)(fx + 512) &= ~2ull; /* XSTATE_BV: SSE in its initial state */
    if (how == 1) *(uint32_t *)(fx + 464) = 0;
    if (how == 2) *(uint32_t *)(fx + 832) = 0;
    c->r[RSP] = frame + 8;
    X64Ucontext uc;
    assert_true(sigframe_read(c, &uc));
    assert_true(sigcontext_restore(c, &uc.uc_mcontext));
    assert_int_equal(c->xmm[5].b[0], how == 0 ? 0 : 0x45);
    assert_int_equal(c->mxcsr, 0x7f80); /* taken from the area either way */
    assert_int_equal(c->fpu.cw, 0x027f);
  }
}

static void test_frame_on_an_unwritable_stack(void **state) {
  catch_guest_faults();
  Cpu *c = test_cpu("/prog");
  fill_cpu(c);
  uint8_t *page = mmap(NULL, 8192, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  assert_true(page != MAP_FAILED);
  c->r[RSP] = (uint64_t)(uintptr_t)(page + 8192);
  uint64_t fp, frame = sigframe_place(c->r[RSP] - X64_REDZONE, sigframe_fpstate_size(&c->m->model), &fp);
  SigframeArgs a = {.sig = SIGUSR1, .handler = 0x402000};
  assert_false(sigframe_push(c, frame, fp, &a));
  assert_int_equal(c->rip, 0x401234); /* nothing changed */
  assert_int_equal(c->mxcsr, 0x7f80);
  munmap(page, 8192);
}

/* ---- delivery through the shim ---- */

typedef struct {
  uint64_t handler, flags, restorer, mask;
} KSigaction;
#define SA_RESTORER_X64 0x04000000

static void set_handler(int sig, uint64_t flags, uint64_t mask) {
  KSigaction act = {0x402000, SA_RESTORER_X64 | flags, 0x403000, mask};
  assert_int_equal(SC4(rt_sigaction, sig, &act, 0, 8), 0);
}

static void reset(int sig) {
  KSigaction dfl = {0};
  SC4(rt_sigaction, sig, &dfl, 0, 8);
  uint64_t none = 0;
  SC4(rt_sigprocmask, 2, &none, 0, 8);
}

static X64RtSigframe *frame_at(const Cpu *c) { return (X64RtSigframe *)(uintptr_t)c->r[RSP]; }

static void test_delivery_and_sigreturn(void **state) {
  catch_guest_faults();
  Cpu *c = test_cpu("/prog");
  set_handler(SIGUSR1, 0x4 /* SA_SIGINFO */, 1ull << (SIGUSR2 - 1));
  fill_cpu(c); /* after the call, whose registers the frame would otherwise show */
  c->events = 0;
  raise(SIGUSR1); /* the host handler notes it */
  assert_true(c->events & EV_SIGNAL);
  signals_deliver_pending(c);
  assert_false(c->events & EV_SIGNAL);
  assert_int_equal(c->rip, 0x402000);
  assert_int_equal(c->r[RDI], SIGUSR1);
  X64RtSigframe *f = frame_at(c);
  assert_int_equal(f->pretcode, 0x403000);
  assert_int_equal(f->info.si_signo, SIGUSR1);
  assert_int_equal(f->info.si_code, SI_TKILL);
  assert_int_equal(f->uc.uc_sigmask, 0);
  assert_int_equal(f->uc.uc_mcontext.rip, 0x401234);
  assert_int_equal(f->uc.uc_mcontext.eflags & 0x10000, 0); /* not a fault: no RF */
  /* The handler runs with its sa_mask and the signal itself blocked. */
  assert_int_equal(signals_mask(&test_proc.main.cpu), (1ull << (SIGUSR2 - 1)) | (1ull << (SIGUSR1 - 1)));

  c->r[RSP] += 8; /* ret into the restorer */
  SC0(rt_sigreturn);
  assert_int_equal(c->rip, 0x401234);
  assert_int_equal(c->r[RAX], 0x1000 + RAX); /* rt_sigreturn gives back the saved rax */
  assert_int_equal(signals_mask(&test_proc.main.cpu), 0);
  reset(SIGUSR1);
}

/* A read interrupted by the handler's signal: restarted with SA_RESTART (rip back on the
 * SYSCALL, rax the call number again), -EINTR without; pause never restarts. */
static void interrupt(Cpu *c, uint64_t nr, uint64_t flags) {
  fill_cpu(c);
  c->events = 0;
  set_handler(SIGUSR1, flags, 0);
  c->r[RAX] = (uint64_t)-EINTR;
  signals_syscall_interrupted(c, nr);
  raise(SIGUSR1);
  signals_deliver_pending(c);
  assert_int_equal(c->rip, 0x402000);
}

static void test_syscall_restart_rules(void **state) {
  catch_guest_faults();
  Cpu *c = test_cpu("/prog");
  interrupt(c, X64_NR_read, 0x10000000 /* SA_RESTART */);
  assert_int_equal(frame_at(c)->uc.uc_mcontext.rip, 0x401234 - 2);
  assert_int_equal(frame_at(c)->uc.uc_mcontext.rax, X64_NR_read);
  reset(SIGUSR1);

  interrupt(c, X64_NR_read, 0);
  assert_int_equal(frame_at(c)->uc.uc_mcontext.rip, 0x401234);
  assert_int_equal(frame_at(c)->uc.uc_mcontext.rax, (uint64_t)-EINTR);
  reset(SIGUSR1);

  interrupt(c, X64_NR_pause, 0x10000000);
  assert_int_equal(frame_at(c)->uc.uc_mcontext.rip, 0x401234);
  assert_int_equal(frame_at(c)->uc.uc_mcontext.rax, (uint64_t)-EINTR);
  reset(SIGUSR1);
}

/* A fault with a handler that cannot be given a frame: the guest dies of SIGSEGV. */
static void test_fault_without_room_for_a_frame(void **state) {
  catch_guest_faults();
  Cpu *c = test_cpu("/prog");
  fill_cpu(c);
  c->events = 0;
  set_handler(SIGFPE, 0x4, 0);
  c->r[RSP] = 0x10; /* nothing is mapped there */
  signals_deliver_sync(c, SIGFPE, FPE_INTDIV, 0x401234);
  assert_true(c->events & EV_EXIT);
  assert_int_equal(c->term_signal, SIGSEGV);
  reset(SIGFPE);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_layout_matches_the_kernel),
      cmocka_unit_test(test_layout_matches_the_host_libc),
      cmocka_unit_test(test_frame_placement),
      cmocka_unit_test(test_frame_contents_and_handler_entry),
      cmocka_unit_test(test_sigreturn_takes_the_changed_frame),
      cmocka_unit_test(test_sigreturn_reads_the_xsave_header),
      cmocka_unit_test(test_frame_on_an_unwritable_stack),
      cmocka_unit_test(test_delivery_and_sigreturn),
      cmocka_unit_test(test_syscall_restart_rules),
      cmocka_unit_test(test_fault_without_room_for_a_frame),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
