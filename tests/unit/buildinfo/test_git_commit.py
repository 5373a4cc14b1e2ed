"""The git commit stamp (src/buildinfo) is taken at build time, not at configure time.

A throw-away git repository holds a small CMake project that adds the real src/buildinfo and an
executable printing nq::kGitCommit. It is configured once, then only rebuilt after each commit and
edit: a stamp taken at configure time would keep the first hash. The real `nqueens --version` is
checked against the source tree as git sees it when the test runs.
Environment (set by tests/unit/CMakeLists.txt): NQUEENS_BIN, NQ_SOURCE_DIR, NQ_CMAKE,
NQ_CMAKE_GENERATOR, NQ_CXX."""
import os
import re
import subprocess
from pathlib import Path

import pytest

SRC = Path(os.environ["NQ_SOURCE_DIR"])
CMAKE = os.environ.get("NQ_CMAKE", "cmake")
STAMP_SCRIPT = SRC / "src/buildinfo/stamp_git_commit.cmake"

# Git as the source tree's own repository says, not as a caller's hook environment says.
GIT_ENV = {k: v for k, v in os.environ.items() if k not in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE")}
# The scratch repositories ignore the user's and the system's git configuration (hooks, signing).
SCRATCH_GIT_ENV = dict(GIT_ENV, GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1",
                       GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.org",
                       GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.org")


def sh(cmd, cwd, env=None):
    p = subprocess.run([str(c) for c in cmd], cwd=cwd, env=env or SCRATCH_GIT_ENV, capture_output=True,
                       text=True, timeout=600)
    assert p.returncode == 0, f"{cmd} exited {p.returncode}\nstdout:\n{p.stdout}\nstderr:\n{p.stderr}"
    return p.stdout


def expected_commit(tree, env):
    """What the stamp must say for `tree`, asked of git directly."""
    head = sh(["git", "rev-parse", "--short=12", "HEAD"], tree, env).strip()
    dirty = sh(["git", "status", "--porcelain", "--untracked-files=no"], tree, env).strip()
    return head + ("-dirty" if dirty else "")


def stamp(tree, out):
    """Runs the stamp script alone on `tree` and returns the commit string it wrote."""
    sh([CMAKE, f"-DSOURCE_DIR={tree}", f"-DOUTPUT={out}", "-P", STAMP_SCRIPT], tree)
    m = re.search(r'kGitCommit = "([^"]*)";', out.read_text())
    assert m, out.read_text()
    return m.group(1)


@pytest.fixture
def repo(tmp_path):
    """A git repository with a CMake project built on src/buildinfo, configured once."""
    r = tmp_path / "repo"
    r.mkdir()
    (r / "CMakeLists.txt").write_text(f"""cmake_minimum_required(VERSION 3.25)
project(stamp_probe CXX)
add_library(nq_options INTERFACE)   # nq_buildinfo links the project's flags target; none needed here
include("{SRC}/cmake/Layers.cmake")   # nq_layer: the include root of src/buildinfo
add_subdirectory("{SRC}/src/buildinfo" buildinfo)
add_executable(probe probe.cpp)
target_link_libraries(probe PRIVATE nq_buildinfo)
""")
    (r / "probe.cpp").write_text('#include <cstdio>\n#include "buildinfo/git_commit.h"\n'
                                 'int main() { std::puts(nq::kGitCommit); }\n')
    (r / "tracked.txt").write_text("first\n")
    sh(["git", "init", "-q"], r)
    sh(["git", "add", "-A"], r)
    sh(["git", "commit", "-q", "-m", "first"], r)
    build = tmp_path / "build"   # outside the repository
    sh([CMAKE, "-S", r, "-B", build, "-G", os.environ.get("NQ_CMAKE_GENERATOR", "Ninja"),
        f"-DCMAKE_CXX_COMPILER={os.environ.get('NQ_CXX', 'c++')}"], r)
    return r, build


def built_commit(repo_dir, build):
    """Rebuilds (never reconfigures) the probe and returns what it prints."""
    sh([CMAKE, "--build", build], repo_dir)
    return sh([build / "probe"], repo_dir).strip()


def test_rebuild_stamps_each_commit_and_edit_without_reconfiguring(repo):
    r, build = repo
    first = built_commit(r, build)
    assert re.fullmatch(r"[0-9a-f]{12,}", first), first
    assert first == expected_commit(r, SCRATCH_GIT_ENV)

    (r / "tracked.txt").write_text("edited\n")
    assert built_commit(r, build) == first + "-dirty"

    sh(["git", "commit", "-q", "-am", "second"], r)
    second = built_commit(r, build)
    assert re.fullmatch(r"[0-9a-f]{12,}", second) and second != first, (first, second)
    assert second == expected_commit(r, SCRATCH_GIT_ENV)

    (r / "untracked.txt").write_text("not in git\n")   # only tracked files make a tree dirty
    assert built_commit(r, build) == second


def test_a_build_with_nothing_new_recompiles_and_relinks_nothing(repo):
    r, build = repo
    first = sh([CMAKE, "--build", build], r)
    assert "Linking CXX executable probe" in first, first
    again = sh([CMAKE, "--build", build], r)   # the stamp runs, finds the same commit, writes nothing
    assert "Building CXX" not in again and "Linking" not in again, again


def test_outside_a_git_work_tree_the_commit_is_unknown(tmp_path):
    plain = tmp_path / "tarball"   # not a repository at all
    plain.mkdir()
    assert stamp(plain, tmp_path / "a.cpp") == "unknown"
    outer = tmp_path / "home"   # someone else's repository, with a commit...
    (outer / "unpacked").mkdir(parents=True)   # ...and a tree unpacked inside it
    (outer / "notes.txt").write_text("x\n")
    sh(["git", "init", "-q"], outer)
    sh(["git", "add", "notes.txt"], outer)
    sh(["git", "commit", "-q", "-m", "theirs"], outer)
    assert stamp(outer / "unpacked", tmp_path / "b.cpp") == "unknown"
    empty = tmp_path / "empty"   # a repository without a commit
    empty.mkdir()
    sh(["git", "init", "-q"], empty)
    assert stamp(empty, tmp_path / "c.cpp") == "unknown"


def test_the_built_binary_reports_the_source_tree_it_was_built_from():
    out = sh([os.environ["NQUEENS_BIN"], "--version"], SRC, GIT_ENV).splitlines()[0]
    m = re.fullmatch(r"nqueens \S+ \((\S+)\)", out)
    assert m, out
    top = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=SRC, env=GIT_ENV,
                         capture_output=True, text=True)
    if top.returncode == 0 and Path(top.stdout.strip()).resolve() == SRC.resolve():
        assert m.group(1) == expected_commit(SRC, GIT_ENV)
    else:   # not a git checkout of its own
        assert m.group(1) == "unknown"
