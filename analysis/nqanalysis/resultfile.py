"""Reading nqueens result files (HDF5, format `nqueens-result` version 2, and version 1; the
schema is the project's docs/file-format.md)."""

import math
import os
import stat

import numpy as np

try:
    import h5py
except ImportError as exc:  # pragma: no cover - environment problem
    raise SystemExit("nqanalyze: cannot import h5py (%s); run with /usr/bin/python3" % exc)


class NQError(Exception):
    """An error with a one-line message and an exit code."""
    exit_code = 1


class UsageError(NQError):
    exit_code = 2


class BadFileError(NQError):
    exit_code = 3


class OutputError(NQError):
    """Cannot write an output file (exit 4, as nqueens' I/O error)."""
    exit_code = 4


FORMAT_NAME = "nqueens-result"
FORMAT_VERSION = 2
READABLE_VERSIONS = (1, 2)   # 1: the counts as uint64 only

# name -> kind; kinds: str (fixed-length ASCII), i32, i64, u64, f64
ROOT_ATTRS = {
    "format": "str", "format_version": "i32", "program_version": "str", "git_commit": "str",
    "n": "i32", "mode": "str", "boards_stored": "str", "depth": "i32", "symmetry": "str",
    "ranks": "i32", "threads": "i32", "hosts": "str", "start_time": "str", "end_time": "str",
    "wall_seconds": "f64", "status": "str", "units_total": "u64", "units_done": "u64",
    "shard_index": "i32", "shard_count": "i32", "total": "u64", "unique": "u64",
    "rot180_fixed": "u64", "rot90_fixed": "u64", "known_total": "i64", "known_unique": "i64",
    "matches_known": "str",
    "total_hi": "u64", "total_lo": "u64", "total_decimal": "str",
    "unique_hi": "u64", "unique_lo": "u64", "unique_decimal": "str",
}

# Counts that can pass 2^64 (Q(29) ~ 2.7e19): from version 2 on each is four attributes, the
# uint64 <name> (2^64 - 1 when the value does not fit), <name>_hi and <name>_lo (the value's
# 64-bit halves) and <name>_decimal (its decimal digits).
WIDE_COUNTS = ("total", "unique")
DOES_NOT_FIT = 2 ** 64 - 1
WIDE_PARTS = ("_hi", "_lo", "_decimal")


def root_attrs(version):
    """The root attributes (name -> kind) of a file of this format version."""
    if version == 1:
        return {k: v for k, v in ROOT_ATTRS.items() if not any(k == w + p for w in WIDE_COUNTS for p in WIDE_PARTS)}
    return ROOT_ATTRS


def count_attrs(name, value):
    """The attributes (name -> numpy value) that store the count `value` (version 2)."""
    value = int(value)
    return {name: np.uint64(value if value < 2 ** 64 else DOES_NOT_FIT),
            name + "_hi": np.uint64(value >> 64), name + "_lo": np.uint64(value & (2 ** 64 - 1)),
            name + "_decimal": np.bytes_(str(value))}

# dataset -> (kind, rank)
UNIT_DATASETS = {
    "id": ("u64", 1), "placement": ("u8", 2), "multiplicity": ("u32", 1), "solutions": ("u64", 1),
    "nodes": ("u64", 1), "seconds": ("f64", 1), "started": ("f64", 1), "rank": ("i32", 1),
    "thread": ("i32", 1),
}
BOARD_DATASETS = {"solutions": ("u8", 2), "class_size": ("u8", 1), "unit": ("u64", 1)}

EMPTY_ROW = 0xFF   # /units/placement: the row is left to the search
MAX_N = 32         # the largest board nqueens writes (core::kMaxN)

# The values a numeric root attribute of a kind can hold, and (ATTR_RANGES: low, high; None =
# the kind's) those a run writes: n a board size, depth 0..n (checked with n), at least one rank
# and thread, an index below shard_count (checked with it), no negative time, known_total and
# known_unique -1 where none is published (the uint64 counts are >= 0 by their kind).
KIND_RANGES = {"i32": (-2 ** 31, 2 ** 31 - 1), "i64": (-2 ** 63, 2 ** 63 - 1), "u64": (0, 2 ** 64 - 1),
               "f64": (-math.inf, math.inf)}
ATTR_RANGES = {"n": (1, MAX_N), "depth": (0, None), "ranks": (1, None), "threads": (1, None),
               "shard_index": (0, None), "shard_count": (1, None), "wall_seconds": (0, None),
               "known_total": (-1, None), "known_unique": (-1, None)}


def shard_size(units_total, index, count):
    """The units of shard index/count of a job of units_total: the ids i < units_total with
    i % count == index (len(range(index, units_total, count)), which stops at 2^63)."""
    return max(0, (units_total - index + count - 1) // count)


KIND_DTYPES = {
    "i32": np.dtype("int32"), "i64": np.dtype("int64"), "u8": np.dtype("uint8"),
    "u32": np.dtype("uint32"), "u64": np.dtype("uint64"), "f64": np.dtype("float64"),
}


def dtype_problem(dtype, kind):
    """Compare a numpy dtype with a schema kind.

    Returns (severity, message): severity None (fine), 'warn' (same category, different
    width or signedness) or 'fail' (different category: string/integer/float)."""
    dtype = np.dtype(dtype)
    if kind == "str":
        if dtype.kind in ("S", "U", "O"):
            return None, ""
        return "fail", f"is {dtype}, schema says a string"
    want = KIND_DTYPES[kind]
    if dtype.kind not in ("i", "u", "f"):
        return "fail", f"is {_dtype_name(dtype)}, schema says {want}"
    if (want.kind == "f") != (dtype.kind == "f"):
        return "fail", f"is {dtype}, schema says {want}"
    if dtype.newbyteorder("=") != want:
        return "warn", f"is {dtype}, schema says {want}"
    return None, ""


def _dtype_name(dtype):
    if dtype.kind in ("S", "U", "O"):
        return "a string"
    return str(dtype)


def _norm(value):
    """Attribute value -> plain Python (str, int, float)."""
    if isinstance(value, np.ndarray):
        if value.size == 1:
            value = value.reshape(()).item()
        else:
            return value
    if isinstance(value, (bytes, np.bytes_)):
        return bytes(value).decode("ascii", errors="replace").rstrip("\x00")
    if isinstance(value, np.generic):
        return value.item()
    return value


class ResultFile:
    """An opened nqueens result file.  Use as a context manager.  strict: refuse a file that no
    run writes (check_valid), as every command but verify does (which reports what is wrong)."""

    def __init__(self, path, progress=None, strict=False):
        self.path = str(path)
        self.progress = progress   # a progress.Progress told of each chunk read, or None
        try:
            mode = os.stat(self.path).st_mode
        except FileNotFoundError:
            raise BadFileError(f"{self.path}: no such file") from None
        except OSError as exc:
            raise BadFileError(f"{self.path}: {exc.strerror or 'cannot stat'}") from None
        if stat.S_ISDIR(mode):
            raise BadFileError(f"{self.path}: is a directory, not an nqueens result file")
        if not stat.S_ISREG(mode):   # a FIFO or a device: opening it would wait for a writer
            raise BadFileError(f"{self.path}: not a regular file, so not an nqueens result file")
        try:
            self.h5 = h5py.File(self.path, "r")
        except OSError as exc:
            raise BadFileError(f"{self.path}: unreadable HDF5 file ({_short(exc)})") from None
        try:
            self.attrs = {}
            self.raw_attr_types = {}
            try:   # (the iteration itself fails on a damaged attribute message: RuntimeError)
                keys = list(self.h5.attrs.keys())
            except (OSError, KeyError, TypeError, ValueError, RuntimeError) as exc:
                raise BadFileError(f"{self.path}: root attributes unreadable ({_short(exc)})") from None
            for key in keys:
                try:
                    self.attrs[key] = _norm(self.h5.attrs[key])
                    self.raw_attr_types[key] = self.h5.attrs.get_id(key).dtype
                except (OSError, KeyError, TypeError, ValueError, RuntimeError) as exc:
                    raise BadFileError(
                        f"{self.path}: root attribute '{key}' unreadable ({_short(exc)})"
                    ) from None
            fmt = self.attrs.get("format")
            if fmt != FORMAT_NAME:
                what = "missing" if fmt is None else repr(fmt)
                raise BadFileError(f"{self.path}: not an nqueens result file "
                                   f"(root attribute 'format' is {what}, "
                                   f"expected '{FORMAT_NAME}')")
            version = self.int_attr("format_version")
            if version not in READABLE_VERSIONS:   # as nqueens refuses it (docs/file-format.md)
                raise BadFileError(f"{self.path}: unsupported format_version "
                                   f"{self.attrs.get('format_version')!r} (this program reads "
                                   f"{' and '.join(map(str, READABLE_VERSIONS))})")
            self._open_every_object(self.h5, "")
            if strict:
                self.check_valid()
        except BaseException:
            self.h5.close()
            raise

    def _open_every_object(self, group, prefix):
        """Opens each group and dataset once (their headers, not their data): a damaged header
        then reads as a damaged file here, for every command, instead of as a missing object or
        an error deep in one of them."""
        for key in group.keys():
            path = f"{prefix}/{key}"
            try:
                obj = group[key]
                if isinstance(obj, h5py.Dataset):
                    obj.shape, obj.dtype  # noqa: B018 - read the header
            except (KeyError, OSError, ValueError, TypeError, RuntimeError) as exc:
                raise BadFileError(f"{self.path}: {path} is damaged ({_short(exc)})") from None
            if isinstance(obj, h5py.Group):
                self._open_every_object(obj, path)

    # -- context manager
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        try:
            self.h5.close()
        except Exception:  # pragma: no cover
            pass

    # -- attribute helpers
    def get(self, name, default=None):
        return self.attrs.get(name, default)

    def int_attr(self, name, default=None):
        v = self.attrs.get(name)
        try:
            return int(v)
        except (TypeError, ValueError, OverflowError):   # (not a number, NaN, inf)
            return default

    def value_problems(self):
        """The numeric root attributes whose values no run writes, as [(attribute, text)]: not
        a number of the schema's kind (a string, an array, a float for an integer, NaN, inf),
        outside its kind or what a run writes (ATTR_RANGES: n not a board size, no ranks, a
        negative wall_seconds, ...), depth above n, shard_index not below shard_count, more
        units_done than the shard has units of units_total, or other than them in a complete
        file (nqueens refuses such a file too: docs/file-format.md). Missing attributes are not
        among them (verify lists them; board_size needs n). The one place these are checked:
        verify fails each, the other commands refuse the file with the first (check_valid)."""
        probs, ok = [], {}
        for name, kind in root_attrs(self.format_version).items():
            if kind == "str" or name not in self.attrs:
                continue
            v = self.attrs[name]
            lo, hi = KIND_RANGES[kind]
            least, most = ATTR_RANGES.get(name, (None, None))
            lo, hi = lo if least is None else least, hi if most is None else most
            if isinstance(v, bool) or not isinstance(v, int if kind != "f64" else (int, float)):
                fits = False   # (a string, an array, a float for an integer)
            else:
                fits = lo <= v <= hi and (kind != "f64" or math.isfinite(v))
            if fits:
                ok[name] = v
            elif name == "n":
                probs.append((name, f"n = {v!r} is not a board size (1..{MAX_N})"))
            elif kind == "f64":
                probs.append((name, f"{name} = {v!r} is not a finite number >= {lo:g}"))
            else:
                probs.append((name, f"{name} = {v!r} is not an integer in {lo}..{hi}"))
        # the values that depend on others, where those are right (a missing shard_index and
        # shard_count: 0 and 1, the whole job)
        if "n" in ok and ok.get("depth", 0) > ok["n"]:
            probs.append(("depth", f"depth = {ok.pop('depth')} is outside 0..n = {ok['n']}"))
        sc = ok.get("shard_count", 1)
        if ok.get("shard_index", 0) >= sc:
            probs.append(("shard_index", f"shard_index = {ok.pop('shard_index')} is outside "
                                         f"0..shard_count-1 = {sc - 1}"))
        si = ok.get("shard_index", 0)
        shard_known = all(k in ok or k not in self.attrs for k in ("shard_index", "shard_count"))
        if shard_known and "units_done" in ok and "units_total" in ok:
            done, ut = ok["units_done"], ok["units_total"]
            units = shard_size(ut, si, sc)
            whose = "its job" if sc == 1 else f"shard {si}/{sc}"
            if done > units:
                probs.append(("units_done", f"units_done = {done} is more than the {units} units "
                                            f"of {whose} (units_total = {ut})"))
            elif done != units and self.get("status") == "complete":
                probs.append(("units_done", f"units_done = {done} in a complete file, but "
                                            f"{whose} has {units} units (units_total = {ut})"))
        return probs

    @property
    def format_version(self):
        return self.int_attr("format_version")

    def count(self, name):
        """The exact value of a count (total, unique) as a Python int: its 64-bit halves from
        version 2 on, the uint64 attribute in version 1. Where the attributes disagree
        (count_problem says how), the uint64 attribute unless it says "does not fit" (then the
        halves), so checks compare against what most readers see; None if neither is there."""
        u64 = self.int_attr(name)
        if self.format_version == 1:
            return u64
        hi, lo = self.int_attr(name + "_hi"), self.int_attr(name + "_lo")
        if self.count_problem(name) is not None and u64 is not None and u64 != DOES_NOT_FIT:
            return u64
        return None if hi is None or lo is None else (hi << 64) | lo

    def count_problem(self, name):
        """None if the attributes of a count agree with each other, else what is wrong."""
        if self.format_version == 1:
            return None if self.int_attr(name) is not None else f"attribute {name} is missing"
        parts = {p: self.int_attr(name + p) for p in ("", "_hi", "_lo")}
        decimal = self.attrs.get(name + "_decimal")
        missing = [name + p for p, v in parts.items() if v is None] + ([name + "_decimal"] if decimal is None else [])
        if missing:
            return f"attributes {', '.join(missing)} missing"
        value = (parts["_hi"] << 64) | parts["_lo"]
        if not (isinstance(decimal, str) and decimal.isdigit() and int(decimal) == value):
            return f"{name}_decimal = {decimal!r} but {name}_hi/_lo give {value}"
        want = value if value < 2 ** 64 else DOES_NOT_FIT
        if parts[""] != want:
            return f"{name} = {parts['']} but {name}_hi/_lo give {value} (so {name} should be {want})"
        return None

    @property
    def name(self):
        return os.path.basename(self.path)

    @property
    def n(self):
        return self.int_attr("n")

    def board_size(self):
        """n, for the commands that compute with it; BadFileError unless it is 1..MAX_N."""
        if "n" not in self.attrs:
            raise BadFileError(f"{self.path}: root attribute n is missing, so the file has no "
                               f"board size (1..{MAX_N})")
        for name, text in self.value_problems():
            if name == "n":
                raise BadFileError(f"{self.path}: root attribute {text}")
        return self.attrs["n"]

    def check_valid(self):
        """For the commands that take the file for a result (all but verify, which reports
        what is wrong with it; ResultFile(strict=True)): BadFileError (exit 3) naming the file
        and its first problem, a root attribute value no run writes (value_problems), no board
        size, /units datasets that disagree, units_done other than the rows of /units, or a
        boards file whose /boards datasets are missing or disagree."""
        for _, text in self.value_problems():
            raise BadFileError(f"{self.path}: root attribute {text}")
        rows = self.unit_rows()
        done = self.attrs.get("units_done")
        if done is not None and done != rows:
            raise BadFileError(f"{self.path}: root attribute units_done = {done}, but /units holds "
                               f"{rows} units")
        if self.mode == "boards":
            self.board_rows()

    @property
    def mode(self):
        return self.get("mode")

    @property
    def boards_stored(self):
        return self.get("boards_stored")

    @property
    def is_complete(self):
        return self.get("status") == "complete"

    @property
    def is_sharded(self):
        sc = self.int_attr("shard_count", 1)
        return sc is not None and sc > 1

    @property
    def has_boards(self):
        return "boards" in self.h5 and isinstance(self.h5["boards"], h5py.Group) \
            and "solutions" in self.h5["boards"]

    # -- data
    def dataset(self, path):
        try:
            obj = self.h5[path]
        except KeyError:
            raise BadFileError(f"{self.path}: dataset {path} is missing") from None
        if not isinstance(obj, h5py.Dataset):
            raise BadFileError(f"{self.path}: {path} is not a dataset")
        return obj

    def read(self, path, sl=slice(None)):
        ds = self.dataset(path)
        try:
            return ds[sl]
        except (OSError, ValueError, TypeError) as exc:
            raise BadFileError(f"{self.path}: cannot read {path}{_slice_text(sl)} "
                               f"({_short(exc)})") from None

    UNIT_CHUNK = 1 << 18   # /units rows read at once (~30 MB for N = 27): memory stays bounded

    def unit_rows(self):
        """The number of /units rows, after checking that the group and its datasets are
        there and agree in shape (BadFileError if not)."""
        if "units" not in self.h5 or not isinstance(self.h5["units"], h5py.Group):
            raise BadFileError(f"{self.path}: group /units is missing")
        if "placement" not in self.h5["units"]:
            raise BadFileError(f"{self.path}: dataset /units/placement is missing")
        return self._table_rows("units", {k: rank for k, (_, rank) in UNIT_DATASETS.items()}, "id", "placement",
                                "units")

    def _table_rows(self, group, ranks, first, wide, what):
        """The rows of the datasets of /group named in `ranks` (name: rank), after checking that
        they have the rows of `first` and their rank, and that `wide` has n columns (BadFileError
        if not); `what` names a row in the message."""
        ds = {k: self.dataset(f"/{group}/{k}") for k in ranks}
        rows = ds[first].shape[0] if ds[first].ndim else 0
        for k, rank in ranks.items():
            if ds[k].ndim != rank or ds[k].shape[0] != rows:
                raise BadFileError(f"{self.path}: /{group}/{k} has shape {ds[k].shape}, expected "
                                   f"{rows} rows (as /{group}/{first}) of rank {rank}")
        n = self.board_size()
        if ds[wide].shape[1] != n:
            raise BadFileError(f"{self.path}: /{group}/{wide} has shape "
                               f"{ds[wide].shape}, expected ({what}, n) = ({rows}, {n})")
        return rows

    def board_rows(self):
        """The number of /boards rows of a boards file, after checking that the group and the
        datasets of its board set (class_size for class) are there and agree in shape
        (BadFileError if not)."""
        if not isinstance(self.h5.get("boards"), h5py.Group):
            raise BadFileError(f"{self.path}: mode is boards but group /boards is missing")
        names = ["solutions", "unit"] + (["class_size"] if self.boards_stored == "class" else [])
        return self._table_rows("boards", {k: BOARD_DATASETS[k][1] for k in names}, "solutions", "solutions",
                                "boards")

    def iter_units(self, chunk_rows=None, fields=None):
        """Yield (start, chunk) over /units in row slices: chunk maps each dataset of `fields`
        (default: all) to its rows start..start+len-1; 'placement' is (rows, n) int16 with the
        pre-placed column per row and -1 for rows left to the search (0xFF in the file).  Memory
        is bounded by chunk_rows, whatever the number of units (N = 27: 164 M)."""
        rows = self.unit_rows()
        step = int(chunk_rows or self.UNIT_CHUNK)
        for start in range(0, rows, step):
            chunk = self.unit_slice(fields, slice(start, min(rows, start + step)))
            self._read("/units", start + step, rows)
            yield start, chunk

    def units(self, fields=None):
        """The /units datasets of `fields` (default: all) whole, as iter_units gives them: only
        for files whose units are few (a boards file's); the others are read with iter_units."""
        self.unit_rows()
        return self.unit_slice(fields, slice(None))

    def unit_slice(self, fields, sl):
        chunk = {k: self.read(f"/units/{k}", sl) for k in (fields or UNIT_DATASETS)}
        if "placement" in chunk:
            raw = chunk["placement"]
            pl = raw.astype(np.int16)
            pl[raw == EMPTY_ROW] = -1
            chunk["placement"] = pl
        return chunk

    def iter_boards(self, chunk_rows=1 << 17, with_class=None):
        """Yield (start, boards, unit, class_size or None) over /boards in row chunks."""
        sol = self.dataset("/boards/solutions")
        unit = self.dataset("/boards/unit") if "unit" in self.h5["boards"] else None
        if with_class is None:
            with_class = "class_size" in self.h5["boards"]
        cls = self.dataset("/boards/class_size") if with_class else None
        total = sol.shape[0]
        for start in range(0, total, chunk_rows):
            stop = min(total, start + chunk_rows)
            b = self.read("/boards/solutions", slice(start, stop))
            u = self.read("/boards/unit", slice(start, stop)) if unit is not None else None
            c = self.read("/boards/class_size", slice(start, stop)) if cls is not None else None
            self._read("/boards", stop, total)
            yield start, b, u, c

    def _read(self, what, done, total):
        if self.progress is not None:
            self.progress.rows(what, min(done, total), total)


def _slice_text(sl):
    if isinstance(sl, slice) and (sl.start is not None or sl.stop is not None):
        return f" rows {sl.start or 0}..{(sl.stop or 0) - 1}"
    return ""


def _short(exc):
    text = " ".join(str(exc).split())
    return text[:200] if text else type(exc).__name__


def compute_threads(ranks, threads):
    """The threads that computed units: the worker ranks' (`threads` is per worker rank; rank 0
    is the master, and computes units only when it is the job's one process)."""
    return threads * (ranks - 1 if ranks > 1 else 1)


def unit_scheme(symmetry, n):
    """How the work units of a file use symmetry (src/core/units.h):
    'none'   - the valid placements of rows 0..depth-1, multiplicity 1;
    'mirror' - the same, restricted to the left half, multiplicity 1 or 2;
    'border' - symmetry full for n >= 4: a border representative (the queens of row 0, row n-1,
               column 0 and column n-1) plus rows 1..depth-1, multiplicity 2, 4 or 8.
    symmetry full falls back to the mirror scheme for n <= 3."""
    if symmetry == "none":
        return "none"
    if symmetry == "full" and n is not None and n >= 4:
        return "border"
    return "mirror"


def open_result(path):
    return ResultFile(path)
