"""JVP and transpose rules of ``reduce_precision``, ``optimization_barrier``, ``reduce`` and the RNGs.

- ``reduce_precision`` is treated as linear, as in JAX: the tangent (and the
  cotangent) is rounded the same way.
- ``optimization_barrier``: the primals pass through one barrier and the
  tangents through another; the transpose puts the cotangents through one.
- ``reduce`` (a traced computation): the reduced axes are moved to the front
  and flattened, then halved repeatedly, combining the two halves with the
  computation batched over the remaining elements (an odd half padded with
  the initial values); the tangent is the JVP of that tree of combinations.
  Initial values must have symbolically zero tangents, as in JAX.
- ``copy`` is linear (its tangent and cotangent are copied), as in JAX.
- ``create_token`` / ``after_all``: tokens carry no values; their tangents
  are zero.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from tessela_batching import vmap
from tessela_tracer import ClosedJaxpr, lax
from tessela_tracer import primitives as P
from tessela_tracer.extend import eval_jaxpr, get_aval_of, tangent_aval
from tessela_tracer.typing import ArrayLike

from tessela_autodiff._ad_util import Tangent, Zero, instantiate, is_differentiable
from tessela_autodiff._jvp import jvp_flat, register_jvp
from tessela_autodiff._rule_helpers import defjvp_zero, deflinear
from tessela_autodiff._transpose import register_transpose

__all__: list[str] = []


# ------------------------------------------------------------------ reduce_precision

deflinear(P.reduce_precision_p, lambda ct, **params: [P.reduce_precision_p.bind(ct, **params)])


# ------------------------------------------------------------------ optimization_barrier


def _barrier_jvp(primals: Sequence[ArrayLike], tangents: Sequence[Tangent]) -> tuple[Any, Any]:
    outs = P.optimization_barrier_p.bind(*primals)
    touts = P.optimization_barrier_p.bind(*[instantiate(t) for t in tangents])
    return outs, touts


def _barrier_transpose(cts: Sequence[Any], *args: Any) -> list[Any]:
    return list(P.optimization_barrier_p.bind(*[instantiate(c) for c in cts]))


register_jvp(P.optimization_barrier_p, _barrier_jvp)
register_transpose(P.optimization_barrier_p, _barrier_transpose)


# ------------------------------------------------------------------ reduce


def _tree_reduce(
    jaxpr: ClosedJaxpr, inits: Sequence[Any], rest_shape: tuple[int, ...], *xs: Any
) -> list[Any]:
    """Reduce the leading axis of ``xs`` by halving; ``jaxpr`` combines scalars."""
    combine: Any = lambda *a: eval_jaxpr(jaxpr.jaxpr, jaxpr.consts, *a)  # noqa: E731
    for _ in range(len(rest_shape) + 1):
        combine = vmap(combine)
    cur = list(xs)
    while cur[0].shape[0] > 1:
        n = cur[0].shape[0]
        n1 = (n + 1) // 2
        first = [lax.slice_in_dim(x, 0, n1) for x in cur]
        second = [lax.slice_in_dim(x, n1, n) for x in cur]
        if n - n1 != n1:
            cfg = [(0, 1, 0), *[(0, 0, 0)] * len(rest_shape)]
            second = [lax.pad(x, i, cfg) for x, i in zip(second, inits, strict=True)]
        cur = list(combine(*first, *second))
    if cur[0].shape[0] == 0:
        return [lax.full(rest_shape, i) for i in inits]
    return [lax.squeeze(x, (0,)) for x in cur]


def _reduce_jvp(
    primals: Sequence[Any],
    tangents: Sequence[Any],
    *,
    computation: Any,
    jaxpr: ClosedJaxpr,
    dimensions: tuple[int, ...],
) -> tuple[Any, Any]:
    n = len(primals) // 2
    xs, inits = list(primals[:n]), list(primals[n:])
    txs, tinits = list(tangents[:n]), list(tangents[n:])
    if any(type(t) is not Zero for t in tinits):
        raise NotImplementedError(
            "Gradient of general lax.reduce with non-zero tangents for initial values to "
            "reduction not implemented"
        )
    shape = get_aval_of(xs[0]).shape
    keep = [d for d in range(len(shape)) if d not in dimensions]
    perm = (*dimensions, *keep)
    rest = tuple(shape[d] for d in keep)
    size = int(np.prod([shape[d] for d in dimensions], dtype=np.int64))
    new_shape = (size, *rest)
    flat_x = [lax.reshape(x, new_shape, perm) for x in xs]
    flat_t = [t if type(t) is Zero else lax.reshape(t, new_shape, perm) for t in txs]
    flat_t = [
        Zero(tangent_aval(get_aval_of(x))) if type(t) is Zero else t
        for x, t in zip(flat_x, flat_t, strict=True)
    ]
    outs, touts, _ = jvp_flat(
        lambda *a: (_tree_reduce(jaxpr, inits, rest, *a), None), flat_x, flat_t
    )
    touts = [
        t if is_differentiable(get_aval_of(o)) else Zero(tangent_aval(get_aval_of(o)))
        for o, t in zip(outs, touts, strict=True)
    ]
    return outs, touts


register_jvp(P.reduce_p, _reduce_jvp)


# ------------------------------------------------------------------ RNGs


def _rng_bit_generator_jvp(
    primals: Sequence[ArrayLike], tangents: Sequence[Tangent], **params: Any
) -> tuple[Any, Any]:
    # Integer outputs: constant to first order.
    outs = P.rng_bit_generator_p.bind(*primals, **params)
    return outs, [Zero(tangent_aval(get_aval_of(o))) for o in outs]


def _rng_uniform_jvp(
    primals: Sequence[ArrayLike], tangents: Sequence[Tangent], **params: Any
) -> Any:
    raise NotImplementedError(
        "Differentiation rule for 'rng_uniform' not implemented (as in JAX): it is XLA's "
        "stateful RNG; use tessela.random.uniform for values to differentiate through."
    )


register_jvp(P.rng_bit_generator_p, _rng_bit_generator_jvp)
register_jvp(P.rng_uniform_p, _rng_uniform_jvp)


# ------------------------------------------------------------------ copy

deflinear(P.copy_p, lambda ct: [P.copy_p.bind(ct)])


# ------------------------------------------------------------------ tokens

defjvp_zero(P.create_token_p)
defjvp_zero(P.after_all_p)
