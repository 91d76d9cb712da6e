"""jit with shardings on 8 CPU devices against JAX 0.10.2's golden output.

``golden/jit_shardings.py`` prints, per case, the mesh and the sharding
annotations of the lowered module, the output shardings of the call and
whether each output equals its single-device value; with JAX 0.10.2 it wrote
``golden/jit_shardings.txt``. Here it runs with Tessela in a fresh process
with 8 devices (the rest of this package's tests use one).
"""

from __future__ import annotations

import os
import pathlib
import re
import subprocess
import sys

HERE = pathlib.Path(__file__).parent
GOLDEN = HERE / "golden"
ERROR_LINE = re.compile(r"^[A-Za-z]*Error: ")


def _same(got: str, want: str) -> bool:
    # An error message is JAX's, possibly followed by how to fix the input.
    return got == want or (ERROR_LINE.match(want) is not None and got.startswith(want))


def test_annotations_and_output_shardings_match_jax() -> None:
    env = {**os.environ, "TESSELA_NUM_CPU_DEVICES": "8"}
    out = subprocess.run(
        [sys.executable, str(GOLDEN / "jit_shardings.py"), "tessela"],
        capture_output=True, text=True, env=env, check=False,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    got = out.stdout.splitlines()
    want = (GOLDEN / "jit_shardings.txt").read_text().splitlines()
    assert len(got) == len(want), "\n".join(got)
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        assert _same(g, w), f"line {i + 1}:\n got: {g}\nwant: {w}"
    # Every sharded result equals its single-device value.
    assert sum("ok=True" in line for line in got) == sum(line.startswith("out ") for line in got)
