#!/usr/bin/python3
"""Capacity model of a counting job (README, "Capacity"): for each N, the default plan's units,
the core-hours, the mean unit time, the result-file size and the master's load at 1, 100 and
10,000 nodes, from costs measured on this machine (the defaults below; see README for the
commands that measured them). Usage: bench/capacity.py [--cores-per-node 64] [--master-rate R]
[--sampled FILE] ...

Model: core-seconds(N) = ns_per_node * nodes(N), with nodes(N) = Q(N) * nodes_per_solution(N)
(Q(N) from data/known-counts.tsv; nodes per solution measured at N = 16..19 and extrapolated
with its measured growth per N). A job of U units on C cores asks the master for C / (mean unit
seconds) units per second while it runs; the master sustains --master-rate (bench/dispatch.sh).
With --sampled FILE (the estimates of bench/engines.sh OUT=FILE: sampled units of the same default
plans), the N it holds take their search nodes from there (counted on the sampled units, so
independent of the machine's load; times --ns-per-node), or its timed core-seconds where a line has
no nodes, with the standard error in the "+-" column; the other N keep the node model ("model").
An N without a published count (N >= 28) has no Q(N) for the model: it needs a sampled line
(exit 2 otherwise)."""
import argparse
import csv
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import estimates  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def known_totals():
    with open(ROOT / "data" / "known-counts.tsv") as f:
        return {int(r["n"]): int(r["total"]) for r in csv.DictReader(f, delimiter="\t")}


def default_plans(bench, sizes):
    out = subprocess.run([bench, "--plans", "--n", ",".join(map(str, sizes))], check=True,
                         capture_output=True, text=True).stdout.splitlines()[1:]
    return {int(l.split()[0]): (int(l.split()[2]), int(l.split()[3])) for l in out}


def human_bytes(b):
    for unit in ["B", "KB", "MB", "GB", "TB"]:
        if b < 1000:
            return f"{b:.0f} {unit}" if unit == "B" else f"{b:.1f} {unit}"
        b /= 1000
    return f"{b:.1f} PB"


def human_seconds(s):
    if s < 1:
        return f"{s * 1000:.2g} ms"
    for unit, size in [("s", 60), ("min", 60), ("h", 24), ("d", 365)]:
        if s < size:
            return f"{s:.1f} {unit}" if s < 10 else f"{s:.0f} {unit}"
        s /= size
    return f"{s:.1f} y"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bench", default=str(ROOT / "build/release/bench/nq_bench"))
    ap.add_argument("--n", help="board sizes, comma-separated (default: 18-27 and any larger sampled N)")
    ap.add_argument("--ns-per-node", type=float, default=0.79,
                    help="one core's time per search node (nq_bench, N = 18, 1 thread)")
    ap.add_argument("--nodes", default="16:173577526,17:1189894450,18:8680644158,19:66380999795",
                    help="measured search nodes per N (nq_bench 'ours nodes')")
    ap.add_argument("--sampled", help="estimates from bench/engines.sh (OUT=FILE), engine 'vector' or 'avx2'")
    ap.add_argument("--cores-per-node", type=int, default=64)
    ap.add_argument("--master-rate", type=float, default=300000,
                    help="units/s the master sustains (bench/dispatch.sh measured 530k-720k)")
    ap.add_argument("--file-bytes-per-unit", type=float, default=17,
                    help="HDF5 bytes per unit, counts mode (measured at N = 19)")
    ap.add_argument("--journal-bytes-per-unit", type=float, default=104,
                    help="journal bytes per unit (92-byte payload + 12-byte frame, counts mode)")
    ap.add_argument("--master-bytes-per-unit", type=float, default=40.25,
                    help="master memory per unit of its shard (app::UnitTable::Outcome, kept for the file, "
                         "and 2 bits of the plan's tables)")
    a = ap.parse_args()

    q = known_totals()
    sampled = {}
    try:
        _, est = estimates.read(a.sampled) if a.sampled else ([], {})
    except OSError as e:
        ap.error(f"--sampled {a.sampled}: {e.strerror}")
    except ValueError as e:
        ap.error(f"--sampled {e}")
    # The kernel nqueens runs: vector (AVX-512), or avx2 where nq_engines ran without it.
    for (engine, n), e in est.items():
        if engine in ("vector", "avx2"):
            sampled[n] = (a.ns_per_node * 1e-9 * e.nodes, e.nodes_rel_se) if e.nodes > 0 else (e.core_s, e.rel_se)
    measured = {int(k): int(v) for k, v in (p.split(":") for p in a.nodes.split(","))}
    ns = sorted(measured)
    per_sol = {n: measured[n] / q[n] for n in ns}
    # Growth of nodes per solution per N: geometric mean over the measured steps.
    growth = (per_sol[ns[-1]] / per_sol[ns[0]]) ** (1 / (ns[-1] - ns[0]))
    sizes = [int(x) for x in a.n.split(",")] if a.n else sorted(set(range(18, 28)) | {n for n in sampled if n > 27})
    unknown = [n for n in sizes if n not in q and n not in sampled]
    if unknown:
        ap.error(f"N = {', '.join(map(str, unknown))}: no published count to scale the node model by "
                 f"(data/known-counts.tsv) and no sampled line for it; sample the plan with "
                 f"'OUT=FILE bench/engines.sh \"{' '.join(map(str, unknown))}\" 40 0' and pass --sampled FILE")
    plans = default_plans(a.bench, sizes)
    print(f"Model constants: {a.ns_per_node} ns/node/core; nodes/solution {per_sol[ns[-1]]:.2f} at N = {ns[-1]}, "
          f"x{growth:.3f} per N; {a.cores_per_node} cores/node; master {a.master_rate:,.0f} units/s")
    scales = [1, 100, 10000]
    head = ["N", "depth", "units", "core-hours", "+-", "unit (1 core)", "file", "journal", "master RAM"]
    head += [f"wall @{s} nodes" for s in scales] + [f"master load @{s}" for s in scales]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for n in sizes:
        depth, units = plans[n]
        if n in sampled:
            core_s, rel = sampled[n]
            error = f"{100 * rel:.0f} %"
        else:
            sol_nodes = per_sol[n] if n in per_sol else per_sol[ns[-1]] * growth ** (n - ns[-1])
            core_s = a.ns_per_node * 1e-9 * sol_nodes * q[n]
            error = "model"
        unit_s = core_s / units
        row = [str(n), str(depth), f"{units:,}", f"{core_s / 3600:,.3g}", error, human_seconds(unit_s),
               human_bytes(units * a.file_bytes_per_unit), human_bytes(units * a.journal_bytes_per_unit),
               human_bytes(units * a.master_bytes_per_unit)]
        for s in scales:
            cores = s * a.cores_per_node
            # At least one unit's time; more cores than units leave the rest idle.
            row.append(human_seconds(max(core_s / min(cores, units), unit_s)))
        for s in scales:
            cores = min(s * a.cores_per_node, units)
            rate = cores / unit_s
            row.append(f"{rate:,.3g}/s ({100 * rate / a.master_rate:.2g} %)")
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
