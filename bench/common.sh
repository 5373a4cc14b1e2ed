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

# Builds the peer for board size N into DIR (DIR/kluev-N) unless it is there. build-kluev takes
# the settings of the peer's own table, which stops at N = 22; N = 23-25 are built here with
# N = 22's settings (sieve cuts 6, match minimum 80), the nearest the peer's author gives. Its
# tables take 1.2 GB at N = 22-23 and 11 GB at N = 24-25 (measured); beyond 25 it is not built.
peer_build() {   # N DIR
  local n=$1 dir=$2 src
  [ -x "$dir/kluev-$n" ] && return
  src=$(peer_source)
  case $n in
    23|24|25)
      mkdir -p "$dir"
      g++ -std=c++20 -O3 -march=native -DKQ_N="$n" -DKQ_SIEVECUTS=6 -DKQ_MATCHMIN=80 -DKQ_BMI=1 \
          -DKQ_PREFETCH=1 "$src/kluev/main.cpp" -o "$dir/kluev-$n" -lpthread ;;
    *) "$src/build-kluev" "$n" "$dir" ;;
  esac
}
