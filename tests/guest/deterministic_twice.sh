#!/bin/bash
# deterministic_twice.sh: two --deterministic runs of a program print the same and count
# the same instructions, by name and by function (--stats=json), all its threads' (the
# total --stats prints): for programs whose threads take turns (src/linux-user/turns.h),
# such as Go's runtime.
#
# usage: deterministic_twice.sh X64EMU PROGRAM [ARG...]
set -u
x64emu=$1
shift
s=$(mktemp -d "${TMPDIR:-/tmp}/x64emu-twice.XXXXXX") || exit 2
trap 'rm -rf "$s"' EXIT
for r in a b; do
  timeout 120 "$x64emu" --deterministic --stats --stats=json:"$s/$r.json" "$@" >"$s/$r.out" 2>&1 ||
    { echo "deterministic_twice.sh: run $r failed: $(tail -5 "$s/$r.out")"; exit 1; }
done
for what in out json; do
  cmp -s "$s/a.$what" "$s/b.$what" ||
    { echo "deterministic_twice.sh: the runs differ in their $what: $(diff "$s/a.$what" "$s/b.$what" | head -10)"; exit 1; }
done
total=$(sed -n 's/^x64emu: \([0-9]*\) guest instructions.*/\1/p' "$s/a.out")
grep -q "^  \"instructions\": $total,\$" "$s/a.json" ||
  { echo "deterministic_twice.sh: --stats counted $total instructions, the JSON $(grep '"instructions"' "$s/a.json")"; exit 1; }
echo "deterministic_twice.sh: $(basename "$1"): the same output and $total instructions twice"
