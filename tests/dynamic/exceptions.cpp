// exceptions.cpp: C++ through libstdc++: exceptions thrown across frames, caught by type,
// destructors run on the way, a std::map and a std::string.
#include <cstdio>
#include <map>
#include <stdexcept>
#include <string>

static int destroyed;
struct Guard {
  ~Guard() { destroyed++; }
};

static int depth(int n) {
  Guard g;
  if (n == 0) throw std::runtime_error("bottom reached");
  return depth(n - 1) + 1;
}

int main() {
  std::map<std::string, int> counts;
  for (const char *w : {"aes", "gcm", "aes", "sha", "aes"}) counts[w]++;
  for (const auto &kv : counts) std::printf("%s %d\n", kv.first.c_str(), kv.second);
  try {
    depth(10);
  } catch (const std::exception &e) {
    std::printf("caught \"%s\", %d destructors ran\n", e.what(), destroyed);
  }
  try {
    throw 42;
  } catch (int v) {
    std::printf("caught int %d\n", v);
  }
  return 0;
}
