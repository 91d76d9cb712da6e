"""Sharded arrays and shard_map on 8 CPU devices, each suite in a fresh process.

The backend fixes its device count when first used, and the rest of this
package's tests run on one device; so the checks under ``multidevice/`` run
in a subprocess with ``TESSELA_NUM_CPU_DEVICES=8`` (pytest collects their
``check_*.py`` files only there), and the golden scripts run the same way.
"""

from __future__ import annotations

import os
import pathlib
import re
import subprocess
import sys

import pytest

HERE = pathlib.Path(__file__).parent
GOLDEN = HERE / "golden"
ENV = {**os.environ, "TESSELA_NUM_CPU_DEVICES": "8"}
ERROR_LINE = re.compile(r"^[A-Za-z]*Error: ")


def _same(got: str, want: str) -> bool:
    # An error message is JAX's, possibly followed by how to fix the input.
    return got == want or (ERROR_LINE.match(want) is not None and got.startswith(want))


@pytest.mark.parametrize("script", ["sharded_arrays", "shard_map_lowering"])
def test_golden_output_matches_jax(script: str) -> None:
    out = subprocess.run(
        [sys.executable, str(GOLDEN / f"{script}.py"), "tessela"],
        capture_output=True, text=True, env=ENV, check=False,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    got = out.stdout.splitlines()
    want = (GOLDEN / f"{script}.txt").read_text().splitlines()
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        assert _same(g, w), f"line {i + 1}:\n got: {g}\nwant: {w}"


@pytest.mark.parametrize("suite", sorted(p.name for p in (HERE / "multidevice").glob("check_*.py")))
def test_suite_passes_on_eight_devices(suite: str) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
         "-o", "python_files=check_*.py", str(HERE / "multidevice" / suite)],
        capture_output=True, text=True, env=ENV, check=False, cwd=HERE,
    )  # fmt: skip
    assert out.returncode == 0, out.stdout[-6000:] + out.stderr[-2000:]
    summary = out.stdout.strip().splitlines()[-1]
    assert " passed" in summary and "skipped" not in summary, summary
