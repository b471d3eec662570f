# script.sh: shell features that run the interpreter hard: arithmetic, strings, arrays,
# functions and recursion, subshells, pipes, here-documents and traps. Run by bash and zsh,
# natively and under x64emu; the output must be identical. Externals are busybox applets.
bb=/bin/busybox
fib() { if [ "$1" -lt 2 ]; then echo "$1"; else echo $(( $(fib $(($1 - 1))) + $(fib $(($1 - 2))) )); fi; }
echo "fib 10 = $(fib 10)"
sum=0; i=0
while [ $i -lt 3000 ]; do sum=$(( (sum * 31 + i) % 1000003 )); i=$((i + 1)); done
echo "hash loop = $sum"
s="The quick brown fox jumps over the lazy dog"
echo "upper: $(echo "$s" | $bb tr a-z A-Z)"
echo "length ${#s}, words $(echo $s | $bb wc -w)"
echo "substring: ${s:4:5}, replace: ${s//o/0}"
words=($s)
echo "array of ${#words[@]}; third ${words[2]}"
printf '%s\n' "${words[@]}" | $bb sort | $bb uniq -c | $bb sort -rn | $bb head -3
printf '%5.1f|%-6s|%04x|%e\n' 3.14159 left 255 12345.678
( cd /; echo "subshell in $(pwd)" ); echo "back in the same place: $([ "$PWD" = "$(pwd)" ] && echo yes)"
$bb cat <<DOC | $bb sed 's/^/  > /'
here-document line 1, sum is $sum
line 2 with \$literal
DOC
trap 'echo "trap: USR1 caught"' USR1
kill -USR1 $$
{ echo a; echo b; echo c; } | while read -r line; do printf '[%s]' "$line"; done; echo
seq_out=$($bb seq 1 20 | $bb awk '{ s += $1 * $1 } END { print s }')
echo "squares to 20: $seq_out"
( exit 3 ); echo "subshell status $?"
false || echo "false failed as it should"
echo "done"
