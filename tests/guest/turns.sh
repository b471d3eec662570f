#!/bin/bash
# turns.sh: --deterministic's schedule of threads (src/linux-user/turns.h). Two runs of
# turns, whose threads race on a counter, contend for a mutex and a spin lock and print as
# they go, print the same, with the same statistics, profile and trace; the facts that
# hold under any schedule (a mutex's count, a condition variable's ping-pong, a timed wait
# timing out, the futex bitset, CMP_REQUEUE and WAKE_OP results) are those of the native
# run and of a run without the option. Given another x64emu (the aarch64 build under
# qemu-aarch64), its --deterministic run prints the same as the first: the schedule does
# not depend on the host.
#
# usage: turns.sh X64EMU PROGRAM [OTHER_X64EMU]
set -u
x64emu=$1 program=$2 other=${3:-}
s=$(mktemp -d "${TMPDIR:-/tmp}/x64emu-turns.XXXXXX") || exit 2
trap 'rm -rf "$s"' EXIT
fail() { echo "turns.sh: $*"; exit 1; }
facts="a mutex, 4 threads x 3000: 12000
a condition variable's ping-pong: 500 rounds
pthread_cond_timedwait(20 ms) with nobody to signal: ETIMEDOUT, the clock past the deadline: yes
futex bitsets: a wake of bit 0 woke 0, of bit 1 1, and the waiter returned 0
futex CMP_REQUEUE: moved 1 to the second word, which woke 1; a stale value: -1 (EAGAIN)
futex WAKE_OP: woke 1, the word added to: 5"
facts_of() { sed -n '/^a mutex,/,/^futex WAKE_OP/p' "$1"; }
run() { # name, options...
  local name=$1
  shift
  timeout 120 "$x64emu" "$@" "$program" >"$s/$name.out" || fail "run $name failed: $(cat "$s/$name.out")"
  [ "$(facts_of "$s/$name.out")" = "$facts" ] || fail "run $name printed: $(cat "$s/$name.out")"
}
timeout 60 "$program" >"$s/native.out" || fail "the native run failed"
[ "$(facts_of "$s/native.out")" = "$facts" ] || fail "natively: $(cat "$s/native.out")"
run plain
for r in a b; do
  run $r --deterministic --stats=json:"$s/$r.json" --profile="$s/$r.profile" \
    --trace=futex_facts --trace-file="$s/$r.trace"
done
for what in out json profile trace; do
  cmp -s "$s/a.$what" "$s/b.$what" || fail "two --deterministic runs differ in their $what: $(diff "$s/a.$what" "$s/b.$what" | head -20)"
done
if [ -n "$other" ]; then
  timeout 300 "$other" --deterministic "$program" >"$s/other.out" || fail "the other x64emu failed: $(cat "$s/other.out")"
  cmp -s "$s/a.out" "$s/other.out" || fail "the other x64emu's schedule: $(diff "$s/a.out" "$s/other.out" | head -20)"
fi
grep -q '^the racy counter: [0-9]* of 800000$' "$s/a.out" || fail "no racy counter in: $(cat "$s/a.out")"
[ "$(grep -c '^thread [0-3]: [0-9]* locks' "$s/a.out")" = 12 ] || fail "the threads' own lines: $(cat "$s/a.out")"
echo "turns.sh: two --deterministic runs alike (output, statistics, profile, trace)${other:+ and by the other x64emu}; the facts as natively"
sed -n '/^schedule:/,$p' "$s/a.out"
