#!/usr/bin/env bash
# Dispatch benchmark (issue #6): how many units per second the master sustains, and the bytes
# per unit it moves, with units so cheap that the master, not the workers, is the limit.
# The job: N = 14 with 10 of 14 rows pre-placed (mirror plan, 3,161,516 units, each unit a
# search of 4 rows, well under a microsecond), under several layouts (ranks x threads,
# oversubscribed on a small machine). Every unit still goes through the whole path: batch,
# Boost.Serialization, MPI, the checks, the 1/64 audit, the journal and the HDF5 unit table.
# The in-script reference is the same job in one process (no messages): its units/s is what
# the job costs without dispatch.
# Usage: bench/dispatch.sh [LAYOUTS="2x1 3x1 5x1 9x1 2x2"] [N=14] [DEPTH=10]
#        (ranks x threads per worker rank; build first: scripts/build.sh release)
# Environment: NQUEENS_BIN (default build/release/src/app/nqueens); NQ_MPIRUN, the launcher and
# its options (default "mpirun"; tests/multihost runs the layouts across emulated hosts with
# "mpirun --hostfile ... --mca btl self,tcp ...": options on the command line win over
# scripts/mpi-env.sh's one-machine settings).
set -euo pipefail
source "$(dirname "$0")/common.sh"
layouts=${1:-"2x1 3x1 5x1 9x1 2x2"}
n=${2:-14}
depth=${3:-10}
bin=${NQUEENS_BIN:-build/release/src/app/nqueens}
read -r -a mpirun <<<"${NQ_MPIRUN:-mpirun}"
source scripts/mpi-env.sh
job=(run --n "$n" --depth "$depth" --symmetry mirror --progress-interval 3600 --force)

field() { awk -v k="$1" '$1 == k {print $2}'; }
printf '%-28s %10s %9s %12s %10s %12s\n' "layout (N=$n, depth $depth)" units "seconds" "units/s" "vs single" "bytes/unit"
t0=$(date +%s.%N)
single=$("$bin" "${job[@]}" --out "$tmp/single.h5" 2>/dev/null)
t1=$(date +%s.%N)
units=$(field units <<<"$single")
secs=$(field seconds <<<"$single")
ref=$(awk -v u="$units" -v s="$secs" 'BEGIN {printf "%.0f", u / s}')
printf '%-28s %10s %9.2f %12s %10s %12s\n' "one process, $(nproc) threads" "$units" "$secs" "$ref" "1.000" "-"
for l in $layouts; do
  ranks=${l%x*}
  threads=${l#*x}
  out=$("${mpirun[@]}" -n "$ranks" "$bin" "${job[@]}" --threads "$threads" --out "$tmp/$l.h5" 2>/dev/null)
  # dispatch <units> units in <batches> work batches, <rate> units/s; <sent> + <received> bytes per unit
  read -r units batches rate sent recv < <(awk '$1 == "dispatch" {gsub(/[;,]/, ""); print $2, $5, $8, $10, $12}' <<<"$out")
  secs=$(field seconds <<<"$out")
  printf '%-28s %10s %9.2f %12s %10.3f %12s\n' "mpirun -n $ranks, ${threads} thread(s)/worker" "$units" "$secs" "$rate" \
    "$(awk -v a="$rate" -v b="$ref" 'BEGIN {print a / b}')" "$sent+$recv"
done
echo "(units/s: units / the master's dispatch seconds; bytes/unit: serialized work + result messages)"
