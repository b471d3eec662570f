#!/bin/bash
# gdb.sh: x64emu -g PORT under Debian's gdb, in batch mode. On aes_trace: a breakpoint on
# aes128_rounds, stepi across the first AESENC, XMM0 then as FIPS-197 Appendix B has the
# state after round 1, the first round key in memory at RDI, a register set, read back and
# put back, the auxiliary vector read through the stub, FS's base (the target
# description's) as the thread pointer, a hardware watchpoint on main's
# output buffer that fires at the store of the ciphertext, and continue to the program's
# normal exit, its output unchanged. On crash null-write: the SIGSEGV reported with its
# name, not passed on (`signal 0`: the store runs again and faults again), then passed
# on, and the program killed by it, as x64emu itself then is. The first session runs
# without acknowledgements (gdb asks for QStartNoAckMode), the second with them.
#
# usage: gdb.sh X64EMU AES_TRACE CRASH
set -u
x64emu=$1 program=$2 crash=$3
s=$(mktemp -d "${TMPDIR:-/tmp}/x64emu-gdb.XXXXXX") || exit 2
pid=
trap '[ -n "$pid" ] && kill $pid 2>/dev/null; rm -rf "$s"' EXIT
fail() { echo "gdb.sh: $*"; tail -30 "$s/gdb" 2>/dev/null; exit 1; }
command -v gdb >/dev/null || fail "gdb is missing (scripts/setup.sh test installs it)"
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# debug PROGRAM ARGS -- GDB-COMMANDS...: x64emu -g with gdb attached; $status is x64emu's.
# gdb_setup: commands for gdb before it connects.
gdb_setup=()
debug() {
  local args=() port
  while [ "$1" != -- ]; do args+=("$1"); shift; done
  shift
  port=$(free_port)
  "$x64emu" -g "$port" "${args[@]}" >"$s/out" 2>"$s/err" &
  pid=$!
  local ex=()
  for c in "$@"; do ex+=(-ex "$c"); done
  # gdb retries the connection until x64emu listens (tcp auto-retry, 15 s).
  timeout 60 gdb -batch -nx "${gdb_setup[@]}" -ex "target remote :$port" "${ex[@]}" "${args[0]}" >"$s/gdb" 2>&1 ||
    fail "gdb failed"
  wait $pid
  status=$?
  pid=
}

debug "$program" -- "break aes128_rounds" continue "stepi 5" 'p/x $xmm0.uint128' 'x/2gx $rdi' \
  'set $was = $rax' 'set $rax = 0x1234' 'p/x $rax' 'set $rax = $was' 'info auxv' \
  'p *(long *)$fs_base == $fs_base && $fs_base != 0' up \
  'watch -l *(unsigned long long *)b' continue 'p $pc' 'delete 2' 'show remote noack-packet' continue
grep -q "QStartNoAckMode.*currently enabled" "$s/gdb" || fail "gdb did not turn acknowledgements off"
grep -q "Breakpoint 1, .*aes128_rounds" "$s/gdb" || fail "the breakpoint was not hit"
grep -q '= 0x49506a0243ea5b6b2b359f68f27f9ca4$' "$s/gdb" || fail "XMM0 after the first round"
grep -q '0xa6d2ae2816157e2b	0x3c4fcf098815f7ab' "$s/gdb" || fail "the round key at RDI"
grep -q '= 0x1234$' "$s/gdb" || fail "RAX as set"
grep -Eq '^9 +AT_ENTRY .* 0x[0-9a-f]+$' "$s/gdb" || fail "no AT_ENTRY in the auxiliary vector"
# glibc's thread control block begins with a pointer to itself, at FS's base.
grep -q '^\$3 = 1$' "$s/gdb" || fail "\$fs_base is not the thread pointer"
grep -q '^Hardware watchpoint 2: -location' "$s/gdb" || fail "no hardware watchpoint"
# The first 8 bytes of the ciphertext 39 25 84 1d 02 dc 09 fb, as a little-endian number.
grep -q '^New value = 18089231279953552697$' "$s/gdb" || fail "the watchpoint did not stop at the ciphertext's store"
grep -q '<main+' "$s/gdb" || fail "the watchpoint stopped outside main"
grep -q 'exited normally' "$s/gdb" || fail "no normal exit"
[ "$status" = 0 ] && [ "$(cat "$s/out")" = 3925841d02dc09fbdc118597196a0b32 ] ||
  fail "x64emu exited with $status, printing '$(cat "$s/out")'"

gdb_setup=(-ex "set remote noack-packet off")
debug "$crash" null-write -- 'show remote noack-packet' continue 'p $pc' 'signal 0' 'p $pc' continue
[ "$(grep -c '^Program received signal SIGSEGV, Segmentation fault.$' "$s/gdb")" = 2 ] ||
  fail "the SIGSEGV was not reported twice (once, then again after signal 0)"
[ "$(grep '^\$1 = ' "$s/gdb" | cut -d' ' -f3-)" = "$(grep '^\$2 = ' "$s/gdb" | cut -d' ' -f3-)" ] ||
  fail "signal 0 did not run the faulting store again"
grep -q '^Program terminated with signal SIGSEGV' "$s/gdb" || fail "passed on, the SIGSEGV did not end the program"
[ "$status" = $((128 + 11)) ] || fail "x64emu exited with $status, not by SIGSEGV"
grep -q "QStartNoAckMode' packet is currently disabled" "$s/gdb" || fail "the second session was not with acknowledgements"
echo "gdb.sh: (without and with acknowledgements) breakpoint, stepi, XMM0 and memory as FIPS-197 has them, a register set, auxv, a watchpoint on the ciphertext's store, the exit; a SIGSEGV held back and passed on"
