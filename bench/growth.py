#!/usr/bin/python3
"""How the cost of a whole count grows with N, ours against the peer (issue 13), from the
estimates of bench/engines.sh (OUT=FILE; engines.sh runs this on its own file at the end).

Prints the table: per N, ours (the file's first engine that is not the peer: vector, or avx2 on a
CPU without AVX-512) and the peer in core-seconds with their standard errors, ours / peer, and each
one's growth from the N before. Then, for each, a least-squares fit of ln(core-seconds) against N
over the N >= --fit-from in the file (3 at least): the growth per N and its standard error (from
the fit's residuals, so the zigzag of the peer between quarter sizes shows in it). Then ours / peer
extrapolated from the largest N both have to --to with the two fits, at one standard error.

Usage: bench/growth.py FILE [--fit-from 21] [--to 27]"""
import argparse
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import estimates  # noqa: E402


def fit(points):
    """(growth per N, standard error of ln(growth)) of a least-squares line through
    (N, ln(core-seconds)) for the (N, core-seconds) points; 3 points at least."""
    xs, ys = [n for n, _ in points], [math.log(t) for _, t in points]
    k = len(xs)
    mx, my = sum(xs) / k, sum(ys) / k
    sxx = sum((x - mx) ** 2 for x in xs)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx
    rss = sum((y - my - slope * (x - mx)) ** 2 for x, y in zip(xs, ys))
    return math.exp(slope), math.sqrt(rss / (k - 2) / sxx)


def pct(rel):
    return f"{100 * rel:.0f}%"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("file", help="estimates of bench/engines.sh (OUT=FILE)")
    ap.add_argument("--fit-from", type=int, default=21, help="the smallest N of the fits (default 21)")
    ap.add_argument("--to", type=int, default=27, help="the N to extrapolate ours / peer to (default 27)")
    a = ap.parse_args()
    try:
        engines, est = estimates.read(a.file)
    except OSError as e:
        ap.error(f"{a.file}: {e.strerror}")
    except ValueError as e:
        ap.error(str(e))
    ours = next((e for e in engines if e != "peer"), None)
    sides = [(name, engine) for name, engine in (("ours", ours), ("peer", "peer")) if engine in engines]
    ns = sorted({n for _, n in est})

    def value(engine, n):
        e = est.get((engine, n))
        return (e.core_s, e.rel_se) if e and e.core_s > 0 else None

    print(f"\n{'N':>3} {'ours core-s':>18} {'peer core-s':>18} {'ours/peer':>12} {'ours growth':>14} {'peer growth':>14}")
    for n in ns:
        o, p = value(ours, n), value("peer", n)
        cells = [f"{v[0]:.4g} +-{pct(v[1])}" if v else "-" for v in (o, p)]
        cells.append(f"{o[0] / p[0]:.3f} +-{pct(math.hypot(o[1], p[1]))}" if o and p else "-")
        for engine, v in ((ours, o), ("peer", p)):
            before = value(engine, n - 1)
            cells.append(f"x{v[0] / before[0]:.2f} +-{pct(math.hypot(v[1], before[1]))}" if v and before else "-")
        print(f"{n:3d} {cells[0]:>18} {cells[1]:>18} {cells[2]:>12} {cells[3]:>14} {cells[4]:>14}")

    growth = {}
    for name, engine in sides:
        points = [(n, value(engine, n)[0]) for n in ns if n >= a.fit_from and value(engine, n)]
        if len(points) < 3:
            print(f"{name}: {len(points)} N from {a.fit_from} on, no fit (3 at least)")
            continue
        growth[name] = fit(points)
        g, se = growth[name]
        print(f"{name}: x{g:.2f} per N +-{pct(se)}, fitted over N = {points[0][0]}-{points[-1][0]} "
              f"({len(points)} N, least squares on the logarithms)")
    both = [n for n in ns if value(ours, n) and value("peer", n)]
    if len(growth) == 2 and both and both[-1] < a.to:
        n0 = both[-1]
        (o, eo), (p, ep) = value(ours, n0), value("peer", n0)
        steps = a.to - n0
        ratio = o / p * (growth["ours"][0] / growth["peer"][0]) ** steps
        err = math.sqrt(eo ** 2 + ep ** 2 + (steps * growth["ours"][1]) ** 2 + (steps * growth["peer"][1]) ** 2)
        print(f"ours / peer at N = {a.to}, extrapolated from N = {n0} with both fits: {ratio:.3g} "
              f"({ratio * math.exp(-err):.3g}-{ratio * math.exp(err):.3g} at one standard error)")


if __name__ == "__main__":
    main()
