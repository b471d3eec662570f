#!/usr/bin/env bash
# run.sh: builds the libFuzzer targets (fuzz_elf, fuzz_decode, fuzz_run) with clang and
# AddressSanitizer and UndefinedBehaviorSanitizer in a build of their own, and runs each
# from its seed corpus (tests/fuzz/corpus/TARGET) for a fixed number of inputs with a
# fixed seed, so that a commit's result is the same on every run. Inputs found on the way
# go to the build's copy of the corpus, not to the repository's; a crash is kept there as
# crash-* and fails the run (then: add it to the corpus, as a regression input).
#
# usage: run.sh SOURCE_DIR BUILD_DIR [RUNS]       (RUNS: inputs per target, default 400000
#                                                  for elf and decode, a sixteenth for run,
#                                                  whose inputs each build a machine)
#        FUZZ_TARGETS="elf decode run" ...          the targets (default: all three)
#
# fuzz_run's guest code computes addresses of its own, and a wild one could land in the
# fuzzer's own memory (ASan's heap alone spans 4 TiB at a fixed place), which the
# interpreter does not prevent (the README's threat model). So that a commit's result is
# the same on every run, it runs without address randomization (setarch -R), with RDTSC on
# the virtual clock (fuzz_run.c), and without libFuzzer's comparison tracing, which would
# feed values the fuzzer's own code compares (its pointers among them) back into inputs.
# A report of an access to the fuzzer's memory is to be read in that light.
#        FUZZ_SECONDS=3600 run.sh SOURCE_DIR BUILD_DIR   for an hour per target, any seed
#
# What guest addresses need, since they are host addresses that the guest chooses: UBSan's
# nonnull-attribute check is off (the guest's address 0 is one like any other, which
# x64emu's memcpy reaches and which then faults, as the guest's access must); ASan leaves
# memcpy, memmove and memset unchecked (replace_intrin=0: those are how the interpreter
# copies guest operands, whose addresses may lie anywhere, ASan's own shadow included),
# and leaves SIGSEGV and SIGBUS to x64emu, whose handler makes a host fault on guest
# memory the guest's fault. Every other access, allocation and free is checked.
set -euo pipefail
src=$1 build=$2 runs=${3:-400000}
CC=clang cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBUILD_TESTING=OFF \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only -DNDEBUG" -DX64EMU_FUZZERS=ON \
  -DCMAKE_C_FLAGS="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize=nonnull-attribute -fno-sanitize-recover=undefined" \
  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" > "$build.configure.log" 2>&1 ||
  { cat "$build.configure.log"; exit 1; }
cmake --build "$build" --target fuzz_elf fuzz_decode fuzz_run -j"$(nproc)" > "$build.build.log" 2>&1 ||
  { tail -40 "$build.build.log"; exit 1; }

export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1:replace_intrin=0:handle_segv=0:handle_sigbus=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# fuzz TARGET: runs one target from a fresh copy of its seed corpus; the log is
# BUILD/fuzz-TARGET.log.
fuzz() {
  local target=$1 corpus=$build/corpus-$1 limits fixed=()
  rm -rf "$corpus" && mkdir -p "$corpus" && cp "$src/tests/fuzz/corpus/$target"/* "$corpus"/ || return 2
  if [ -n "${FUZZ_SECONDS:-}" ]; then
    limits=(-max_total_time="$FUZZ_SECONDS")
  else
    limits=(-runs="$([ "$target" = run ] && echo $((runs / 16)) || echo "$runs")" -seed=1)
  fi
  [ "$target" = run ] && fixed=(setarch "$(uname -m)" -R) limits+=(-use_cmp=0)
  cd "$build" && "${fixed[@]}" "tests/fuzz/targets/fuzz_$target" "${limits[@]}" -max_len=4096 \
    -timeout=60 -rss_limit_mb=4096 -artifact_prefix="$corpus/" "$corpus" > "$build/fuzz-$target.log" 2>&1
}

# The targets run side by side, as many at a time as there are CPUs (each is one process,
# and its inputs do not depend on the others'; a third beside two on 2 CPUs slowed them
# all), then are reported in order.
targets=(${FUZZ_TARGETS:-elf decode run})
for target in "${targets[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$(nproc)" ]; do wait -n || true; done
  rm -f "$build/fuzz-$target.status"
  (if fuzz "$target"; then echo 0; else echo $?; fi > "$build/fuzz-$target.status") &
done
wait
failed=0
for target in "${targets[@]}"; do
  if [ "$(cat "$build/fuzz-$target.status" 2>/dev/null)" = 0 ]; then
    echo "fuzz_$target: $(grep -m1 -o 'Done [0-9]* runs.*' "$build/fuzz-$target.log" || echo done)"
  else
    echo "fuzz_$target: FAILED (log $build/fuzz-$target.log, input kept in $build/corpus-$target):"
    tail -40 "$build/fuzz-$target.log" 2>/dev/null || true
    failed=1
  fi
done
exit $failed
