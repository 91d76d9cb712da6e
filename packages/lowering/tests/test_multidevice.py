"""Sharded arrays and shard_map on 8 CPU devices, each suite in a fresh process.

The backend fixes its device count when first used, and the rest of this
package's tests run on one device; so the checks under ``multidevice/`` run
in a subprocess with ``TESSELA_NUM_CPU_DEVICES=8`` (pytest collects their
``check_*.py`` files only there), and the golden scripts run the same way.
"""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import _golden_scripts
import pytest

HERE = pathlib.Path(__file__).parent
ENV = {**os.environ, "TESSELA_NUM_CPU_DEVICES": "8"}


@pytest.mark.parametrize("script", ["sharded_arrays", "shard_map_lowering"])
def test_golden_output_matches_jax(script: str) -> None:
    out = _golden_scripts.run(script, devices=8)
    assert out.returncode == 0, out.stderr[-3000:]
    _golden_scripts.assert_lines_match(out.stdout.splitlines(), script)


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
