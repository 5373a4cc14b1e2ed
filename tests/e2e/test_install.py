"""The install an HPC site loads (docs/install.md): `cmake --install` into a temporary prefix,
the modulefile loaded with a real `module` command (Environment Modules, or Lmod), then from a
folder outside the tree, with a PATH of the system's folders only and no NQUEENS_BIN or
PYTHONPATH: a job under mpirun, `nqanalyze verify` on its file, and `slurm/submit --dry-run` of an
installed job file. Also `pip install` of analysis/ (its pyproject.toml and entry point).

NQ_BUILD_DIR is the build tree to install and NQ_CMAKE the cmake that installs it (CTest sets both;
the install also rewrites the build tree's install_manifest.txt). The session's transcript is printed
(ctest -V, or pytest -s)."""
import glob
import os
import re
import shutil
import subprocess
from pathlib import Path

import h5py
import pytest

from conftest import KNOWN, MPI_ENV, ROOT

BUILD = Path(os.environ.get("NQ_BUILD_DIR", ROOT / "build" / "release"))
CMAKE = os.environ.get("NQ_CMAKE", "cmake")
SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
# `module`'s shell init: Environment Modules (Debian's environment-modules), then Lmod.
MODULE_INITS = ["/usr/share/modules/init/bash", "/usr/share/lmod/lmod/init/bash"]
N = 10
JOB = "count-n16.toml"

SESSION = r"""
set -euo pipefail
step() { printf '\n### %s\n' "$*"; }
source "$NQ_MODULE_INIT"
cd "$NQ_WORK"
step "module use \$PREFIX/share/modulefiles; module load nqueens"
module use "$PREFIX/share/modulefiles"
module load nqueens
module list 2>&1
step "module help nqueens"
if module help nqueens 2>&1; then echo "module help: exit 0"; else echo "module help: exit $?"; fi
step "module loaded"
echo "NQUEENS_ROOT=$NQUEENS_ROOT"
echo "NQUEENS_SHARE=$NQUEENS_SHARE"
echo "nqueens=$(command -v nqueens)"
echo "nqanalyze=$(command -v nqanalyze)"
echo "nqanalysis=$(python3 -c 'import nqanalysis; print(nqanalysis.__file__)')"
step "pwd"
pwd
step "mpirun -n 2 nqueens run --n $NQ_N --mode boards --boards class --out results/n$NQ_N.h5"
mpirun -n 2 nqueens run --n "$NQ_N" --mode boards --boards class --out "results/n$NQ_N.h5"
step "nqanalyze verify results/n$NQ_N.h5"
nqanalyze verify "results/n$NQ_N.h5"
step "\$NQUEENS_SHARE/slurm/submit \$NQUEENS_SHARE/jobs/$NQ_JOB --dry-run"
"$NQUEENS_SHARE/slurm/submit" "$NQUEENS_SHARE/jobs/$NQ_JOB" --dry-run 2>&1
step "module unload nqueens"
module unload nqueens
echo "nqueens=$(command -v nqueens || echo none)"
echo "NQUEENS_ROOT=${NQUEENS_ROOT:-unset}"
"""


def clean_env(**extra):
    """The environment of a fresh login: system PATH, nothing of the build tree or a module."""
    keep = {k: v for k, v in os.environ.items()
            if k in ("HOME", "USER", "LANG", "LC_ALL", "TMPDIR", "TERM")}
    return dict(keep, PATH=SYSTEM_PATH, **MPI_ENV, **extra)


def module_init():
    found = [p for p in MODULE_INITS if os.path.isfile(p)]
    assert found, (f"no `module` command: none of {MODULE_INITS} exists "
                   "(scripts/setup-deps.sh installs environment-modules)")
    return found[0]


def sections(text):
    """'### title' blocks of the transcript -> {title: body}."""
    out = {}
    for block in text.split("\n### ")[1:]:
        title, _, body = block.partition("\n")
        out[title] = body
    return out


@pytest.fixture(scope="module")
def prefix(tmp_path_factory):
    p = tmp_path_factory.mktemp("prefix")
    res = subprocess.run([CMAKE, "--install", str(BUILD), "--prefix", str(p)],
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, f"cmake --install failed:\n{res.stdout}\n{res.stderr}"
    return p


@pytest.fixture(scope="module")
def session(prefix, tmp_path_factory):
    work = tmp_path_factory.mktemp("elsewhere")
    env = clean_env(NQ_MODULE_INIT=module_init(), NQ_WORK=str(work), PREFIX=str(prefix),
                    NQ_N=str(N), NQ_JOB=JOB)
    res = subprocess.run(["bash", "-c", SESSION], capture_output=True, text=True, env=env,
                         timeout=600, cwd=work)
    transcript = res.stdout + res.stderr
    print(f"\n--- install test session (prefix {prefix}, folder {work}) ---\n{transcript}")
    assert res.returncode == 0, f"the session failed with exit code {res.returncode}:\n{transcript}"
    return work, sections(res.stdout)


def test_install_gives_the_programs_the_package_the_share_folder_and_a_modulefile(prefix):
    for rel in ["bin/nqueens", "bin/nqanalyze", "share/nqueens/slurm/submit",
                "share/nqueens/slurm/nqueens.sbatch", "share/nqueens/slurm/shard.sbatch",
                "share/nqueens/slurm/merge.sbatch", "share/nqueens/slurm/sweep.sbatch"]:
        assert os.access(prefix / rel, os.X_OK), rel
    jobs = sorted(p.name for p in (prefix / "share/nqueens/jobs").iterdir())
    assert jobs == sorted(p.name for p in (ROOT / "jobs").glob("*.toml"))
    table = prefix / "lib/nqueens/python/nqanalysis/known-counts.tsv"
    assert not table.is_symlink() and table.read_text() == (ROOT / "data/known-counts.tsv").read_text()
    assert (prefix / "lib/nqueens/python/nqanalysis/cli.py").is_file()
    version = subprocess.run([str(prefix / "bin/nqueens"), "--version"], capture_output=True,
                             text=True, check=True).stdout
    modulefiles = list((prefix / "share/modulefiles/nqueens").iterdir())
    assert len(modulefiles) == 1 and f"nqueens {modulefiles[0].name} " in version, (modulefiles, version)
    assert f"{{{prefix}}}" in modulefiles[0].read_text()


def test_module_load_puts_the_install_on_the_paths(prefix, session):
    _, s = session
    load = s["module loaded"]
    assert f"NQUEENS_ROOT={prefix}\n" in load and f"NQUEENS_SHARE={prefix}/share/nqueens\n" in load
    assert f"nqueens={prefix}/bin/nqueens\n" in load
    assert f"nqanalyze={prefix}/bin/nqanalyze\n" in load
    assert f"nqanalysis={prefix}/lib/nqueens/python/nqanalysis/__init__.py\n" in load
    # `module help` shows every line of the help (brackets in it were taken for Tcl commands:
    # ERROR, invalid command name "--shards")
    help_ = s["module help nqueens"]
    assert "module help: exit 0" in help_ and "ERROR" not in help_, help_
    assert "slurm/submit JOB.toml [--shards K] [--dry-run]" in help_, help_
    unload = s["module unload nqueens"]
    assert "nqueens=none\n" in unload and "NQUEENS_ROOT=unset\n" in unload


def test_a_job_from_another_folder_gives_the_published_counts(session):
    work, s = session
    assert s["pwd"].strip() == str(work) and not str(work).startswith(str(ROOT))
    # the summary names the installed launcher, on PATH through the module, by its bare name
    run_out = s[f"mpirun -n 2 nqueens run --n {N} --mode boards --boards class --out results/n{N}.h5"]
    assert f"|   nqanalyze summary results/n{N}.h5\n" in run_out, run_out
    with h5py.File(work / "results" / f"n{N}.h5") as f:
        assert int(f.attrs["total"]) == KNOWN[N]["total"]
        assert int(f.attrs["unique"]) == KNOWN[N]["unique"]
        assert f["boards/solutions"].shape[0] == KNOWN[N]["unique"]   # class: one board per class


def test_installed_nqanalyze_verifies_the_file(session):
    _, s = session
    out = s[f"nqanalyze verify results/n{N}.h5"]
    assert re.search(r"^RESULT: PASS", out, re.M), out
    assert "FAIL" not in out, out


def test_installed_submit_runs_the_installed_binary_on_the_installed_job(prefix, session):
    work, s = session
    out = s[f"$NQUEENS_SHARE/slurm/submit $NQUEENS_SHARE/jobs/{JOB} --dry-run"]
    share = prefix / "share" / "nqueens"
    assert f"+ NQUEENS_BIN={prefix}/bin/nqueens sbatch " in out, out
    assert f" {share}/slurm/nqueens.sbatch {share}/jobs/{JOB}\n" in out, out
    assert f"result {work}/results/count-n16.h5\n" in out, out


def test_pip_installs_the_package_with_its_entry_point(session, tmp_path):
    """pip, offline, from a copy of analysis/ (an in-tree build would write build/ and
    *.egg-info into the checkout); symlinks are copied as files, as in an sdist."""
    work, _ = session
    src = tmp_path / "src"
    shutil.copytree(ROOT / "analysis", src, symlinks=False,
                    ignore=shutil.ignore_patterns("__pycache__", "tests", "build", "*.egg-info"))
    pip = ["/usr/bin/python3", "-m", "pip", "install", "--no-build-isolation", "--no-deps",
           "--no-index", "--disable-pip-version-check", "--root-user-action=ignore", "-q",
           "--prefix", str(tmp_path / "pip"), str(src)]
    res = subprocess.run(pip, capture_output=True, text=True, env=clean_env(), timeout=300)
    assert res.returncode == 0, f"{' '.join(pip)}:\n{res.stdout}\n{res.stderr}"
    scripts = glob.glob(str(tmp_path / "pip" / "**" / "bin" / "nqanalyze"), recursive=True)
    packages = glob.glob(str(tmp_path / "pip" / "**" / "nqanalysis" / "known-counts.tsv"), recursive=True)
    assert len(scripts) == 1 and len(packages) == 1, (scripts, packages)
    site = str(Path(packages[0]).parents[1])
    res = subprocess.run([scripts[0], "verify", f"results/n{N}.h5"], capture_output=True, text=True,
                         env=clean_env(PYTHONPATH=site), cwd=work, timeout=300)
    assert res.returncode == 0 and re.search(r"^RESULT: PASS", res.stdout, re.M), res.stdout + res.stderr
    where = subprocess.run(["/usr/bin/python3", "-c", "import nqanalysis.known as k; print(k.default_table_path())"],
                           capture_output=True, text=True, env=clean_env(PYTHONPATH=site), cwd=work)
    assert where.stdout.strip() == packages[0], where
