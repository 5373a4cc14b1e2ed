"""Hostile input: random and truncated job files, huge/negative/NaN numbers, wrong types, paths
that are directories, FIFOs, devices or missing, and HDF5 files from another program given to
`info`, `merge` and as the `--out` of a resume. Every case must end in a documented exit code
(2, 3, 4, 5, or 0 when the input happens to be a valid small job) with a one- or two-line
message: never exit 1 ('internal error'), never a signal, never a hang, never a sanitizer report.
The CTest registration also runs this file against the ASan+UBSan build."""
import os
import shutil
import tomllib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import h5py
import numpy as np
import pytest

from faultlib import assert_clean_error, injected, readable_result, sha256
from nqtest import EXIT, KNOWN, attrs, run

VALID_JOB = """\
description = "faults tier: a small valid job"
n = 8
mode = "boards"
boards = "class"
depth = 2
threads = 1
out = "out.h5"
progress_interval = 0.5
audit = 0.25
"""
ERROR_CODES = {EXIT["usage"], EXIT["bad_input"], EXIT["io"], EXIT["refused"]}
HOSTILE_VALUES = ["-1", "0", "-0", "99999999999999999999999", "-9223372036854775808", "9223372036854775807",
                  "1e309", "-1e309", "nan", "inf", "-inf", "3.5", "\"8\"", "\"\"", "[]", "[8]", "{}",
                  "{ n = 8 }", "true", "1979-05-27T07:32:00Z", "0x7f", "0o17", "0b101", "\"\\u0000\"",
                  "\"a\\nb\"", "'\\'", "\"/\"", "\"count\"", "\"boards\"", "\"0/0\"", "\"1/1\"",
                  "\"-1/2\"", "\"99999999999/99999999999\"", "\"x\" \"y\"", "", "="]


def too_expensive_or_escaping(text):
    """A generated job that is valid TOML but would run for long or write outside its directory."""
    try:
        t = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, ValueError, RecursionError):
        return False
    n = t.get("n")
    out = t.get("out", "")
    return ((isinstance(n, int) and not isinstance(n, bool) and 12 < n <= 32)
            or (isinstance(out, str) and (out.startswith("/") or ".." in out or "\\" in out)))


def fuzz_cases(rng):
    data = VALID_JOB.encode()
    cases = []
    for _ in range(80):                                   # random bytes
        cases.append(("random", bytes(rng.randrange(256) for _ in range(rng.randrange(0, 300)))))
    for cut in sorted(rng.sample(range(len(data)), 60)):  # truncations
        cases.append(("truncated", data[:cut]))
    for _ in range(60):                                   # a few random byte edits
        b = bytearray(data)
        for _ in range(rng.randrange(1, 4)):
            pos = rng.randrange(len(b))
            op = rng.randrange(3)
            if op == 0:
                b[pos] = rng.randrange(256)
            elif op == 1:
                b.insert(pos, rng.randrange(256))
            else:
                del b[pos]
        cases.append(("mutated", bytes(b)))
    lines = VALID_JOB.splitlines()
    for _ in range(60):                                   # a hostile value for a key
        i = rng.randrange(1, len(lines))
        key = lines[i].split(" = ")[0]
        lines2 = list(lines)
        lines2[i] = f"{key} = {rng.choice(HOSTILE_VALUES)}"
        cases.append(("hostile value", ("\n".join(lines2) + "\n").encode()))
    return [(kind, c) for kind, c in cases if not too_expensive_or_escaping(c.decode("utf-8", "replace"))]


def run_job_file(i, content, root):
    d = root / f"case{i:03d}"
    d.mkdir()
    job = d / "job.toml"
    job.write_bytes(content)
    # --threads 2 overrides the file (after its threads key was checked): no thousands of threads.
    return run(["run", job, "--threads", 2], cwd=d, timeout=120)


def test_random_truncated_and_mutated_job_files_never_crash(workdir, rng):
    cases = fuzz_cases(rng)
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda ic: run_job_file(ic[0], ic[1][1], workdir), enumerate(cases)))
    codes = {}
    for (kind, content), p in zip(cases, results):
        injected(f"job file: {kind}")
        codes[p.returncode] = codes.get(p.returncode, 0) + 1
        try:
            assert_clean_error(p, ERROR_CODES | {EXIT["ok"]})
            if p.returncode == EXIT["usage"]:
                assert "job file" in p.stderr or "--" in p.stderr or "N " in p.stderr, p.stderr
        except AssertionError as e:
            raise AssertionError(f"{kind} job file {content!r}:\n{e}") from None
    print("exit codes of the generated job files:", dict(sorted(codes.items())))
    assert codes.get(EXIT["usage"], 0) > len(cases) // 2   # most of them are refused as usage errors


def write_file(path, content):
    Path(path).write_bytes(content)
    return path


def foreign_h5(path):
    """An HDF5 file written by another program (h5py), with a dataset and attributes."""
    with h5py.File(path, "w") as f:
        f.attrs["creator"] = "someone else"
        f.attrs["n"] = np.int32(8)
        f["data"] = np.arange(100)
    return path


def forged_h5(path, **overrides):
    """An HDF5 file that claims to be an nqueens result but is not a consistent one."""
    with h5py.File(path, "w") as f:
        f.attrs["format"] = np.bytes_(overrides.pop("format", "nqueens-result"))
        f.attrs["format_version"] = np.int32(overrides.pop("format_version", 1))
        for k, v in overrides.items():
            f.attrs[k] = v
    return path


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("hostile")
    f = {"dir": d / "a-directory", "missing": d / "missing.h5", "empty": write_file(d / "empty.h5", b""),
         "random": write_file(d / "random.h5", bytes(range(256)) * 64), "foreign": foreign_h5(d / "foreign.h5"),
         "fifo": d / "fifo", "text": write_file(d / "text.h5", b"hello\n"), "file": write_file(d / "file", b"x")}
    f["dir"].mkdir()
    os.mkfifo(f["fifo"])
    f["forged bare"] = forged_h5(d / "forged-bare.h5")
    f["forged version"] = forged_h5(d / "forged-version.h5", format_version=99)
    f["forged other format"] = forged_h5(d / "forged-other.h5", format="something-else")
    f["forged n as string"] = forged_h5(d / "forged-n.h5", n=np.bytes_("eight"))
    # Real result files: a complete one, two shards, a partial one, and damaged copies.
    for name, extra in (("good", ["--depth", 2]), ("shard0", ["--depth", 2, "--shard", "0/2"]),
                        ("shard1", ["--depth", 2, "--shard", "1/2"]), ("other", ["--depth", 3, "--shard", "1/2"])):
        run(["run", "--n", 8, "--out", d / f"{name}.h5"] + extra, check=0)
    data = (d / "good.h5").read_bytes()
    f["truncated"] = write_file(d / "truncated.h5", data[: len(data) // 2])
    f["good"], f["shard0"], f["shard1"], f["other"] = (d / f"{x}.h5" for x in ("good", "shard0", "shard1", "other"))
    shutil.copy(f["shard1"], d / "tampered.h5")
    with h5py.File(d / "tampered.h5", "r+") as h:   # a unit id that does not belong to shard 1
        ids = h["units/id"][()]
        ids[0] = 0
        h["units/id"][...] = ids
    f["tampered"] = d / "tampered.h5"
    shutil.copy(f["good"], d / "shallower.h5")
    with h5py.File(d / "shallower.h5", "r+") as h:   # depth 2 -> 1: its units lie past the plan's end
        h.attrs["depth"] = np.array(1, dtype=h.attrs["depth"].dtype)
    f["shallower"] = d / "shallower.h5"
    f["journal"] = write_file(d / "fake.journal", b"NQJOURNL" + bytes(40))
    return f


INFO_BAD = ["dir", "missing", "empty", "random", "foreign", "fifo", "text", "truncated", "forged bare",
            "forged version", "forged other format", "forged n as string", "journal"]


@pytest.mark.parametrize("name", INFO_BAD)
def test_info_refuses_what_is_not_a_result_file_with_exit_3(files, name):
    p = run(["info", files[name]], timeout=30)
    injected("info: hostile file")
    assert_clean_error(p, {EXIT["bad_input"]}, needle=str(files[name]))


def test_info_reads_a_real_result_file(files):
    p = run(["info", files["good"]], check=0)
    assert "total           92" in p.stdout and "matches         yes" in p.stdout


@pytest.mark.parametrize("shards,code", [
    (["foreign"], EXIT["bad_input"]), (["missing"], EXIT["bad_input"]), (["dir"], EXIT["bad_input"]),
    (["fifo"], EXIT["bad_input"]), (["truncated"], EXIT["bad_input"]), (["forged bare"], EXIT["bad_input"]),
    (["shard0", "foreign"], EXIT["bad_input"]), (["shard0", "tampered"], EXIT["bad_input"]),
    (["shard0", "shard0"], EXIT["refused"]), (["shard0"], EXIT["refused"]), (["shard0", "other"], EXIT["refused"]),
    (["shallower"], EXIT["bad_input"]),   # was "internal error: UnitTable: ... past the end of the plan", exit 1
])
def test_merge_refuses_hostile_shards(files, workdir, shards, code):
    out = workdir / "merged.h5"
    p = run(["merge", out] + [files[s] for s in shards], timeout=30)
    injected("merge: hostile shard")
    assert_clean_error(p, {code})
    assert not out.exists()


@pytest.mark.parametrize("target,code", [("foreign", EXIT["refused"]), ("random", EXIT["refused"]),
                                         ("dir", EXIT["io"]), ("shard0", EXIT["usage"])])
def test_merge_never_overwrites_what_it_did_not_write(files, target, code):
    before = sha256(files[target]) if files[target].is_file() else None
    p = run(["merge", files[target], files["shard0"], files["shard1"]], timeout=30)
    injected("merge: hostile output")
    assert_clean_error(p, {code})
    if before:
        assert sha256(files[target]) == before


def test_merge_of_good_shards_works(files, workdir):
    p = run(["merge", workdir / "m.h5", files["shard0"], files["shard1"]], check=0)
    assert attrs(workdir / "m.h5")["total"] == 92 and "matches published: yes" in p.stdout


@pytest.mark.parametrize("target,code", [
    ("foreign", EXIT["refused"]), ("random", EXIT["refused"]), ("empty", EXIT["refused"]),
    ("forged bare", EXIT["refused"]), ("fifo", EXIT["refused"]), ("dir", EXIT["io"]),
])
def test_resume_onto_a_file_from_another_program_is_refused_and_the_file_kept(files, target, code):
    path = files[target]
    before = sha256(path) if path.is_file() else None
    p = run(["run", "--n", 8, "--out", path], timeout=60)
    injected("run: hostile --out")
    assert_clean_error(p, {code})
    if before:
        assert sha256(path) == before
    assert not Path(str(path) + ".journal").exists()


def test_output_paths_that_cannot_be_written(files, workdir):
    cases = [(files["file"] / "x.h5", EXIT["io"]),                # parent is a regular file
             (Path("/proc/nqueens-faults.h5"), EXIT["io"]),       # a directory nobody can create files in
             (Path("/dev/null"), EXIT["refused"])]                # exists, not ours: never overwritten
    jdir = workdir / "jd.h5"
    Path(str(jdir) + ".journal").mkdir()                          # the journal path is a directory
    cases.append((jdir, EXIT["io"]))
    jfifo = workdir / "jf.h5"
    os.mkfifo(str(jfifo) + ".journal")                            # the journal path is a FIFO
    cases.append((jfifo, EXIT["io"]))
    jbad = workdir / "jb.h5"
    Path(str(jbad) + ".journal").write_bytes(b"not a journal at all")
    cases.append((jbad, EXIT["bad_input"]))
    jempty = workdir / "je.h5"
    Path(str(jempty) + ".journal").write_bytes(b"")                # an empty file: not a journal either
    cases.append((jempty, EXIT["bad_input"]))
    for out, code in cases:
        p = run(["run", "--n", 8, "--out", out], timeout=60)
        injected("run: unwritable --out")
        assert_clean_error(p, {code})
    # What the journal's path holds: the dry run refuses it as the run does (it said "the run
    # computes every unit" for an empty file, and the run read a FIFO as a damaged journal).
    for out, code, says in ((jdir, EXIT["io"], "is a directory"),
                            (jfifo, EXIT["io"], "is not a regular file (a FIFO, socket or device): move it away"),
                            (jbad, EXIT["bad_input"], "not an nqueens journal"),
                            (jempty, EXIT["bad_input"], "(no unit in it can be resumed: move it away, or pass --force")):
        for dry in (["--dry-run"], []):
            p = run(["run", "--n", 8, "--out", out] + dry, timeout=60)
            assert p.returncode == code and f"{out}.journal" in p.stderr and says in p.stderr, (out, dry, p.stderr)
            assert "damaged before its last record" not in p.stderr, p.stderr


@pytest.mark.parametrize("flags,needle", [
    (["--n", "99999999999999999999"], "--n"), (["--n", "-1"], "-1"), (["--n", "0x10"], "0x10"),
    (["--n", "8", "--depth", "-3"], "--depth"), (["--n", "8", "--depth", "99999999999"], "--depth"),
    (["--n", "8", "--depth", "9"], "--depth 9 exceeds N = 8"),
    (["--n", "8", "--threads", "0"], "--threads"), (["--n", "8", "--threads", "1e9"], "--threads"),
    (["--n", "8", "--progress-interval", "-1"], "progress"), (["--n", "8", "--progress-interval", "nan"], "progress"),
    (["--n", "8", "--audit", "2"], "audit"), (["--n", "8", "--audit", "-0.5"], "audit"),
    (["--n", "8", "--audit", "nan"], "audit"),
    (["--n", "8", "--shard", "3/2"], "--shard"), (["--n", "8", "--shard", "-1/2"], "--shard"),
    (["--n", "8", "--shard", "1/0"], "--shard"), (["--n", "8", "--shard", "a/b"], "--shard"),
    (["--n", "8", "--shard", "99999999999999999999/1"], "--shard"),
    (["--n", "8", "--mode", "both"], "--mode"), (["--n", "8", "--boards", "some"], "--boards"),
    (["--n", "25", "--mode", "boards"], "PB of result file"), (["--mode", "count"], "N is missing"),
])
def test_hostile_flags_are_usage_errors(workdir, flags, needle):
    p = run(["run"] + flags + ["--out", workdir / "f.h5"], timeout=60)
    injected("run: hostile flag")
    assert_clean_error(p, {EXIT["usage"]}, needle=needle)
    assert not (workdir / "f.h5").exists()


@pytest.mark.parametrize("text,needle", [
    ("n = 99999999999999999999999\n", "job file"), ("n = -9223372036854775808\n", "'n'"),
    ("n = 8.0\n", "'n' must be an integer"), ("n = \"8\"\n", "'n' must be an integer"),
    ("n = [8]\n", "'n'"), ("n = true\n", "'n'"), ("n = 8\nmode = 1\n", "'mode'"),
    ("n = 8\nout = 5\n", "'out'"), ("n = 8\ndepth = 1e400\n", "1e400"), ("n = 8\ndepth = 1e300\n", "'depth'"),
    ("n = 8\nprogress_interval = nan\n", "progress_interval"), ("n = 8\nprogress_interval = \"x\"\n", "progress_interval"),
    ("n = 8\naudit = 1.5\n", "'audit'"), ("n = 8\naudit = \"half\"\n", "'audit'"),
    ("n = 8\nn = 9\n", "job file"), ("[job]\nn = 8\n", "unknown key 'job'"), ("n = 8\nshard = 1\n", "'shard'"),
    ("n = 8\nshard = \"2/2\"\n", "key 'shard'"), ("\u00e9 = 1\nn = 8\n", "line 1"), ("\"\u00e9\" = 1\nn = 8\n", "unknown key"), ("", "'n'"),
    ("n = 8\na = " + "[" * 5000 + "]" * 5000 + "\n", "job file"),
    ("n = 8\n" + "".join(f"k{i} = {i}\n" for i in range(20000)), "unknown key"),
    ("n = 8\0\n", "job file"),
], ids=lambda v: v[:40] if isinstance(v, str) else None)
def test_hostile_job_file_values_are_usage_errors_naming_the_key(workdir, text, needle):
    job = write_file(workdir / "job.toml", text.encode())
    p = run(["run", job, "--out", workdir / "f.h5"], timeout=60)
    injected("job file: hostile value")
    assert_clean_error(p, {EXIT["usage"]}, needle=needle)


@pytest.mark.parametrize("name", ["missing", "dir", "fifo", "empty", "foreign", "random"])
def test_job_file_paths_that_are_not_job_files(files, name):
    p = run(["run", files[name]], timeout=30)
    injected("job file: hostile path")
    assert_clean_error(p, {EXIT["usage"]}, needle="job file")


def test_the_binary_itself_as_a_job_file(workdir):
    from nqtest import BIN
    p = run(["run", BIN, "--out", workdir / "f.h5"], timeout=30)
    injected("job file: hostile path")
    assert_clean_error(p, {EXIT["usage"]}, needle="job file")


def test_valid_job_file_runs_and_matches_the_table(workdir):
    job = write_file(workdir / "job.toml", VALID_JOB.encode())
    run(["run", job], cwd=workdir, check=0)
    a = readable_result(workdir / "out.h5")
    assert a["total"] == KNOWN[8]["total"] and a["boards_stored"] == "class"
