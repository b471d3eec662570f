#!/bin/bash
# cases.sh: Debian's static busybox, run natively and under x64emu on the same prepared
# files; stdout, stderr and exit status must be identical (compared by tests/guest/compare.sh).
#
# usage: cases.sh --list                 names of all cases, one a line
#        cases.sh X64EMU CASE            runs one case
#        cases.sh X64EMU --all           runs every case, prints a summary line
# Environment: BUSYBOX (default /bin/busybox), and compare.sh's (X64EMU_OPTS...).
set -u
here=$(cd "$(dirname "$0")" && pwd)
compare=$here/../guest/compare.sh
busybox=${BUSYBOX:-/bin/busybox}

# Each case: NAME, then the busybox arguments as one shell-quoted string. A case whose name
# ends in "<FILE" instead reads FILE (relative to the fixture) on its standard input.
cases() {
  cat <<'EOF'
echo            echo -e 'tab\there\nnew line' "two  spaces" ''
echo_n          echo -n 'no newline'
sh_loop         sh -c 'i=0; while [ $i -lt 5 ]; do echo "i=$i sq=$((i * i))"; i=$((i + 1)); done; for w in a b c; do printf "%s-" $w; done; echo; n=0; until [ $n -ge 3 ]; do n=$((n+1)); done; echo "until: $n"'
sh_pipe         sh -c 'cat data/words.txt | sort | uniq -c | sort -rn | head -n 5; echo "pipeline status $?"'
sh_subst        sh -c 'x=$(echo hello | tr a-z A-Z); echo "$x ${#x} ${x%LO} ${x#HE}"; f() { echo "args: $#: $*"; return 3; }; f one two; echo "status $?"; case abc in a*) echo matched;; *) echo no;; esac; set -- p q r; shift; echo "$@"'
sh_exit         sh -c 'echo before; exit 7; echo after'
sh_false        sh -c 'false | true; echo "pipe $?"; ! true; echo "negated $?"; false && echo no || echo "or-list $?"; (exit 4); echo "subshell $?"'
sh_redirect     sh -c 'echo to a file > out.tmp; echo appended >> out.tmp; cat < out.tmp; wc -l out.tmp; rm out.tmp; echo to stderr >&2; cat missing-file 2>&1; echo "after $?"; exec 3>&1; echo via fd 3 >&3'
sh_script       sh data/script.sh first 'second arg'
sh_exec         sh -c 'exec ls -1 tree'
sh_background   sh -c 'echo one > bg.tmp & wait; cat bg.tmp; rm bg.tmp; sleep 0 & wait $!; echo "waited $?"'
sh_signal       sh -c 'echo about to die; kill -TERM $$; echo not reached'
sh_trap         sh -c 'trap "echo caught USR1" USR1; kill -USR1 $$; echo after; trap "echo on exit" EXIT; exit 2'
ls_l            ls -l tree
ls_lR           ls -lR tree
ls_misc         ls -1 -a -F tree/sub
cat             cat data/text.txt data/numbers.txt
cat_stdin<data/text.txt  cat -n -
cat_missing     cat data/text.txt no-such-file
wc              wc data/text.txt data/words.txt data/numbers.txt
wc_stdin<data/words.txt  wc -l -w -c
sort            sort data/words.txt
sort_numeric    sort -n -r data/numbers.txt
sort_keys       sort -t , -k 2,2n -k 1,1r data/table.csv
uniq            uniq -c data/sorted.txt
uniq_dup        uniq -d data/sorted.txt
sed             sed -e 's/\(o\+\)/[\1]/g' -e '/^$/d' -e '5q' data/text.txt
sed_ranges      sed -n -e '2,4p' -e '$=' -e '/quick/{s/quick/slow/;p}' data/text.txt
awk             awk '{ n[$1]++; total += length($0) } END { for (k in n) c++; printf "%d distinct, %d chars, %.3f per line\n", c, total, total / NR }' data/words.txt
awk_math        awk 'BEGIN { printf "%.3f %e %g %d\n", 10 / 3, 1 / 7, 1e300 * 10, -7 % 3; print int(-3.7), "10" + 5, length("abc"), substr("hello", 2, 3), index("hello", "l"), toupper("mixed Case"), sprintf("%05.1f", 3.14159); n = split("a:b:c", parts, ":"); s = "foo bar foo"; gsub(/foo/, "baz", s); print n, parts[3], s }'
awk_fields      awk -F , '$2 > 20 { sum += $2; print NR": "$1 } END { print "sum", sum }' data/table.csv
find            find tree
find_filters    find tree -name '*.txt' -type f
find_exec       find tree/sub -type f -exec cat {} \;
sha256sum       sha256sum data/text.txt data/words.txt data/numbers.txt data/binary.bin
md5sum          md5sum data/text.txt data/binary.bin
md5sum_check    md5sum -c data/sums.md5
gzip            gzip -c data/text.txt
gzip_best       gzip -9 -c data/binary.bin
gunzip          gunzip -c data/text.txt.gz
bzip2           bzip2 -c data/text.txt
bunzip2         bzip2 -d -c data/text.txt.bz2
tar_cf          tar cf - tree
tar_tf          tar tf data/tree.tar
tar_tvf         tar tvf data/tree.tar
tar_xf          sh -c 'mkdir x && tar xf data/tree.tar -C x && ls -1R x && cat x/tree/sub/deeper/b.txt && rm -r x'
od              od -A x -t x1 -t c data/binary.bin
od_formats      od -A d -t d2 -t o1 -N 48 data/text.txt
expr            expr 6 \* 7 + 100000000000 / 3
expr_strings    expr 'hello world' : 'hello \(.*\)'
expr_false      expr 5 \< 3
printf          printf '%5.2f|%x|%o|%s|%c|%05d|%-6s|%e|%g\n' 3.14159 255 8 str xyz 42 left 12345.678 0.0001
date            date -d @0 -u
date_format     date -u -d @1234567890 '+%Y-%m-%d %H:%M:%S %a %j %s'
seq             seq 1 10
seq_float       seq -s , 0 0.25 3
seq_width       seq -w 8 12
head_tail       sh -c 'head -n 3 data/text.txt; tail -n 2 data/text.txt; tail -c 20 data/words.txt'
tr_cut          sh -c 'tr a-z A-Z < data/text.txt | cut -c 1-12; cut -d , -f 2 data/table.csv | tr -d 0'
xargs           sh -c 'echo a b c d e | xargs -n 2 echo item'
basename        sh -c 'basename /a/b/c.txt .txt; dirname /a/b/c.txt; pwd | wc -c'
EOF
}

list_cases() { cases | sed -e 's/[< ].*//'; }

# The fixture: a directory of small files with fixed contents, modes and times.
make_fixture() {
  local dir=$1
  mkdir -p "$dir/data" "$dir/tree/sub/deeper" "$dir/tree/empty"
  cd "$dir" || exit 2
  printf 'The quick brown fox jumps over the lazy dog.\nSphinx of black quartz, judge my vow.\n\nHow vexingly quick daft zebras jump!\nPack my box with five dozen liquor jugs.\nfoo boo zoo loop\n\nThe end.\n' >data/text.txt
  local i
  for i in $(seq 1 200); do echo "word$(( (i * 7919) % 23 )) item$(( i % 5 ))"; done >data/words.txt
  for i in $(seq 1 50); do echo $(( (i * 104729) % 1009 - 300 )); done >data/numbers.txt
  printf 'apple,30\nbanana,7\ncherry,30\ndate,12\nelder,45\nfig,7\n' >data/table.csv
  LC_ALL=C sort data/words.txt >data/sorted.txt
  cat >data/script.sh <<'END'
echo "script $0 with $# arguments: $*"
cat <<HERE
here-document $((2 + 3)) ${1}
  indented
HERE
read a b <<X
first second third
X
echo "a=$a b=$b"
count() { local n=0; for x in "$@"; do n=$((n + 1)); done; echo "$n"; }
count "$@" x y
while read word rest; do echo "[$word]"; done <data/table.csv | head -n 2
END
  # Every byte value once, in order: one printf of a format of 256 octal escapes.
  printf "$(printf '\\%03o' $(seq 0 255))" >data/binary.bin
  printf 'first file in sub\n' >tree/sub/a.txt
  printf 'second file\n' >tree/sub/deeper/b.txt
  printf 'not text' >tree/sub/c.dat
  printf '#!/bin/sh\necho hi\n' >tree/run.sh
  ln -s sub/a.txt tree/link.txt
  chmod 0755 tree/run.sh
  chmod 0640 tree/sub/c.dat
  chmod 0750 tree/empty
  # Oldest first, directories last, so that setting one time does not move another.
  TZ=UTC touch -h -d '2001-02-03 04:05:06' tree/link.txt
  TZ=UTC touch -d '2002-03-04 05:06:07' tree/sub/a.txt tree/sub/deeper/b.txt
  TZ=UTC touch -d '1999-12-31 23:59:59' tree/sub/c.dat tree/run.sh data/*
  TZ=UTC touch -d '2010-10-10 10:10:10' tree/sub/deeper tree/empty tree/sub tree
  # Made natively by the same busybox, before any emulated run.
  "$busybox" tar cf data/tree.tar tree
  "$busybox" gzip -c data/text.txt >data/text.txt.gz
  "$busybox" bzip2 -c data/text.txt >data/text.txt.bz2
  "$busybox" md5sum data/text.txt data/words.txt >data/sums.md5
  TZ=UTC touch -d '1999-12-31 23:59:59' data/*
  cd - >/dev/null || exit 2
}

run_case() {
  local x64emu=$1 name=$2 line
  line=$(cases | awk -v n="$name" '{ split($1, p, "<") } p[1] == n { print; exit }')
  if [ -z "$line" ]; then
    echo "cases.sh: no case named $name" >&2
    return 2
  fi
  local head=${line%% *} args=${line#* }
  args=${args#"${args%%[! ]*}"}
  local stdin_args=()
  case "$head" in *"<"*) stdin_args=(--stdin "$fixture/${head#*<}") ;; esac
  local argv
  eval "argv=($args)"
  bash "$compare" --name "busybox.$name" --dir "$fixture" "${stdin_args[@]}" "$x64emu" "$busybox" "${argv[@]}"
}

if [ "${1:-}" = "--list" ]; then
  list_cases
  exit 0
fi
if [ $# -ne 2 ]; then
  echo "usage: cases.sh --list | cases.sh X64EMU CASE | cases.sh X64EMU --all" >&2
  exit 2
fi
if [ ! -x "$busybox" ]; then
  echo "cases.sh: $busybox not found: install Debian's busybox-static" >&2
  exit 2
fi
if readelf -l "$busybox" 2>/dev/null | grep -q 'INTERP'; then
  echo "cases.sh: $busybox is dynamically linked: install Debian's busybox-static" >&2
  exit 2
fi
umask 022
fixture=$(mktemp -d "${TMPDIR:-/tmp}/x64emu-busybox.XXXXXX") || exit 2
trap 'rm -rf "$fixture"' EXIT
make_fixture "$fixture"

if [ "$2" != "--all" ]; then
  run_case "$1" "$2"
  exit $?
fi
passed=0 failed=0 failed_names=()
for name in $(list_cases); do
  if run_case "$1" "$name"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    failed_names+=("$name")
  fi
done
[ "$failed" -eq 0 ] || echo "failed: ${failed_names[*]}"
echo "busybox: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
