#!/bin/bash
# mapping_places.sh: runs mapping_places under x64emu and checks, from the emulator's own
# /proc/PID/maps, that its memory (its image, heap, libraries, threads' stacks, decoded
# code: what is not PROT_NONE) lies at least a GiB away from every mapping of the guest's
# (as the guest's /proc/self/maps lists them), so that a guest overrunning a buffer meets
# unmapped memory, not the emulator's; and that the guest's mmap hint was taken, as the
# kernel takes a free one.
#
# usage: mapping_places.sh X64EMU PROGRAM [X64EMU OPTIONS...]
set -euo pipefail
x64emu=$1 program=$2
shift 2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkfifo "$scratch/in"
"$x64emu" "$@" "$program" <"$scratch/in" >"$scratch/guest" 2>"$scratch/err" &
pid=$!
exec 3>"$scratch/in"
for _ in $(seq 200); do
  grep -qx ready "$scratch/guest" && break
  sleep 0.05
done
grep -qx ready "$scratch/guest" || { echo "mapping_places: the guest never got ready"; cat "$scratch/err"; exit 1; }
cp "/proc/$pid/maps" "$scratch/host"
echo go >&3
exec 3>&-
wait "$pid" || { echo "mapping_places: the guest failed"; cat "$scratch/err"; exit 1; }
grep -qx "hint taken" "$scratch/err" || { echo "mapping_places: the free hint was not taken"; exit 1; }
python3 - "$scratch/guest" "$scratch/host" <<'PY'
import sys

def ranges(path):
    out = []
    for line in open(path):
        if "-" not in line.split(" ")[0] or "[vsyscall]" in line:
            continue
        lo, hi = (int(x, 16) for x in line.split(" ")[0].split("-"))
        out.append((lo, hi, line.strip()))
    return out

guest = ranges(sys.argv[1])
host = ranges(sys.argv[2])
inside = lambda h: any(g[0] < h[1] and h[0] < g[1] for g in guest)
# PROT_NONE is reachable by no one: the guest's heap beyond its break, guard pages.
emulator = [h for h in host if not inside(h) and h[2].split()[1][:3] != "---"]
if len(guest) < 8 or len(emulator) < 8:
    sys.exit(f"mapping_places: too few mappings to judge: guest {len(guest)}, emulator {len(emulator)}")
GIB = 1 << 30
worst = None
for g in guest:
    for e in emulator:
        gap = max(e[0] - g[1], g[0] - e[1])
        if worst is None or gap < worst[0]:
            worst = (gap, g[2], e[2])
print(f"{len(guest)} guest and {len(emulator)} emulator mappings; the nearest are {worst[0] / GIB:.1f} GiB apart:")
print(f"  guest    {worst[1]}\n  emulator {worst[2]}")
if worst[0] < GIB:
    sys.exit("mapping_places: FAILED, the emulator's memory lies within a GiB of the guest's")
PY
