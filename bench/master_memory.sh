#!/usr/bin/env bash
# The master's memory and the time a resume takes, for two builds of nqueens on the same plan, one
# after the other: a whole `nqueens run` (one process: the master and its compute threads; its
# end phase is the time from the progress line at 100 % to the exit), then
# a run stopped with SIGTERM after STOP s and resumed. Prints the peak RSS of each (the
# master's own report and the kernel's), the resume's time to its "resuming" line (plan count
# and journal read), and the ratios B / A.
# Usage: bench/master_memory.sh A_BIN B_BIN [N=17] [DEPTH=6] [STOP=12]
#   e.g. B = build/release/src/app/nqueens, A = the same built at an older commit (git worktree).
set -euo pipefail
source "$(dirname "$0")/common.sh"
[ $# -ge 2 ] || { sed -n 2,9p "$0" >&2; exit 2; }
bins=("$1" "$2")
n=${3:-17}
depth=${4:-6}
stop=${5:-12}
args=(run --n "$n" --depth "$depth" --symmetry full)
declare -A rss read_s end_s
labels=(A B)
for i in 0 1; do
  bin=${bins[$i]}
  out=$tmp/r$i.h5
  # The end phase: from the progress line that says 100 % to the exit (totals, Burnside, file).
  /usr/bin/time -f "%M" -o "$tmp/time" "$bin" "${args[@]}" --out "$out" --progress-interval 1 > "$tmp/out" 2> >(
    while IFS= read -r line; do [[ $line == *"100.0%"* ]] && date +%s.%N > "$tmp/all_done"; done)
  t_exit=$(date +%s.%N)
  sleep 0.2   # the reader of stderr has seen its last line
  end_s[$i]=$(awk -v a="$t_exit" -v b="$(cat "$tmp/all_done")" 'BEGIN {printf "%.1f", a - b}')
  rss[$i,whole]=$(cat "$tmp/time")
  units=$(awk '/^units/ {print $2}' "$tmp/out")
  echo "${labels[$i]} ($bin) whole run: $units units, $(grep '^memory' "$tmp/out" | sed 's/^memory *//'), max RSS ${rss[$i,whole]} KiB, end phase ${end_s[$i]} s"
  rm -f "$out" "$out.journal"
  "$bin" "${args[@]}" --out "$out" > /dev/null 2>&1 &
  pid=$!
  sleep "$stop"
  kill -TERM "$pid" 2> /dev/null || true
  wait "$pid" || true
  t0=$(date +%s.%N)
  /usr/bin/time -f "%M" -o "$tmp/time" "$bin" "${args[@]}" --out "$out" > "$tmp/out" 2> "$tmp/err" &
  pid=$!
  until grep -q "resuming from" "$tmp/err" 2> /dev/null || ! kill -0 "$pid" 2> /dev/null; do sleep 0.05; done
  read_s[$i]=$(awk -v a="$(date +%s.%N)" -v b="$t0" 'BEGIN {printf "%.1f", a - b}')
  wait "$pid"
  rss[$i,resume]=$(cat "$tmp/time")
  echo "  resumed: $(grep -o 'resuming from .*' "$tmp/err" | sed 's/.*journal: //'), resuming line after ${read_s[$i]} s, $(grep '^memory' "$tmp/out" | sed 's/^memory *//'), max RSS ${rss[$i,resume]} KiB"
  rm -f "$out" "$out.journal"
done
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.3f", a / b}'; }
echo "B / A: whole run max RSS $(ratio "${rss[1,whole]}" "${rss[0,whole]}"), end phase $(ratio "${end_s[1]}" "${end_s[0]}"), resumed run max RSS $(ratio "${rss[1,resume]}" "${rss[0,resume]}"), time to the resuming line $(ratio "${read_s[1]}" "${read_s[0]}")"
