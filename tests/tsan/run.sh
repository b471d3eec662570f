#!/usr/bin/env bash
# x64emu built with ThreadSanitizer, over threaded guest programs: any race on the
# emulator's own state (its code cache, its locks, its signal and thread bookkeeping) is
# a failure. The guest's own races on its memory, which x86 allows, are suppressed
# (guest_memory.supp). Each program's output must also be the native run's.
#
# Usage: run.sh SOURCE_DIR TSAN_BUILD_DIR PROGRAM...
set -euo pipefail
src=$1 build=$2
shift 2

# Debug information is line tables only (-g1): enough for a report's file and line, and a
# quarter quicker to compile. -O1 (its documentation asks for -O1 or more): the build
# takes 137 CPU-seconds instead of 186 at -O2, and the programs below run no slower.
# GCC: Clang 14's ThreadSanitizer refuses a mapping at the guest's address 0 ("mmap at
# bad address").
CC=gcc cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" -DCMAKE_C_FLAGS="-fsanitize=thread" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=thread" \
  -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=thread" > "$build.configure.log" 2>&1 ||
  { cat "$build.configure.log"; exit 1; }
cmake --build "$build" --target x64emu -j"$(nproc)" > "$build.build.log" 2>&1 ||
  { tail -40 "$build.build.log"; exit 1; }

export TSAN_OPTIONS="suppressions=$src/tests/tsan/guest_memory.supp halt_on_error=1 exitcode=66"
# Both runs do less of what only repeats (tests/guest/test_env.h): more rounds of the same
# atomics find no more races (the threads program: 50 s under TSan, 15 s so).
export X64EMU_TEST_FEWER_ROUNDS=1
failed=0
for program in "$@"; do
  expected=$("$program")
  # ThreadSanitizer needs the address space laid out as it expects: no randomization.
  if ! actual=$(setarch "$(uname -m)" -R "$build/x64emu" "$program" 2> "$build/tsan.err"); then
    echo "$program: x64emu failed under ThreadSanitizer:"
    head -60 "$build/tsan.err"
    failed=1
  elif [ "$actual" != "$expected" ]; then
    echo "$program: output differs from the native run's"
    diff <(echo "$expected") <(echo "$actual") || true
    failed=1
  else
    echo "$program: as native, no race"
  fi
done
exit $failed
