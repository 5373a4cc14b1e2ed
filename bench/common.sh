# Shared set-up of the bench/ shell scripts (sourced, after `set -euo pipefail`): works from the
# project root, gives a temporary directory $tmp removed on exit, and `median`.
cd "$(dirname "${BASH_SOURCE[0]}")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The median of the whitespace-separated numbers on stdin (the mean of the middle two for an even
# count, as nq_bench computes it).
median() {
  tr ' ' '\n' | grep . | sort -g |
    awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'
}
