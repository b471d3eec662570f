#!/usr/bin/env bash
# run.sh: one libFuzzer target (fuzz_elf, fuzz_decode or fuzz_run) of the AddressSanitizer
# and UndefinedBehaviorSanitizer build that tests/asan/build.sh makes, from its seed corpus
# (tests/fuzz/corpus/TARGET) for a fixed number of inputs with a fixed seed, so that a
# commit's result is the same on every run. Inputs found on the way go to the build's copy
# of the corpus, not to the repository's; a crash is kept there as crash-* and fails the
# run (then: add it to the corpus, as a regression input).
#
# usage: run.sh SOURCE_DIR BUILD_DIR TARGET [RUNS]   (TARGET: elf, decode or run; RUNS:
#                                                  inputs, default 400000 for elf and
#                                                  decode, a sixteenth for run, whose
#                                                  inputs each build a machine)
#        FUZZ_SECONDS=3600 run.sh SOURCE_DIR BUILD_DIR TARGET   for an hour, any seed
#
# fuzz_run's guest code computes addresses of its own, and a wild one could land in the
# fuzzer's own memory (ASan's heap alone spans 4 TiB at a fixed place), which the
# interpreter does not prevent (the README's threat model). So that a commit's result is
# the same on every run, it runs without address randomization (setarch -R), with RDTSC on
# the virtual clock (fuzz_run.c), and without libFuzzer's comparison tracing, which would
# feed values the fuzzer's own code compares (its pointers among them) back into inputs.
# A report of an access to the fuzzer's memory is to be read in that light.
#
# ASan leaves memcpy, memmove and memset unchecked (replace_intrin=0: those are how the
# interpreter copies guest operands, whose addresses may lie anywhere, ASan's own shadow
# included), and leaves SIGSEGV and SIGBUS to x64emu, whose handler makes a host fault on
# guest memory the guest's fault. Every other access, allocation and free is checked.
set -euo pipefail
src=$1 build=$2 target=$3 runs=${4:-400000}
export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1:replace_intrin=0:handle_segv=0:handle_sigbus=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
corpus=$build/corpus-$target log=$build/fuzz-$target.log fixed=()
rm -rf "$corpus" && mkdir -p "$corpus" && cp "$src/tests/fuzz/corpus/$target"/* "$corpus"/
if [ -n "${FUZZ_SECONDS:-}" ]; then
  limits=(-max_total_time="$FUZZ_SECONDS")
else
  limits=(-runs="$([ "$target" = run ] && echo $((runs / 16)) || echo "$runs")" -seed=1)
fi
[ "$target" = run ] && fixed=(setarch "$(uname -m)" -R) limits+=(-use_cmp=0)
cd "$build"
if "${fixed[@]}" "tests/fuzz/targets/fuzz_$target" "${limits[@]}" -max_len=4096 -timeout=60 \
     -rss_limit_mb=4096 -artifact_prefix="$corpus/" "$corpus" > "$log" 2>&1; then
  echo "fuzz_$target: $(grep -m1 -o 'Done [0-9]* runs.*' "$log" || echo done)"
else
  echo "fuzz_$target: FAILED (log $log, input kept in $corpus):"
  tail -40 "$log"
  exit 1
fi
