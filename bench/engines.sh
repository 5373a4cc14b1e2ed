#!/usr/bin/env bash
# The cost of a whole count at large N, estimated by sampling (issue 13): our engines on a random
# sample of the work units of the default `nqueens run` plan (bench/nq_engines: every engine
# checked against the vector kernel on every unit), and the peer (Kluev's quadrant join,
# ../shared/peers) on a few of its `PARTS PART` slices. One core each. Prints per N the estimated
# core-seconds with standard errors, ours / peer, and the growth per N of each; with OUT=file the
# estimates go to a file that `bench/capacity.py --sampled file` reads.
#
# Peer slices: a slice costs the peer's set-up (its quarter tables) plus 1/PARTS of the work; the
# set-up is timed alone (an empty slice, median of 3) and counted once: total = setup + PARTS *
# mean(slice - setup), standard error PARTS * sd / sqrt(slices). PARTS per N keeps the work of a
# slice well above the set-up. The peer builds for N = 16..25 (common.sh, peer_build).
#
# Usage: [OUT=est.txt] [ENGINES=vector,scalar,mitm] [MAX_SECONDS=120] [PEERS=dir|none]
#        bench/engines.sh [NS="20 21 22"] [SAMPLE=60] [SLICES=4]
#   NQ_ENGINES: the nq_engines binary (default build/release/bench/nq_engines)
set -euo pipefail
source "$(dirname "$0")/common.sh"
ns=${1:-"20 21 22"}
sample=${2:-60}
slices=${3:-4}
engines=${ENGINES:-vector}
bin=${NQ_ENGINES:-build/release/bench/nq_engines}
peers=${PEERS:-build/peers}
out=${OUT:-$tmp/estimates.txt}
: >"$out"

peer_seconds() {   # binary args... -> the peer's own "Elapsed time"
  "$@" | awk '/^Elapsed time:/ {print $3}'
}
declare -A parts=([16]=4 [17]=10 [18]=20 [19]=50 [20]=200 [21]=1000 [22]=2000 [23]=10000 [24]=50000 [25]=100000)

# Per N, ours then the peer, so that both see the same load on a shared machine.
for n in $ns; do
  args=(--n "$n" --sample "$sample" --engines "$engines")
  [ -n "${MAX_SECONDS:-}" ] && args+=(--max-seconds "$MAX_SECONDS")
  "$bin" "${args[@]}" | tee "$tmp/ours-$n.txt" | grep -v '^estimate'
  grep '^estimate' "$tmp/ours-$n.txt" >>"$out"
  [ "$peers" != none ] && [ -n "${parts[$n]:-}" ] && [ "$slices" -gt 0 ] || continue
  peer_build "$n" "$peers"
  p=${parts[$n]}
  setup=$(for i in 1 2 3; do peer_seconds "$peers/kluev-$n" 1 1000000000 999999; done | median)
  times=""
  for part in $(awk -v n="$n" -v p="$p" -v k="$slices" 'BEGIN {srand(n); for (i = 0; i < k; i++) print int(rand() * p)}'); do
    times+="$(peer_seconds "$peers/kluev-$n" 1 "$p" "$part") "
  done
  echo "$times" | awk -v n="$n" -v p="$p" -v s="$setup" '{
    m = 0; for (i = 1; i <= NF; i++) { w[i] = $i - s; m += w[i] } m /= NF
    v = 0; for (i = 1; i <= NF; i++) v += (w[i] - m) ^ 2; sd = NF > 1 ? sqrt(v / (NF - 1)) : 0
    t = s + p * m
    printf "peer N=%d: set-up %.2f s, %d slices of 1/%d: %s s -> %.4g core-s\n", n, s, NF, p, $0, t > "/dev/stderr"
    printf "estimate %d peer %.6g %.4f %d %d 0 0 0\n", n, t, p * sd / sqrt(NF) / t, p, NF
  }' >>"$out"
done

# The table (ours: the first engine, as nq_engines names it, avx2 for vector on a CPU without
# AVX-512), the growth per N of each, its fit over N >= 21 and ours / peer extrapolated to N = 27.
/usr/bin/python3 bench/growth.py "$out"
