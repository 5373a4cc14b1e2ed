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
