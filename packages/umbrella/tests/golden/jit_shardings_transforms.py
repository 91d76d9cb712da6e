"""Sharding constraints under grad and vmap inside jit, as JAX 0.10.2 lowers and lays them out.

Run with JAX 0.10.2 (``XLA_FLAGS=--xla_force_host_platform_device_count=8
python jit_shardings_transforms.py jax > jit_shardings_transforms.txt``) it
prints, per case, the ``sdy.sharding_constraint`` ops of the lowered module,
the spec of the result and whether it equals its single-device (NumPy) value.
``tests/test_jit_shardings_transforms.py`` runs it with ``tessela`` on 8
devices and compares (tessela-lowering's ``tests/golden/jit_shardings.py``
holds the cases without transformations). The last cases take gradients
over a mesh whose axes are ``Explicit``: eagerly outside ``set_mesh`` JAX
0.10.2 raises (the error's class, its first sentence and whether it names
``set_mesh`` are printed), under ``set_mesh`` or ``jit`` it runs.
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
    from jax.sharding import AxisType, NamedSharding, auto_axes
    from jax.sharding import PartitionSpec as P
else:
    import tessela as tx
    from tessela import lax
    from tessela.sharding import AxisType, NamedSharding, auto_axes
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

explicit = tx.make_mesh((4, 2), ("x", "y"), axis_types=(AxisType.Explicit,) * 2)
s_ex = NamedSharding(explicit, P("x"))
squares = tx.jit(lambda a: (a * a).sum(), in_shardings=s_ex)
for what, call in [
    ("eager grad of a jit with shardings over Explicit axes", lambda: tx.grad(squares)(x)),
    ("eager value_and_grad of a jit on a committed argument",
     lambda: tx.value_and_grad(tx.jit(lambda a: (a * a).sum()))(tx.device_put(x, s_ex))),
]:  # fmt: skip
    try:
        call()
        print(f"# {what}: no error")
    except Exception as err:
        text = str(err)
        print(f"# {what}")
        print(f"{type(err).__name__}: {text.split('. ')[0]} names set_mesh={'set_mesh' in text}")
for what, call in [
    ("grad over Explicit axes under jit", lambda: tx.jit(tx.grad(squares))(x)),
    ("vjp over Explicit axes", lambda: tx.vjp(squares, x)[1](np.float32(1))[0]),
]:
    out = call()
    print(f"# {what}")
    print(f"out {out.sharding.spec} ok={np.allclose(np.asarray(out), 2 * x)}")
with tx.set_mesh(explicit):
    out = tx.grad(squares)(x)
    print("# eager grad under set_mesh")
    print(f"out {out.sharding.spec} ok={np.allclose(np.asarray(out), 2 * x)}")
    value_and_grad = tx.jit(
        auto_axes(tx.value_and_grad(lambda a: (a * a).sum()), out_sharding=(P(), P("x")))
    )
    value, g = value_and_grad(tx.device_put(x, s_ex))
    print("# auto_axes of value_and_grad under jit")
    print(f"out {value.sharding.spec} ok={np.allclose(np.asarray(value), (x * x).sum())}")
    print(f"out {g.sharding.spec} ok={np.allclose(np.asarray(g), 2 * x)}")
