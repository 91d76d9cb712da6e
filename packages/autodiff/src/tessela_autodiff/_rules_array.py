"""JVP and transpose rules of the array-assembling primitives.

``stack``, ``unstack``, ``split`` and ``tile`` are linear: each JVP applies
the primitive to the tangents, and the transposes pair up (``stack`` with
``unstack``, ``split`` with ``concatenate``, ``tile`` with a sum over the
repetitions). ``device_put`` moves tangents as it moves primals; its
transpose sends cotangents back to the sources.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tessela_tracer import ArrayCopySemantics, lax
from tessela_tracer import primitives as P
from tessela_tracer.extend import get_aval_of
from tessela_tracer.typing import Array, ArrayLike

from tessela_autodiff._ad_util import Tangent, Zero, instantiate, is_undefined
from tessela_autodiff._jvp import register_jvp
from tessela_autodiff._rule_helpers import deflinear2
from tessela_autodiff._transpose import register_transpose

__all__: list[str] = []


def _stack_transpose(ct: Any, *xs: Any, axis: int) -> list[Any]:
    pieces = P.unstack_p.bind(ct, axis=axis)
    return [p if is_undefined(x) else None for p, x in zip(pieces, xs, strict=True)]


deflinear2(P.stack_p, _stack_transpose)


def _linear_multi_jvp(prim: Any) -> Any:
    def rule(
        primals: Sequence[ArrayLike], tangents: Sequence[Tangent], **params: Any
    ) -> tuple[list[Array], list[Array]]:
        return prim.bind(*primals, **params), prim.bind(instantiate(tangents[0]), **params)

    return rule


def _all_zero(cts: Any) -> bool:
    return type(cts) is Zero or all(type(c) is Zero for c in cts)


def _unstack_transpose(cts: Any, x: Any, *, axis: int) -> list[Any]:
    if _all_zero(cts):
        return [None]
    return [P.stack_p.bind(*(instantiate(c) for c in cts), axis=axis)]


def _split_transpose(cts: Any, x: Any, *, sizes: Sequence[int], axis: int) -> list[Any]:
    if _all_zero(cts):
        return [None]
    return [lax.concatenate([instantiate(c) for c in cts], axis)]


register_jvp(P.unstack_p, _linear_multi_jvp(P.unstack_p))
register_transpose(P.unstack_p, _unstack_transpose)
register_jvp(P.split_p, _linear_multi_jvp(P.split_p))
register_transpose(P.split_p, _split_transpose)


def _tile_transpose(ct: Any, x: Any, *, reps: Sequence[int]) -> list[Any]:
    shape = tuple(x.aval.shape)
    wide = tuple(n for r, d in zip(reps, shape, strict=True) for n in (int(r), d))
    summed = lax.reduce_sum(lax.reshape(ct, wide), tuple(range(0, 2 * len(shape), 2)))
    return [summed if tuple(get_aval_of(summed).shape) == shape else lax.reshape(summed, shape)]


deflinear2(P.tile_p, _tile_transpose)


def _pick(params: dict[str, Any], keep: Sequence[int]) -> dict[str, Any]:
    return {k: tuple(v[i] for i in keep) for k, v in params.items()}


def _device_put_jvp(
    primals: Sequence[ArrayLike], tangents: Sequence[Tangent], **params: Any
) -> tuple[Any, Any]:
    outs = P.device_put_p.bind(*primals, **params)
    keep = [i for i, t in enumerate(tangents) if type(t) is not Zero]
    moved = iter(P.device_put_p.bind(*(tangents[i] for i in keep), **_pick(params, keep)))
    return outs, [next(moved) if i in keep else t for i, t in enumerate(tangents)]


def _device_put_transpose(
    cts: Sequence[Any], *xs: Any, devices: Sequence[Any], srcs: Sequence[Any], **params: Any
) -> list[Any]:
    keep = [i for i, c in enumerate(cts) if type(c) is not Zero]
    back = iter(
        P.device_put_p.bind(
            *(cts[i] for i in keep),
            devices=tuple(srcs[i] for i in keep),
            srcs=tuple(devices[i] for i in keep),
            copy_semantics=(ArrayCopySemantics.ALWAYS_COPY,) * len(keep),
        )
    )
    return [next(back) if i in keep else None for i in range(len(cts))]


register_jvp(P.device_put_p, _device_put_jvp)
register_transpose(P.device_put_p, _device_put_transpose)
