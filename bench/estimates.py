"""The estimates bench/engines.sh writes (OUT=FILE, and bench/sampled-nodes.txt), one line each:

    estimate N ENGINE CORE_S REL_SE [UNITS TIMED DEPTH NODES NODES_REL_SE [SOLUTIONS SOLUTIONS_REL_SE [SYMMETRY]]]

ENGINE is an engine of bench/nq_engines (vector, avx2, scalar, mitm) or `peer` (its slices:
PARTS SLICES 0 0 0). CORE_S is the estimated core-seconds of the whole plan, REL_SE its relative
standard error; NODES (0 for the peer) the plan's search nodes, counted on the sampled units.
SYMMETRY (nq_engines --symmetry; lines without it are full) must be full: the growth and the
capacity model are those of `nqueens run`'s default plan, and another plan's nodes differ (a
mirror plan walks ~2.7x as many)."""
from dataclasses import dataclass
from pathlib import Path


@dataclass
class Estimate:
    core_s: float
    rel_se: float
    nodes: float = 0.0
    nodes_rel_se: float = 0.0


def read(path):
    """(the engines in the order they first appear, {(engine, N): Estimate}); a later line of the
    same engine and N replaces an earlier one. Other lines are skipped. Raises ValueError, naming
    the line, for the estimates of a plan other than full."""
    engines, est = [], {}
    for number, line in enumerate(Path(path).read_text().splitlines(), 1):
        w = line.split()
        if len(w) < 5 or w[0] != "estimate":
            continue
        if len(w) >= 13 and w[12] != "full":
            raise ValueError(f"{path}, line {number}: estimates of a plan of symmetry {w[12]}; the growth and "
                             "the capacity model are those of full plans (nqueens run's default): sample "
                             "with nq_engines --symmetry full")
        engine, n = w[2], int(w[1])
        if engine not in engines:
            engines.append(engine)
        nodes = (float(w[8]), float(w[9])) if len(w) >= 10 else (0.0, 0.0)
        est[engine, n] = Estimate(float(w[3]), float(w[4]), *nodes)
    return engines, est
