#!/usr/bin/env bash
# floor.sh: what one guest instruction costs at least (bench/floor.c), on an x86-64 host
# with AES-NI, PCLMULQDQ and AVX. Prints two Markdown tables with the host's CPU model:
#   - the host itself, natively: one threaded-code dispatch (the indirect jump an
#     interpreter makes per instruction) and one value carried from an instruction to
#     the next through memory, in an XMM and in a general register;
#   - nanoseconds per instruction of straight-line runs of one instruction each,
#     natively, under x64emu and under QEMU 10.
# An interpreter's handler cannot cost less than the first table's dispatch, and a chain
# of XMM instructions whose registers live in memory not less than its XMM row; QEMU 10
# compiles a block, so that its registers stay in host registers. It is a benchmark, not
# a test.
#
# usage: bench/floor.sh [--build DIR] [--cpu C]
#   --build DIR  the x64emu build folder (default: build), built there first
#   --cpu C      run on host CPU C (taskset), or on any with "all" (default: the last, as
#                bench/run.sh)
# QEMU10 in the environment names QEMU 10, else ../shared/tools/qemu-peers.sh provides it.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cores=$(nproc)
build=$repo/build cpu=$((cores - 1))
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$2; shift 2 ;;
    --cpu) cpu=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "floor.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
say() { echo "floor.sh: $*" >&2; }
[ "$(uname -m)" = x86_64 ] || { say "the host part is x86-64 code: run it on an x86-64 host"; exit 2; }
for flag in aes pclmulqdq avx; do
  grep -qw "$flag" /proc/cpuinfo || { say "the host has no $flag"; exit 2; }
done
build=$(mkdir -p "$build" && cd "$build" && pwd)
[ -f "$build/CMakeCache.txt" ] || cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j"$(nproc)" --target x64emu >/dev/null
mkdir -p "$build/bench"
floor=$build/bench/floor
gcc -O2 -static -maes -mpclmul -mavx -o "$floor" "$repo/bench/floor.c"

if [ -z "${QEMU10:-}" ] && [ -f "$repo/../shared/tools/qemu-peers.sh" ]; then
  eval "$(bash "$repo/../shared/tools/qemu-peers.sh" 2>/dev/null)" || true
fi
pin=()
[ "$cpu" = all ] || pin=(taskset -c "$cpu")

model=$(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
echo "Host: $model, $(date -u '+%Y-%m-%d %H:%M UTC'), CPU $cpu; the best of five timings a row."
echo
echo "| on the host, natively | ns |"
echo "| --- | ---: |"
"${pin[@]}" "$floor" host 20000 | sed -E 's/^(.*[^ ]) +([0-9.]+) ns$/| \1 | \2 |/'

# The guest rows: one column a runner, "-" where one is missing or failed.
declare -A ns
names=()
runners=(native x64emu "QEMU 10")
for r in "${runners[@]}"; do
  case $r in
    native) prefix=(); loops=20000 ;;
    x64emu) prefix=("$build/x64emu"); loops=2000 ;;
    "QEMU 10") [ -n "${QEMU10:-}" ] || { say "no QEMU 10"; continue; }; prefix=("$QEMU10"); loops=2000 ;;
  esac
  out=$("${pin[@]}" "${prefix[@]}" "$floor" guest "$loops") || { say "$r failed"; continue; }
  while IFS= read -r line; do
    name=$(sed -E 's/ +[0-9.]+ ns$//' <<<"$line")
    [ "$r" = native ] && names+=("$name")
    ns[$r/$name]=$(sed -E 's/.* ([0-9.]+) ns$/\1/' <<<"$line")
  done <<<"$out"
done
echo
echo "| guest instruction, 256 in a row | native ns | x64emu ns | QEMU 10 ns |"
echo "| --- | ---: | ---: | ---: |"
for name in "${names[@]}"; do
  echo "| $name | ${ns[native/$name]:--} | ${ns[x64emu/$name]:--} | ${ns[QEMU 10/$name]:--} |"
done
