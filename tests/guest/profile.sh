#!/bin/bash
# profile.sh: x64emu --profile against Valgrind's callgrind on profile_work: as
# callgrind_annotate reads both files, the instructions of mix (its own), of fib (all
# levels of its recursion) and of work (with what it calls) must be the same; the
# profile's total must be the count --stats prints.
#
# usage: profile.sh X64EMU PROFILE_WORK
set -u
x64emu=$1 program=$2
scratch=$(mktemp -d "${TMPDIR:-/tmp}/x64emu-profile.XXXXXX") || exit 2
trap 'rm -rf "$scratch"' EXIT
fail() { echo "profile.sh: $*"; exit 1; }
command -v valgrind >/dev/null && command -v callgrind_annotate >/dev/null ||
  fail "valgrind is missing (scripts/setup.sh test installs it)"

"$x64emu" --stats --profile="$scratch/x64emu.out" "$program" >"$scratch/out" 2>"$scratch/err" ||
  fail "the profiled run failed"
valgrind -q --tool=callgrind --callgrind-out-file="$scratch/valgrind.out" "$program" >"$scratch/vout" ||
  fail "valgrind failed"
cmp -s "$scratch/out" "$scratch/vout" || fail "the two runs printed different things"

# The Ir of function fn in callgrind_annotate's table of file (inclusive: yes or no).
ir() {
  callgrind_annotate --inclusive="$3" "$1" 2>/dev/null |
    awk -v fn="???:$2" '$3 == fn || $2 == fn { gsub(",", "", $1); print $1; exit }'
}
for check in "mix no" "work yes" "fib yes"; do
  set -- $check
  mine=$(ir "$scratch/x64emu.out" "$1" "$2") theirs=$(ir "$scratch/valgrind.out" "$1" "$2")
  [ -n "$mine" ] && [ "$mine" = "$theirs" ] || fail "$1 (inclusive: $2): x64emu $mine, callgrind $theirs"
  echo "profile.sh: $1 (inclusive: $2): $mine instructions, as callgrind counts them"
done
total=$(sed -n 's/^summary: //p' "$scratch/x64emu.out")
stats=$(sed -n 's/^x64emu: \([0-9]*\) guest instructions.*/\1/p' "$scratch/err")
[ "$total" = "$stats" ] || fail "the profile's total $total, --stats $stats"
