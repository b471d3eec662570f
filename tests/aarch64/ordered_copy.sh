#!/usr/bin/env bash
# The aarch64 build's ordered copy of the handlers keeps x86's memory order (access.h):
# its guest loads are load-acquires (LDAR) and its stores store-releases (STLR), where
# the plain copy, for single-threaded runs, has neither. Judged on the machine code of
# two handlers, MOV r, m and MOV m, r (op_mov_r_rm and op_mov_rm_r), with the helpers
# they call (the compiler may leave access.h's rm_get and rm_set out of line), in each copy.
# Usage: ordered_copy.sh OBJDUMP X64EMU
set -euo pipefail
objdump=$1 emu=$2
dis=$(mktemp) # a file, read by every search below (a shell variable would be copied each time)
trap 'rm -f "$dis"' EXIT
"$objdump" -d --no-show-raw-insn "$emu" >"$dis"
at() { # the instructions of the function whose heading line matches $1
  awk -v f="$1" '$0 ~ f { on = 1; next } on && /^$/ { exit } on' "$dis"
}
body() { # the instructions of function $1, and of those it calls (by address: the
  local own      # copies' static helpers share their names)
  own=$(at "^[0-9a-f]+ <$1>:\$")
  echo "$own"
  for callee in $(grep -oE '\sbl\s+[0-9a-f]+ ' <<<"$own" | awk '{ print $2 }' | sort -u); do
    at "^0*$callee <"
  done
}
failed=0
for handler in op_mov_r_rm op_mov_rm_r; do
  plain=$(body "$handler") ordered=$(body "ordered_$handler")
  [ -n "$plain" ] && [ -n "$ordered" ] || { echo "$handler: not found in $emu"; exit 1; }
  want=ldar
  [ "$handler" = op_mov_rm_r ] && want=stlr
  if ! grep -q "$want" <<<"$ordered"; then
    echo "ordered_$handler: no $want"; failed=1
  fi
  if grep -qE "ldar|stlr" <<<"$plain"; then
    echo "$handler (the plain copy): acquires or releases"; failed=1
  fi
done
[ $failed = 0 ] && echo "the ordered copy acquires and releases; the plain one does not"
exit $failed
