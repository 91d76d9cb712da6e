"""``tessela.scipy.interpolate``: ``RegularGridInterpolator``, as ``jax.scipy.interpolate``.

Linear or nearest-neighbour interpolation on a rectilinear grid; points
outside the grid get ``fill_value`` (NaN by default), or are extrapolated
when ``fill_value`` is None. ``bounds_error=True`` is refused, as in JAX.

Example:
    >>> import tessela.numpy as tnp
    >>> from tessela.scipy.interpolate import RegularGridInterpolator
    >>> interp = RegularGridInterpolator((tnp.array([0.0, 1.0, 2.0]),), tnp.array([0.0, 10.0, 20.0]))
    >>> print(interp(tnp.array([[0.5], [1.25]])))
    [ 5.  12.5]
"""

from __future__ import annotations

import functools
import itertools
import operator
from typing import Any

import numpy as np
import tessela_numpy as tnp
from tessela_tracer import dtypes

__all__ = ["RegularGridInterpolator"]


def _coords(points: Any, ndim: int) -> Any:
    if isinstance(points, tuple) and len(points) == 1:
        points = points[0]
    if isinstance(points, tuple):
        parts = tnp.broadcast_arrays(*points)
        return tnp.stack([tnp.asarray(p, dtype=float) for p in parts], axis=-1)
    points = tnp.asarray(points)
    if points.ndim == 1:
        points = points.reshape(-1, ndim)
    return points


class RegularGridInterpolator:
    """Interpolate ``values`` given on the grid ``points`` (one ascending 1-D array per axis).

    Args:
        points: the grid coordinates, one array per leading axis of ``values``.
        values: the data on the grid (trailing axes are carried along).
        method: ``"linear"`` or ``"nearest"``.
        bounds_error: must be False (not checkable under ``jit``).
        fill_value: the value outside the grid; None extrapolates.

    Raises:
        ValueError: an unknown method, more point arrays than value axes, or a
            fill value whose kind cannot cast to the values'.
        NotImplementedError: ``bounds_error=True``.
    """

    def __init__(
        self, points: Any, values: Any, method: str = "linear", bounds_error: bool = False,
        fill_value: Any = np.nan,
    ) -> None:  # fmt: skip
        if method not in ("linear", "nearest"):
            raise ValueError(f"method {method!r} is not defined")
        self.method = method
        self.bounds_error = bounds_error
        if bounds_error:
            raise NotImplementedError("`bounds_error` takes no effect under JIT")
        values = tnp.asarray(values)
        if len(points) > values.ndim:
            raise ValueError(
                f"there are {len(points)} point arrays, but values has {values.ndim} dimensions"
            )
        if not dtypes.issubdtype(values.dtype, np.inexact):
            values = values.astype(tnp.result_type(values.dtype, np.float32))
        if fill_value is not None:
            fill_value = tnp.asarray(fill_value)
            fill_dtype = getattr(fill_value, "dtype", None) or np.asarray(fill_value).dtype
            if not np.can_cast(fill_dtype, values.dtype, casting="same_kind"):
                raise ValueError(
                    "fill_value must be either 'None' or of a type compatible with values"
                )
        self.fill_value = fill_value
        self.grid = tuple(tnp.asarray(p) for p in points)
        self.values = values

    def __call__(self, xi: Any, method: str | None = None) -> Any:
        """Interpolate at the points ``xi`` (``(..., ndim)``, or a tuple of coordinate arrays).

        Args:
            xi: the sample points.
            method: overrides the interpolator's method.

        Returns:
            The interpolated values, of shape ``xi.shape[:-1] + values.shape[ndim:]``.

        Raises:
            ValueError: an unknown method, or points of the wrong dimension.
        """
        method = self.method if method is None else method
        if method not in ("linear", "nearest"):
            raise ValueError(f"method {method!r} is not defined")
        ndim = len(self.grid)
        xi = _coords(xi, ndim)
        if xi.shape[-1] != ndim:
            raise ValueError(
                f"the requested sample points xi have dimension {xi.shape[-1]}, but this "
                f"RegularGridInterpolator has dimension {ndim}"
            )
        xi_shape = xi.shape
        xi = xi.reshape(-1, xi_shape[-1])
        indices, distances, outside = self._find_indices(xi.T)
        if method == "linear":
            result = self._linear(indices, distances)
        else:
            result = self._gather(
                [tnp.where(y <= 0.5, i, i + 1) for i, y in zip(indices, distances, strict=True)]
            )
        if self.fill_value is not None:
            shape = result.shape[:1] + (1,) * (result.ndim - 1)
            result = tnp.where(outside.reshape(shape), self.fill_value, result)
        return result.reshape(xi_shape[:-1] + self.values.shape[ndim:])

    def _gather(self, indices: list[Any]) -> Any:
        ndim = len(indices)
        lead = self.values.shape[:ndim]
        strides = [int(np.prod(lead[k + 1 :])) for k in range(ndim)]
        flat = functools.reduce(
            operator.add, [i * s for i, s in zip(indices, strides, strict=True)]
        )
        table = self.values.reshape((int(np.prod(lead)), *self.values.shape[ndim:]))
        return tnp.take(table, flat, axis=0)

    def _linear(self, indices: list[Any], distances: list[Any]) -> Any:
        extra = (None,) * (self.values.ndim - len(indices))
        total: Any = tnp.asarray(0.0)
        for edge in itertools.product(*[[i, i + 1] for i in indices]):
            weight: Any = tnp.asarray(1.0)
            for ei, i, yi in zip(edge, indices, distances, strict=True):
                weight = weight * tnp.where(ei is i, 1 - yi, yi)
            total = total + self._gather(list(edge)) * weight[(slice(None), *extra)]
        return total

    def _find_indices(self, xi: Any) -> tuple[list[Any], list[Any], Any]:
        indices, distances = [], []
        outside = tnp.zeros((xi.shape[1],), dtype=bool)
        for x, g in zip(xi, self.grid, strict=False):
            i = tnp.searchsorted(g, x) - 1
            i = tnp.where(i < 0, 0, i)
            i = tnp.where(i > g.size - 2, g.size - 2, i)
            indices.append(i)
            lo, hi = tnp.take(g, i), tnp.take(g, i + 1)
            distances.append((x - lo) / (hi - lo))
            outside = outside | (x < g[0]) | (x > g[-1])
        return indices, distances, outside
