"""Creation functions on host data under a transformation, for ``generate_traced_const.py``.

Imports only NumPy. Each case of ``CASES`` is an expression in ``jnp``
(``jax.numpy`` or ``tessela_numpy``), ``np`` and a traced float32 scalar
``x``; ``outcomes`` evaluates every case under ``jit`` (the jaxpr's text,
the kind of value the expression gives there and the compiled result),
``vmap`` and ``grad`` (the kind of value: a tracer, or a concrete array, as
the transformation lets constants through), recording dtype and weak type.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

CASES: list[str] = [
    "jnp.asarray(2.0)",
    "jnp.array(3)",
    "jnp.asarray(True)",
    "jnp.asarray(2 + 1j)",
    "jnp.asarray(np.ones(2))",
    "jnp.array(np.ones(2, np.float32))",
    "jnp.asarray([1.0, 2.0])",
    "jnp.array([1, 2.5])",
    "jnp.asarray(np.float32(2))",
    "jnp.asarray(np.int8(-3))",
    "jnp.asarray(2, jnp.int8)",
    "jnp.asarray(2.0, jnp.float32)",
    "jnp.asarray([])",
    "jnp.array(2.0, ndmin=1)",
    "jnp.zeros(())",
    "jnp.zeros(3)",
    "jnp.ones((), jnp.int8)",
    "jnp.full((), 3)",
    "jnp.full(2, 2.0)",
    "jnp.zeros_like(2.0)",
    "jnp.ones_like(np.float16(1))",
    "jnp.full_like(np.ones(2), 3)",
    "jnp.empty(())",
    "jnp.arange(3)",
    "jnp.linspace(0, 1, 3)",
    "jnp.eye(2)",
    "jnp.asarray(300.0).astype(jnp.int8)",
    "jnp.array(-300.0).astype(jnp.uint8)",
    "jnp.asarray(np.float32(300.0)).astype(jnp.uint8)",
    "jnp.asarray(1e10).astype(jnp.int32)",
    "jnp.asarray(np.array([300.0, -1e10, np.nan])).astype(jnp.int8)",
    "jnp.asarray(2.5).astype(jnp.float16)",
    "jnp.asarray(3).astype(jnp.float32)",
    "jnp.asarray(2 + 3j).astype(jnp.float32)",
    "jnp.asarray(np.ones(2)).at[0].set(5)",
    "jnp.asarray(2.0).at[()].add(1.0)",
    "jnp.asarray(3) * 2.5",
    "jnp.asarray(2.0) + jnp.asarray(3.0)",
    "jnp.asarray(2.0).reshape(1)",
    "jnp.asarray(np.arange(4.0)).sum()",
    "jnp.asarray(2.0) * x",
    "jnp.asarray(3) * x",
    "jnp.asarray(np.ones(2)) * x",
    "jnp.asarray(np.float32(3)) + x",
]


def _describe(out: Any, is_tracer: Callable[[Any], bool]) -> dict[str, Any]:
    aval = getattr(out, "aval", None)
    return {
        "kind": "tracer" if is_tracer(out) else type(out).__name__,
        "dtype": str(getattr(out, "dtype", None)),
        "weak": getattr(aval, "weak_type", None),
    }


def outcomes(
    jnp: Any, jit: Any, vmap: Any, grad: Any, make_jaxpr: Any, is_tracer: Callable[[Any], bool]
) -> dict[str, Any]:
    """What each case gives under ``jit``, ``vmap`` and ``grad`` of a framework.

    Args:
      jnp: the NumPy API module.
      jit: the framework's ``jit``; ``vmap``, ``grad``, ``make_jaxpr`` alike.
      vmap: the framework's ``vmap``.
      grad: the framework's ``grad``.
      make_jaxpr: the framework's ``make_jaxpr``.
      is_tracer: whether a value is a tracer of the framework.

    Returns:
      Per case: ``jit``, ``vmap`` and ``grad`` descriptions, the jaxpr text
      and the compiled value (as a list), or the exception's class name.
    """
    out: dict[str, Any] = {}
    for src in CASES:
        seen: dict[str, Any] = {}

        def body(x: Any, where: str, src: str = src, seen: dict[str, Any] = seen) -> Any:
            r = eval(src, {"jnp": jnp, "np": np, "x": x})
            seen[where] = _describe(r, is_tracer)
            return r

        try:
            text = str(make_jaxpr(lambda x: body(x, "jit"))(np.float32(1.0)))
            value = np.asarray(jit(lambda x: body(x, "run"))(np.float32(1.0)))
            vmap(lambda x: (body(x, "vmap"), x)[1])(np.ones(2, np.float32))
            grad(lambda x: (body(x, "grad"), x)[1])(np.float32(1.0))
        except Exception as e:  # the class is what is compared
            out[src] = {"error": type(e).__name__}
            continue
        out[src] = {
            "jaxpr": text,
            "value": value.astype(np.float64).tolist() if value.dtype.kind != "c" else None,
            "value_dtype": str(value.dtype),
            **{k: seen[k] for k in ("jit", "vmap", "grad")},
        }
    return out


def nested_jaxprs(jnp: Any, vmap: Any, grad: Any, make_jaxpr: Any) -> dict[str, str]:
    """Jaxprs of ``vmap`` and ``grad`` bodies that make constants, staged whole.

    Args:
      jnp: the NumPy API module.
      vmap: the framework's ``vmap``.
      grad: the framework's ``grad``.
      make_jaxpr: the framework's ``make_jaxpr``.

    Returns:
      The jaxpr text per name: the constants are literals and constvars of
      the outer jaxpr, folded where JAX folds them.
    """
    f32 = np.float32
    return {
        "vmap_consts": str(
            make_jaxpr(vmap(lambda x: x * jnp.asarray(2.0) + jnp.asarray(np.ones(2, f32))))(
                np.ones(2, f32)
            )
        ),
        "grad_const": str(make_jaxpr(grad(lambda x: x * jnp.asarray(2.0)))(f32(1.0))),
        "vmap_astype": str(
            make_jaxpr(vmap(lambda x: jnp.asarray(300.0).astype(jnp.int8) + x))(np.ones(2, np.int8))
        ),
    }
