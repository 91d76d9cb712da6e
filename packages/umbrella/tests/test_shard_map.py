"""shard_map on 8 CPU devices, in a fresh process (the device count is fixed at first use).

The golden script compares with JAX 0.10.2; the checks under ``multidevice/``
(collected only there, as ``check_*.py``) test values against NumPy and the
transformations through shard_map.
"""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

HERE = pathlib.Path(__file__).parent
ENV = {**os.environ, "TESSELA_NUM_CPU_DEVICES": "8"}


def test_shard_map_cases_match_jax_golden_output() -> None:
    out = subprocess.run(
        [sys.executable, str(HERE / "golden" / "shard_map_cases.py"), "tessela"],
        capture_output=True, text=True, env=ENV, check=False,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    want = (HERE / "golden" / "shard_map_cases.txt").read_text().splitlines()
    assert out.stdout.splitlines() == want


def test_shard_map_checks_pass_on_eight_devices() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
         "-o", "python_files=check_*.py", str(HERE / "multidevice")],
        capture_output=True, text=True, env=ENV, check=False, cwd=HERE,
    )  # fmt: skip
    assert out.returncode == 0, out.stdout[-6000:] + out.stderr[-2000:]
    summary = out.stdout.strip().splitlines()[-1]
    assert " passed" in summary and "skipped" not in summary, summary
