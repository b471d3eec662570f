#!/bin/bash
# compare.sh: runs a static x86-64 program natively and under x64emu, and compares stdout,
# stderr and the exit status (or terminating signal) byte for byte.
#
# usage: compare.sh [--stdin FILE] [--dir DIR] [--name NAME] [--model FILE]
#                   [--traits PROBE] X64EMU PROGRAM [ARG...]
#   --stdin FILE  feed FILE to both runs (default /dev/null)
#   --model FILE  the stdout of x64emu's CPU model (docs/cpu-model.md), for a program whose
#                 output the host's vendor decides: on a host of the model's vendor the
#                 native run must print FILE; on another vendor's, x64emu's stdout is
#                 compared with FILE instead of the native run's
#   --dir DIR     run both in DIR, which the program must leave as it found it
#                 (default: a fresh empty directory for each run, at the same path)
#   --name NAME   what to call the case in messages (default: the program's name)
#   --traits PROBE  run PROBE natively first and give both runs the VAR=VALUE lines it
#                 prints (host_traits.c: what of the host besides its vendor decides the
#                 native run), so that a program can leave out what the host cannot show
# Environment:
#   X64EMU_OPTS     extra options for x64emu, e.g. --strace
#   COMPARE_TIMEOUT seconds allowed for each run (default 20)
#   COMPARE_KEEP    if set, the scratch directory is kept and named
#   COMPARE_SHOW    if set, the native run's stdout and stderr are printed too
#   COMPARE_DROP_STDERR  an extended regular expression: lines of x64emu's stderr that
#                 match it are left out of the comparison (what an emulator that x64emu
#                 itself runs under reports: qemu-aarch64's "uncaught target signal")
#   X64EMU_TEST_HOST_VENDOR  the vendor the host is taken for by --model, and by the programs,
#                 which get it in their environment (default: the CPU's)
#   X64EMU_TEST_FP_TIER  passed on to both runs: "portable" when x64emu runs the portable
#                 floating point (random_insns.c leaves out what is that tier's own)
#   X64EMU_TEST_UNDER_QEMU  passed on to both runs: set when x64emu runs under qemu-user,
#                 for the cases qemu itself gets wrong (fork_wait.c)
#   X64EMU_TEST_FEWER_ROUNDS  passed on to both runs: set when x64emu runs many times
#                 slower (under qemu-user, or built with a sanitizer), for the programs
#                 that then do less of what only repeats (tests/guest/test_env.h)
# Exit status: 0 when both runs agree, 1 when they differ, 2 on a usage or set-up error.
set -u

stdin_file=/dev/null
run_dir=
name=
model=
traits=
while [ $# -gt 0 ]; do
  case "$1" in
    --stdin) stdin_file=$2; shift 2 ;;
    --dir) run_dir=$2; shift 2 ;;
    --name) name=$2; shift 2 ;;
    --model) model=$2; shift 2 ;;
    --traits) traits=$2; shift 2 ;;
    --) shift; break ;;
    -*) echo "compare.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
if [ $# -lt 2 ]; then
  echo "usage: compare.sh [--stdin FILE] [--dir DIR] [--name NAME] [--model FILE] [--traits PROBE] X64EMU PROGRAM [ARG...]" >&2
  exit 2
fi
# Absolute paths: the runs happen in another directory.
absolute() { case "$1" in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
x64emu=$(absolute "$1")
shift
set -- "$(absolute "$1")" "${@:2}"
[ -n "$name" ] || name=${1##*/}
for f in "$x64emu" "$1"; do
  if [ ! -x "$f" ]; then
    echo "compare.sh: $f is missing or not executable" >&2
    exit 2
  fi
done

# The scratch directory and the runs' directory in it, with one process: each process
# costs milliseconds in a VM, and the suite runs this script some 700 times.
for _ in 1 2 3 4 5 6 7 8; do
  scratch=${TMPDIR:-/tmp}/x64emu-compare.$$.$RANDOM
  mkdir -m 700 "$scratch" "$scratch/cwd" 2>/dev/null && break
  scratch=
done
if [ -z "$scratch" ]; then
  echo "compare.sh: cannot make a scratch directory in ${TMPDIR:-/tmp}" >&2
  exit 2
fi
if [ -n "${COMPARE_KEEP:-}" ]; then
  echo "scratch directory kept: $scratch"
else
  trap 'rm -rf "$scratch"' EXIT
fi
timeout_s=${COMPARE_TIMEOUT:-20}

# The vendor the host is taken for: a program whose output depends on it (random_insns)
# reads it, since under x64emu it sees the model's.
vendor=${X64EMU_TEST_HOST_VENDOR:-}
while [ -z "$vendor" ] && IFS=: read -r key value; do
  [[ $key == vendor_id* ]] && vendor=${value# }
done </proc/cpuinfo

# Both runs see the same small environment, so that what a program prints of it agrees.
guest_env=(PATH=/usr/bin:/bin HOME=/nonexistent LC_ALL=C TZ=UTC
           GUEST_TEST_VAR="a value with spaces" EMPTY_VAR= X64EMU_TEST_HOST_VENDOR="$vendor")
if [ -n "${X64EMU_TEST_FP_TIER:-}" ]; then guest_env+=(X64EMU_TEST_FP_TIER="$X64EMU_TEST_FP_TIER"); fi
if [ -n "${X64EMU_TEST_UNDER_QEMU:-}" ]; then guest_env+=(X64EMU_TEST_UNDER_QEMU="$X64EMU_TEST_UNDER_QEMU"); fi
if [ -n "${X64EMU_TEST_FEWER_ROUNDS:-}" ]; then guest_env+=(X64EMU_TEST_FEWER_ROUNDS="$X64EMU_TEST_FEWER_ROUNDS"); fi
if [ -n "$traits" ]; then
  if ! trait_lines=$("$traits"); then
    echo "compare.sh: the host probe $traits failed" >&2
    exit 2
  fi
  while IFS= read -r line; do
    case $line in X64EMU_TEST_HOST_*=*) guest_env+=("$line") ;; esac
  done <<<"$trait_lines"
fi

# No core files: they are slow to write and would only litter the build tree.
ulimit -c 0

# run LABEL COMMAND...: runs COMMAND in the case's directory; leaves LABEL.out and .err,
# and its status in LABEL_status.
run() {
  local label=$1
  shift
  local dir=$run_dir
  if [ -z "$dir" ]; then
    # The same path for both runs, so that a printed working directory agrees, made anew
    # when the first run left something there.
    dir=$scratch/cwd
    local left=("$dir"/* "$dir"/.[!.]* "$dir"/..?*)
    if [ -e "${left[0]}" ] || [ -e "${left[1]}" ] || [ -e "${left[2]}" ] || [ ! -d "$dir" ]; then
      rm -rf "$dir" && mkdir -m 700 "$dir"
    fi
  fi
  local status started=$SECONDS
  # The braces keep bash's own "Segmentation fault" report (with a pid) out of the log.
  {
    (cd "$dir" && exec env -i "${guest_env[@]}" timeout -k 5 "$timeout_s" "$@") \
      <"$stdin_file" >"$scratch/$label.out" 2>"$scratch/$label.err"
    status=$?
  } 2>/dev/null
  # A run that ignored timeout's SIGTERM ends by its SIGKILL: call that a timeout too.
  if [ $((SECONDS - started)) -ge "$timeout_s" ] && [ "$status" -eq 137 ]; then status=124; fi
  printf -v "${label}_status" %s "$status"
}

describe_status() {
  local s=$1
  if [ "$s" -eq 124 ]; then
    echo "$s (timed out after ${timeout_s}s)"
  elif [ "$s" -gt 128 ] && [ "$s" -lt 160 ]; then
    echo "$s (killed by SIG$(kill -l $((s - 128))))"
  else
    echo "$s (exit status)"
  fi
}

# show_difference WHAT: a unified diff of the two runs' stream, cut to a readable length.
show_difference() {
  local what=$1
  echo "--- $what differs (native vs x64emu):"
  if grep -qI . "$scratch/native.$what" "$scratch/emu.$what" 2>/dev/null &&
     ! LC_ALL=C grep -q '[^[:print:][:space:]]' "$scratch/native.$what" "$scratch/emu.$what"; then
    diff -u --label "native $what" --label "x64emu $what" \
      "$scratch/native.$what" "$scratch/emu.$what" | head -n 80
  else
    cmp "$scratch/native.$what" "$scratch/emu.$what" 2>&1 | head -n 3
    echo "native $what: $(wc -c <"$scratch/native.$what") bytes, x64emu: $(wc -c <"$scratch/emu.$what") bytes"
    echo "first differing bytes, native then x64emu:"
    local offset
    offset=$(cmp "$scratch/native.$what" "$scratch/emu.$what" 2>/dev/null | sed -n 's/.*byte \([0-9]*\).*/\1/p')
    offset=$(( ${offset:-1} > 16 ? ${offset:-1} - 16 : 0 ))
    od -A d -t x1z -j "$offset" -N 64 "$scratch/native.$what" | head -n 5
    od -A d -t x1z -j "$offset" -N 64 "$scratch/emu.$what" | head -n 5
  fi
}

run native "$@"
# shellcheck disable=SC2086 # X64EMU_OPTS is a list of options
run emu "$x64emu" ${X64EMU_OPTS:-} "$@"

if [ -n "${COMPARE_DROP_STDERR:-}" ]; then
  grep -Ev -- "$COMPARE_DROP_STDERR" "$scratch/emu.err" >"$scratch/emu.err.kept"
  mv "$scratch/emu.err.kept" "$scratch/emu.err"
fi
if [ -n "${COMPARE_SHOW:-}" ]; then
  echo "=== native stdout:"
  cat -v "$scratch/native.out"
  echo "=== native stderr:"
  cat -v "$scratch/native.err"
fi
failed=0
if [ -n "$model" ]; then
  model_vendor=GenuineIntel # the model's: tests/common/cpu_model.h
  if [ "$vendor" = "$model_vendor" ]; then
    if ! cmp -s "$scratch/native.out" "$model"; then
      echo "--- the native run does not print the model's output ($model): the host disagrees with docs/cpu-model.md"
      diff -u --label model --label native "$model" "$scratch/native.out" | head -n 40
      failed=1
    fi
  else
    echo "$name: a $vendor host: x64emu's output is compared with the model's ($model)"
    cp "$model" "$scratch/native.out"
  fi
fi
if [ "$native_status" -eq 124 ]; then
  echo "$name: the native run timed out; the test itself is broken"
  exit 2
fi
if [ "$native_status" != "$emu_status" ]; then
  echo "--- exit status differs: native $(describe_status "$native_status"), x64emu $(describe_status "$emu_status")"
  failed=1
fi
for what in out err; do
  if ! cmp -s "$scratch/native.$what" "$scratch/emu.$what"; then
    show_difference "$what"
    failed=1
  fi
done

if [ "$failed" -ne 0 ]; then
  if [ "$(wc -l <"$scratch/emu.err")" -gt 80 ]; then
    echo "--- x64emu stderr, last lines (its own messages come last):"
    tail -n 10 "$scratch/emu.err"
  fi
  echo "$name: FAILED (native and x64emu differ; rerun with X64EMU_OPTS=--strace for a syscall trace)"
  exit 1
fi
mapfile -t bytes < <(stat -c %s "$scratch/native.out" "$scratch/native.err")
echo "$name: identical stdout (${bytes[0]} bytes), stderr (${bytes[1]} bytes) and status $(describe_status "$native_status")"
exit 0
