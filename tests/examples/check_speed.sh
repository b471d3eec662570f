#!/usr/bin/env bash
# check_speed.sh: runs the speed example (natively or under x64emu) for a tiny time and
# checks that its output has openssl speed's shape: the header, one row per algorithm
# with a number for each block size, and a "Doing ..." line per measurement. Rates are
# not judged: only that they are numbers and that not all of them are zero.
#
# usage: check_speed.sh [--mr] [--] RUNNER... SPEED-PROGRAM ARGS...
#   the speed program is run as "RUNNER... SPEED-PROGRAM ARGS..." (no runner: natively);
#   ARGS must name the algorithms and sizes with -evp and -bytes, which the check expects.
set -uo pipefail

mr=0
if [ "${1:-}" = --mr ]; then mr=1; shift; fi
[ "${1:-}" = -- ] && shift
cmd=("$@")

# The algorithms and sizes the arguments ask for, in order.
algorithms=() sizes=()
for ((i = 0; i < ${#cmd[@]}; i++)); do
  case ${cmd[i]} in
    -evp) algorithms+=("${cmd[i + 1]}") ;;
    -bytes) sizes+=("${cmd[i + 1]}") ;;
  esac
done
if [ ${#algorithms[@]} -eq 0 ] || [ ${#sizes[@]} -eq 0 ]; then
  echo "check_speed.sh: the arguments must give -evp and -bytes" >&2
  exit 2
fi

out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
"${cmd[@]}" >"$out" 2>"$err"
status=$?
echo "--- stdout"; cat "$out"; echo "--- stderr"; cat "$err"; echo "--- exit status $status"
fail() { echo "FAIL: $*"; exit 1; }
[ $status -eq 0 ] || fail "exit status $status"

# Every measurement is announced on stderr, in order.
if [ $mr -eq 1 ]; then
  doing=$(grep -c '^+DT:[^:]*:[0-9.e+-]*:[0-9]*$' "$err")
  results=$(grep -c '^+R:[0-9]*:[^:]*:[0-9.]*$' "$err")
  [ "$results" -eq "$doing" ] || fail "$doing +DT lines but $results +R lines"
else
  doing=$(grep -cE "^Doing .+ for [0-9.e+-]+s on [0-9]+ size blocks: [0-9]+ .+'s in [0-9.]+s$" "$err")
fi
expected=$((${#algorithms[@]} * ${#sizes[@]}))
[ "$doing" -eq "$expected" ] || fail "$doing measurements on stderr, expected $expected"

# The table: a header with the sizes, then one row per algorithm with a rate per size.
awk -v mr=$mr -v sizes="${sizes[*]}" -v nalg=${#algorithms[@]} '
  function bad(why) { print "FAIL: " why; failed = 1; exit 1 }
  BEGIN { nsizes = split(sizes, size, " ") }
  mr && /^\+H:/ {
    n = split(substr($0, 4), h, ":")
    if (n != nsizes) bad("+H has " n " sizes, expected " nsizes)
    for (i = 1; i <= n; i++) if (h[i] != size[i]) bad("+H size " i " is " h[i] ", expected " size[i])
    header = 1; next
  }
  mr && /^\+F:/ {
    n = split($0, f, ":")
    if (n != nsizes + 3) bad("row has " n - 3 " rates: " $0)
    for (i = 4; i <= n; i++) {
      if (f[i] !~ /^[0-9]+\.[0-9][0-9]$/) bad("not a rate: " f[i])
      if (f[i] + 0 > 0) nonzero++
    }
    rows++; next
  }
  !mr && /^The .numbers. are in 1000s of bytes per second processed\.$/ { intro = 1; next }
  !mr && /^type / {
    line = $0; sub(/^type */, "", line)
    n = split(line, w, " ")
    if (n != 2 * nsizes) bad("header: " $0)
    for (i = 1; i <= nsizes; i++)
      if (w[2 * i - 1] != size[i] || w[2 * i] != "bytes") bad("header: " $0)
    header = 1; next
  }
  !mr && header {
    n = NF
    if (n < nsizes + 1) bad("short row: " $0)
    for (i = n - nsizes + 1; i <= n; i++) {
      if ($i !~ /^[0-9]+\.[0-9][0-9]k?$/) bad("not a rate: " $i)
      if ($i + 0 > 0) nonzero++
    }
    rows++; next
  }
  END {
    if (failed) exit 1
    if (!mr && !intro) bad("no line saying what the numbers are")
    if (!header) bad("no header")
    if (rows != nalg) bad(rows " rows, expected " nalg)
    if (!nonzero) bad("every rate is zero")
    print "OK: " rows " algorithms x " nsizes " sizes"
  }' "$out"
