#!/usr/bin/env bash
# tools.sh: the benchmark of the watching tools, against QEMU 10 and the native tools, on
# bench/gcm_kernel.c (AES-NI and PCLMULQDQ, the same instructions under every runner):
#   - the instruction trace: x64emu --trace to /dev/null against QEMU 10's
#     -one-insn-per-tb -d in_asm,cpu,fpu to /dev/null, instructions a second (the
#     instruction count is x64emu's --stats);
#   - a trace filter that the kernel never enters: its speed against a run without one;
#   - the profile: x64emu --profile against Valgrind's callgrind, instructions a second;
#   - gdb stepi through x64emu -g, QEMU 10's -g and natively (ptrace), steps a second.
# Prints one Markdown table with the host's CPU model. It is a benchmark, not a test.
# (Each tool runs on its own, one after another: the rates are of one run of this script.)
#
# usage: bench/tools.sh [--build DIR] [--steps N] [--cpu C]
#   --build DIR  the x64emu build folder (default: build), built there first
#   --steps N    gdb stepi count (default 5000)
#   --cpu C      run the trace, run and profile rows on host CPU C (taskset), or on any
#                with "all" (default: the last CPU, as bench/run.sh: the vCPUs of this
#                project's VMs at times differ in speed); gdb and the stub it steps run
#                on any, since on one CPU each step waits for a switch between them
# QEMU10 in the environment names QEMU 10, else ../shared/tools/qemu-peers.sh provides
# it. A runner that is missing or fails shows as "-".
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cores=$(nproc) # before any pinning: nproc counts the CPUs this process may use
build=$repo/build steps=5000 cpu=$((cores - 1))
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$2; shift 2 ;;
    --steps) steps=$2; shift 2 ;;
    --cpu) cpu=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "tools.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
say() { echo "tools.sh: $*" >&2; }
build=$(mkdir -p "$build" && cd "$build" && pwd)
[ -f "$build/CMakeCache.txt" ] || cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j"$(nproc)" --target x64emu >/dev/null
x64emu=$build/x64emu
mkdir -p "$build/bench"
kernel=$build/bench/gcm_kernel hello=$build/bench/hello
gcc -O2 -maes -mpclmul -static -o "$kernel" "$repo/bench/gcm_kernel.c"
gcc -O2 -fno-pie -no-pie -static -o "$hello" "$repo/bench/hello.c"
if [ "$cpu" != all ]; then # every process started from here inherits it
  taskset -cp "$cpu" $$ >/dev/null || { echo "tools.sh: cannot run on CPU $cpu" >&2; exit 2; }
fi
peers=$repo/../shared/tools/qemu-peers.sh
if [ -z "${QEMU10:-}" ] && [ -f "$peers" ]; then eval "$(bash "$peers")" || true; fi
qemu=${QEMU10:-}

# Wall seconds of a command, its output thrown away; empty if it fails.
seconds() {
  local t0 t1
  t0=$(date +%s.%N)
  "$@" >/dev/null 2>&1 || return 0
  t1=$(date +%s.%N)
  echo "$t1 - $t0" | bc -l
}
# The least of three runs' seconds: on a busy machine the least is the least disturbed.
best() {
  local least= t
  for _ in 1 2 3; do
    t=$(seconds "$@")
    [ -n "$t" ] || return 0
    if [ -z "$least" ] || (( $(echo "$t < $least" | bc -l) )); then least=$t; fi
  done
  echo "$least"
}
rate() { [ -n "$2" ] && echo "$1 / $2" | bc -l || true; } # work / seconds
ratio() { [ -n "$1" ] && [ -n "$2" ] && echo "$1 / $2" | bc -l || true; }
fmt() { [ -n "$1" ] && printf '%.3g' "$1" || printf -- '-'; }
times() { [ -n "$1" ] && printf '%.3g×' "$1" || printf -- '-'; }

# The instruction count of `gcm_kernel N`, from --stats.
count() { "$x64emu" --stats "$kernel" "$1" 2>&1 >/dev/null | sed -n 's/^x64emu: \([0-9]*\) guest.*/\1/p'; }

say "trace"
n_trace=20 n_run=10000
insns=$(count $n_trace) insns_run=$(count $n_run)
trace_x=$(rate "$insns" "$(seconds "$x64emu" --trace --trace-file=/dev/null "$kernel" $n_trace)")
trace_q=
[ -n "$qemu" ] && trace_q=$(rate "$insns" "$(seconds "$qemu" -one-insn-per-tb -d in_asm,cpu,fpu -D /dev/null "$kernel" $n_trace)")

say "a trace filter the kernel does not enter"
plain=$(rate "$insns_run" "$(best "$x64emu" "$kernel" $n_run)")
filtered=$(rate "$insns_run" "$(best "$x64emu" --trace=0x1000-0x1001 --trace-file=/dev/null "$kernel" $n_run)")

say "profile"
prof_x=$(rate "$insns_run" "$(best "$x64emu" --profile=/dev/null "$kernel" $n_run)")
prof_v=
command -v valgrind >/dev/null &&
  prof_v=$(rate "$insns_run" "$(best valgrind -q --tool=callgrind --callgrind-out-file=/dev/null "$kernel" $n_run)")

say "gdb stepi $steps"
[ "$cpu" = all ] || taskset -cp "0-$((cores - 1))" $$ >/dev/null
# Steps a second through a stub at :port that "$@" starts.
stub_steps() {
  local port=$((20000 + RANDOM % 20000)) pid t
  "$@" -g "$port" "$hello" >/dev/null 2>&1 &
  pid=$!
  t=$(seconds timeout 600 gdb -batch -nx -ex "target remote :$port" -ex "stepi $steps" -ex kill "$hello")
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  rate "$steps" "$t"
}
step_x= step_q= step_n=
if command -v gdb >/dev/null; then
  step_x=$(stub_steps "$x64emu")
  [ -n "$qemu" ] && step_q=$(stub_steps "$qemu")
  step_n=$(rate "$steps" "$(seconds gdb -batch -nx -ex starti -ex "stepi $steps" -ex kill "$hello")")
fi

model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
echo "Tools on $(uname -m) ($model), $(date -u '+%Y-%m-%d %H:%M UTC'), $( [ "$cpu" = all ] && echo "any CPU" || echo "all but gdb on CPU $cpu");"
echo "rates a second of wall time (the best of three runs for the run, filter and profile rows)."
echo
echo "| tool | unit | x64emu | QEMU 10 | native tool | x64emu/QEMU 10 | x64emu/native tool |"
echo "| --- | --- | ---: | ---: | ---: | ---: | ---: |"
echo "| trace (\`--trace\` / \`-d in_asm,cpu,fpu\`) | insn | $(fmt "$trace_x") | $(fmt "$trace_q") | - | $(times "$(ratio "$trace_x" "$trace_q")") | - |"
echo "| run with a trace filter it never enters / without | insn | $(fmt "$filtered") | - | $(fmt "$plain") | - | $(times "$(ratio "$filtered" "$plain")") |"
echo "| profile (\`--profile\` / callgrind) | insn | $(fmt "$prof_x") | - | $(fmt "$prof_v") | - | $(times "$(ratio "$prof_x" "$prof_v")") |"
echo "| gdb \`stepi\` (\`-g\` / native ptrace) | step | $(fmt "$step_x") | $(fmt "$step_q") | $(fmt "$step_n") | $(times "$(ratio "$step_x" "$step_q")") | $(times "$(ratio "$step_x" "$step_n")") |"
