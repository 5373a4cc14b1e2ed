"""The faults tier: the real binary under injected faults (kill -9, stop signals, torn and corrupt
journals, full disks, hostile input, lying workers). Helpers come from tests/support/nqtest.py
(shared with tests/e2e) and tests/faults/faultlib.py; test modules import those directly."""
from pathlib import Path

import pytest

import faultlib
from nqtest import BIN


@pytest.fixture
def workdir(tmp_path):
    return tmp_path


@pytest.fixture
def rng(request):
    """A random generator seeded from the tier seed and the test's name: one seed repeats a run."""
    return faultlib.rng_for(request.node.nodeid)


def pytest_sessionstart(session):
    assert Path(BIN).exists(), f"nqueens binary not found at {BIN}: build it first"


def pytest_terminal_summary(terminalreporter):
    terminalreporter.write_line(faultlib.summary())
