/* sanitizers.c: the options an x64emu built with AddressSanitizer or UBSan runs with
 * (tests/asan), built in so that they hold in every x64emu the tests start, whatever the
 * environment a guest is given. Guest addresses are host addresses that the guest
 * chooses: ASan leaves memcpy, memmove and memset unchecked (replace_intrin=0: they are
 * how the interpreter copies guest operands, which may lie anywhere, ASan's own shadow
 * included), and leaves SIGSEGV and SIGBUS to x64emu, whose handler makes a host fault on
 * guest memory the guest's fault. Every other access, allocation and free is checked. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define X64EMU_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define X64EMU_ASAN 1
#endif

#ifdef X64EMU_ASAN
const char *__asan_default_options(void);
const char *__asan_default_options(void) {
  return "replace_intrin=0:handle_segv=0:handle_sigbus=0:allow_user_segv_handler=1";
}
#else
typedef int x64emu_built_without_asan; /* (a translation unit may not be empty) */
#endif
