#!/usr/bin/env bash
# speed_deterministic.sh: the speed example under --deterministic, twice: each run has
# openssl speed's shape (check_speed.sh), and the two print the same bytes, rates and
# all, since the SIGALRM that ends each measurement falls at the same instruction.
#
# usage: speed_deterministic.sh X64EMU SPEED-PROGRAM ARGS...
set -uo pipefail
here=$(dirname "$0")
x64emu=$1
shift
first=$(bash "$here/check_speed.sh" "$x64emu" --deterministic "$@") || { echo "$first"; exit 1; }
second=$(bash "$here/check_speed.sh" "$x64emu" --deterministic "$@") || { echo "$second"; exit 1; }
echo "$first"
if [ "$first" != "$second" ]; then
  echo "FAIL: a second --deterministic run printed otherwise:"
  diff <(echo "$first") <(echo "$second")
  exit 1
fi
echo "speed_deterministic.sh: two --deterministic runs printed the same"
