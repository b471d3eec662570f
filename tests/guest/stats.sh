#!/bin/bash
# stats.sh: x64emu --stats=json:PATH on hello: a JSON document of the schema in
# docs/stats.md whose totals agree (the instructions per mnemonic and per function add up
# to the count --stats prints), with hello's system calls as the program makes them
# (stdout to a file: one write at exit, stderr one), main among the functions, and a
# refused --stats=json: without a path.
#
# usage: stats.sh X64EMU HELLO
set -u
x64emu=$1 hello=$2
scratch=$(mktemp -d "${TMPDIR:-/tmp}/x64emu-stats.XXXXXX") || exit 2
trap 'rm -rf "$scratch"' EXIT
fail() { echo "stats.sh: $*"; exit 1; }

"$x64emu" --stats --stats=json:"$scratch/stats.json" "$hello" >"$scratch/out" 2>"$scratch/err" ||
  fail "the run failed"
text=$(sed -n 's/^x64emu: \([0-9]*\) guest instructions.*/\1/p' "$scratch/err")
python3 - "$scratch/stats.json" "$text" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
want = int(sys.argv[2])
def check(ok, what):
    if not ok:
        print("stats.sh:", what)
        sys.exit(1)
check(d["schema"] == "x64emu-stats/1", "schema %r" % d["schema"])
check(d["instructions"] == want, "instructions %d, --stats says %d" % (d["instructions"], want))
check(sum(d["mnemonics"].values()) == want, "the mnemonics add up to %d" % sum(d["mnemonics"].values()))
check(sum(d["functions"].values()) == want, "the functions add up to %d" % sum(d["functions"].values()))
check(d["mnemonics"].get("mov", 0) > 0 and d["functions"].get("main", 0) > 0, "no mov, or no main")
check(d["syscalls"].get("write") == 2 and d["syscalls"].get("exit_group") == 1, "syscalls %r" % d["syscalls"])
c = d["code_cache"]
check(c["blocks_decoded"] > 0 and c["lookups"] >= c["blocks_decoded"] and c["hits"] == c["lookups"] - c["blocks_decoded"],
      "code cache %r" % c)
print("stats.sh: %d instructions, %d mnemonics, %d functions, %d system calls" %
      (want, len(d["mnemonics"]), len(d["functions"]), sum(d["syscalls"].values())))
PY
"$x64emu" --stats=json: "$hello" >/dev/null 2>"$scratch/err"
[ $? = 1 ] && grep -q -- "--stats" "$scratch/err" || fail "--stats=json: with no path: '$(cat "$scratch/err")'"
