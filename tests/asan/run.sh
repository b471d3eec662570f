#!/usr/bin/env bash
# run.sh: x64emu and the unit tests built with AddressSanitizer and UndefinedBehaviorSanitizer
# in a build of their own, by Clang (a second compiler beside the main build's: its UBSan
# and its optimizer found what GCC's builds did not), then the unit, guest and busybox
# tests run with them: any report is a failure (UBSan halts, ASan and LeakSanitizer end
# the process).
#
# What guest addresses need, since they are host addresses that the guest chooses, and
# nothing more: UBSan's null and nonnull-attribute checks are off (the guest's address 0
# is one like any other, which x64emu's loads and memcpy reach and which then faults, as
# the guest's access must); ASan's options are built into x64emu (src/cli/sanitizers.c)
# and given to the unit tests here: memcpy and friends unchecked, SIGSEGV and SIGBUS left
# to x64emu's handler. Left out, with their reasons:
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
# tests/guest/test_env.h). Debug information is line tables only, enough for the reports'
# file and line; -O1 is ASan's own advice. Clang builds this in 145 s on 2 cores, where
# GCC took 198 s.
#
# The guest programs are GUEST_PROGRAMS's, built by the main build: how x64emu is built
# does not change them.
#
# usage: run.sh SOURCE_DIR BUILD_DIR GUEST_PROGRAMS
set -euo pipefail
src=$1 build=$2 guest_programs=$3
flags="-fsanitize=address,undefined -fno-sanitize=null,nonnull-attribute"
flags+=" -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
CC=clang cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only -DNDEBUG" -DBUILD_TESTING=ON \
  -DX64EMU_EXAMPLES=OFF -DGUEST_PROGRAMS_FROM="$guest_programs" -DCMAKE_C_FLAGS="$flags" \
  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
  -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined" > "$build.configure.log" 2>&1 ||
  { cat "$build.configure.log"; exit 1; }
units=()
for f in "$src"/tests/unit/test_*.c; do units+=("$(basename "$f" .c)"); done
cmake --build "$build" -j"$(nproc)" --target x64emu "${units[@]}" \
  > "$build.build.log" 2>&1 || { tail -40 "$build.build.log"; exit 1; }

export ASAN_OPTIONS=replace_intrin=0:handle_segv=0:handle_sigbus=0:allow_user_segv_handler=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export X64EMU_DIFF_ITER=2000 X64EMU_TEST_FEWER_ROUNDS=1
# A guest's exit_group ends x64emu while its other threads still run, and LeakSanitizer's
# check at exit then warns now and then that it could not stop one: not a report, but
# x64emu's stderr, which the guest tests compare with the native run's.
export COMPARE_DROP_STDERR='^==[0-9]+==Running thread [0-9]+ was not suspended\. False leaks are possible\.$'
cd "$build"
ctest -j"$(nproc)" --output-on-failure -R '^(unit|guest|busybox)\.' \
  -E '(\.as-amd$|^guest\.random_(insns|vex)(\.host-fp-portable)?$|^guest\.big_heap(\.host[0-9]+)?$|^guest\.threads\.repeated$|^guest\.chroot_exec$)'
