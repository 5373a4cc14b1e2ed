"""bench/growth.py on made-up estimates whose growth is known by construction (CTest bench.growth):
ours exactly x9 per N; the peer x10 per N times e^(+d, -d, -d, +d) at N = 21-24. Those residuals
have zero mean and are orthogonal to N, so the fitted slope is exactly ln(10) and its standard
error is sqrt(4 d^2 / 2 / 5) = d sqrt(0.4) (4 points, 2 parameters, sum of (N - mean)^2 = 5)."""
import math
import subprocess
import sys
from pathlib import Path

GROWTH = Path(__file__).resolve().parent / "growth.py"
D = 0.1
OURS = {n: 1000 * 9 ** (n - 21) for n in range(19, 25)}
PEER = {n: 2000 * 10 ** (n - 21) * math.exp(e) for n, e in zip(range(21, 25), (D, -D, -D, D))}


def growth(tmp_path, lines, *args):
    f = tmp_path / "est.txt"
    f.write_text("".join(lines))
    p = subprocess.run([sys.executable, str(GROWTH), str(f), *args], capture_output=True, text=True, check=True)
    return p.stdout


def est(n, engine, core_s, rel_se=0.0):
    nodes = "0 0 0" if engine == "peer" else f"{n} 1 2 {core_s * 1e9:g} 0.01"
    return f"estimate {n} {engine} {core_s!r} {rel_se} {nodes}\n"


def test_fits_the_growth_of_each_and_extrapolates_the_ratio(tmp_path):
    out = growth(tmp_path, [est(n, "vector", t, 0.02) for n, t in OURS.items()] +
                 [est(n, "peer", t, 0.05) for n, t in PEER.items()])
    assert "ours: x9.00 per N +-0%, fitted over N = 21-24 (4 N, least squares on the logarithms)" in out, out
    se = D * math.sqrt(0.4)
    assert f"peer: x10.00 per N +-{100 * se:.0f}%, fitted over N = 21-24" in out, out
    # The table: ours at 22 grew x9 from 21; ours / peer at 21 is 1000 / (2000 e^d), errors combined.
    row = {line.split()[0]: line.split() for line in out.splitlines() if line[:3].strip().isdigit()}
    assert row["22"][1:3] == ["9000", "+-2%"] and row["22"][7:9] == ["x9.00", "+-3%"], row["22"]
    assert row["21"][5:7] == [f"{0.5 * math.exp(-D):.3f}", "+-5%"], row["21"]
    assert row["19"][3] == "-" and row["20"][3:7] == ["-", "-", "x9.00", "+-3%"], (row["19"], row["20"])
    # From N = 24 (ratio 1000 * 9^3 / (2000 * 10^3 * e^d)) to 27 at the fitted x9 against x10; the error
    # adds the ratio's own (2 % and 5 %) and 3 steps of the peer's slope error.
    ratio = 0.5 * 0.9 ** 3 * math.exp(-D) * 0.9 ** 3
    err = math.sqrt(0.02 ** 2 + 0.05 ** 2 + (3 * se) ** 2)
    assert (f"ours / peer at N = 27, extrapolated from N = 24 with both fits: {ratio:.3g} "
            f"({ratio * math.exp(-err):.3g}-{ratio * math.exp(err):.3g} at one standard error)") in out, out


def test_fewer_than_three_sizes_give_no_fit_and_no_extrapolation(tmp_path):
    out = growth(tmp_path, [est(n, "vector", OURS[n]) for n in (19, 20, 21, 22)] + [est(21, "peer", PEER[21])])
    assert "ours: 2 N from 21 on, no fit (3 at least)" in out and "peer: 1 N from 21 on" in out, out
    assert "extrapolated" not in out, out
    # --fit-from takes the smaller sizes in.
    assert "ours: x9.00 per N +-0%, fitted over N = 19-22" in growth(tmp_path, [est(n, "vector", OURS[n]) for n in (19, 20, 21, 22)],
                                                                     "--fit-from", "19")


def test_only_the_estimates_of_full_plans_are_read(tmp_path):
    """nq_engines ends each estimate line with the plan's symmetry: full is read as a line without
    it, any other is refused (exit 2, naming the line), since a mirror plan's nodes are ~2.7x."""
    lines = [est(n, "vector", OURS[n]) for n in (21, 22, 23)]
    full = [line.rstrip("\n") + " 0 0 full\n" for line in lines]
    assert growth(tmp_path, full) == growth(tmp_path, lines)
    f = tmp_path / "est.txt"
    f.write_text("".join(full[:2]) + full[2].replace(" full", " mirror"))
    p = subprocess.run([sys.executable, str(GROWTH), str(f)], capture_output=True, text=True)
    assert p.returncode == 2, p
    assert "line 3: estimates of a plan of symmetry mirror" in p.stderr and "--symmetry full" in p.stderr, p.stderr
