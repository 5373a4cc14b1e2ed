#!/usr/bin/env bash
# Boards mode as users type it (issue 12): `mpirun -n 2 nqueens run --n N --mode boards`, whole
# command, against `nqueens count N` in the same run. Prints seconds, boards/s, bytes per board
# on disk, the peak RSS of every rank, and the ratio to count. CASES are N:SET pairs.
# With ANALYSIS=1, also times `analysis/nqanalyze verify` and `plot` on each file (seconds, peak RSS).
# Usage: [ANALYSIS=1] bench/boards.sh [CASES="16:all 17:all 18:class"]   (build first: scripts/build.sh release)
set -euo pipefail
source "$(dirname "$0")/common.sh"
cases=${1:-"16:all 17:all 18:class"}
bin=${NQUEENS_BIN:-build/release/src/app/nqueens}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
seconds() {   # command... -> wall seconds on stdout, the command's output in $tmp/out, $tmp/err
  local t0 t1
  t0=$(date +%s.%N)
  "$@" >"$tmp/out" 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.2f", b - a}'
}
printf '%-7s %6s %9s %12s %11s %14s %9s %9s\n' N set "run s" "boards/s" "bytes/board" "peak RSS MB" "count s" "run/count"
for c in $cases; do
  n=${c%%:*} set=${c##*:}
  out="$tmp/b$n.h5"
  rm -f "$out"
  run_s=$(seconds mpirun -n 2 "$bin" run --n "$n" --mode boards --boards "$set" --out "$out" --progress-interval 3600)
  # run's own line: "memory   peak RSS M MB (master), W MB (largest worker: ...)"
  rss=$(sed -n 's/^memory *peak RSS \([0-9]*\) MB (master), \([0-9]*\) MB.*/\1\/\2/p' "$tmp/out")
  boards=$(/usr/bin/python3 -c "import h5py; print(h5py.File('$out')['boards/solutions'].shape[0])")
  bytes=$(stat -c %s "$out")
  count_s=$(seconds "$bin" count "$n")
  printf '%-7s %6s %9.2f %12.3g %11.2f %14s %9.2f %9.1f\n' "$n" "$set" "$run_s" \
    "$(awk -v b="$boards" -v s="$run_s" 'BEGIN {print b / s}')" "$(awk -v f="$bytes" -v b="$boards" 'BEGIN {print f / b}')" \
    "$rss" "$count_s" "$(awk -v a="$run_s" -v b="$count_s" 'BEGIN {print a / b}')"
  if [[ ${ANALYSIS:-0} == 1 ]]; then
    for cmd in verify plot; do
      extra=()
      [[ $cmd == plot ]] && extra=(--out "$tmp/plots")
      s=$(seconds /usr/bin/time -f "rss %M" analysis/nqanalyze "$cmd" "$out" "${extra[@]}")
      printf '        nqanalyze %-6s %8.1f s, peak RSS %s MB\n' "$cmd" "$s" "$(grep -o 'rss [0-9]*' "$tmp/err" | awk '{printf "%.0f", $2 / 1024}')"
    done
  fi
done
echo "(run s: the whole mpirun command, 1 master + 1 worker using every core; peak RSS: master/worker)"
