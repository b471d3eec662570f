/* sqlite_zlib.c: real library code as a guest: an in-memory SQLite database (B-trees,
 * the VDBE interpreter, printf and floating point) and a zlib round trip. */
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>

static int print_row(void *unused, int n, char **values, char **names) {
  (void)unused;
  for (int i = 0; i < n; i++) printf("%s=%s ", names[i], values[i] ? values[i] : "NULL");
  printf("\n");
  return 0;
}

static int run_sql(void) {
  sqlite3 *db;
  char *err = NULL;
  if (sqlite3_open(":memory:", &db) != SQLITE_OK) return 1;
  const char *sql =
      "create table t(a integer primary key, b text, c real);"
      "with recursive n(x) as (select 1 union all select x + 1 from n where x < 5000)"
      "  insert into t select x, 'row' || x, x * 1.5 from n;"
      "create index ib on t(b);"
      "select count(*), sum(a), avg(c), max(b), min(length(b)) from t;"
      "select a, b, printf('%.3f', c) from t where b like 'row49%' order by c desc limit 5;"
      "select group_concat(a, ',') from (select a from t where a % 997 = 0);"
      "select round(stddev, 6) from (select sqrt(avg(c * c) - avg(c) * avg(c)) as stddev from t);";
  int rc = sqlite3_exec(db, sql, print_row, NULL, &err);
  if (rc != SQLITE_OK) printf("sqlite error: %s\n", err);
  sqlite3_close(db);
  return rc != SQLITE_OK;
}

static int run_zlib(void) {
  static unsigned char in[100000], packed[120000], back[100000];
  for (unsigned i = 0; i < sizeof in; i++) in[i] = (unsigned char)(i * 7 ^ (i >> 3));
  uLongf packed_len = sizeof packed, back_len = sizeof back;
  if (compress2(packed, &packed_len, in, sizeof in, 9) != Z_OK) return 1;
  if (uncompress(back, &back_len, packed, packed_len) != Z_OK) return 1;
  printf("zlib: %zu -> %lu -> %lu bytes, round trip %s, crc32 %08lx, adler32 %08lx\n",
         sizeof in, (unsigned long)packed_len, (unsigned long)back_len,
         memcmp(in, back, sizeof in) == 0 ? "exact" : "DIFFERS",
         (unsigned long)crc32(0, in, sizeof in), (unsigned long)adler32(1, in, sizeof in));
  return 0;
}

int main(void) { return run_sql() | run_zlib(); }
