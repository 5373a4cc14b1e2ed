"""The board mathematics against brute force."""

import itertools

import numpy as np
import pytest

from nqanalysis import boards as B
from nqanalysis.known import load_known


def brute_solutions(n):
    out = []
    for p in itertools.permutations(range(n)):
        if all(abs(p[i] - p[j]) != j - i for i in range(n) for j in range(i + 1, n)):
            out.append(p)
    return out


def transforms_by_squares(p):
    n = len(p)
    sq = {(r, c) for r, c in enumerate(p)}
    maps = [lambda r, c: (r, c), lambda r, c: (c, n - 1 - r), lambda r, c: (n - 1 - r, n - 1 - c),
            lambda r, c: (n - 1 - c, r), lambda r, c: (r, n - 1 - c), lambda r, c: (n - 1 - r, c),
            lambda r, c: (c, r), lambda r, c: (n - 1 - c, n - 1 - r)]
    res = []
    for m in maps:
        t = dict(m(r, c) for r, c in sq)
        res.append(tuple(t[r] for r in range(n)))
    return res


@pytest.mark.parametrize("n", range(1, 8))
def test_solver_and_validity(n):
    brute = brute_solutions(n)
    sols = B.solve_all(n)
    assert [tuple(s) for s in sols.tolist()] == brute
    perms = np.array(list(itertools.permutations(range(n))), dtype=np.uint8).reshape(-1, n)
    valid = B.valid_mask(perms, n)
    assert [tuple(p) for p in perms[valid].tolist()] == brute
    assert B.count_completions(n) == len(brute)


@pytest.mark.parametrize("n", [4, 5, 6, 7, 8])
def test_symmetry_against_square_transforms(n):
    sols = B.solve_all(n)
    ts = B.transforms(sols)
    for i, p in enumerate(sols.tolist()):
        mine = sorted(tuple(t[i].tolist()) for t in ts)
        ref = transforms_by_squares(p)
        assert mine == sorted(ref)
        assert tuple(B.canonical(sols[i:i + 1])[0].tolist()) == min(ref)
        assert B.class_size(sols[i:i + 1])[0] == len(set(ref))
        assert B.canonical_mask(sols[i:i + 1])[0] == (tuple(p) == min(ref))


@pytest.mark.parametrize("n", range(1, 11))
def test_burnside_counts_match_table(n):
    k = load_known()[n]
    sols = B.solve_all(n)
    assert len(sols) == k.total
    if len(sols):
        assert B.canonical_mask(sols).sum() == k.unique
        assert B.rot180_fixed_mask(sols).sum() == k.rot180_fixed
        assert B.rot90_fixed_mask(sols).sum() == k.rot90_fixed


def test_keys_exact_and_ordered():
    sols = B.solve_all(8)
    keys, exact = B.board_keys(sols)
    assert exact and len(np.unique(keys)) == len(sols)
    assert np.all(np.diff(keys.astype(np.float64)) > 0)   # lexicographic order preserved
    rng = np.random.default_rng(0)
    big = np.array([rng.permutation(20) for _ in range(1000)], dtype=np.uint8)
    hk, exact = B.board_keys(big)
    assert not exact and len(np.unique(hk)) == len(np.unique(big, axis=0))


def test_explain_board():
    assert B.explain_board([0, 4, 7, 5, 2, 6, 1, 3]) == ""
    assert "rows 0 and 1 share column 0" in B.explain_board([0, 0, 7, 5, 2, 6, 1, 3])
    assert "share a diagonal" in B.explain_board([0, 1, 7, 5, 2, 6, 4, 3])
    assert "outside 0..7" in B.explain_board([8, 4, 7, 5, 2, 6, 1, 3])


def test_valid_prefix_count():
    for n in range(1, 7):
        for d in range(0, n + 1):
            brute = sum(1 for p in itertools.product(range(n), repeat=d)
                        if B.explain_board(p, n) == "")
            assert B.valid_prefix_count(n, d) == brute
