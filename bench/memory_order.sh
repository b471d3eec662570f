#!/usr/bin/env bash
# memory_order.sh: what keeping x86's memory order costs an aarch64 host (issue 15): CPU
# time of a threaded guest (bench/threads_work.c, two threads in parallel) and of the
# speed example's rate (one thread, which never needs the order) under x64emu with
# --memory-order=x86 (the default) and --memory-order=host (unsafe: the host's weaker
# order). Prints one Markdown table with the host's CPU model. A benchmark, not a test.
#
# usage: bench/memory_order.sh [--runner CMD] [--build DIR]
#   --runner CMD  how to run x64emu: on an aarch64 host the build's x64emu (the default);
#                 on an x86-64 machine e.g. "qemu-aarch64 build/tests/aarch64/x64emu-aarch64/x64emu",
#                 whose numbers are qemu's translation of the ordered accesses, not an
#                 ARM core's
#   --build DIR   the x64emu build folder (default: build), for the guests
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build=$repo/build runner=
while [ $# -gt 0 ]; do
  case $1 in
    --runner) runner=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "memory_order.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[ -n "$runner" ] || runner=$build/x64emu
mkdir -p "$build/bench"
work=$build/bench/threads_work speed=$build/examples/speed
gcc -O2 -static -pthread -o "$work" "$repo/bench/threads_work.c"
[ -x "$speed" ] || { echo "memory_order.sh: build the speed example first ($speed)" >&2; exit 2; }

# CPU seconds (user + system) of a command, its output thrown away.
cpu_seconds() {
  local out
  out=$(mktemp)
  /usr/bin/time -o "$out" -f '%U %S' "$@" >/dev/null 2>&1 || true
  awk '{print $1 + $2}' "$out"
  rm -f "$out"
}
row() { # label, command...
  local label=$1 x86 host
  shift
  # shellcheck disable=SC2086 # the runner is a command line
  x86=$(cpu_seconds $runner --memory-order=x86 "$@")
  # shellcheck disable=SC2086
  host=$(cpu_seconds $runner --memory-order=host "$@")
  echo "| $label | $x86 | $host | $(echo "$x86 / $host" | bc -l | xargs printf '%.2f')× |"
}
model=$(grep -m1 -E 'model name|^Model' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//' || true)
[ -n "$model" ] || model=$(lscpu | sed -n 's/^Model name: *//p' | head -1)
echo "x64emu's memory order on $(uname -m) (${model:-unknown CPU}), runner: $runner, $(date -u '+%Y-%m-%d %H:%M UTC'); CPU seconds"
echo
echo "| guest | x86 order | host order | cost of x86's order |"
echo "| --- | ---: | ---: | ---: |"
row "threads_work (2 threads in parallel)" "$work" 1000
# The speed example measures for a fixed time: its rate, in kB/s of CPU time.
rate() {
  # shellcheck disable=SC2086
  $runner "$@" "$speed" -seconds 1 -evp aes-128-gcm -bytes 16384 2>/dev/null | awk 'END { sub(/k$/, "", $NF); print $NF }'
}
x86=$(rate --memory-order=x86) host=$(rate --memory-order=host)
echo "| speed example, AES-128-GCM 16 KiB, 1 thread (kB/s: higher is faster) | $x86 | $host | $(echo "$host / $x86" | bc -l | xargs printf '%.2f')× |"
