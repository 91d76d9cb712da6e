"""JVP and transpose rules of the collectives over named axes.

Reverse mode under a named axis differentiates the sum of every member's
output, as JAX does: ``vmap(grad(f), axis_name="i")`` equals
``grad(lambda xs: vmap(f, axis_name="i")(xs).sum())``.

- ``psum`` is linear: its tangent is the ``psum`` of the tangent, and its
  transpose the ``psum`` of the cotangent over the same names (every member
  receives the sum, so every member's cotangent reaches every input).
- ``pmax`` and ``pmin``: the tangent of the member(s) holding the extreme,
  ties split evenly (the ``psum`` of the masked tangents divided by the
  ``psum`` of the mask), as ``reduce_max`` does along an axis. JAX 0.10.2
  defines no rule for them.
- ``all_gather`` is linear: its tangent gathers the tangents, and its
  transpose gives each member its own slice of the ``psum`` of the
  cotangent, a ``dynamic_slice`` at ``axis_index``.
- ``axis_index`` has no operands; its tangent is a ``float0`` zero.
- ``ppermute``, ``reduce_scatter`` (``psum_scatter``) and ``all_to_all`` are
  linear: their tangents move as the values do, and their transposes are the
  inverse permutation, the tiled (or stacking) ``all_gather`` along the
  scattered dimension, and the ``all_to_all`` with the split and concatenated
  axes swapped, as in JAX.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import numpy as np
from tessela_tracer import lax
from tessela_tracer import primitives as P
from tessela_tracer.extend import get_aval_of

from tessela_autodiff._ad_util import UndefinedPrimal
from tessela_autodiff._rule_helpers import const, defjvp, defjvp_zero, deflinear, deflinear2

__all__: list[str] = []


def _psum_transpose(ct: Any, *, axis_name: tuple[Hashable, ...]) -> list[Any]:
    return [P.psum_p.bind(ct, axis_name=axis_name)]


deflinear(P.psum_p, _psum_transpose)


def _extremum_jvp(g: Any, ans: Any, x: Any, *, axis_name: tuple[Hashable, ...]) -> Any:
    shape = get_aval_of(x).shape
    chosen = lax.select(
        lax.eq(x, ans), lax.broadcast(const(x, 1), shape), lax.broadcast(const(x, 0), shape)
    )
    count = P.psum_p.bind(chosen, axis_name=axis_name)
    return lax.div(P.psum_p.bind(lax.mul(g, chosen), axis_name=axis_name), count)


defjvp(P.pmax_p, _extremum_jvp)
defjvp(P.pmin_p, _extremum_jvp)


def _all_gather_transpose(
    ct: Any,
    x: UndefinedPrimal,
    *,
    axis_name: tuple[Hashable, ...],
    axis_size: int,
    axis: int,
    tiled: bool,
) -> list[Any]:
    total = P.psum_p.bind(ct, axis_name=axis_name)
    shape = tuple(get_aval_of(total).shape)
    chunk = x.aval.shape[axis] if tiled else 1
    member = P.axis_index_p.bind(axis_name=axis_name)
    starts: list[Any] = [np.int32(0)] * len(shape)
    starts[axis] = lax.mul(member, np.int32(chunk))
    sizes = (*shape[:axis], chunk, *shape[axis + 1 :])
    mine = P.dynamic_slice_p.bind(total, *starts, slice_sizes=sizes)
    return [mine if tiled else lax.reshape(mine, tuple(x.aval.shape))]


deflinear2(P.all_gather_p, _all_gather_transpose)
defjvp_zero(P.axis_index_p)


def _ppermute_transpose(
    ct: Any, *, axis_name: tuple[Hashable, ...], perm: tuple[tuple[int, int], ...]
) -> list[Any]:
    inverse = tuple((d, s) for s, d in perm)
    return [P.ppermute_p.bind(ct, axis_name=axis_name, perm=inverse)]


deflinear(P.ppermute_p, _ppermute_transpose)


def _reduce_scatter_transpose(
    ct: Any,
    *,
    axis_name: tuple[Hashable, ...],
    axis_size: int,
    scatter_dimension: int,
    tiled: bool,
) -> list[Any]:
    gathered = P.all_gather_p.bind(
        ct, axis_name=axis_name, axis_size=axis_size, axis=scatter_dimension, tiled=tiled
    )
    return [gathered]


deflinear(P.reduce_scatter_p, _reduce_scatter_transpose)


def _all_to_all_transpose(
    ct: Any,
    *,
    axis_name: tuple[Hashable, ...],
    axis_size: int,
    split_axis: int,
    concat_axis: int,
    tiled: bool,
) -> list[Any]:
    back = P.all_to_all_p.bind(
        ct, axis_name=axis_name, axis_size=axis_size, split_axis=concat_axis,
        concat_axis=split_axis, tiled=tiled,
    )  # fmt: skip
    return [back]


deflinear(P.all_to_all_p, _all_to_all_transpose)
