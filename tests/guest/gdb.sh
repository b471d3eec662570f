#!/bin/bash
# gdb.sh: x64emu -g PORT under Debian's gdb, in batch mode, on aes_trace: a breakpoint on
# aes128_rounds, stepi across the first AESENC, XMM0 then as FIPS-197 Appendix B has the
# state after round 1, the first round key in memory at RDI, a register set, read back and
# put back, and continue to the program's normal exit, its output unchanged.
#
# usage: gdb.sh X64EMU AES_TRACE
set -u
x64emu=$1 program=$2
s=$(mktemp -d "${TMPDIR:-/tmp}/x64emu-gdb.XXXXXX") || exit 2
trap 'kill $pid 2>/dev/null; rm -rf "$s"' EXIT
fail() { echo "gdb.sh: $*"; cat "$s/gdb" 2>/dev/null | tail -20; exit 1; }
command -v gdb >/dev/null || fail "gdb is missing (scripts/setup.sh test installs it)"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$x64emu" -g "$port" "$program" >"$s/out" 2>"$s/err" &
pid=$!
# gdb retries the connection until x64emu listens (tcp auto-retry, 15 s).
timeout 60 gdb -batch -nx -ex "target remote :$port" -ex "break aes128_rounds" -ex continue \
  -ex "stepi 5" -ex "p/x \$xmm0.uint128" -ex "x/2gx \$rdi" -ex "set \$was = \$rax" \
  -ex "set \$rax = 0x1234" -ex "p/x \$rax" -ex "set \$rax = \$was" \
  -ex continue "$program" >"$s/gdb" 2>&1 || fail "gdb failed"
wait $pid
status=$?
grep -q "Breakpoint 1, .* in aes128_rounds" "$s/gdb" || fail "the breakpoint was not hit"
grep -q '= 0x49506a0243ea5b6b2b359f68f27f9ca4$' "$s/gdb" || fail "XMM0 after the first round"
grep -q '0xa6d2ae2816157e2b	0x3c4fcf098815f7ab' "$s/gdb" || fail "the round key at RDI"
grep -q '= 0x1234$' "$s/gdb" || fail "RAX as set"
grep -q 'exited normally' "$s/gdb" || fail "no normal exit"
[ "$status" = 0 ] && [ "$(cat "$s/out")" = 3925841d02dc09fbdc118597196a0b32 ] ||
  fail "x64emu exited with $status, printing '$(cat "$s/out")'"
echo "gdb.sh: breakpoint, stepi, XMM0 and memory as FIPS-197 has them, a register set, the exit"
