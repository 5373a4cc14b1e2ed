"""Each layer's target sees only its own headers and those of the layers below it.

For every FROM:TO pair (tests/unit/layering/CMakeLists.txt), a one-line translation unit built with
FROM's target includes a header of TO. Forbidden pairs must fail, and fail because the header is
not found; allowed pairs must build."""
import os
import subprocess

import pytest

CMAKE = os.environ["NQ_CMAKE"]
BUILD = os.environ["NQ_BUILD_DIR"]
HEADERS = dict(kv.split("=") for kv in os.environ["NQ_PROBE_HEADERS"].split(","))


def pairs(var):
    return [tuple(p.split(":")) for p in os.environ[var].split(",")]


def build(frm, to):
    target = f"nq_layering_{frm}_includes_{to}"
    return subprocess.run([CMAKE, "--build", BUILD, "--target", target],
                          capture_output=True, text=True, timeout=240)


@pytest.mark.parametrize("frm,to", pairs("NQ_FORBIDDEN"))
def test_a_layer_cannot_include_a_header_it_must_not(frm, to):
    r = build(frm, to)
    out = r.stdout + r.stderr
    assert r.returncode != 0, f"{frm} compiled an #include of {HEADERS[to]}:\n{out}"
    assert HEADERS[to] in out and ("file not found" in out or "No such file" in out), out


@pytest.mark.parametrize("frm,to", pairs("NQ_ALLOWED"))
def test_a_layer_includes_the_layers_below_it(frm, to):
    r = build(frm, to)
    assert r.returncode == 0, r.stdout + r.stderr
