#!/usr/bin/env bash
# Throughput of the MPI layouts against the threaded `nqueens count` in the same script, on this
# machine (issue: the distributed job must deliver >= 95 % of the threaded count's throughput).
# Runs each variant REPS times, alternating, and prints medians and ratios (count / variant).
# Usage: bench/layouts.sh [N=17] [REPS=3]   (build first: scripts/build.sh release)
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-17}
reps=${2:-3}
bin=build/release/src/app/nqueens
source scripts/mpi-env.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
declare -A times
run_variant() {   # name, command...
  local name=$1
  shift
  local t0 t1
  t0=$(date +%s.%N)
  "$@" >/dev/null 2>&1
  t1=$(date +%s.%N)
  times[$name]+="$(awk -v a="$t0" -v b="$t1" 'BEGIN {print b - a}') "
}
for ((r = 0; r < reps; r++)); do
  run_variant count "$bin" count "$n" --quiet
  run_variant mpi_n2 mpirun -n 2 "$bin" run --n "$n" --symmetry full --out "$tmp/a.h5" --force
  run_variant mpi_n3 mpirun -n 3 "$bin" run --n "$n" --symmetry full --out "$tmp/b.h5" --force --threads 1
  run_variant single "$bin" run --n "$n" --symmetry full --out "$tmp/c.h5" --force
done
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
base=$(echo "${times[count]}" | median)
printf '%-34s %10s %14s\n' "variant (N=$n, $reps reps)" "median s" "count/variant"
for v in count mpi_n2 mpi_n3 single; do
  m=$(echo "${times[$v]}" | median)
  case $v in
    count) label="nqueens count (threads, no MPI)" ;;
    mpi_n2) label="mpirun -n 2 (master + 1x2 threads)" ;;
    mpi_n3) label="mpirun -n 3 (master + 2x1 thread)" ;;
    single) label="nqueens run, one process" ;;
  esac
  printf '%-34s %10.2f %14.3f\n' "$label" "$m" "$(awk -v a="$base" -v b="$m" 'BEGIN {print a / b}')"
done
