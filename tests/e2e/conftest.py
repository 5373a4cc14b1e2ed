"""Shared helpers for the end-to-end tests: the real `nqueens` binary, run plainly or under
mpirun with several ranks, on real HDF5 files read with h5py. The helpers live in
tests/support/nqtest.py (shared with the faults tier); this file re-exports them."""
from pathlib import Path

import pytest

from nqtest import *  # noqa: F401,F403  (the e2e tests import the helpers from here)
from nqtest import BIN


@pytest.fixture
def workdir(tmp_path):
    return tmp_path


def pytest_sessionstart(session):
    assert Path(BIN).exists(), f"nqueens binary not found at {BIN}: build it first (scripts/build.sh)"
