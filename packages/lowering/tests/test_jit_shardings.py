"""jit with shardings on 8 CPU devices against JAX 0.10.2's golden output.

``golden/jit_shardings.py`` prints, per case, the mesh and the sharding
annotations of the lowered module, the output shardings of the call and
whether each output equals its single-device value; with JAX 0.10.2 it wrote
``golden/jit_shardings.txt``. Here it runs with Tessela in a fresh process
with 8 devices (the rest of this package's tests use one).
"""

from __future__ import annotations

import _golden_scripts


def test_annotations_and_output_shardings_match_jax() -> None:
    out = _golden_scripts.run("jit_shardings", devices=8)
    assert out.returncode == 0, out.stderr[-3000:]
    got = out.stdout.splitlines()
    _golden_scripts.assert_lines_match(got, "jit_shardings")
    # Every sharded result equals its single-device value.
    assert sum("ok=True" in line for line in got) == sum(line.startswith("out ") for line in got)
