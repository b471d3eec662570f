#!/usr/bin/env bash
# run.sh: builds the libFuzzer targets (fuzz_elf, fuzz_decode, fuzz_run) with clang and
# AddressSanitizer and UndefinedBehaviorSanitizer in a build of their own, and runs each
# from its seed corpus (tests/fuzz/corpus/TARGET) for a fixed number of inputs with a
# fixed seed, so that a commit's result is the same on every run. Inputs found on the way
# go to the build's copy of the corpus, not to the repository's; a crash is kept there as
# crash-* and fails the run (then: add it to the corpus, as a regression input).
#
# usage: run.sh SOURCE_DIR BUILD_DIR [RUNS]       (RUNS: inputs per target, default 20000)
#        FUZZ_SECONDS=3600 run.sh SOURCE_DIR BUILD_DIR   for an hour per target, any seed
#
# One UBSan check is off: nonnull-attribute, since guest addresses are host addresses and
# the guest's address 0 is one like any other, which x64emu's memcpy reaches (and which
# then faults, as the guest's access must).
set -euo pipefail
src=$1 build=$2 runs=${3:-20000}
CC=clang cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBUILD_TESTING=OFF \
  -DX64EMU_FUZZERS=ON \
  -DCMAKE_C_FLAGS="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize=nonnull-attribute -fno-sanitize-recover=undefined" \
  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" > "$build.configure.log" 2>&1 ||
  { cat "$build.configure.log"; exit 1; }
cmake --build "$build" --target fuzz_elf fuzz_decode fuzz_run -j"$(nproc)" > "$build.build.log" 2>&1 ||
  { tail -40 "$build.build.log"; exit 1; }

export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
failed=0
for target in elf decode run; do
  corpus=$build/corpus-$target
  rm -rf "$corpus" && mkdir -p "$corpus" && cp "$src/tests/fuzz/corpus/$target"/* "$corpus"/
  if [ -n "${FUZZ_SECONDS:-}" ]; then
    limits=(-max_total_time="$FUZZ_SECONDS")
  else
    limits=(-runs="$runs" -seed=1)
  fi
  if (cd "$build" && "tests/fuzz/targets/fuzz_$target" "${limits[@]}" -max_len=4096 -timeout=10 \
        -artifact_prefix="$corpus/" "$corpus") > "$build/fuzz-$target.log" 2>&1; then
    echo "fuzz_$target: $(grep -m1 -o 'Done [0-9]* runs.*' "$build/fuzz-$target.log" || echo done)"
  else
    echo "fuzz_$target: FAILED (log $build/fuzz-$target.log, input kept in $corpus):"
    tail -40 "$build/fuzz-$target.log"
    failed=1
  fi
done
exit $failed
