#!/usr/bin/env bash
# The main job as a user types it (issue 10, point 1): `mpirun -n 2 nqueens run --n N` with no
# binding or symmetry flag (only the variables that let Open MPI run as root here) against
# `nqueens count N --threads 2`, whole commands, REPS times alternating, medians and ratios.
# Two more rows show what the old defaults cost: the mirror plan, and a worker left on the one
# core Open MPI binds it to (--threads 1).
# Usage: bench/defaults.sh [N=18] [REPS=3]   (build first: scripts/build.sh release)
set -euo pipefail
source "$(dirname "$0")/common.sh"
n=${1:-18}
reps=${2:-3}
bin=${NQUEENS_BIN:-build/release/src/app/nqueens}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1   # root only: no other MCA settings
declare -A wall
variants=(count run mirror one_thread)
run_variant() {   # name, command...
  local name=$1
  shift
  local t0 t1
  t0=$(date +%s.%N)
  "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" || { cat "$tmp/$name.err" >&2; exit 1; }
  t1=$(date +%s.%N)
  wall[$name]+="$(awk -v a="$t0" -v b="$t1" 'BEGIN {print b - a}') "
}
for ((r = 0; r < reps; r++)); do
  run_variant count "$bin" count "$n" --threads 2
  run_variant run mpirun -n 2 "$bin" run --n "$n" --out "$tmp/a.h5" --force
  run_variant mirror mpirun -n 2 "$bin" run --n "$n" --symmetry mirror --out "$tmp/b.h5" --force
  run_variant one_thread mpirun -n 2 "$bin" run --n "$n" --threads 1 --out "$tmp/c.h5" --force
done
declare -A label=(
  [count]="nqueens count $n --threads 2"
  [run]="mpirun -n 2 nqueens run --n $n   (the defaults)"
  [mirror]="  same with --symmetry mirror   (the old default)"
  [one_thread]="  same with --threads 1   (a worker on its bound core)"
)
base=$(echo "${wall[count]}" | median)
printf '%-58s %8s %12s\n' "command (N=$n, $reps reps, medians of the whole command)" "wall s" "vs count"
for v in "${variants[@]}"; do
  w=$(echo "${wall[$v]}" | median)
  printf '%-58s %8.2f %12.3f\n' "${label[$v]}" "$w" "$(awk -v a="$w" -v b="$base" 'BEGIN {print a / b}')"
done
grep -h "warning" "$tmp"/*.err | sort -u || true
grep -h "^layout" "$tmp/run.out" | head -1
