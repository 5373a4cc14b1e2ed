/* The textbook N-Queens counter (Somers-style bitmasks, left-right mirror, a global counter), as
 * peers and tutorials write it: bench/reference-fairness.sh builds it with gcc and clang and
 * times it against nq_bench's reference column, to show that the reference the bench ratios
 * divide by is not a slow strawman. Prints "<total> <seconds>". */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static uint32_t all;
static uint64_t count;

static void solve(uint32_t cols, uint32_t ld, uint32_t rd) {
  if (cols == all) {
    count++;
    return;
  }
  uint32_t poss = ~(cols | ld | rd) & all;
  while (poss) {
    uint32_t bit = poss & -poss;
    poss -= bit;
    solve(cols | bit, (ld | bit) << 1, (rd | bit) >> 1);
  }
}

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 16;
  if (n < 2 || n > 31) {
    fprintf(stderr, "usage: textbook N   (2 <= N <= 31)\n");
    return 2;
  }
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  all = (1u << n) - 1;
  uint64_t half = 0, middle = 0;
  for (int c = 0; c < n / 2; c++) {
    count = 0;
    solve(1u << c, 1u << (c + 1), (1u << c) >> 1);
    half += count;
  }
  if (n % 2) {
    count = 0;
    int c = n / 2;
    solve(1u << c, 1u << (c + 1), (1u << c) >> 1);
    middle = count;
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  printf("%llu %.3f\n", (unsigned long long)(2 * half + middle),
         (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));
  return 0;
}
