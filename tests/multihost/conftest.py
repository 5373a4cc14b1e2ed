"""The multihost tier's fixture: three emulated hosts (network + UTS namespaces on a private
bridge, made by hosts.sh), Open MPI across them over TCP, and a Slurm cluster with one slurmd per
host. Everything is created at the start of the session (after removing what a killed earlier
session left, by the prefix) and removed at its end, also when a test fails or the run is
interrupted (finalizer, atexit, SIGTERM)."""
import atexit
import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
import nqtest
from slurmtest import Slurm

HOSTS_SH = str(HERE / "hosts.sh")
PREFIX = os.environ.setdefault("NQ_MH_PREFIX", "nqmh")
NET = os.environ.setdefault("NQ_MH_NET", "10.231.7")
SUBNET = f"{NET}.0/24"
H1, H2, H3 = HOSTS = [f"{PREFIX}{i}" for i in (1, 2, 3)]
# Open MPI across the hosts: TCP only (no shared memory, which would work between namespaces of
# one machine and hide the network), only on the hosts' subnet, daemons started by hosts.sh
# instead of ssh. ORTE's TCP keepalive is shortened (default 300 s idle + 9 x 20 s) so that a
# host whose link is cut is declared lost within ~5 + 3 x 2 = 11 s.
MCA = {
    "OMPI_MCA_btl": "self,tcp",
    "OMPI_MCA_btl_tcp_if_include": SUBNET,
    "OMPI_MCA_oob_tcp_if_include": SUBNET,
    "OMPI_MCA_plm_rsh_agent": f"{HOSTS_SH} agent",
    "OMPI_MCA_plm_rsh_no_tree_spawn": "1",
    "OMPI_MCA_oob_tcp_keepalive_time": "5",
    "OMPI_MCA_oob_tcp_keepalive_intvl": "2",
    "OMPI_MCA_oob_tcp_keepalive_probes": "3",
}
JOB_PROCESSES = {"mpirun", "orted", "nqueens"}
# Core files allowed for everything the tier starts (slurmd, hence the ranks: Slurm propagates the
# submitter's limits), so that a rank's crash leaves a core where core_pattern puts it
# (slurmtest.core_stacks reads those in the job's folder).
resource.setrlimit(resource.RLIMIT_CORE, (resource.getrlimit(resource.RLIMIT_CORE)[1],) * 2)
REPORT = []   # lines for the end-of-session summary (times, dispatch figures)


def sh(*args, timeout=120, check=True):
    p = subprocess.run([HOSTS_SH, *map(str, args)], capture_output=True, text=True, timeout=timeout)
    if check:
        assert p.returncode == 0, f"hosts.sh {' '.join(map(str, args))}: exit {p.returncode}\n{p.stdout}{p.stderr}"
    return p


def address(host):
    return f"{NET}.{host[len(PREFIX):]}"


class Hosts:
    """The emulated hosts: starting jobs on host 1 and breaking hosts."""

    names = HOSTS

    def hostfile(self, path, slots):
        """A hostfile naming the hosts by address (Open MPI resolves no names here), in order."""
        Path(path).write_text("".join(f"{address(h)} slots={k}\n" for h, k in slots.items()))
        return path

    def command(self, args, hostfile, ranks):
        return [HOSTS_SH, "exec", H1, "mpirun", "--hostfile", str(hostfile), "-n", str(ranks)] + [str(a) for a in args]

    def env(self, extra=None):
        return nqtest.env(dict(MCA, **(extra or {})))

    def start(self, args, hostfile, ranks, extra_env=None):
        """mpirun on host 1 (the Popen's pid is mpirun's: nsenter execs it), own process group."""
        return subprocess.Popen(self.command([nqtest.BIN] + list(args), hostfile, ranks), env=self.env(extra_env),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)

    def run(self, args, hostfile, ranks, program=None, check=None, timeout=300, extra_env=None):
        cmd = self.command([program or nqtest.BIN] + list(args), hostfile, ranks)
        p = subprocess.run(cmd, env=self.env(extra_env), capture_output=True, text=True, timeout=timeout)
        if check is not None:
            assert p.returncode == check, f"exit {p.returncode}, expected {check}\nstdout:\n{p.stdout}\nstderr:\n{p.stderr}"
        return p

    def exec(self, host, cmd, **kw):
        kw.setdefault("capture_output", True)
        kw.setdefault("text", True)
        return subprocess.run([HOSTS_SH, "exec", host] + [str(c) for c in cmd], env=self.env(kw.pop("env", None)), **kw)

    def job_processes(self, host):
        """(pid, name) of every mpirun, orted and nqueens process on `host`."""
        out = subprocess.run(["ip", "netns", "pids", host], capture_output=True, text=True).stdout
        found = []
        for pid in out.split():
            try:
                name = Path(f"/proc/{pid}/comm").read_text().strip()
                state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            if name in JOB_PROCESSES and state != "Z":
                found.append((int(pid), name))
        return found

    def reap(self):
        """Kills what is left of any job on every host (not the Slurm daemons)."""
        for h in self.names:
            for pid, _ in self.job_processes(h):
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass

    def kill(self, host):
        sh("kill", host)

    def link(self, host, state):
        sh("link", host, state)

    def slow(self, host, delay_ms, loss):
        sh("slow", host, delay_ms, loss)

    def fast(self, host):
        sh("fast", host)


def _down():
    subprocess.run([HOSTS_SH, "down"], capture_output=True, timeout=120)


def namespaces_forbidden():
    """Why this kernel/container cannot give the tier its hosts, or None."""
    if os.geteuid() != 0:
        return "needs root (network and UTS namespaces, veth, bridges)"
    p = subprocess.run(["unshare", "--net", "--uts", "true"], capture_output=True, text=True)
    if p.returncode != 0:
        return f"the kernel forbids network/UTS namespaces here (unshare --net --uts: {p.stderr.strip()})"
    return None


@pytest.fixture(scope="session")
def hosts():
    why = namespaces_forbidden()
    if why:
        pytest.skip(f"multihost tier skipped: {why}")
    assert Path(nqtest.BIN).exists(), f"nqueens binary not found at {nqtest.BIN}: build it first"
    atexit.register(_down)
    previous = signal.getsignal(signal.SIGTERM)
    signal.signal(signal.SIGTERM, lambda *_: (_down(), sys.exit(143)))
    t0 = time.monotonic()
    sh("up", len(HOSTS))   # removes a killed session's leftovers (same prefix) first
    REPORT.append(f"hosts {', '.join(f'{h} = {address(h)}' for h in HOSTS)} up in {time.monotonic() - t0:.1f} s")
    try:
        yield Hosts()
    finally:
        _down()
        signal.signal(signal.SIGTERM, previous)


@pytest.fixture
def cluster(hosts):
    """Per test: the hosts, with whatever a test left running reaped and every link restored."""
    yield hosts
    hosts.reap()
    for h in HOSTS:
        hosts.fast(h)
        hosts.link(h, "up")


@pytest.fixture(scope="session")
def slurm(hosts):
    """slurmctld on host 1 and one slurmd per host (hosts.sh slurm start), and a client for it."""
    t0 = time.monotonic()
    sh("slurm", "start", timeout=300)
    REPORT.append(f"slurm: slurmctld on {H1}, slurmd on {', '.join(HOSTS)}, all idle after {time.monotonic() - t0:.1f} s")
    try:
        yield Slurm(client=[HOSTS_SH, "client"])
    finally:
        sh("slurm", "stop", check=False)


@pytest.fixture
def workdir(tmp_path):
    return tmp_path


@pytest.fixture
def report():
    return REPORT.append


def pytest_terminal_summary(terminalreporter):
    terminalreporter.write_line("multihost tier:")
    for line in REPORT:
        terminalreporter.write_line("  " + line)
