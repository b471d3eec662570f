#!/bin/bash
# trace.sh: x64emu --trace. The state after each AESENC and AESENCLAST of aes_trace's
# aes128_rounds, as the trace shows it, must be FIPS-197 Appendix B's (the state at the
# start of rounds 2 to 10, then the output); the filter must keep the trace to that
# function; bad filters must be refused; tracing must not change what a program prints.
#
# The trace file is x64emu's own descriptor: a program that takes every number for itself
# (dup2 onto them, close_range, a child that closes all and execs) neither sees it nor
# ends the trace.
#
# usage: trace.sh X64EMU AES_TRACE HELLO OWN_FDS
set -u
x64emu=$1 aes=$2 hello=$3 own_fds=$4
scratch=$(mktemp -d "${TMPDIR:-/tmp}/x64emu-trace.XXXXXX") || exit 2
trap 'rm -rf "$scratch"' EXIT
fail() { echo "trace.sh: $*"; exit 1; }

# FIPS-197 Appendix B, each state read column by column (bytes in memory order).
expected="a49c7ff2689f352b6b5bea43026a5049 aa8f5f0361dde3ef82d24ad26832469a
486c4eee671d9d0d4de3b138d65f58e7 e0927fe8c86363c0d9b1355085b8be01
f1006f55c1924cef7cc88b325db5d50c 260e2e173d41b77de86472a9fdd28b25
5a4142b11949dc1fa3e019657a8c040c ea835cf00445332d655d98ad8596b0c5
eb40f21e592e38848ba113e71bc342d2 3925841d02dc09fbdc118597196a0b32"

out=$("$x64emu" --trace=aes128_rounds --trace-file="$scratch/trace" "$aes") || fail "the traced run failed"
[ "$out" = 3925841d02dc09fbdc118597196a0b32 ] || fail "the traced run printed '$out'"
# The register an AESENC/AESENCLAST changed, on the line after it, as 128-bit hex; its
# bytes in memory order are that hex read backwards two digits at a time.
states=$(awk '/aesenc/ { want = 1; next }
              want { want = 0; if (match($0, /xmm[0-9]+=0x[0-9a-f]+/)) {
                       v = substr($0, RSTART, RLENGTH); sub(/.*=0x/, "", v); out = ""
                       for (i = length(v) - 1; i >= 1; i -= 2) out = out substr(v, i, 2)
                       print out } }' "$scratch/trace")
[ "$(echo $states)" = "$(echo $expected)" ] || fail "the states after each round differ from FIPS-197:
$states"
echo "trace.sh: the state after each of the 10 rounds is FIPS-197 Appendix B's"
# Only aes128_rounds: every instruction line names it.
lines=$(grep -c '^0x' "$scratch/trace")
inside=$(grep -c '^0x[0-9a-f]* <aes128_rounds+' "$scratch/trace")
[ "$lines" -gt 10 ] && [ "$lines" = "$inside" ] || fail "$inside of $lines traced instructions are in aes128_rounds"
# The same by address range.
range=$(awk '/<aes128_rounds\+0>/ { print $1; exit }' "$scratch/trace")
"$x64emu" --trace="$range-$(printf '%#x' $((range + 4)))" --trace-file="$scratch/range" "$aes" >/dev/null ||
  fail "the range run failed"
[ "$(grep -c '^0x' "$scratch/range")" = 1 ] || fail "a 4-byte range traced other than its one instruction"
# Bad filters: a clear message, exit status 1.
for bad in nosuchfunction 0x2000-0x1000 0x1000-; do
  "$x64emu" --trace="$bad" "$aes" >/dev/null 2>"$scratch/err"
  status=$?
  [ "$status" = 1 ] && grep -q -- '--trace' "$scratch/err" || fail "--trace=$bad: status $status, '$(cat "$scratch/err")'"
done
# Everything traced: the program prints what it prints untraced.
"$x64emu" "$hello" >"$scratch/plain" 2>&1
"$x64emu" --trace-file="$scratch/all" "$hello" >"$scratch/traced" 2>&1
cmp -s "$scratch/plain" "$scratch/traced" || fail "tracing changed hello's output"
[ "$(grep -c '^0x' "$scratch/all")" -gt 1000 ] || fail "the whole trace of hello is short"
echo "trace.sh: filters by name and range, refused bad ones, and traced hello whole"
# A program that closes and reuses every descriptor: the trace (of _exit, at the end: the
# whole one is 160 MB) still reaches its exit_group, and the program prints what it
# prints natively.
"$own_fds" >"$scratch/native" 2>&1
"$x64emu" --trace=_exit --trace-file="$scratch/own" "$own_fds" >"$scratch/own_out" 2>&1
cmp -s "$scratch/native" "$scratch/own_out" ||
  fail "own_fds under --trace-file printed otherwise than natively: $(diff "$scratch/native" "$scratch/own_out" | head -5)"
# glibc's _exit: rax becomes 231 (exit_group), then the syscall is the last instruction.
tail -4 "$scratch/own" | grep -q 'rax=0xe7' && grep '^0x' "$scratch/own" | tail -1 | grep -q syscall ||
  fail "the trace of own_fds does not reach its exit_group: $(tail -4 "$scratch/own")"
echo "trace.sh: a program that takes every descriptor did not see or end the trace"
