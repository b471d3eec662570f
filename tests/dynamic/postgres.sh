#!/bin/bash
# postgres.sh: PostgreSQL with every one of its programs under x64emu: initdb, pg_ctl and
# the server it starts (a process per connection, sharing System V shared memory and
# POSIX semaphores in shared memory), psql and pgbench; psql's results compared with
# those of the native programs on a cluster of their own. The server refuses to run as
# root, so both run as nobody: skipped (77) without root or without PostgreSQL.
#
# usage: postgres.sh X64EMU
set -u
x64emu=$1
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
if [ -z "$bin" ] || [ ! -x "$bin/postgres" ]; then
  echo "skipped: PostgreSQL is not installed (Debian's postgresql)"
  exit 77
fi
if [ "$(id -u)" != 0 ]; then
  echo "skipped: the server runs as nobody, which needs root"
  exit 77
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/x64emu-pg.XXXXXX") || exit 2
chown nobody "$work"
as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups -- "$@"; }
cleanup() {
  for c in native emulated; do
    [ -f "$work/$c/postmaster.pid" ] && as_nobody "$bin/pg_ctl" -D "$work/$c" -m immediate stop >/dev/null 2>&1
  done
  rm -rf "$work"
}
trap cleanup EXIT
fail() {
  echo "postgres.sh: $*"
  for f in "$work"/*.log; do [ -f "$f" ] && { echo "--- $f"; tail -20 "$f"; }; done
  exit 1
}

queries="create table t(k int primary key, v text);
insert into t select g, md5(g::text) from generate_series(1, 20000) g;
select count(*), sum(k), max(v) from t;
select k, v from t where k between 100 and 103 order by k;
select sha256('abc'::bytea), 2 ^ 0.5, exp(1::numeric);"

# cluster NAME PORT [X64EMU]: a cluster made, started, queried, benchmarked and stopped
# by the programs, run under X64EMU when given.
cluster() {
  local name=$1 port=$2 emu=("${@:3}") dir=$work/$1
  local socket=(-h "$work" -p "$port")
  as_nobody "${emu[@]}" "$bin/initdb" -D "$dir" -A trust -U nobody --no-sync >"$work/$name-initdb.log" 2>&1 ||
    fail "$name: initdb failed"
  as_nobody "${emu[@]}" "$bin/pg_ctl" -D "$dir" -l "$work/$name-server.log" -w -t 120 \
    -o "-k $work -p $port -c listen_addresses= -c fsync=off" start >"$work/$name-pg_ctl.log" 2>&1 ||
    fail "$name: the server did not start"
  as_nobody "${emu[@]}" "$bin/psql" -X -A -t "${socket[@]}" -d postgres -c "$queries" >"$work/$name.out" 2>&1 ||
    fail "$name: psql failed"
  as_nobody "${emu[@]}" "$bin/pgbench" -q -i -s 1 "${socket[@]}" postgres >"$work/$name-pgbench-init.log" 2>&1 ||
    fail "$name: pgbench -i failed"
  as_nobody "${emu[@]}" "$bin/pgbench" -n -c 4 -j 2 -t 50 "${socket[@]}" postgres >"$work/$name-pgbench.log" 2>&1 ||
    fail "$name: pgbench failed"
  grep -q "number of transactions actually processed: 200/200" "$work/$name-pgbench.log" ||
    fail "$name: pgbench did not complete its 200 transactions"
  as_nobody "${emu[@]}" "$bin/pg_ctl" -D "$dir" -w stop >>"$work/$name-pg_ctl.log" 2>&1 ||
    fail "$name: the server did not stop"
}

cluster native 55431
cluster emulated 55432 "$x64emu"
if ! cmp -s "$work/native.out" "$work/emulated.out"; then
  diff -u "$work/native.out" "$work/emulated.out"
  fail "psql printed other results under x64emu"
fi
cat "$work/emulated.out"
grep "^tps" "$work/emulated-pgbench.log"
echo "postgres.sh: the same results, and pgbench's 200 transactions, under x64emu"
