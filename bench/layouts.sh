#!/usr/bin/env bash
# Throughput of the MPI layouts against the threaded `nqueens count` in the same script, on this
# machine (issue #3: the distributed job must deliver >= 95 % of the threaded count's throughput).
# Runs each variant REPS times, alternating, and prints medians and ratios (count / variant) of
#  * job s:  the seconds the program reports (count: the threaded count; run: from the first
#            work batch to the last result, the job's own throughput), and
#  * wall s: the whole command, including process/MPI start-up (~0.4 s here, paid once per job),
#            the journal, the HDF5 file and the Burnside search.
# Usage: bench/layouts.sh [N=17] [REPS=3]   (build first: scripts/build.sh release)
set -euo pipefail
source "$(dirname "$0")/common.sh"
n=${1:-17}
reps=${2:-3}
bin=build/release/src/app/nqueens
source scripts/mpi-env.sh
declare -A job wall
run_variant() {   # name, command...
  local name=$1
  shift
  local t0 t1 out
  t0=$(date +%s.%N)
  out=$("$@" 2>/dev/null)
  t1=$(date +%s.%N)
  wall[$name]+="$(awk -v a="$t0" -v b="$t1" 'BEGIN {print b - a}') "
  job[$name]+="$(awk '$1 == "seconds" {print $2}' <<<"$out") "
}
for ((r = 0; r < reps; r++)); do
  run_variant count "$bin" count "$n" --quiet
  run_variant mpi_n2 mpirun -n 2 "$bin" run --n "$n" --symmetry full --out "$tmp/a.h5" --force
  run_variant mpi_n3 mpirun -n 3 "$bin" run --n "$n" --symmetry full --out "$tmp/b.h5" --force --threads 1
  run_variant single "$bin" run --n "$n" --symmetry full --out "$tmp/c.h5" --force
done
job0=$(echo "${job[count]}" | median)
wall0=$(echo "${wall[count]}" | median)
printf '%-36s %8s %10s %8s %10s\n' "variant (N=$n, $reps reps, medians)" "job s" "count/job" "wall s" "count/wall"
for v in count mpi_n2 mpi_n3 single; do
  j=$(echo "${job[$v]}" | median)
  w=$(echo "${wall[$v]}" | median)
  case $v in
    count) label="nqueens count (threads, no MPI)" ;;
    mpi_n2) label="mpirun -n 2 (master + 1x2 threads)" ;;
    mpi_n3) label="mpirun -n 3 (master + 2x1 thread)" ;;
    single) label="nqueens run, one process" ;;
  esac
  printf '%-36s %8.3f %10.3f %8.2f %10.3f\n' "$label" "$j" "$(awk -v a="$job0" -v b="$j" 'BEGIN {print a / b}')" \
    "$w" "$(awk -v a="$wall0" -v b="$w" 'BEGIN {print a / b}')"
done
