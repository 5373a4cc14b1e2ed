"""The nqanalyze entry point: every subcommand has --help; errors are one line."""

import os
import subprocess

import h5py
import numpy as np
import pytest

from conftest import NQANALYZE, copy_file, nq, nq_subprocess


def test_wrapper_is_executable():
    assert os.access(NQANALYZE, os.X_OK)
    with open(NQANALYZE) as fh:
        assert fh.readline().strip() == "#!/usr/bin/python3"


@pytest.mark.parametrize("cmd", ["summary", "verify", "plot", "scaling", "export"])
def test_help(cmd):
    r = nq_subprocess(cmd, "--help")
    assert r.rc == 0 and f"usage: nqanalyze {cmd}" in r.out, r


def test_top_level_help_and_usage_errors():
    r = nq("--help")
    assert r.rc == 0
    for args in ([], ["bogus"], ["plot"], ["export", "x.h5"]):
        r = nq(*args)
        assert r.rc == 2, (args, r)
        assert len(r.err.strip().splitlines()) == 1, (args, r.err)


COMMANDS = {   # each subcommand with the arguments it needs besides the file
    "summary": [], "verify": [], "scaling": ["--out", "{tmp}"], "plot": ["--out", "{tmp}/pl"],
    "export": ["--csv", "{tmp}/ex"],
}


def every_command(path, tmp_path, runner=nq):
    for cmd, extra in COMMANDS.items():
        yield cmd, runner(cmd, path, *[a.format(tmp=tmp_path) for a in extra])


def test_every_command_refuses_a_fifo_at_once(tmp_path):
    # h5py opens a FIFO and waits for a writer: every command used to hang there.
    fifo = tmp_path / "fifo.h5"
    os.mkfifo(fifo)
    for cmd, extra in COMMANDS.items():
        r = subprocess.run([NQANALYZE, cmd, fifo, *[a.format(tmp=tmp_path) for a in extra]],
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 3 and "not a regular file" in r.stderr, (cmd, r)


def test_output_that_cannot_be_written_is_exit_4_not_an_internal_error(runs, tmp_path):
    # stdout on a full disk, or closed: "internal error: OSError" (or AttributeError), exit 1.
    # Now exit 4 and one line, as nqueens; and no second complaint from Python's exit flush.
    for cmd, extra in COMMANDS.items():
        args = [NQANALYZE, cmd, runs["count10"], *[a.format(tmp=tmp_path) for a in extra]]
        with open("/dev/full", "w") as full:
            r = subprocess.run(args, stdout=full, stderr=subprocess.PIPE, text=True, timeout=120)
        assert r.returncode == 4, (cmd, r.stderr)
        assert r.stderr.splitlines() == [f"nqanalyze {cmd}: cannot write the output to stdout: "
                                         "No space left on device"], (cmd, r.stderr)
        r = subprocess.run(["bash", "-c", 'exec "$@" >&-', "-", *map(str, args)], stderr=subprocess.PIPE,
                           text=True, timeout=120)
        assert r.returncode == 4 and r.stderr.splitlines() == [
            f"nqanalyze {cmd}: cannot write the output to stdout: it is closed"], (cmd, r.stderr)
    # --help too (a traceback, exit 1)
    with open("/dev/full", "w") as full:
        r = subprocess.run([NQANALYZE, "--help"], stdout=full, stderr=subprocess.PIPE, text=True, timeout=60)
    assert r.returncode == 4 and r.stderr.splitlines() == [
        "nqanalyze: cannot write the output to stdout: No space left on device"], r.stderr


def test_export_writes_its_files_whole_when_the_reader_of_stdout_leaves(runs, tmp_path):
    # `export ... | true`: exit 4 "cannot write CSV ... Broken pipe", and boards.csv was never
    # written. The files come first now; a reader that leaves is exit 0, as for every command.
    csv = tmp_path / "ex"
    r = subprocess.run(["bash", "-c", '"$@" | true; exit "${PIPESTATUS[0]}"', "-", NQANALYZE, "export",
                        runs["boards_all8"], "--csv", csv], stderr=subprocess.PIPE, text=True, timeout=120)
    assert r.returncode == 0 and r.stderr == "", r.stderr
    assert (csv / "units.csv").is_file()
    assert len((csv / "boards.csv").read_text().splitlines()) == 1 + 92   # a header, every board


def test_every_command_reads_a_damaged_object_header_as_a_damaged_file(runs, tmp_path):
    # The header of /units/placement overwritten (a bad sector, a torn copy): verify and plot
    # used to end in an internal error (a KeyError), and plot and export called it missing.
    path = copy_file(runs["count10"], tmp_path, "damaged.h5")
    with h5py.File(path, "r") as f:
        header = h5py.h5o.get_info(f["units/placement"].id).addr
    with open(path, "r+b") as fh:
        fh.seek(header)
        fh.write(b"\0\0\0\0")
    for cmd, r in every_command(path, tmp_path):
        assert r.rc == 3 and "/units/placement is damaged" in r.err.splitlines()[0], (cmd, r)
        assert "internal error" not in r.err, (cmd, r)


def test_every_command_reads_a_damaged_attribute_message_as_a_damaged_file(runs, tmp_path):
    # The datatype size of the root's `format` attribute flipped (found by flipping bytes 150-1,455 of
    # an N = 8 file): iterating the attributes raised a RuntimeError, "internal error", exit 1.
    # Which error libhdf5 gives varies from one process to the next: most often the attribute is
    # unreadable, sometimes its value reads as bytes past the message (CI's run 54 saw both in one
    # test). Either is a damaged file, named in the first line, with exit 3.
    path = copy_file(runs["count10"], tmp_path, "flipped.h5")
    data = bytearray(open(path, "rb").read())
    at = data.find(b"format\x00") - 3   # the high byte of the datatype's size in its attribute message
    data[at] ^= 0x80
    open(path, "wb").write(bytes(data))
    for cmd, r in every_command(path, tmp_path, runner=nq_subprocess):   # (a crash of the library would show too)
        first = r.err.splitlines()[0]
        assert r.rc == 3 and f"{path}: " in first and "root attribute" in first, (cmd, r)
        assert ("root attribute 'format' unreadable" in first
                or "not an nqueens result file (root attribute 'format' is" in first
                or "root attributes unreadable" in first), (cmd, r)
        assert "internal error" not in r.err, (cmd, r)


def refused_by_all_but_verify(path, tmp_path, wanted, verify_says=None):
    """Every command but verify refuses the file at once: exit 3, one line naming the file and
    `wanted`, nothing written; verify fails it, exit 1, saying `verify_says` (default `wanted`)
    in a failed check, as README.md says."""
    for cmd, r in every_command(path, tmp_path):
        assert "internal error" not in r.err, (cmd, r)
        if cmd == "verify":
            assert r.rc == 1 and "RESULT: FAIL" in r.out, r
            fails = r.out.split("RESULT:")[0]
            assert (verify_says or wanted) in fails, r
            continue
        assert r.rc == 3 and r.out == "", (cmd, r)
        first = r.err.splitlines()[0]
        assert first.startswith(f"nqanalyze {cmd}: {path}: ") and wanted in first, (cmd, wanted, r)
        # (scaling adds "no readable complete result files")
        assert len(r.err.splitlines()) == (2 if cmd == "scaling" else 1), (cmd, r)
    assert not (tmp_path / "pl").exists() and not (tmp_path / "ex").exists()


@pytest.mark.parametrize("n", ["twelve", np.uint64(2**63), np.int64(-1), np.uint32(0), np.uint32(33),
                               np.array([10, 10], dtype="u4"), np.float64(10), None], ids=repr)
def test_every_command_refuses_a_board_size_it_cannot_use(runs, tmp_path, n):
    # plot and export ended in an internal error (TypeError, OverflowError, ValueError); then they
    # refused the file, but summary printed "N 0 ... status complete" (or "N ?"), exit 0, and
    # scaling compared it, exit 0.
    path = copy_file(runs["count10"], tmp_path, "n.h5")
    with h5py.File(path, "r+") as f:
        if n is None:
            del f.attrs["n"]
        else:
            f.attrs["n"] = n
    if n is None:
        refused_by_all_but_verify(path, tmp_path, "root attribute n is missing", "root attributes missing: n")
    else:
        refused_by_all_but_verify(path, tmp_path, "is not a board size (1..32)")


def test_every_command_refuses_unit_datasets_of_different_lengths(runs, tmp_path):
    # (summary and scaling read such a file as fine, exit 0)
    path = copy_file(runs["count10"], tmp_path, "short.h5")
    with h5py.File(path, "r+") as f:
        del f["units/solutions"]
        f["units"].create_dataset("solutions", data=np.zeros(3, dtype="u8"))
    refused_by_all_but_verify(path, tmp_path, "/units/solutions has")


@pytest.mark.parametrize("name, value", [
    ("units_total", 2**64 - 1),   # verify: OverflowError
    ("wall_seconds", float("nan")), ("wall_seconds", float("inf")),   # summary, scaling: ValueError
    ("wall_seconds", -1.0), ("ranks", 0),
    ("threads", 0),   # scaling: ZeroDivisionError
    ("depth", 11), ("shard_index", 1), ("shard_count", 0), ("known_total", -2),
    ("units_done", None),   # one more than units_total: set below
], ids=lambda v: repr(v) if isinstance(v, (int, float)) else v)
def test_every_command_refuses_a_numeric_attribute_no_run_writes(runs, tmp_path, name, value):
    # Each value in the attribute's own type (as an edit with h5py keeps it). Before: internal
    # errors, or summary, scaling, plot and export took the value for real (a wall time of -1 s).
    path = copy_file(runs["count10"], tmp_path, "value.h5")
    with h5py.File(path, "r+") as f:
        if name == "units_done":
            value = int(f.attrs["units_total"]) + 1
        f.attrs.create(name, np.array(value, dtype=f.attrs[name].dtype))
    refused_by_all_but_verify(path, tmp_path, f"{name} = {value!r}")


@pytest.mark.parametrize("which", ["boards_all8", "boards_class8"])
@pytest.mark.parametrize("gone", ["boards", "boards/unit", "boards/solutions"])
def test_every_command_refuses_a_boards_file_without_its_boards(runs, tmp_path, which, gone):
    # With /boards deleted, export wrote units.csv alone and summary showed the file, exit 0.
    path = copy_file(runs[which], tmp_path, "noboards.h5")
    with h5py.File(path, "r+") as f:
        del f[gone]
    refused_by_all_but_verify(path, tmp_path, "/" + gone)


def test_verify_with_a_published_table_it_cannot_read_is_a_usage_error(runs, tmp_path):
    # --known missing.tsv (or a directory, or an empty file) printed a warning, skipped every
    # comparison with the table, and said PASS: a mistyped path turned the check off unseen.
    (tmp_path / "empty.tsv").write_text("")
    (tmp_path / "rows.tsv").write_text("n total unique rot90_fixed rot180_fixed\n10 724 92 0 x\n")
    for table in ["missing.tsv", str(tmp_path), str(tmp_path / "empty.tsv"), str(tmp_path / "rows.tsv")]:
        r = nq("verify", runs["count10"], "--known", table)
        assert r.rc == 2 and "PASS" not in r.out, (table, r)
        assert r.err.strip().startswith("nqanalyze verify: --known ") and "cannot read the published table" in r.err, r
        assert len(r.err.strip().splitlines()) == 1, r.err
    good = tmp_path / "good.tsv"
    good.write_text("n total unique rot90_fixed rot180_fixed\n10 724 92 0 12\n")
    assert nq("verify", runs["count10"], "--known", good).rc == 0
    # An empty --known was ignored (the default table used).
    r = nq("verify", runs["count10"], "--known", "")
    assert r.rc == 2 and "--known is empty" in r.err, r
    # The same table named by NQANALYSIS_KNOWN_COUNTS: verify said PASS, summary 'unknown'.
    for cmd in ("verify", "summary"):
        with pytest.MonkeyPatch.context() as mp:
            mp.setenv("NQANALYSIS_KNOWN_COUNTS", str(tmp_path / "missing.tsv"))
            r = nq(cmd, runs["count10"])
            assert r.rc == 2 and "PASS" not in r.out, (cmd, r)
            assert f"NQANALYSIS_KNOWN_COUNTS={tmp_path / 'missing.tsv'}: cannot read the published table" in r.err, r
            mp.setenv("NQANALYSIS_KNOWN_COUNTS", str(good))
            assert nq(cmd, runs["count10"]).rc == 0


def test_every_command_refuses_a_format_version_it_does_not_read(runs, tmp_path):
    # docs/file-format.md: other versions are refused (exit 3), as nqueens refuses them; summary,
    # plot, export and scaling read a version 3 file (exit 0), and verify failed it (exit 1).
    path = copy_file(runs["count10"], tmp_path, "v3.h5")
    with h5py.File(path, "r+") as f:
        f.attrs["format_version"] = np.int32(3)
    for cmd, r in every_command(path, tmp_path):
        assert r.rc == 3 and "unsupported format_version 3 (this program reads 1 and 2)" in r.err, (cmd, r)


def test_an_empty_output_directory_is_a_usage_error(runs, tmp_path):
    for cmd, flag in (("plot", "--out"), ("scaling", "--out"), ("export", "--csv")):
        r = nq(cmd, runs["count10"], flag, "")
        assert r.rc == 2 and f"{flag} is empty: give a directory" in r.err, (cmd, r)
