/* time.c: calendar arithmetic on fixed instants, and the clocks' properties (never their
 * values, which differ between runs). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>

int main(void) {
  const time_t instants[] = {0, 1, 86399, 951782400 /* 2000-02-29 */, 1234567890,
                             2147483647, 2147483648ll, -1, -2208988800ll, 4102444800ll,
                             253402300799ll};
  char buf[256];
  for (unsigned i = 0; i < sizeof instants / sizeof instants[0]; i++) {
    struct tm tm;
    gmtime_r(&instants[i], &tm);
    strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S %a %A %b %B %j %U %W %u %w %y %C %G-W%V %e %p %s %%",
             &tm);
    printf("%lld: %s yday %d wday %d\n", (long long)instants[i], buf, tm.tm_yday, tm.tm_wday);
    printf("  asctime: %s", asctime(&tm));
    time_t back = timegm(&tm);
    printf("  timegm round trip: %s\n", back == instants[i] ? "yes" : "NO");
  }

  /* mktime normalises out-of-range fields; TZ is UTC in the test environment. */
  struct tm t = {.tm_year = 123, .tm_mon = 13, .tm_mday = 35, .tm_hour = 25, .tm_min = 61,
                 .tm_sec = 61, .tm_isdst = 0};
  time_t normalised = mktime(&t);
  strftime(buf, sizeof buf, "%F %T %Z", &t);
  printf("mktime normalised: %lld %s\n", (long long)normalised, buf);
  printf("difftime: %g\n", difftime(1000, 10));

  struct tm parsed = {0};
  char *rest = strptime("2024-07-04 12:34:56", "%Y-%m-%d %H:%M:%S", &parsed);
  printf("strptime consumed all: %s, year %d mon %d mday %d hour %d\n", rest && !*rest ? "yes" : "no",
         parsed.tm_year + 1900, parsed.tm_mon + 1, parsed.tm_mday, parsed.tm_hour);

  /* The clocks: plausible and monotonic, printed as properties only. */
  time_t now = time(NULL);
  struct timeval tv;
  gettimeofday(&tv, NULL);
  struct timespec real, mono1, mono2, cpu, res;
  clock_gettime(CLOCK_REALTIME, &real);
  clock_gettime(CLOCK_MONOTONIC, &mono1);
  struct timespec nap = {0, 2000000};
  nanosleep(&nap, NULL);
  clock_gettime(CLOCK_MONOTONIC, &mono2);
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu);
  clock_getres(CLOCK_MONOTONIC, &res);
  double slept = (mono2.tv_sec - mono1.tv_sec) + (mono2.tv_nsec - mono1.tv_nsec) / 1e9;
  printf("time() after 2020: %s\n", now > 1577836800 ? "yes" : "no");
  printf("time, gettimeofday and CLOCK_REALTIME agree within 5 s: %s\n",
         llabs(now - tv.tv_sec) < 5 && llabs(now - real.tv_sec) < 5 ? "yes" : "no");
  printf("tv_usec and tv_nsec in range: %s\n",
         tv.tv_usec >= 0 && tv.tv_usec < 1000000 && real.tv_nsec >= 0 && real.tv_nsec < 1000000000
             ? "yes"
             : "no");
  printf("nanosleep 2 ms: monotonic clock advanced at least 2 ms: %s\n", slept >= 0.002 ? "yes" : "no");
  printf("CLOCK_MONOTONIC resolution at most 1 ms: %s\n", res.tv_sec == 0 && res.tv_nsec <= 1000000 ? "yes" : "no");
  printf("process CPU time non-negative: %s\n", cpu.tv_sec >= 0 && cpu.tv_nsec >= 0 ? "yes" : "no");
  clock_t c = clock();
  printf("clock() non-negative: %s\n", c >= 0 ? "yes" : "no");
  return 0;
}
