"""``tessela.ops``: JAX's segment reductions, built on ``tessela.numpy``'s ``.at[]`` scatters.

``segment_<op>(data, segment_ids, num_segments)`` starts from an array of
``num_segments`` rows filled with the reduction's identity and scatters each
row of ``data`` into the row its segment id names. Out-of-range ids are
dropped (``mode="drop"``, JAX's default) unless ``mode`` says otherwise.
With ``bucket_size``, rows are scattered per bucket of ``bucket_size``
consecutive entries and the buckets combined afterwards, as in JAX.
"""

from __future__ import annotations

import math
from typing import Any, TypeAlias, cast

import numpy as np
import tessela_numpy as tnp
from tessela_tracer import dtypes as _dtypes
from tessela_tracer import lax
from tessela_tracer.typing import Array, ArrayLike

__all__ = ["segment_max", "segment_min", "segment_prod", "segment_sum"]

_METHOD = {"sum": "add", "prod": "multiply", "max": "max", "min": "min"}
# How out-of-range segment ids are handled: "drop" (the default) or "clip".
Mode: TypeAlias = lax.GatherScatterMode | str | None
_REDUCER: dict[str, Any] = {"sum": tnp.sum, "prod": tnp.prod, "max": tnp.max, "min": tnp.min}


def _identity(op: str, dtype: Any) -> Any:
    if op == "sum":
        return 0
    if op == "prod":
        return 1
    is_max = op == "max"
    if dtype == np.bool_:
        return not is_max
    if _dtypes.issubdtype(dtype, np.integer):
        info = _dtypes.iinfo(dtype)
        return int(info.min if is_max else info.max)
    return -math.inf if is_max else math.inf


def _num_segments(name: str, num_segments: Any, segment_ids: Any) -> int:
    if num_segments is None:
        try:
            num_segments = int(np.max(np.asarray(segment_ids))) + 1
        except Exception as err:  # a traced segment_ids has no concrete maximum
            raise TypeError(
                f"{name}: segment_ids is traced, so the number of segments cannot be "
                "inferred; pass num_segments (a Python int) explicitly."
            ) from err
    try:
        count = int(num_segments)
    except TypeError as err:
        raise TypeError(
            f"{name}: num_segments must be a concrete integer, not a traced value; "
            "pass a Python int."
        ) from err
    if count < 0:
        raise ValueError(f"{name}: num_segments must be non-negative, got {count}.")
    return count


def _segment(
    op: str,
    data: ArrayLike,
    segment_ids: ArrayLike,
    num_segments: int | None,
    indices_are_sorted: bool,
    unique_indices: bool,
    bucket_size: int | None,
    mode: Mode,
) -> Array:
    name = f"segment_{op}"
    for arg, what in ((data, "data"), (segment_ids, "segment_ids")):
        if isinstance(arg, (list, tuple, str)):
            raise TypeError(
                f"{name}: {what} must be an array, got {type(arg).__name__}; "
                "wrap it in tessela.numpy.asarray."
            )
    values = tnp.asarray(data)
    ids = tnp.asarray(segment_ids)
    mode = "drop" if mode is None else mode
    count = _num_segments(name, num_segments, ids)
    # Segment ids are not wrapped like NumPy indices: a negative id is out of
    # range (dropped), or clipped to segment 0.
    clip = lax.GatherScatterMode.from_any(mode) == lax.GatherScatterMode.CLIP
    ids = tnp.where(ids < 0, 0 if clip else count, ids)
    dtype = values.dtype
    fill = _identity(op, dtype)
    kwargs = {"indices_are_sorted": indices_are_sorted, "unique_indices": unique_indices}
    if bucket_size is None:
        out = tnp.full((count, *values.shape[1:]), fill, dtype=dtype)
        return cast(Array, getattr(out.at[ids], _METHOD[op])(values, mode=mode, **kwargs))
    num_buckets = -(-ids.size // bucket_size)
    out = tnp.full((num_buckets, count, *values.shape[1:]), fill, dtype=dtype)
    index = (tnp.arange(ids.shape[0]) // bucket_size, ids[None, :])
    out = getattr(out.at[index], _METHOD[op])(values, mode=mode, **kwargs)
    return cast(Array, _REDUCER[op](out, axis=0).astype(dtype))


_ARGS_DOC = """
Args:
    data: the values; rows (the leading axis) are reduced by segment.
    segment_ids: an integer array of shape ``data.shape[:1]`` naming each row's segment.
    num_segments: the number of segments, a concrete int; by default
        ``max(segment_ids) + 1`` (which needs concrete ids).
    indices_are_sorted: promise that ``segment_ids`` is sorted.
    unique_indices: promise that no id repeats.
    bucket_size: reduce buckets of this many rows separately, then combine them.
    mode: out-of-range ids are dropped (``"drop"``, the default) or clipped (``"clip"``).

Returns:
    An array of shape ``(num_segments,) + data.shape[1:]``; segments with no
    rows hold the reduction's identity ({identity}).
"""


def segment_sum(
    data: ArrayLike,
    segment_ids: ArrayLike,
    num_segments: int | None = None,
    indices_are_sorted: bool = False,
    unique_indices: bool = False,
    bucket_size: int | None = None,
    mode: Mode = None,
) -> Array:
    return _segment(
        "sum", data, segment_ids, num_segments, indices_are_sorted, unique_indices,
        bucket_size, mode,
    )  # fmt: skip


def segment_prod(
    data: ArrayLike,
    segment_ids: ArrayLike,
    num_segments: int | None = None,
    indices_are_sorted: bool = False,
    unique_indices: bool = False,
    bucket_size: int | None = None,
    mode: Mode = None,
) -> Array:
    return _segment(
        "prod", data, segment_ids, num_segments, indices_are_sorted, unique_indices,
        bucket_size, mode,
    )  # fmt: skip


def segment_max(
    data: ArrayLike,
    segment_ids: ArrayLike,
    num_segments: int | None = None,
    indices_are_sorted: bool = False,
    unique_indices: bool = False,
    bucket_size: int | None = None,
    mode: Mode = None,
) -> Array:
    return _segment(
        "max", data, segment_ids, num_segments, indices_are_sorted, unique_indices,
        bucket_size, mode,
    )  # fmt: skip


def segment_min(
    data: ArrayLike,
    segment_ids: ArrayLike,
    num_segments: int | None = None,
    indices_are_sorted: bool = False,
    unique_indices: bool = False,
    bucket_size: int | None = None,
    mode: Mode = None,
) -> Array:
    return _segment(
        "min", data, segment_ids, num_segments, indices_are_sorted, unique_indices,
        bucket_size, mode,
    )  # fmt: skip


segment_sum.__doc__ = (
    "The sum of ``data``'s rows within each segment.\n"
    + _ARGS_DOC.format(identity="0")
    + """
Example:
    >>> import tessela.numpy as tnp
    >>> print(segment_sum(tnp.arange(5.0), tnp.array([0, 0, 1, 1, 2])))
    [1. 5. 4.]
"""
)
segment_prod.__doc__ = "The product of ``data``'s rows within each segment.\n" + _ARGS_DOC.format(
    identity="1"
)
segment_max.__doc__ = (
    "The maximum of ``data``'s rows within each segment.\n"
    + _ARGS_DOC.format(identity="``-inf``, or the dtype's minimum for integers")
    + """
Example:
    >>> import tessela.numpy as tnp
    >>> print(segment_max(tnp.arange(4), tnp.array([0, 0, 2, 2]), num_segments=3))
    [          1 -2147483648           3]
"""
)
segment_min.__doc__ = "The minimum of ``data``'s rows within each segment.\n" + _ARGS_DOC.format(
    identity="``inf``, or the dtype's maximum for integers"
)
