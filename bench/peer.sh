#!/usr/bin/env bash
# Whole processes side by side (issue 13): `nqueens count N --threads T` against the peer
# (Kluev's quadrant join, ../shared/peers, `kluev-N T`), alternating REPS times in the same
# script, for every N and T. Prints median wall seconds, ours / peer, the peak RSS of each, and
# checks both totals against data/known-counts.tsv (exit 1 on a mismatch).
# Usage: bench/peer.sh [NS="17 18 19"] [THREADS="1 2"] [REPS=3]   (build first; PEERS=dir of peer builds)
set -euo pipefail
source "$(dirname "$0")/common.sh"
ns=${1:-"17 18 19"}
threads=${2:-"1 2"}
reps=${3:-3}
bin=${NQUEENS_BIN:-build/release/src/app/nqueens}
peers=${PEERS:-build/peers}
known() { awk -v n="$1" '$1 == n {print $2}' data/known-counts.tsv; }
timed() {   # name, command... -> appends wall seconds to wall[name], peak KB to rss[name]
  local name=$1 t0 t1
  shift
  t0=$(date +%s.%N)
  /usr/bin/time -f "%M" -o "$tmp/rss" "$@" >"$tmp/out" 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
  t1=$(date +%s.%N)
  wall[$name]+="$(awk -v a="$t0" -v b="$t1" 'BEGIN {print b - a}') "
  rss[$name]=$(tail -1 "$tmp/rss")
}
status=0
printf '%3s %3s %10s %10s %10s %10s %10s  %s\n' N thr "ours s" "peer s" "ours/peer" "ours MB" "peer MB" totals
for n in $ns; do
  peer_build "$n" "$peers"
  for t in $threads; do
    declare -A wall=() rss=()
    check=ok
    for ((r = 0; r < reps; r++)); do
      timed ours "$bin" count "$n" --threads "$t" --quiet
      [ "$(awk '$1 == "total" {print $2}' "$tmp/out")" = "$(known "$n")" ] || check="ours WRONG"
      timed peer "$peers/kluev-$n" "$t"
      [ "$(awk '/^Result:/ {print $2}' "$tmp/out")" = "$(known "$n")" ] || check="peer WRONG"
    done
    [ "$check" = ok ] || status=1
    o=$(echo "${wall[ours]}" | median)
    p=$(echo "${wall[peer]}" | median)
    printf '%3d %3d %10.2f %10.2f %10.3f %10.0f %10.0f  %s\n' "$n" "$t" "$o" "$p" \
      "$(awk -v a="$o" -v b="$p" 'BEGIN {print a / b}')" "$((rss[ours] / 1024))" "$((rss[peer] / 1024))" "$check"
  done
done
exit $status
