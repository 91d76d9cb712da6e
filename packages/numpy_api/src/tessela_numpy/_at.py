"""Functional index updates: ``x.at[idx].set(y)`` and friends.

``x.at[idx]`` returns an :class:`IndexedRef`; its methods build a ``scatter``
(``set``, ``add``, ``multiply``, ``min``, ``max``, ``apply``) from the same
gather plan that ``x[idx]`` uses. Out-of-bounds updates are dropped by
default (``mode="drop"``/``"fill"``); ``mode="clip"`` clamps the indices.
``get`` is indexing with an explicit ``mode`` and ``fill_value``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeAlias

import numpy as np
from tessela_tracer import ShapedArray, lax
from tessela_tracer.extend import trace_to_jaxpr
from tessela_tracer.primitives import scatter_p
from tessela_tracer.typing import Array, ArrayLike, unchanged

from ._arith import power as _power
from ._arrays import aval_of, check_arraylike, convert, full_like, promote_dtypes, shape_of
from ._gather_plan import gather_plan
from ._indexing import build_gather_indices, getitem, parse_for_gather
from ._shape_ops import squeeze
from ._ufuncs import divide as _divide
from ._where import broadcast_to

__all__ = ["IndexUpdateHelper", "IndexedRef", "setitem_error"]

Mode: TypeAlias = str | lax.GatherScatterMode | None
"""An out-of-bounds ``mode``: a name of :data:`_MODES` or a ``GatherScatterMode``."""
_MODES = ("clip", "drop", "fill", "promise_in_bounds", None)


def setitem_error(x: ArrayLike, idx: Any, value: ArrayLike, /) -> None:
    """Item assignment is refused: arrays are immutable.

    Args:
      x: the array.
      idx: the index.
      value: the value.

    Returns:
      Never returns.

    Raises:
      TypeError: always, pointing at ``x.at[idx].set(value)``.

    >>> setitem_error(None, 0, 1)
    Traceback (most recent call last):
    ...
    TypeError: JAX arrays are immutable and do not support in-place item assignment. Instead of x[idx] = y, use x = x.at[idx].set(y) or another .at[] method: https://docs.jax.dev/en/latest/_autosummary/jax.numpy.ndarray.at.html
    """
    raise TypeError(
        "JAX arrays are immutable and do not support in-place item assignment. Instead of "
        "x[idx] = y, use x = x.at[idx].set(y) or another .at[] method: "
        "https://docs.jax.dev/en/latest/_autosummary/jax.numpy.ndarray.at.html"
    )


def _check_mode(mode: Mode) -> lax.GatherScatterMode:
    if isinstance(mode, lax.GatherScatterMode):
        return mode
    if mode not in _MODES:
        raise ValueError(
            f'Unknown gather mode "{mode}"; use mode="clip", "drop"/"fill" or "promise_in_bounds"'
        )
    return lax.GatherScatterMode.from_any(mode)


def _scatter(
    x: ArrayLike,
    idx: Any,
    y: ArrayLike,
    op: Callable[..., Array],
    *,
    mode: Mode,
    indices_are_sorted: bool,
    unique_indices: bool,
) -> ArrayLike:
    check_arraylike("scatter", x, y)
    x_aval = aval_of(x)
    dt, weak = x_aval.dtype, x_aval.weak_type
    if (
        type(y) is int
        and np.issubdtype(dt, np.integer)
        and np.iinfo(dt).min <= y <= np.iinfo(dt).max
    ):
        y = convert(y, dt)
    shape = shape_of(x)
    plan = gather_plan(parse_for_gather(idx, shape), shape)
    if 0 in plan.slice_shape:
        return x
    indices = build_gather_indices(plan)
    x, y = promote_dtypes(x, y)
    y = broadcast_to(y, plan.slice_shape)
    if plan.newaxis_dims:
        y = squeeze(y, plan.newaxis_dims)
    if plan.reversed_y_dims:
        y = lax.rev(y, plan.reversed_y_dims)
    if plan.scalar_bool_dims:
        x = lax.expand_dims(x, plan.scalar_bool_dims)
    dnums = lax.ScatterDimensionNumbers(
        update_window_dims=plan.offset_dims,
        inserted_window_dims=plan.collapsed_slice_dims,
        scatter_dims_to_operand_dims=plan.start_index_map,
    )
    out = op(
        x,
        indices,
        y,
        dnums,
        indices_are_sorted=plan.indices_are_sorted or indices_are_sorted,
        unique_indices=plan.unique_indices or unique_indices,
        mode=_check_mode(mode),
    )
    if plan.scalar_bool_dims:
        out = lax.squeeze(out, plan.scalar_bool_dims)
    return convert(out, dt, weak_type=weak)


_METHOD_DOC = """{summary}

        Args:
          {arg}: {arg_doc}
          indices_are_sorted: a promise that the indices are sorted.
          unique_indices: a promise that the indices do not repeat.
          mode: {mode_doc}

        Returns:
          The updated copy.
        """


def _update_method(
    name: str,
    op: Callable[..., Array],
    summary: str,
    values_doc: str,
    *,
    mode_doc: str = "out-of-bounds handling, as for :meth:`set`.",
    combine: bool = False,
) -> Callable[..., Array]:
    # One ``IndexedRef`` method: a scatter by ``op`` or, with ``combine``,
    # ``op(x, factors)`` (see ``IndexedRef._combine``).
    def method(
        self: IndexedRef,
        values: ArrayLike,
        *,
        indices_are_sorted: bool = False,
        unique_indices: bool = False,
        mode: Mode = None,
    ) -> Array:
        if combine:
            return unchanged(self._combine(op, values, mode, indices_are_sorted, unique_indices))
        return unchanged(self._update(op, values, mode, indices_are_sorted, unique_indices))

    method.__name__ = name
    method.__qualname__ = f"IndexedRef.{name}"
    method.__doc__ = _METHOD_DOC.format(
        summary=summary, arg="values", arg_doc=values_doc, mode_doc=mode_doc
    )
    return method


class IndexedRef:
    """``x.at[idx]``: the methods return updated copies of ``x``."""

    __slots__ = ("array", "index")

    def __init__(self, array: ArrayLike, index: Any) -> None:
        self.array = array
        self.index = index

    def __repr__(self) -> str:
        return f"_IndexUpdateRef({self.array!r}, {self.index!r})"

    def get(
        self,
        *,
        indices_are_sorted: bool = False,
        unique_indices: bool = False,
        mode: Mode = None,
        fill_value: ArrayLike | None = None,
    ) -> Array:
        """``x[idx]``, with out-of-bounds handling chosen by ``mode``.

        Args:
          indices_are_sorted: a promise that the indices are sorted.
          unique_indices: a promise that the indices do not repeat.
          mode: ``None`` or ``"clip"`` clamp; ``"fill"`` returns ``fill_value``.
          fill_value: the value for out-of-bounds elements (default NaN, a
            signed type's minimum, an unsigned type's maximum, True).

        Returns:
          The selected elements.
        """
        if mode is not None:
            _check_mode(mode)
        # ``mode="fill"`` without ``fill_value``: ``lax.gather``'s default
        # (NaN, the minimum of a signed and the maximum of an unsigned type, True).
        return getitem(
            self.array,
            self.index,
            mode=mode,
            fill_value=fill_value,
            unique_indices=unique_indices,
            indices_are_sorted=indices_are_sorted,
        )

    def _update(
        self,
        op: Callable[..., Array],
        values: ArrayLike,
        mode: Mode,
        indices_are_sorted: bool,
        unique_indices: bool,
    ) -> ArrayLike:
        return _scatter(
            self.array,
            self.index,
            values,
            op,
            mode=mode,
            indices_are_sorted=indices_are_sorted,
            unique_indices=unique_indices,
        )

    def _combine(
        self,
        combine: Callable[[ArrayLike, ArrayLike], Array],
        values: ArrayLike,
        mode: Mode,
        indices_are_sorted: bool,
        unique_indices: bool,
    ) -> Array:
        # ``combine(x, m)`` where ``m`` is ones with ``values`` multiplied in at
        # the index (repeated indices multiply), as JAX computes divide and power.
        factors = _scatter(
            full_like(self.array, 1),
            self.index,
            values,
            lax.scatter_mul,
            mode=mode,
            indices_are_sorted=indices_are_sorted,
            unique_indices=unique_indices,
        )
        return combine(self.array, factors)

    set = _update_method(
        "set",
        lax.scatter,
        "``x[idx] = values``, out of place.",
        "the new values, broadcast to ``x[idx]``'s shape.",
        mode_doc='``None``/``"drop"``/``"fill"`` drop out-of-bounds updates, ``"clip"`` clamps.',
    )
    add = _update_method(
        "add",
        lax.scatter_add,
        "``x[idx] += values``, out of place; repeated indices accumulate.",
        "the addends.",
    )
    subtract = _update_method(
        "subtract",
        lax.scatter_sub,
        "``x[idx] -= values``, out of place; repeated indices accumulate.",
        "the subtrahends.",
    )
    multiply = _update_method(
        "multiply", lax.scatter_mul, "``x[idx] *= values``, out of place.", "the factors."
    )
    mul = multiply
    divide = _update_method(
        "divide", _divide, "``x[idx] /= values``, out of place.", "the divisors.", combine=True
    )
    power = _update_method(
        "power", _power, "``x[idx] **= values``, out of place.", "the exponents.", combine=True
    )
    min = _update_method(
        "min", lax.scatter_min, "``x[idx] = minimum(x[idx], values)``, out of place.", "the values."
    )
    max = _update_method(
        "max", lax.scatter_max, "``x[idx] = maximum(x[idx], values)``, out of place.", "the values."
    )

    def apply(
        self,
        func: Callable[[Array], ArrayLike],
        *,
        indices_are_sorted: bool = False,
        unique_indices: bool = False,
        mode: Mode = None,
    ) -> Array:
        """``x[idx] = func(x[idx])``, out of place (``func`` is applied element-wise).

        Args:
          func: a unary element-wise function.
          indices_are_sorted: a promise that the indices are sorted.
          unique_indices: a promise that the indices do not repeat.
          mode: out-of-bounds handling, as for :meth:`set`.

        Returns:
          The updated copy.
        """

        dt = aval_of(self.array).dtype
        scalar = ShapedArray((), dt)
        closed = trace_to_jaxpr(lambda x, _: [func(x)], [scalar, scalar])
        update, consts = closed.jaxpr, tuple(closed.consts)

        def op(
            x: ArrayLike,
            idx: ArrayLike,
            y: ArrayLike,
            dnums: lax.ScatterDimensionNumbers,
            **params: Any,
        ) -> Array:
            return unchanged(scatter_p.bind(
                x, idx, y, dimension_numbers=dnums, update_consts=consts, update_jaxpr=update,
                **params,
            ))  # fmt: skip

        return unchanged(self._update(op, convert(0, dt), mode, indices_are_sorted, unique_indices))


class IndexUpdateHelper:
    """The object behind ``x.at``: ``x.at[idx]`` gives an :class:`IndexedRef`."""

    __slots__ = ("array",)

    def __init__(self, array: ArrayLike) -> None:
        self.array = array

    def __getitem__(self, index: Any) -> IndexedRef:
        return IndexedRef(self.array, index)

    def __repr__(self) -> str:
        return f"_IndexUpdateHelper({self.array!r})"
