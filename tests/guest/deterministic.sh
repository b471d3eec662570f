#!/bin/bash
# deterministic.sh: two --deterministic=42 runs of deterministic print the same, with the
# same trace (of main), statistics and profile; seed 7 gives other random bytes; without
# the option two runs differ (run up to the 1 ms timer: the rest would wait out its
# timeouts in real time); the clocks read as the option says (CLOCK_REALTIME from
# 1,700,000,000 s, the monotonic clock and RDTSC from 0, moving with the instructions
# run), the process id 1000 (System V IPC's records too); a 1 ms timer stops a loop after
# about a million instructions, alarm(2) wakes a 5 s sleep with 3 s left, 2 s on, and
# select waits out its 1 s timeout on nothing at once, 1 s on, but returns a readable
# pipe; ppoll, sigtimedwait, a futex wait, sem_timedwait (an absolute real-time deadline),
# semtimedop and mq_timedreceive (an absolute deadline too) wait out theirs the same way,
# a timer's signal ends a sigtimedwait at its time, and a futex word that differs is
# EAGAIN at once. (Natively the program prints the same lines, the times within a
# millisecond or so.)
#
# usage: deterministic.sh X64EMU PROGRAM
set -u
x64emu=$1 program=$2
s=$(mktemp -d "${TMPDIR:-/tmp}/x64emu-det.XXXXXX") || exit 2
trap 'rm -rf "$s"' EXIT
fail() { echo "deterministic.sh: $*"; exit 1; }
run() { # name, options...
  local name=$1
  shift
  "$x64emu" "$@" --stats=json:"$s/$name.json" --profile="$s/$name.profile" --trace=main \
    --trace-file="$s/$name.trace" "$program" >"$s/$name.out" ||
    fail "run $name failed"
}
run a --deterministic=42
run b --deterministic=42
run c --deterministic=7
for what in out json trace profile; do
  cmp -s "$s/a.$what" "$s/b.$what" || fail "two runs with seed 42 differ in their $what"
done
for line in AT_RANDOM getrandom /dev/urandom; do
  [ "$(grep "^$line " "$s/a.out")" != "$(grep "^$line " "$s/c.out")" ] || fail "seeds 42 and 7 give the same $line"
done
"$x64emu" "$program" spin >"$s/d.out" && "$x64emu" "$program" spin >"$s/e.out" || fail "plain runs failed"
cmp -s "$s/d.out" "$s/e.out" && fail "two runs without --deterministic printed the same"
awk '/^realtime/ { split($2, r, "."); split($4, m1, "."); split($6, m2, ".")
                   if (r[1] != 1700000000 || m1[1] != 0 || m2[2] <= m1[2]) exit 1 }
     /^rdtsc/ { if ($4 <= $2 || $2 > 10000000) exit 1 }' "$s/a.out" || fail "the clocks read $(cat "$s/a.out")"
grep -q '^pid 1000, and it can signal itself: 0$' "$s/a.out" || fail "the process id: $(grep '^pid' "$s/a.out")"
grep -q '^System V IPC records it as 1000$' "$s/a.out" || fail "System V IPC's pids: $(grep '^System V' "$s/a.out")"
awk '/^spins before/ { if ($NF < 100000 || $NF > 1000000) exit 1 }
     /^nanosleep/ { split($(NF-4), l, "."); split($NF, m, ".")
                    if ($(NF-5) != "-1," || l[1] != 3 || m[1] != 2) exit 1 }' "$s/a.out" ||
  fail "the timers: $(grep -e '^spins' -e '^nanosleep' "$s/a.out")"
grep -q '^select(1 s) on nothing: 0, 0.000000 s left, 1 s on$' "$s/a.out" &&
  grep -q '^select(1 s) on a readable pipe: 1, it is set: 1$' "$s/a.out" ||
  fail "select: $(grep '^select' "$s/a.out")"
timeouts="ppoll(1 s) on nothing: 0, 0.000000000 s left, 1.000 s on
sigtimedwait(1 s) for nothing: -1 (EAGAIN), 1.000 s on
sigtimedwait(5 s) for a 0.3 s timer's SIGALRM: 14, 0.300 s on
futex wait(0.5 s): -1 (ETIMEDOUT), 0.500 s on
futex wait on a word that differs: -1 (EAGAIN)
sem_timedwait(real time + 2 s): -1 (ETIMEDOUT), 2.000 s on
semtimedop(0.7 s) on a semaphore at 0: -1 (EAGAIN), 0.700 s on
mq_timedreceive(real time + 0.5 s) on an empty queue: -1 (ETIMEDOUT), 0.500 s on"
[ "$(tail -8 "$s/a.out")" = "$timeouts" ] || fail "the timeouts: $(tail -8 "$s/a.out")"
[ "$(grep '^spins' "$s/d.out")" != "$(grep '^spins' "$s/e.out")" ] || fail "two runs without --deterministic spun as long"
echo "deterministic.sh: seed 42 twice: same output, trace, statistics and profile; seed 7 and no seed differ; the timeouts of select, ppoll, sigtimedwait and futex waits on the virtual clock"
