#!/usr/bin/env bash
# Is nq_bench's reference a fair baseline? Times the textbook counter (bench/textbook.c, built
# here with gcc -O3 and clang -O3) against the reference column of nq_bench (one thread), REPS
# times alternating, and prints medians and the ratios textbook / reference. A ratio near 1
# means the bench ratios divide by a kernel as fast as the usual plain one; below 1, the
# textbook build is faster and the bench ratios flatter ours by that factor.
# Usage: bench/reference-fairness.sh [N=16] [REPS=3]   (build first: scripts/build.sh release)
set -euo pipefail
source "$(dirname "$0")/common.sh"
n=${1:-16}
reps=${2:-3}
gcc -O3 -o "$tmp/textbook-gcc" bench/textbook.c
clang -O3 -o "$tmp/textbook-clang" bench/textbook.c
declare -A secs
for ((r = 0; r < reps; r++)); do
  # nq_bench checks its totals against the published table (exit 1 if one differs)
  read -r ref_s total < <(build/release/bench/nq_bench --n "$n" --threads 1 --reps 1 | awk 'NR == 3 {print $7, $11}')
  secs[reference]+="$ref_s "
  for cc in gcc clang; do
    read -r t s < <("$tmp/textbook-$cc" "$n")
    [[ $t == "$total" ]] || { echo "textbook.c ($cc) counted $t, the published count is $total" >&2; exit 1; }
    secs[textbook-$cc]+="$s "
  done
done
ref=$(median <<<"${secs[reference]}")
printf '%-34s %9s %10s\n' "kernel (N=$n, $reps reps, medians)" seconds "vs ref"
printf '%-34s %9.3f %10.3f\n' "nq_bench reference (clang -O3)" "$ref" 1
for cc in gcc clang; do
  s=$(median <<<"${secs[textbook-$cc]}")
  printf '%-34s %9.3f %10.3f\n' "textbook.c ($cc -O3)" "$s" "$(awk -v a="$s" -v b="$ref" 'BEGIN {print a / b}')"
done
