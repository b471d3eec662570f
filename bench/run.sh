#!/usr/bin/env bash
# run.sh: the benchmark. Runs the static speed example (examples/speed.c, OpenSSL's
# libcrypto.a) natively, under x64emu with each host crypto tier and under the two QEMU
# user-mode peers, for AES-128-GCM, AES-128-CTR, AES-128-CBC (encrypt) and SHA-256 at 16,
# 1420 and 16384 bytes, times the start-up of a static hello world with each, and the CPU
# time of whole programs: busybox gzip -c, bzip2 -c and sha256sum of a 10 MB file, and a
# JIT-like guest (bench/jit_probe.c: 200 MB of fresh code, each instruction run once,
# unmapped or kept; and one routine in writable code memory called 20 million times) with
# its peak memory. Prints
# one Markdown table: MB/s per runner and x64emu's speed relative to QEMU 10, QEMU 7.2 and
# native, all from the same run, with the host's CPU model. It is a benchmark, not a
# test: ctest never runs it.
#
# usage: bench/run.sh [--build DIR] [--seconds S] [--runs N] [--cpu C] [--csv FILE] [--png FILE]
#   --build DIR   the x64emu build folder (default: build); x64emu and the speed example
#                 are built there first
#   --seconds S   time per measurement (default 1)
#   --runs N      runs of hello world whose median is its start-up time (default 50)
#   --cpu C       run everything on host CPU C (taskset), or on any with "all" (default:
#                 the last CPU: on the 2-core VMs of this project one vCPU at times ran
#                 native AES-GCM at 0.55x the other's speed, so that runs differed by as
#                 much as a process landed on one or the other)
#   --csv FILE    also write the table as CSV
#   --png FILE    also draw it as a PNG chart (gnuplot; installed with apt-get when root)
# QEMU10 and QEMU72 in the environment name the peers; otherwise
# ../shared/tools/qemu-peers.sh (beside the repository) provides them, or qemu-x86_64 on
# PATH stands in for QEMU 7.2. A runner that is missing or fails shows as "-".
#
# Measurements run one after another, each in a process of its own (the machine may be
# busy with other work); rates come from the CPU time the speed example measured itself,
# as openssl speed does.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)

cores=$(nproc)
build=$repo/build seconds=1 runs=50 cpu=$((cores - 1)) csv= png=
usage() { sed -n '2,/^set -euo/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//' >&2; exit "$1"; }
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$2; shift 2 ;;
    --build=*) build=${1#*=}; shift ;;
    --seconds) seconds=$2; shift 2 ;;
    --seconds=*) seconds=${1#*=}; shift ;;
    --runs) runs=$2; shift 2 ;;
    --runs=*) runs=${1#*=}; shift ;;
    --cpu) cpu=$2; shift 2 ;;
    --cpu=*) cpu=${1#*=}; shift ;;
    --csv) csv=$2; shift 2 ;;
    --csv=*) csv=${1#*=}; shift ;;
    --png) png=$2; shift 2 ;;
    --png=*) png=${1#*=}; shift ;;
    -h|--help) usage 0 ;;
    *) echo "bench: unknown option $1" >&2; usage 2 ;;
  esac
done
[[ $seconds =~ ^[0-9]*\.?[0-9]+$ ]] || { echo "bench: --seconds takes a number" >&2; exit 2; }
[[ $runs =~ ^[1-9][0-9]*$ ]] || { echo "bench: --runs takes a positive count" >&2; exit 2; }
build=$(mkdir -p "$build" && cd "$build" && pwd)
say() { echo "bench: $*" >&2; }

algorithms=(aes-128-gcm aes-128-ctr aes-128-cbc sha256)
declare -A label=([aes-128-gcm]=AES-128-GCM [aes-128-ctr]=AES-128-CTR [aes-128-cbc]=AES-128-CBC
                  [sha256]=SHA-256)
sizes=(16 1420 16384)

# ---- what is measured, built fresh ----
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
say "building x64emu and the speed example in $build"
cmake --build "$build" -j"$(nproc)" --target x64emu speed_program >/dev/null
x64emu=$build/x64emu speed=$build/examples/speed
mkdir -p "$build/bench"
hello=$build/bench/hello startup=$build/bench/startup
jit_probe=$build/bench/jit_probe rusage=$build/bench/rusage
gcc -O2 -fno-pie -no-pie -static -o "$hello" "$repo/bench/hello.c"
gcc -O2 -Wall -Wextra -o "$startup" "$repo/bench/startup.c"
gcc -O2 -fno-pie -no-pie -static -o "$jit_probe" "$repo/bench/jit_probe.c"
gcc -O2 -Wall -Wextra -o "$rusage" "$repo/bench/rusage.c"

# ---- the runners, on one CPU ----
if [ "$cpu" != all ]; then # every process started from here inherits it
  taskset -cp "$cpu" $$ >/dev/null || { echo "bench: cannot run on CPU $cpu" >&2; exit 2; }
fi
peers=$repo/../shared/tools/qemu-peers.sh
if [ -z "${QEMU10:-}" ] && [ -f "$peers" ]; then
  say "making the QEMU peers available ($peers)"
  eval "$(bash "$peers")"
fi
QEMU72=${QEMU72:-$(command -v qemu-x86_64 || true)}
QEMU10=${QEMU10:-}

runners=(native x64emu x64emu-portable qemu10 qemu72)
declare -A title=([native]="native" [x64emu]="x64emu" [x64emu-portable]="x64emu portable"
                  [qemu10]="QEMU 10" [qemu72]="QEMU 7.2")
# Sets prefix to the command that runs a guest program with runner $1; false if missing.
runner_prefix() {
  case $1 in
    native) prefix=() ;;
    x64emu) prefix=("$x64emu" --host-crypto=native) ;;
    x64emu-portable) prefix=("$x64emu" --host-crypto=portable) ;;
    qemu10) prefix=("$QEMU10") ;;
    qemu72) prefix=("$QEMU72") ;;
  esac
  [ ${#prefix[@]} -eq 0 ] || [ -x "${prefix[0]}" ]
}

# What each runner is, and which CPU features OpenSSL finds under it (its code paths).
declare -A about
about[native]=$(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -n 1)
about[x64emu]=$("$x64emu" --version 2>&1 | head -n 1)
about[x64emu-portable]=${about[x64emu]}
[ -x "$QEMU10" ] && about[qemu10]=$("$QEMU10" --version | head -n 1)
[ -x "$QEMU72" ] && about[qemu72]=$("$QEMU72" --version | head -n 1)
declare -A sees
for r in "${runners[@]}"; do
  if runner_prefix "$r"; then
    sees[$r]=$("${prefix[@]}" "$speed" -v -seconds 0.01 -evp sha256 -bytes 16 2>&1 >/dev/null |
               sed -n 's/^OpenSSL sees: //p' || true)
  fi
done

# ---- throughput: a fresh speed process for each measurement ----
# (QEMU user mode slows down by up to 10x for the rest of a process after some of the
# guest's SIGALRM-ended loops, so one process per measurement keeps every runner fair.)
declare -A rate # [runner/algorithm/size] = MB/s (10^6 bytes per second)
for a in "${algorithms[@]}"; do
  for s in "${sizes[@]}"; do
    line=""
    for r in "${runners[@]}"; do # runners interleaved, so that a busy spell hits all alike
      runner_prefix "$r" || continue
      if out=$("${prefix[@]}" "$speed" -mr -seconds "$seconds" -evp "$a" -bytes "$s" 2>/dev/null); then
        bytes_per_s=$(sed -n 's/^+F:[0-9]*:[^:]*:\([0-9.]*\)$/\1/p' <<<"$out" | head -n 1)
        [ -n "$bytes_per_s" ] && rate[$r/$a/$s]=$(awk -v b="$bytes_per_s" 'BEGIN { printf "%.6g", b / 1e6 }')
      fi
      line+=" ${title[$r]} ${rate[$r/$a/$s]:-failed},"
    done
    say "$a at $s bytes, MB/s:${line%,}"
  done
done

# ---- Debian's own openssl speed: dynamically linked, its libraries from the host ----
debian_openssl=$(command -v openssl || true)
debian_algorithms=(aes-128-gcm sha256)
debian_size=16384
declare -A debian_rate # [runner/algorithm] = MB/s
if [ -n "$debian_openssl" ]; then
  for a in "${debian_algorithms[@]}"; do
    line=""
    for r in "${runners[@]}"; do
      runner_prefix "$r" || continue
      if out=$("${prefix[@]}" "$debian_openssl" speed -mr -seconds "$seconds" -evp "$a" -bytes "$debian_size" 2>/dev/null); then
        bytes_per_s=$(sed -n 's/^+F:[0-9]*:[^:]*:\([0-9.]*\)$/\1/p' <<<"$out" | head -n 1)
        [ -n "$bytes_per_s" ] && debian_rate[$r/$a]=$(awk -v b="$bytes_per_s" 'BEGIN { printf "%.6g", b / 1e6 }')
      fi
      line+=" ${title[$r]} ${debian_rate[$r/$a]:-failed},"
    done
    say "Debian's $debian_openssl speed $a at $debian_size bytes, MB/s:${line%,}"
  done
else
  say "no openssl on PATH: no rows for Debian's openssl speed"
fi

# ---- start-up: median wall time of hello world ----
declare -A start_ms
for r in "${runners[@]}"; do
  runner_prefix "$r" || continue
  if ms=$("$startup" "$runs" "${prefix[@]}" "$hello"); then
    start_ms[$r]=$ms
    say "hello world under ${title[$r]}: $ms ms (median of $runs)"
  fi
done

# ---- whole programs: CPU seconds (user + system) of busybox on a 10 MB file ----
# The input is the project's own C sources over and over: text that compresses, the
# same bytes for every runner of a run.
cpu_seconds() { # the command's CPU time in seconds; false if it failed
  local TIMEFORMAT='%3U %3S' t
  t=$( { time "$@" >/dev/null 2>&1; } 2>&1 ) || return 1
  awk '{ printf "%.3f", $1 + $2 }' <<<"$t"
}
busybox=$(command -v busybox || true)
tools=(gzip bzip2 sha256sum)
declare -A tool_args=([gzip]="gzip -c" [bzip2]="bzip2 -c" [sha256sum]="sha256sum")
declare -A cpu_s # [runner/tool] = seconds
if [ -n "$busybox" ]; then
  input=$build/bench/input-10MB
  : >"$input"
  while [ "$(stat -c %s "$input")" -lt 10485760 ]; do cat "$repo"/src/*/*.c >>"$input"; done
  truncate -s 10485760 "$input"
  for t in "${tools[@]}"; do
    line=""
    for r in "${runners[@]}"; do
      runner_prefix "$r" || continue
      # shellcheck disable=SC2086 # tool_args holds the applet and its options
      if s=$(cpu_seconds "${prefix[@]}" "$busybox" ${tool_args[$t]} "$input"); then cpu_s[$r/$t]=$s; fi
      line+=" ${title[$r]} ${cpu_s[$r/$t]:-failed},"
    done
    say "busybox ${tool_args[$t]}, CPU s:${line%,}"
  done
else
  say "no busybox on PATH: no whole-program rows"
fi

# ---- code run once: the JIT probe's CPU seconds and peak memory ----
jit_modes=(drop keep hot)
declare -A jit_what=([drop]="200 MB of code run once" [keep]="200 MB of code run once"
                     [hot]="a routine in writable code memory run 20 million times")
declare -A jit_s jit_mb # [runner/mode]
for mode in "${jit_modes[@]}"; do
  line=""
  for r in "${runners[@]}"; do
    [ "$r" = x64emu-portable ] && continue # no crypto or floating point in it
    runner_prefix "$r" || continue
    if out=$("$rusage" "${prefix[@]}" "$jit_probe" "$mode"); then
      read -r jit_s[$r/$mode] jit_mb[$r/$mode] <<<"$out"
    fi
    line+=" ${title[$r]} ${jit_s[$r/$mode]:-failed} s ${jit_mb[$r/$mode]:-} MB,"
  done
  say "jit_probe $mode (${jit_what[$mode]}):${line%,}"
done

# ---- the table ----
# Rows as "label|bytes|unit|native|x64emu|x64emu-portable|qemu10|qemu72" for awk.
rows=()
for a in "${algorithms[@]}"; do
  for s in "${sizes[@]}"; do
    row="${label[$a]}|$s|MB/s"
    for r in "${runners[@]}"; do row+="|${rate[$r/$a/$s]:-}"; done
    rows+=("$row")
  done
done
for a in "${debian_algorithms[@]}"; do
  [ -n "$debian_openssl" ] || break
  row="Debian's openssl speed ${label[$a]:-$a}|$debian_size|MB/s"
  for r in "${runners[@]}"; do row+="|${debian_rate[$r/$a]:-}"; done
  rows+=("$row")
done
row="start-up (static hello world)||ms"
for r in "${runners[@]}"; do row+="|${start_ms[$r]:-}"; done
rows+=("$row")
if [ -n "$busybox" ]; then
  for t in "${tools[@]}"; do
    row="busybox ${tool_args[$t]}|10485760|CPU s"
    for r in "${runners[@]}"; do row+="|${cpu_s[$r/$t]:-}"; done
    rows+=("$row")
  done
fi

for mode in "${jit_modes[@]}"; do
  row="JIT-like: ${jit_what[$mode]}, $mode||CPU s"
  for r in "${runners[@]}"; do row+="|${jit_s[$r/$mode]:-}"; done
  rows+=("$row")
  row="JIT-like, $mode: peak memory||MB"
  for r in "${runners[@]}"; do row+="|${jit_mb[$r/$mode]:-}"; done
  rows+=("$row")
done

tabulate() { # $1: md or csv
  printf '%s\n' "${rows[@]}" | awk -F'|' -v form="$1" '
    function num(x) { return x != "" && x + 0 > 0 }
    function sig(x) { # three significant digits, no exponent
      if (x == "") return "-"
      if (x >= 100) return sprintf("%.0f", x)
      if (x >= 10) return sprintf("%.1f", x)
      if (x >= 1) return sprintf("%.2f", x)
      return sprintf("%#.3g", x)
    }
    # x64emu over another runner, as a speed: >1 means x64emu is faster (for times, the
    # time of the other runner over that of x64emu; for memory, likewise: >1 is less).
    function ratio(ours, theirs, unit) {
      if (!num(ours) || !num(theirs)) return ""
      return unit == "MB/s" ? ours / theirs : theirs / ours
    }
    BEGIN {
      if (form == "csv")
        print "measure,bytes,unit,native,x64emu,x64emu_portable,qemu10,qemu72," \
              "x64emu_vs_qemu10,x64emu_vs_qemu72,x64emu_vs_native"
      else {
        print "| measure | bytes | unit | native | x64emu | x64emu portable | QEMU 10 | QEMU 7.2 " \
              "| x64emu/QEMU 10 | x64emu/QEMU 7.2 | x64emu/native |"
        print "| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
      }
    }
    {
      unit = $3; native = $4; ours = $5; q10 = $7; q72 = $8
      r10 = ratio(ours, q10, unit); r72 = ratio(ours, q72, unit); rn = ratio(ours, native, unit)
      if (form == "csv") {
        printf "%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", $1, $2, unit, $4, $5, $6, $7, $8,
               r10 == "" ? "" : sprintf("%.4g", r10), r72 == "" ? "" : sprintf("%.4g", r72),
               rn == "" ? "" : sprintf("%.4g", rn)
      } else {
        printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, unit,
               sig($4), sig($5), sig($6), sig($7), sig($8),
               r10 == "" ? "-" : sig(r10) "×", r72 == "" ? "-" : sig(r72) "×",
               rn == "" ? "-" : sig(rn) "×"
      }
    }'
}

echo "Benchmark: examples/speed (OpenSSL $("$speed" -seconds 0.001 -evp sha256 -bytes 16 2>/dev/null |
  sed -n 's/^version: //p') libcrypto.a, EVP encrypt), ${seconds} s per measurement, $(date -u '+%Y-%m-%d %H:%M UTC'), $cores cores, $( [ "$cpu" = all ] && echo "any CPU" || echo "every runner on CPU $cpu")"
echo
for r in "${runners[@]}"; do
  if runner_prefix "$r"; then
    echo "- ${title[$r]}: ${about[$r]:-?}; OpenSSL sees: ${sees[$r]:-?}"
  else
    echo "- ${title[$r]}: not available"
  fi
done
echo
tabulate md
echo
echo "MB/s is 10^6 bytes per second of the process's CPU time (as openssl speed counts); GCM"
echo "is a whole message (key, IV, data, tag) per block, as openssl speed 3.0 does. x64emu"
echo "runs with --host-crypto=native, x64emu portable with --host-crypto=portable. Ratios"
echo "compare x64emu's speed: MB/s over MB/s, and for start-up (the median of $runs runs)"
echo "and the busybox rows (CPU seconds, user + system) the other's time over x64emu's:"
echo "above 1, x64emu is faster."

if [ -n "$png" ] && [ -z "$csv" ]; then csv=$(mktemp --suffix=.csv); trap 'rm -f "$csv"' EXIT; fi
if [ -n "$csv" ]; then
  tabulate csv >"$csv"
  say "table written to $csv"
fi
if [ -n "$png" ]; then
  if ! command -v gnuplot >/dev/null; then
    if [ "$(id -u)" -eq 0 ]; then
      say "installing gnuplot-nox"
      DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends gnuplot-nox >&2 ||
        { apt-get update -q >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends gnuplot-nox >&2; }
    else
      say "gnuplot is missing (Debian: gnuplot-nox); run as root to install it"; exit 1
    fi
  fi
  gnuplot -e "csv='$csv'; png='$png'; seconds='$seconds'; host='${about[native]//\'/}'" "$repo/bench/plot.gp"
  say "chart written to $png"
fi
