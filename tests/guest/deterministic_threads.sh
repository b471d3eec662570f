#!/bin/bash
# deterministic_threads.sh: two --deterministic runs of deterministic_threads print the
# same: the process 1000, its threads 1001, 1002, 1003 (in the order made), the
# priority-inheritance mutex's count, the robust mutex's EOWNERDEAD, ESRCH for an ended
# thread, a signal to itself and its sender's id. Natively the ids are the host's.
#
# usage: deterministic_threads.sh X64EMU PROGRAM
set -u
x64emu=$1 program=$2
expected="process 1000, main thread 1000
thread 0: 1001
thread 1: 1002
thread 2: 1003
a priority-inheritance mutex, 3 threads x 20000: 60000
a robust mutex its owner died holding: EOWNERDEAD
tgkill to an ended thread: -1 (ESRCH)
pthread_kill to itself: the handler ran in 1000
kill to itself: the sender 1000"
for run in 1 2; do
  out=$(timeout 60 "$x64emu" --deterministic "$program") || { echo "deterministic_threads.sh: run $run failed: $out"; exit 1; }
  [ "$out" = "$expected" ] || { echo "deterministic_threads.sh: run $run printed:"; echo "$out"; exit 1; }
done
native=$("$program") || { echo "deterministic_threads.sh: the native run failed"; exit 1; }
pid=$(echo "$native" | sed -n 's/^process \([0-9]*\),.*/\1/p')
[ "$(echo "$native" | tail -5)" = "$(echo "$expected" | tail -5 | sed "s/ 1000\$/ $pid/")" ] ||
  { echo "deterministic_threads.sh: natively:"; echo "$native"; exit 1; }
echo "deterministic_threads.sh: ids 1000-1003 twice, PI and robust mutexes, ESRCH, a signal to itself"
