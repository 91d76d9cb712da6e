"""The JAX column of the benchmarks: JAX's rows, measured in a separate process.

JAX runs under ``TESSELA_BENCH_JAX_PYTHON`` (default: this interpreter), never
in the process that imports tessela_lowering.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys


def jax_times(code: str) -> dict[str, float] | None:
    """Run ``code`` with JAX's interpreter and read the rows it prints.

    Args:
      code: a program that prints its rows as one JSON object on its last line.

    Returns:
      The rows, or None when JAX is missing (the program failed).
    """
    python = os.environ.get("TESSELA_BENCH_JAX_PYTHON", sys.executable)
    proc = subprocess.run([python, "-c", code], capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        return None
    return dict(json.loads(proc.stdout.strip().splitlines()[-1]))
