"""Sharding constraints under grad and vmap inside jit, as JAX 0.10.2 lowers and lays them out.

Run with JAX 0.10.2 (``XLA_FLAGS=--xla_force_host_platform_device_count=8
python jit_shardings_transforms.py jax > jit_shardings_transforms.txt``) it
prints, per case, the ``sdy.sharding_constraint`` ops of the lowered module,
the spec of the result and whether it equals its single-device (NumPy) value.
``tests/test_jit_shardings_transforms.py`` runs it with ``tessela`` on 8
devices and compares (tessela-lowering's ``tests/golden/jit_shardings.py``
holds the cases without transformations).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from typing import Any

import numpy as np

if sys.argv[1] == "jax":
    import jax as tx
    from jax import lax
    from jax.sharding import AxisType
    from jax.sharding import PartitionSpec as P
else:
    import tessela as tx
    from tessela import lax
    from tessela.sharding import AxisType
    from tessela.sharding import PartitionSpec as P

CONSTRAINT = re.compile(r"sdy\.sharding_constraint %[\w#]+ (<[^>]*>)")


def report(name: str, f: Callable[..., Any], x: np.ndarray, want: np.ndarray) -> None:
    print(f"# {name}")
    for m in CONSTRAINT.finditer(f.lower(x).as_text()):
        print(f"constraint {m.group(1)}")
    out = f(x)
    print(f"out {out.sharding.spec} ok={np.allclose(np.asarray(out), want)}")


mesh = tx.make_mesh((4, 2), ("x", "y"), axis_types=(AxisType.Auto,) * 2)
x = np.arange(32, dtype=np.float32).reshape(8, 4)
xs = np.stack([x, -x])
with tx.set_mesh(mesh):
    report(
        "grad through with_sharding_constraint",
        tx.jit(tx.grad(lambda a: lax.with_sharding_constraint(a * a, P(None, "y")).sum())),
        x, 2 * x,
    )  # fmt: skip
    report(
        "vmap of with_sharding_constraint",
        tx.jit(tx.vmap(lambda a: lax.with_sharding_constraint(a * 3, P("x")))),
        xs, xs * 3,
    )  # fmt: skip
    report(
        "vmap over the second axis",
        tx.jit(tx.vmap(lambda a: lax.with_sharding_constraint(a + 1, P("x", "y")), 1, 1)),
        xs.transpose(1, 0, 2), xs.transpose(1, 0, 2) + 1,
    )  # fmt: skip
    inner = tx.jit(lambda a: a * 3, in_shardings=P("x"), out_shardings=P(None, "y"))
    report(
        "grad of a jit with shardings",
        tx.jit(tx.grad(lambda a: inner(a).sum())),
        x, np.full_like(x, 3),
    )  # fmt: skip
