"""``tessela.scipy.ndimage``: ``map_coordinates`` (orders 0 and 1), as ``jax.scipy.ndimage``.

The value at each coordinate is a weighted sum of the neighbouring entries
(nearest for ``order=0``, linear for ``order=1``); indices outside the array
follow ``mode``: ``constant`` (``cval``), ``nearest``, ``wrap``, ``mirror`` or
``reflect``. Integer inputs are rounded half away from zero.

Example:
    >>> import tessela.numpy as tnp
    >>> from tessela.scipy.ndimage import map_coordinates
    >>> print(map_coordinates(tnp.arange(4.0), [tnp.array([0.5, 2.25])], order=1))
    [0.5  2.25]
"""

from __future__ import annotations

import functools
import itertools
import operator
from collections.abc import Callable, Sequence
from typing import Any, cast

import numpy as np
import tessela_numpy as tnp
from tessela_tracer import dtypes, lax
from tessela_tracer.typing import Array, ArrayLike

__all__ = ["map_coordinates"]


def _mirror(index: Any, size: int) -> Any:
    s = size - 1
    return tnp.abs((index + s) % (2 * s) - s)


def _reflect(index: Any, size: int) -> Any:
    return tnp.floor_divide(_mirror(2 * index + 1, 2 * size + 1) - 1, 2)


_INDEX_FIXERS: dict[str, Callable[[Any, int], Any]] = {
    "constant": lambda index, size: index,
    "nearest": lambda index, size: tnp.clip(index, 0, size - 1),
    "wrap": lambda index, size: index % size,
    "mirror": _mirror,
    "reflect": _reflect,
}


def _round(a: Any) -> Any:
    return a if dtypes.issubdtype(a.dtype, np.integer) else lax.round(a)


def _nearest(coordinate: Any) -> list[tuple[Any, Any]]:
    return [(_round(coordinate).astype(np.int32), coordinate.dtype.type(1))]


def _linear(coordinate: Any) -> list[tuple[Any, Any]]:
    lower = tnp.floor(coordinate)
    upper_weight = coordinate - lower
    index = lower.astype(np.int32)
    return [(index, 1 - upper_weight), (index + 1, upper_weight)]


def map_coordinates(
    input: ArrayLike,
    coordinates: Sequence[ArrayLike],
    order: int,
    mode: str = "constant",
    cval: ArrayLike = 0.0,
) -> Array:
    """Sample ``input`` at the (fractional) ``coordinates``, one array per dimension.

    Args:
        input: the array to sample.
        coordinates: ``input.ndim`` arrays of one shape, the coordinates along each axis.
        order: 0 (nearest) or 1 (linear).
        mode: ``"constant"``, ``"nearest"``, ``"wrap"``, ``"mirror"`` or ``"reflect"``.
        cval: the value outside the array for ``mode="constant"``.

    Returns:
        The samples, of the coordinates' shape and ``input``'s dtype.

    Raises:
        ValueError: a number of coordinate arrays other than ``input.ndim``.
        NotImplementedError: another mode, or ``order > 1``, as in JAX.
    """
    arr = tnp.asarray(input)
    coords = [tnp.asarray(c) for c in coordinates]
    cval = tnp.asarray(cval, arr.dtype)
    if len(coords) != arr.ndim:
        raise ValueError(
            f"coordinates must be a sequence of length input.ndim, but {len(coords)} != {arr.ndim}"
        )
    fixer = _INDEX_FIXERS.get(mode)
    if fixer is None:
        raise NotImplementedError(
            f"jax.scipy.ndimage.map_coordinates does not yet support mode {mode}. "
            f"Currently supported modes are {set(_INDEX_FIXERS)}."
        )
    if order == 0:
        interp = _nearest
    elif order == 1:
        interp = _linear
    else:
        raise NotImplementedError("jax.scipy.ndimage.map_coordinates currently requires order<=1")
    per_axis = []
    for coordinate, size in zip(coords, arr.shape, strict=True):
        nodes = []
        for index, weight in interp(coordinate):
            valid = (index >= 0) & (index < size) if mode == "constant" else True
            nodes.append((fixer(index, size), valid, weight))
        per_axis.append(nodes)
    strides = [int(np.prod(arr.shape[k + 1 :])) for k in range(arr.ndim)]
    flat_arr = tnp.ravel(arr)

    def gather(indices: tuple[Array, ...]) -> Array:
        # One flat take (clamped: out-of-range entries are masked by the caller).
        flat = functools.reduce(
            operator.add,
            [
                tnp.clip(i, 0, n - 1) * st
                for i, n, st in zip(indices, arr.shape, strides, strict=True)
            ],
        )
        return tnp.take(flat_arr, flat)

    outputs = []
    for items in itertools.product(*per_axis):
        indices = tuple(item[0] for item in items)
        validities = [item[1] for item in items]
        weights = [item[2] for item in items]
        if all(v is True for v in validities):
            contribution = gather(indices)
        else:
            contribution = tnp.where(
                functools.reduce(operator.and_, validities), gather(indices), cval
            )
        outputs.append(functools.reduce(operator.mul, weights) * contribution)
    result = functools.reduce(operator.add, outputs)
    if dtypes.issubdtype(arr.dtype, np.integer):
        result = _round(result)
    return cast(Array, result.astype(arr.dtype))
