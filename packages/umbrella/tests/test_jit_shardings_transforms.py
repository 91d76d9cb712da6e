"""Sharding constraints under grad and vmap on 8 devices, against JAX 0.10.2's golden output.

``golden/jit_shardings_transforms.py`` wrote ``jit_shardings_transforms.txt``
with JAX 0.10.2; here it runs with Tessela in a fresh process with 8 CPU
devices and must print the same lines.
"""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

GOLDEN = pathlib.Path(__file__).parent / "golden"


def test_constraints_and_result_shardings_under_transformations_match_jax() -> None:
    env = {**os.environ, "TESSELA_NUM_CPU_DEVICES": "8"}
    out = subprocess.run(
        [sys.executable, str(GOLDEN / "jit_shardings_transforms.py"), "tessela"],
        capture_output=True, text=True, env=env, check=False,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    want = (GOLDEN / "jit_shardings_transforms.txt").read_text().splitlines()
    assert out.stdout.splitlines() == want
    assert all("ok=True" in line for line in want if line.startswith("out "))
