#!/usr/bin/python3
"""How small can a boards file's /boards/solutions get? (issue 12's bytes target)

Re-encodes the boards of a result file (as written, or re-ordered) the way the writer stores
them, one column of CHUNK boards per chunk, with stronger encoders than the writer's, and prints
bytes per board of each. Only the board table is counted (the file adds /boards/unit and
/boards/class_size: ~0.07 bytes a board).

  orders:   stored (the file's rows), unit-sorted (each unit's boards sorted), sorted (the whole
            table sorted lexicographically)
  encoders: zlib level 4 and 9, default and run-length strategies (what HDF5's deflate filter
            reads); libdeflate level 12 (near-optimal parsing, still a plain deflate stream;
            needs Debian's libdeflate0, skipped without it); xz -9e on whole columns and on the
            sorted table row by row (not an HDF5 filter anywhere: a bound on what an encoder far
            stronger than deflate would find)

Usage: bench/class_bytes.py FILE [--rows R]   (R: the first R boards only, default all)
"""
import argparse
import ctypes
import ctypes.util
import lzma
import sys
import zlib

import h5py
import numpy as np

CHUNK = 131072   # boards per column chunk, as src/store/result_file.cpp writes them


def libdeflate_encoder(level):
    """A zlib-stream encoder from libdeflate at `level`, or None when the library is missing."""
    name = ctypes.util.find_library("deflate")
    if not name:
        return None
    lib = ctypes.CDLL(name)
    lib.libdeflate_alloc_compressor.restype = ctypes.c_void_p
    lib.libdeflate_zlib_compress.restype = ctypes.c_size_t
    lib.libdeflate_zlib_compress.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t,
                                             ctypes.c_void_p, ctypes.c_size_t]
    comp = lib.libdeflate_alloc_compressor(level)
    out = ctypes.create_string_buffer(2 * CHUNK + 4096)

    def encode(raw):
        n = lib.libdeflate_zlib_compress(comp, raw, len(raw), out, len(out))
        if n == 0:
            raise RuntimeError("libdeflate: output buffer too small")
        return n
    return encode


def zlib_encoder(level, strategy):
    def encode(raw):
        c = zlib.compressobj(level, zlib.DEFLATED, 15, 8, strategy)
        return len(c.compress(raw) + c.flush())
    return encode


def column_chunks_bytes(boards, encode):
    """Bytes of `boards` stored as the writer does: each column in chunks of CHUNK boards."""
    total = 0
    for col in range(boards.shape[1]):
        column = np.ascontiguousarray(boards[:, col])
        for start in range(0, len(column), CHUNK):
            total += encode(column[start:start + CHUNK].tobytes())
    return total


def xz(raw):
    return len(lzma.compress(raw, preset=9 | lzma.PRESET_EXTREME))


def sort_rows(boards, keys=()):
    """Row order sorting by `keys` (arrays, most significant first), then the board's columns."""
    cols = [boards[:, c] for c in reversed(range(boards.shape[1]))]
    return np.lexsort(tuple(cols) + tuple(reversed(keys)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file")
    ap.add_argument("--rows", type=int, default=0, help="the first ROWS boards only")
    args = ap.parse_args()
    with h5py.File(args.file, "r") as f:
        if "boards/solutions" not in f:
            sys.exit(f"class_bytes: {args.file} holds no boards (write one with --mode boards)")
        rows = args.rows or f["boards/solutions"].shape[0]
        boards = f["boards/solutions"][:rows]
        unit = f["boards/unit"][:rows]
        stored = f["boards/solutions"].id.get_storage_size() / f["boards/solutions"].shape[0]
        what = f.attrs["boards_stored"].decode()
        n = int(f.attrs["n"])
    S = len(boards)
    orders = {"stored": boards,
              "unit-sorted": boards[sort_rows(boards, (unit,))],
              "sorted": boards[sort_rows(boards)]}
    encoders = {"zlib 4": zlib_encoder(4, zlib.Z_DEFAULT_STRATEGY),
                "zlib 4 rle": zlib_encoder(4, zlib.Z_RLE),
                "zlib 9": zlib_encoder(9, zlib.Z_DEFAULT_STRATEGY),
                "zlib 9 rle": zlib_encoder(9, zlib.Z_RLE)}
    ld = libdeflate_encoder(12)
    if ld:
        encoders["libdeflate 12"] = ld
    else:
        print("(libdeflate not found: apt-get install libdeflate0 for its column)", file=sys.stderr)
    print(f"N = {n}, boards {what}, {S} boards; the file's board table: {stored:.3f} bytes a board")
    names = list(encoders) + ["xz -9e columns", "xz -9e rows"]
    print(f"{'order':<12}" + "".join(f"{e:>16}" for e in names))
    for oname, b in orders.items():
        cells = [column_chunks_bytes(b, enc) / S for enc in encoders.values()]
        cells.append(sum(xz(np.ascontiguousarray(b[:, c]).tobytes()) for c in range(n)) / S)
        cells.append(xz(np.ascontiguousarray(b).tobytes()) / S)
        print(f"{oname:<12}" + "".join(f"{c:>16.3f}" for c in cells), flush=True)
    print("(bytes a board of /boards/solutions alone; zlib and libdeflate in the writer's column chunks)")


if __name__ == "__main__":
    main()
