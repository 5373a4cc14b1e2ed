"""Board mathematics, vectorised with numpy, independent of the C++ code.

A board of size N is N column indices: entry r is the column of the queen in row r
(the project's docs/contract.md: "Board convention").  All functions take a 2-D array (M, N) of boards
(or (M, K) partial boards: the first K rows of an N board) and work row-wise.
"""

import numpy as np

__all__ = [
    "valid_mask", "placement_valid_mask", "explain_board", "map_square", "square_orbit",
    "border_squares", "border_tuples", "border_orbit", "valid_borders", "count_fillings",
    "transforms", "lex_le", "lex_lt", "canonical",
    "canonical_mask", "stabilizer_size", "class_size", "rot90_fixed_mask",
    "rot180_fixed_mask", "mirror", "board_keys", "solve_all", "iter_solutions",
    "count_completions", "valid_prefix_count", "keys_fit", "symmetry_keys", "placement_keys",
    "keys_lt", "keys_eq",
]


def _as_int(b):
    b = np.asarray(b)
    if b.ndim == 1:
        b = b[None, :]
    return b.astype(np.int16, copy=False)


def _distinct_rows(a):
    """True for rows whose entries are pairwise distinct."""
    m, k = a.shape
    if k < 2:
        return np.ones(m, dtype=bool)
    return _distinct_cols(np.ascontiguousarray(a.T))


def _distinct_cols(cols):
    """_distinct_rows of the rows whose entries are cols[0], cols[1], ... (each (M,), contiguous).

    Entries spanning fewer than 64 values (every board of N <= 32, its diagonals included) go
    through one 64-bit mask per row, a column at a time: ~10x faster than sorting the rows.  Up
    to 28 columns, a row's bits are distinct exactly when their sum equals their OR (no
    carries), which saves testing every bit against the mask."""
    k, m = cols.shape
    if k < 2:
        return np.ones(m, dtype=bool)
    lo, hi = int(cols.min()), int(cols.max())
    if hi - lo >= 64:
        s = np.sort(cols.T, axis=1)
        return ~(s[:, 1:] == s[:, :-1]).any(axis=1)
    one = np.uint64(1)
    seen = np.zeros(m, dtype=np.uint64)
    if k <= 28 and hi - lo < 59:   # k bits below 2^59 sum below 2^64
        total = np.zeros(m, dtype=np.uint64)
        for c in range(k):
            bit = np.left_shift(one, (cols[c] - lo).astype(np.uint64))
            seen |= bit
            total += bit
        return seen == total
    dup = np.zeros(m, dtype=bool)
    for c in range(k):
        bit = np.left_shift(one, (cols[c] - lo).astype(np.uint64))
        dup |= (seen & bit) != 0
        seen |= bit
    return ~dup


def valid_mask(b, n=None):
    """Boolean mask of rows that are valid (partial) placements on an n x n board.

    b has shape (M, K) with K <= n; rows are implicit (row r holds one queen in column b[r]).
    Valid: every value < n (and >= 0), no two queens in the same column or diagonal.
    """
    a = _as_int(b)
    m, k = a.shape
    if n is None:
        n = k
    cols = np.ascontiguousarray(a.T)   # (k, m): a row of the boards at a time
    ok = ((cols >= 0) & (cols < n)).all(axis=0)
    r = np.arange(k, dtype=np.int16)[:, None]
    ok &= _distinct_cols(cols)
    ok &= _distinct_cols(cols + r)
    ok &= _distinct_cols(cols - r)
    return ok


def placement_valid_mask(pl, n):
    """Like valid_mask for placements (M, n) where -1 marks a row left empty (to the search):
    the placed queens must be on the board and must not attack each other."""
    a = np.asarray(pl).astype(np.int32)
    if a.ndim == 1:
        a = a[None, :]
    m, k = a.shape
    filled = a >= 0
    ok = ((a < n) | ~filled).all(axis=1)
    r = np.arange(k, dtype=np.int32)
    sentinel = np.broadcast_to(100000 + r, a.shape)
    for vals in (a, a + r, a - r):
        ok &= _distinct_rows(np.where(filled, vals, sentinel))
    return ok


def explain_board(row, n=None):
    """Human-readable reasons why one (partial) board is invalid ('' when valid).
    Negative entries mark empty rows (placements) and are skipped."""
    row = [int(v) for v in np.asarray(row).ravel()]
    if n is None:
        n = len(row)
    problems = []
    for r, c in enumerate(row):
        if c >= n:
            problems.append(f"row {r} has column {c}, outside 0..{n - 1}")
    for r1 in range(len(row)):
        for r2 in range(r1 + 1, len(row)):
            c1, c2 = row[r1], row[r2]
            if c1 < 0 or c2 < 0:
                continue
            if c1 == c2:
                problems.append(f"rows {r1} and {r2} share column {c1}")
            elif abs(c1 - c2) == r2 - r1:
                problems.append(f"rows {r1} and {r2} share a diagonal "
                                f"(columns {c1} and {c2})")
    return "; ".join(problems)


def map_square(n, k, r, c):
    """Square (r, c) under symmetry k of the square: k % 4 quarter turns clockwise, after the
    left-right mirror when k >= 4."""
    if k >= 4:
        c = n - 1 - c
    for _ in range(k % 4):
        r, c = c, n - 1 - r
    return r, c


def square_orbit(squares, n):
    """The distinct images (frozensets of squares) of a set of squares under the 8 symmetries,
    as a dict image -> first k producing it."""
    out = {}
    for k in range(8):
        img = frozenset(map_square(n, k, r, c) for r, c in squares)
        out.setdefault(img, k)
    return out


def border_squares(placement, n):
    """The queens of a placement row (-1 = empty) on the board's border (row 0, row n-1,
    column 0, column n-1)."""
    return frozenset((r, int(c)) for r, c in enumerate(placement)
                     if c >= 0 and (r in (0, n - 1) or c in (0, n - 1)))


def border_tuples(pl, n):
    """(top, bottom, left, right) per placement row (M, n), -1 = empty row: the columns of the
    queens of rows 0 and n-1 and the rows of the queens of columns 0 and n-1 (a corner queen
    counts twice), as an (M, 4) int64 array; -1 where there is no such queen."""
    a = np.asarray(pl).astype(np.int64)
    if a.ndim == 1:
        a = a[None, :]
    out = np.full((a.shape[0], 4), -1, dtype=np.int64)
    if a.shape[0] == 0:
        return out
    out[:, 0] = a[:, 0]
    out[:, 1] = a[:, n - 1]
    for j, col in ((2, 0), (3, n - 1)):
        hit = a == col
        out[:, j] = np.where(hit.any(axis=1), hit.argmax(axis=1), -1)
    return out


def _border_queens(t, n):
    top, bottom, left, right = (int(x) for x in t)
    return frozenset({(0, top), (n - 1, bottom), (left, 0), (right, n - 1)})


def border_orbit(t, n):
    """The distinct images of a border (top, bottom, left, right) under the 8 symmetries of the
    square, as a set of border tuples (the border itself included)."""
    out = set()
    for k in range(8):
        img = [map_square(n, k, r, c) for r, c in _border_queens(t, n)]
        top = next(c for r, c in img if r == 0)
        bottom = next(c for r, c in img if r == n - 1)
        left = next(r for r, c in img if c == 0)
        right = next(r for r, c in img if c == n - 1)
        out.add((top, bottom, left, right))
    return out


def valid_borders(n):
    """Every valid border of an n board as an (M, 4) int64 array of (top, bottom, left, right):
    the queens (0, top), (n-1, bottom), (left, 0), (right, n-1) do not attack each other
    (a queen named twice is a corner queen)."""
    g = np.indices((n, n, n, n)).reshape(4, -1).astype(np.int64)
    top, bottom, left, right = g
    rs = [np.zeros_like(top), np.full_like(top, n - 1), left, right]
    cs = [top, bottom, np.zeros_like(top), np.full_like(top, n - 1)]
    ok = np.ones(top.shape, dtype=bool)
    for i in range(4):
        for j in range(i + 1, 4):
            same = (rs[i] == rs[j]) & (cs[i] == cs[j])
            attack = (rs[i] == rs[j]) | (cs[i] == cs[j]) | \
                (np.abs(rs[i] - rs[j]) == np.abs(cs[i] - cs[j]))
            ok &= same | ~attack
    return g[:, ok].T.copy()


def count_fillings(n, placement, rows, limit=None):
    """Number of ways to put one queen in each of `rows` (empty rows of `placement`, n entries,
    -1 = empty) so that no two queens of the result attack each other (the placed queens are
    assumed valid).  None when the count exceeds `limit`."""
    rows = [int(r) for r in rows]
    full = (1 << n) - 1

    def attacked(row, queens):
        m = 0
        for qr, qc in queens:
            d = row - qr
            m |= 1 << qc
            if 0 <= qc + d < n:
                m |= 1 << (qc + d)
            if 0 <= qc - d < n:
                m |= 1 << (qc - d)
        return m

    fixed = [(r, int(c)) for r, c in enumerate(placement) if c >= 0]
    base = [attacked(r, fixed) for r in rows]
    queens = []
    count = [0]

    def rec(i):
        if i == len(rows):
            count[0] += 1
            return limit is not None and count[0] > limit
        free = full & ~base[i] & ~attacked(rows[i], queens)
        while free:
            bit = free & -free
            free ^= bit
            queens.append((rows[i], bit.bit_length() - 1))
            stop = rec(i + 1)
            queens.pop()
            if stop:
                return True
        return False

    rec(0)
    return None if limit is not None and count[0] > limit else count[0]


def mirror(b, n=None):
    """Left-right mirror c -> n-1-c (works for partial boards when n is given)."""
    a = _as_int(b)
    if n is None:
        n = a.shape[1]
    return (n - 1) - a


def transforms(b):
    """The eight transforms of full boards b (M, N) as a list of int16 arrays.

    Order: identity, mirror (c -> N-1-c), vertical flip, rotation 180, transpose,
    rotation 90 (one way), rotation 90 (other way), anti-transpose.
    """
    a = _as_int(b)
    m, n = a.shape
    last = n - 1
    inv = np.empty_like(a)
    rows = np.broadcast_to(np.arange(n, dtype=np.int16), a.shape)
    # inverse permutation; only meaningful for valid boards (permutations)
    np.put_along_axis(inv, np.clip(a, 0, last).astype(np.intp), rows, axis=1)
    flip = a[:, ::-1]
    inv_flip = inv[:, ::-1]
    return [a, last - a, flip, last - flip, inv, last - inv, inv_flip, last - inv_flip]


def lex_lt(a, c):
    """Row-wise lexicographic a < c."""
    d = a != c
    anyd = d.any(axis=1)
    idx = d.argmax(axis=1)
    ar = np.arange(a.shape[0])
    return anyd & (a[ar, idx] < c[ar, idx])


def lex_le(a, c):
    """Row-wise lexicographic a <= c."""
    return ~lex_lt(c, a)


def canonical(b):
    """Lexicographically smallest of the eight transforms, row-wise."""
    ts = transforms(b)
    cur = ts[0].copy()
    for t in ts[1:]:
        less = lex_lt(t, cur)
        cur[less] = t[less]
    return cur


def canonical_mask(b):
    """True where the board is its own canonical representative."""
    ts = transforms(b)
    ok = np.ones(ts[0].shape[0], dtype=bool)
    for t in ts[1:]:
        ok &= lex_le(ts[0], t)
    return ok


def stabilizer_size(b):
    """How many of the eight transforms leave each board unchanged."""
    ts = transforms(b)
    cnt = np.zeros(ts[0].shape[0], dtype=np.int64)
    for t in ts:
        cnt += (t == ts[0]).all(axis=1)
    return cnt


def class_size(b):
    """Size of the symmetry class: 8 / stabilizer size (1 for N = 1)."""
    return 8 // stabilizer_size(b)


def rot180_fixed_mask(b):
    ts = transforms(b)
    return (ts[3] == ts[0]).all(axis=1)


def rot90_fixed_mask(b):
    ts = transforms(b)
    return (ts[5] == ts[0]).all(axis=1)


# ---- the eight transforms as packed keys ---------------------------------------------------
#
# A board of N <= 24 columns < 32 packs, order-preservingly, into two uint64 words of 5-bit
# fields (hi: entries 0..11, lo: entries 12..N-1, the first entry in the highest field), so
# row-wise lexicographic comparison and equality become integer comparisons.  Of the eight
# transforms (the order of transforms()) only four need packing: a mirrored board's fields are
# N-1 minus the board's, so its key is the key of an all-(N-1) board minus the board's key.

KEY_FIELD_BITS = 5
_HI_FIELDS = 12


def keys_fit(n):
    """True when boards of size n pack into two words (symmetry_keys, placement_keys)."""
    return 1 <= n <= 2 * _HI_FIELDS


def _field_shifts(n):
    j = np.arange(n)
    in_hi = j < _HI_FIELDS
    shift = np.where(in_hi, _HI_FIELDS - 1 - j, n - 1 - j) * KEY_FIELD_BITS
    return in_hi, shift.astype(np.uint64)


def _pack_cols(cols, n):
    """Keys (hi, lo) of boards given as columns: cols[j] holds entry j of every board."""
    in_hi, shift = _field_shifts(n)
    m = cols.shape[1]
    hi = np.zeros(m, dtype=np.uint64)
    lo = np.zeros(m, dtype=np.uint64)
    for j in range(n):
        v = cols[j].astype(np.uint64) << shift[j]
        if in_hi[j]:
            hi |= v
        else:
            lo |= v
    return hi, lo


def symmetry_keys(b):
    """Keys (hi, lo) of the eight transforms of full boards b (M, N), in transforms() order.
    Meaningful for valid boards (permutations) of N with keys_fit(N)."""
    a = np.asarray(b)
    m, n = a.shape
    cols = np.ascontiguousarray(a.T, dtype=np.uint8)   # (n, m): entry j of every board
    inv = np.empty(n * m, dtype=np.uint8)
    idx = np.arange(m, dtype=np.intp)
    for r in range(n):   # inv[c] = the row of the queen in column c
        inv[np.minimum(cols[r], n - 1).astype(np.intp) * m + idx] = r
    inv = inv.reshape(n, m)
    full_hi, full_lo = _pack_cols(np.full((n, 1), n - 1, dtype=np.uint8), n)
    keys = []
    for c in (cols, cols[::-1], inv, inv[::-1]):
        hi, lo = _pack_cols(c, n)
        keys.append((hi, lo))
        keys.append((full_hi[0] - hi, full_lo[0] - lo))
    return keys


def placement_keys(pl):
    """For placements (M, N) with -1 in rows left to the search: (key, mask) pairs of words
    such that a board completes the placement exactly when (board_key & mask) == key."""
    p = np.asarray(pl)
    m, n = p.shape
    cols = np.ascontiguousarray(p.T)
    placed = cols >= 0
    key = _pack_cols(np.where(placed, cols, 0), n)
    mask = _pack_cols(np.where(placed, (1 << KEY_FIELD_BITS) - 1, 0), n)
    return key, mask


def keys_lt(a, c):
    """Row-wise a < c for keys (hi, lo)."""
    return (a[0] < c[0]) | ((a[0] == c[0]) & (a[1] < c[1]))


def keys_eq(a, c):
    return (a[0] == c[0]) & (a[1] == c[1])


_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_FNV = np.uint64(0x100000001B3)


def _mix64(x):
    x = x ^ (x >> np.uint64(30))
    x = x * _MIX1
    x = x ^ (x >> np.uint64(27))
    x = x * _MIX2
    return x ^ (x >> np.uint64(31))


def board_keys(b):
    """One uint64 per board.  Exact (order preserving 4-bit packing) for N <= 16,
    a 64-bit hash for larger N (callers confirm equal keys by comparing the boards).
    Returns (keys, exact)."""
    a = np.asarray(b)
    m, n = a.shape
    cols = np.ascontiguousarray(a.T).astype(np.uint64)   # (n, m): a column at a time, contiguous
    if n <= 16:
        keys = np.zeros(m, dtype=np.uint64)
        for i in range(n):
            keys |= (cols[i] & np.uint64(15)) << np.uint64(4 * (n - 1 - i))
        return keys, True
    h = np.full(m, 0xCBF29CE484222325, dtype=np.uint64)
    with np.errstate(over="ignore"):
        for i in range(n):
            h ^= cols[i]
            h *= _FNV
        h = _mix64(h)
    return h, False


def mix_keys(keys):
    """A well mixed copy of keys (used to partition keys into passes)."""
    with np.errstate(over="ignore"):
        return _mix64(keys.astype(np.uint64, copy=True))


# ----------------------------------------------------------------------------------------
# A tiny pure-Python solver (bitmasks), used for recounting units and for drawing boards.

def _forced(n, prefix):
    """prefix (first rows) or placement (n entries, -1 = empty) -> list of n forced columns
    (-1 = free); None when a forced column is off the board."""
    forced = [-1] * n
    for r, c in enumerate(prefix):
        c = int(c)
        if r >= n or c >= n:
            return None
        forced[r] = c
    return forced


class _RowRules:
    """The columns a row may take given a prefix/placement: the forced column of a pre-placed
    row, else any column no pre-placed queen owns (one copy for both searches below)."""

    def __init__(self, n, forced):
        self.full = (1 << n) - 1
        self.forced = forced
        self.forced_cols = 0
        for c in forced:
            if c >= 0:
                self.forced_cols |= 1 << c

    @classmethod
    def of(cls, n, prefix):
        forced = _forced(n, prefix)
        return None if forced is None else cls(n, forced)

    def free(self, row, attacked):
        free = self.full & ~attacked
        fc = self.forced[row]
        return free & (1 << fc) if fc >= 0 else free & ~self.forced_cols


def iter_solutions(n, prefix=(), limit_nodes=None):
    """Yield every completion (tuple of n columns) of a prefix (the first rows) or of a
    placement (n entries, -1 for rows left to the search), in lexicographic order.
    Raises RuntimeError when limit_nodes search nodes are exceeded."""
    rules = _RowRules.of(n, prefix)
    if rules is None:
        return
    full = rules.full
    board = []
    nodes = [0]

    def rec(row, cols, ld, rd):
        if row == n:
            yield tuple(board)
            return
        free = rules.free(row, cols | ld | rd)
        while free:
            bit = free & -free
            free ^= bit
            nodes[0] += 1
            if limit_nodes is not None and nodes[0] > limit_nodes:
                raise RuntimeError("node limit exceeded")
            board.append(bit.bit_length() - 1)
            yield from rec(row + 1, cols | bit, ((ld | bit) << 1) & full, (rd | bit) >> 1)
            board.pop()

    yield from rec(0, 0, 0, 0)


def solve_all(n):
    """All solutions of size n as an (S, n) uint8 array in lexicographic order."""
    sols = list(iter_solutions(n))
    return np.array(sols, dtype=np.uint8).reshape(len(sols), n)


def count_completions(n, prefix=()):
    """Number of completions of a prefix or placement (as iter_solutions), counted with
    bitmasks without building boards."""
    rules = _RowRules.of(n, prefix)
    if rules is None:
        return 0
    full = rules.full

    def rec(row, cols, ld, rd):
        if row == n:
            return 1
        free = rules.free(row, cols | ld | rd)
        total = 0
        while free:
            bit = free & -free
            free ^= bit
            total += rec(row + 1, cols | bit, ((ld | bit) << 1) & full, (rd | bit) >> 1)
        return total

    return rec(0, 0, 0, 0)


def valid_prefix_count(n, depth, limit=None):
    """Number of valid placements of the first `depth` rows on an n board
    (None when the count exceeds `limit`)."""
    full = (1 << n) - 1

    def rec(row, cols, ld, rd):
        if row == depth:
            return 1
        total = 0
        free = full & ~(cols | ld | rd)
        while free:
            bit = free & -free
            free ^= bit
            total += rec(row + 1, cols | bit, ((ld | bit) << 1) & full, (rd | bit) >> 1)
            if limit is not None and total > limit:
                return total
        return total

    total = rec(0, 0, 0, 0)
    if limit is not None and total > limit:
        return None
    return total
