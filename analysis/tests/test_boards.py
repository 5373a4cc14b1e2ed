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


@pytest.mark.parametrize("n", [1, 2, 5, 12, 13, 17, 20, 24])
def test_symmetry_keys_order_and_equality_match_the_transforms(n):
    """Packed keys compare as the transforms do, row by row (random permutations plus a few
    symmetric ones: the identity board and its reversal)."""
    rng = np.random.default_rng(n)
    b = np.array([rng.permutation(n) for _ in range(400)] + [np.arange(n), np.arange(n)[::-1]],
                 dtype=np.uint8)
    ts = B.transforms(b)
    ks = B.symmetry_keys(b)
    assert len(ks) == 8
    for i in range(8):
        for j in range(8):
            np.testing.assert_array_equal(B.keys_lt(ks[i], ks[j]), B.lex_lt(ts[i], ts[j]))
            np.testing.assert_array_equal(B.keys_eq(ks[i], ks[j]), (ts[i] == ts[j]).all(axis=1))


def test_placement_keys_match_the_placement_test():
    n = 17
    rng = np.random.default_rng(1)
    b = np.array([rng.permutation(n) for _ in range(300)], dtype=np.uint8)
    pl = b.astype(np.int16).copy()
    pl[rng.random(pl.shape) < 0.6] = -1          # rows left to the search
    flip = rng.random(len(b)) < 0.5
    pl[flip, 3] = (pl[flip, 3] + 1) % n            # some placements no longer completed
    pl[flip & (pl[:, 3] == b[:, 3])] = -1          # (wrapped back onto the board's own column)
    want = ((b == pl) | (pl < 0)).all(axis=1)
    (kh, kl), (mh, ml) = B.placement_keys(pl)
    h, l = B.symmetry_keys(b)[0]
    np.testing.assert_array_equal(((h & mh) == kh) & ((l & ml) == kl), want)
    assert 0 < want.sum() < len(b)


def test_distinct_rows_both_ways():
    rng = np.random.default_rng(2)
    for k in (2, 9, 28, 30):
        a = rng.integers(0, 60, size=(500, k)).astype(np.int16)
        a[::3] = np.array([rng.permutation(60)[:k] for _ in range(len(a[::3]))])
        want = np.array([len(set(r)) == k for r in a.tolist()])
        np.testing.assert_array_equal(B._distinct_rows(a), want)
