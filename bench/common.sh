# Shared set-up of the bench/ shell scripts (sourced, after `set -euo pipefail`): works from the
# project root, gives a temporary directory $tmp removed on exit, `median` and `peer_source`.
cd "$(dirname "${BASH_SOURCE[0]}")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The median of the whitespace-separated numbers on stdin (the mean of the middle two for an even
# count, as nq_bench computes it).
median() {
  tr ' ' '\n' | grep . | sort -g |
    awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'
}

# The folder of the shared peer programs (../shared/peers, seen from /work/main or /work/wt/NAME;
# PEER_SRC overrides), for its build-kluev script. For side-by-side benchmarks only.
peer_source() {
  local d
  for d in ${PEER_SRC:-} ../shared/peers ../../shared/peers; do
    [ -x "$d/build-kluev" ] && { echo "$d"; return; }
  done
  echo "bench: no peers folder (set PEER_SRC)" >&2
  exit 2
}

# Builds the peer for board size N into DIR (DIR/kluev-N) unless it is there with the settings
# below (DIR/kluev-N.settings records them, so a binary built with others is rebuilt). build-kluev takes
# the settings of the peer's own table, which stops at N = 22. Beyond it the settings were chosen
# here by measurement (same slices, one core, 2026-12-02; docs/performance.md, session 11):
#   N = 23 (quarters 11 x 11, as at 22): N = 22's, sieve cuts 6 and match minimum 80; cuts 9
#     took 1.35-1.40x as long;
#   N = 24-25 (quarters 12 x 12): sieve cuts 9, match minimum 100; N = 22's cuts 6 took 3.3-4.7x
#     as long at N = 24 and 2.6x at 25 (less the set-up), cuts 11 (the most it allows) 1.3x at 24;
#     minimum 80 the same within the noise.
# Its tables take 1.2 GB at N = 22-23 and 11 GB at N = 24-25 (measured); beyond 25 it is not built.
peer_build() {   # N DIR
  local n=$1 dir=$2 src cuts min stamp
  case $n in
    23) cuts=6 min=80 ;;
    24|25) cuts=9 min=100 ;;
  esac
  stamp=${cuts:+sieve cuts $cuts, match minimum $min}
  stamp=${stamp:-build-kluev}
  [ -x "$dir/kluev-$n" ] && [ "$(cat "$dir/kluev-$n.settings" 2>/dev/null)" = "$stamp" ] && return
  src=$(peer_source)
  mkdir -p "$dir"
  rm -f "$dir/kluev-$n"
  if [ -n "${cuts:-}" ]; then
    g++ -std=c++20 -O3 -march=native -DKQ_N="$n" -DKQ_SIEVECUTS="$cuts" -DKQ_MATCHMIN="$min" -DKQ_BMI=1 \
        -DKQ_PREFETCH=1 "$src/kluev/main.cpp" -o "$dir/kluev-$n" -lpthread
  else
    "$src/build-kluev" "$n" "$dir"
  fi
  echo "$stamp" >"$dir/kluev-$n.settings"
}
