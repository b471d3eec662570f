#!/usr/bin/env bash
# build.sh: x64emu, the unit tests and the libFuzzer targets built by Clang with
# AddressSanitizer and UndefinedBehaviorSanitizer, in a build of their own: the build that
# the asan.* tests (run.sh) and the fuzz.* tests (tests/fuzz/run.sh) use. Clang is a second
# compiler beside the main build's: its UBSan and its optimizer found what GCC's builds
# did not.
#
# What guest addresses need, since they are host addresses that the guest chooses, and
# nothing more: UBSan's null and nonnull-attribute checks are off (the guest's address 0
# is one like any other, which x64emu's loads and memcpy reach and which then faults, as
# the guest's access must); ASan's options are built into x64emu (src/cli/sanitizers.c)
# and given to the tests by run.sh and tests/fuzz/run.sh.
#
# The fuzzers' coverage feedback comes from the decoder and the loader only
# (tests/fuzz/coverage.txt): those are what the inputs explore, and run once per block or
# per file. Coverage hooks in the handlers made every guest test of asan.* 4-6 times
# slower; one build for both saves compiling the interpreter and its watched copy again.
#
# Debug information is line tables only, enough for the reports' file and line; -O1 is
# ASan's own advice.
#
# The guest programs are GUEST_PROGRAMS's, built by the main build: how x64emu is built
# does not change them.
#
# usage: build.sh SOURCE_DIR BUILD_DIR GUEST_PROGRAMS
set -euo pipefail
src=$1 build=$2 guest_programs=$3
flags="-fsanitize=address,undefined,fuzzer-no-link -fno-sanitize=null,nonnull-attribute"
flags+=" -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
flags+=" -fsanitize-coverage-allowlist=$src/tests/fuzz/coverage.txt"
CC=clang cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only -DNDEBUG" -DBUILD_TESTING=ON \
  -DX64EMU_EXAMPLES=OFF -DX64EMU_FUZZERS=ON -DGUEST_PROGRAMS_FROM="$guest_programs" \
  -DCMAKE_C_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
  -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined" > "$build.configure.log" 2>&1 ||
  { cat "$build.configure.log"; exit 1; }
units=()
for f in "$src"/tests/unit/test_*.c; do units+=("$(basename "$f" .c)"); done
cmake --build "$build" -j"$(nproc)" --target x64emu "${units[@]}" fuzz_elf fuzz_decode fuzz_run \
  > "$build.build.log" 2>&1 || { tail -40 "$build.build.log"; exit 1; }
