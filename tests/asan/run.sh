#!/usr/bin/env bash
# run.sh: the tests of one prefix (unit, guest, busybox) in the AddressSanitizer and
# UndefinedBehaviorSanitizer build that build.sh made, one at a time: any report is a
# failure (UBSan halts, ASan and LeakSanitizer end the process).
#
# ASan's options are what guest addresses need: memcpy and friends unchecked (they copy
# guest operands, whose addresses may lie anywhere), SIGSEGV and SIGBUS left to x64emu's
# handler. Left out, with their reasons:
#   guest.random_insns  maps its areas at fixed addresses (0x300000000000...) that lie in
#                       ASan's shadow memory (and its .host-fp-portable run; guest.random_vex
#                       is the same program)
#   guest.big_heap      grows the heap by 3 GiB, into address space ASan's allocator holds
#                       (and its .host16384/.host65536 runs)
#   *.as-amd            the same programs again, judged by the CPU model
#   guest.threads.repeated  guest.threads twenty times, for races (the plain run checks
#                       the same code under ASan)
#   guest.chroot_exec   runs x64emu again inside a new root, which holds no dynamic loader
#                       or libraries for this x64emu (ASan's is a dynamic program)
# The differential unit tests run 2,000 random cases per form here (X64EMU_DIFF_ITER; the
# plain run does 10,000, and 100,000 of each crypto form): the sanitizers look at every
# path a form takes, which a few cases reach, and the full count under ASan took minutes.
# The guest programs whose work only repeats do less of it (X64EMU_TEST_FEWER_ROUNDS,
# tests/guest/test_env.h).
#
# One at a time, and in the folder of the build that registers them (unit: tests/, the
# others: tests/PREFIX/), where ctest keeps its logs: the outer ctest runs the three
# prefixes beside each other and beside the other tests.
#
# usage: run.sh BUILD_DIR PREFIX
set -euo pipefail
build=$1 prefix=$2
export ASAN_OPTIONS=replace_intrin=0:handle_segv=0:handle_sigbus=0:allow_user_segv_handler=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export X64EMU_DIFF_ITER=2000 X64EMU_TEST_FEWER_ROUNDS=1
# A guest's exit_group ends x64emu while its other threads still run, and LeakSanitizer's
# check at exit then warns now and then that it could not stop one: not a report, but
# x64emu's stderr, which the guest tests compare with the native run's.
export COMPARE_DROP_STDERR='^==[0-9]+==Running thread [0-9]+ was not suspended\. False leaks are possible\.$'
cd "$build/tests"
[ "$prefix" = unit ] || cd "$prefix"
# The sanitized x64emu is 3-4 times slower than the plain one: each run of a guest test
# may take 50 s here (20 s in the plain build), still inside the tests' own 60 s, and
# those with their own COMPARE_TIMEOUT keep it (60 s and more).
export COMPARE_TIMEOUT=50
# Of the inner ctest's output, what failed and the summary: the outer ctest prints this
# output when the test fails, and a failing test's output then stands at its top rather
# than among 150 lines of passes.
ctest --output-on-failure -R "^$prefix\\." \
  -E '(\.as-amd$|^guest\.random_(insns|vex)(\.host-fp-portable)?$|^guest\.big_heap(\.host[0-9]+)?$|^guest\.threads\.repeated$|^guest\.chroot_exec$)' 2>&1 |
  { grep -v -E '^ +Start +[0-9]+: |^ *[0-9]+/[0-9]+ Test +#[0-9]+: .* Passed +[0-9.]+ sec$' || true; }
