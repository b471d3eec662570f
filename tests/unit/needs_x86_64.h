/* needs_x86_64.h: the whole program of a differential test built for a host that is not
 * x86-64, where there is no CPU to compare with: one test that says so and is skipped.
 * Include it in the #else branch of the test's `#ifdef __x86_64__`. */
static void test_needs_an_x86_64_host(void **state) {
  (void)state;
  skip();
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_needs_an_x86_64_host)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
