#!/usr/bin/env bash
# api.sh: the library and its Python binding against Unicorn (Debian's 2.0.1), on the same
# guest code in one process each: bench/api.c and bench/api.py. Prints two Markdown tables
# and the host's CPU model. A benchmark, not a test: ctest never runs it.
#
# usage: bench/api.sh [--build DIR] [ITERATIONS]
#   --build DIR   the x64emu build folder with libx64emu.so (default: build)
#   ITERATIONS    guest loop iterations of the no-hook row (default 20000000)
# libunicorn-dev and python3-unicorn are installed with apt-get when missing (as root).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build=$repo/build
if [ "${1:-}" = --build ]; then build=$2; shift 2; fi
iterations=${1:-20000000}

missing=()
for p in libunicorn-dev python3-unicorn; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  [ "$(id -u)" -eq 0 ] || { echo "api.sh: install ${missing[*]} (as root)" >&2; exit 1; }
  apt-get update -q >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >&2
fi
[ -e "$build/libx64emu.so" ] || cmake --build "$build" --target x64emu_shared >&2

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cc -O2 -I"$repo/include" "$repo/bench/api.c" -L"$build" -Wl,-rpath,"$build" -lx64emu \
   $(pkg-config --libs unicorn) -o "$out/api"
echo "host: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
echo
"$out/api" "$iterations"
echo
# Debian's python3-unicorn is for the system's python3.
X64EMU_LIBRARY=$build/libx64emu.so PYTHONPATH=$repo/python /usr/bin/python3 "$repo/bench/api.py" "$iterations"
