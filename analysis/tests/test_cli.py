"""The nqanalyze entry point: every subcommand has --help; errors are one line."""

import os

import pytest

from conftest import NQANALYZE, nq, nq_subprocess


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
