"""NumPy indexing, planned in pure Python.

``x[idx]`` and ``x.at[idx]`` are planned here without touching an array: the
index is parsed against the shape of ``x`` into :class:`ParsedIndex` records,
then turned into one of three plans, tried in this order, as JAX does:

* :class:`StaticSlicePlan`: only static integers, slices, ``None`` and ``...``
  within bounds; realised with ``slice``/``rev``/``squeeze``/``expand_dims``.
* :class:`DynamicSlicePlan`: scalar integer indices (static out-of-bounds
  integers or traced scalars) and unit-step slices; realised with
  ``dynamic_slice``, which clamps out-of-bounds starts.
* :class:`GatherPlan`: everything else (integer arrays, strided slices with
  arrays, booleans once expanded to integer arrays); realised with ``gather``
  or ``scatter``. Out-of-bounds gathers clamp, scatters drop.

Index values that are arrays are never inspected beyond ``shape`` and
``dtype``; the plans refer to them by position in the parsed index.
"""

from __future__ import annotations

import dataclasses
import enum
import operator
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from tessela_tracer import ArrayOps, Tracer

__all__ = [
    "DynamicSlicePlan", "IndexKind", "ParsedIndex", "StaticSlicePlan", "as_index_tuple",
    "dynamic_slice_plan", "expand_bool_indices", "parse_indices", "static_slice_plan",
]  # fmt: skip


class IndexKind(enum.Enum):
    """What one entry of an index tuple is."""

    NONE = "none"
    ELLIPSIS = "ellipsis"
    SLICE = "slice"
    INTEGER = "integer"  # a static Python or NumPy integer
    ARRAY = "array"  # an integer array (NumPy, concrete or traced)
    BOOLEAN = "boolean"  # a boolean scalar or array


@dataclasses.dataclass(frozen=True, slots=True)
class ParsedIndex:
    """One index entry with the operand axes it consumes."""

    value: Any
    kind: IndexKind
    axes: tuple[int, ...]


def _shape_dtype(x: Any) -> tuple[tuple[int, ...], np.dtype[Any]] | None:
    shape = getattr(x, "shape", None)
    dtype = getattr(x, "dtype", None)
    if shape is None or dtype is None:
        return None
    return tuple(shape), np.dtype(dtype)


def _should_unpack(x: Any) -> bool:
    sd = _shape_dtype(x)
    return (
        (sd is not None and len(sd[0]) != 0)
        or isinstance(x, Sequence | slice)
        or x is Ellipsis
        or x is None
    )


def as_index_tuple(idx: Any, /) -> tuple[Any, ...]:
    """Wrap a single index in a tuple; refuse non-tuple sequences.

    Args:
      idx: what was written between the brackets.

    Returns:
      The index as a tuple.

    Raises:
      TypeError: ``idx`` is a list or other non-tuple sequence.

    >>> as_index_tuple(0), as_index_tuple((0, slice(None)))
    ((0,), (0, slice(None, None, None)))
    """
    if isinstance(idx, tuple):
        return idx
    if isinstance(idx, Sequence) and not isinstance(idx, str):
        fix = "arr[tuple(seq)]" if any(_should_unpack(i) for i in idx) else "arr[array(seq)]"
        raise TypeError(
            "Using a non-tuple sequence for multidimensional indexing is not "
            f"allowed; use `{fix}` instead of `arr[seq]`."
        )
    return (idx,)


def _concrete_slice(s: slice) -> slice:
    """``s`` with concrete integer scalar arrays as Python ints (their ``__index__``, as JAX).

    Traced entries stay, and are rejected later; a float or non-scalar array
    raises ``TypeError``.
    """
    entries = (s.start, s.stop, s.step)
    if not any(isinstance(v, ArrayOps | np.ndarray) and not isinstance(v, Tracer) for v in entries):
        return s
    start, stop, step = (
        operator.index(v)
        if isinstance(v, ArrayOps | np.ndarray) and not isinstance(v, Tracer)
        else v
        for v in entries
    )
    return slice(start, stop, step)


def _classify(idx: Any) -> tuple[Any, IndexKind]:
    if idx is None:
        return idx, IndexKind.NONE
    if idx is Ellipsis:
        return idx, IndexKind.ELLIPSIS
    if isinstance(idx, slice):
        return _concrete_slice(idx), IndexKind.SLICE
    if isinstance(idx, bool | np.bool_):
        return idx, IndexKind.BOOLEAN
    if isinstance(idx, int | np.integer):
        return idx, IndexKind.INTEGER
    if isinstance(idx, str):
        raise TypeError(f"JAX does not support string indexing; got idx={idx!r}")
    if isinstance(idx, float | complex | np.generic):
        raise TypeError(
            "Indexer must have integer or boolean type, got indexer with type "
            f"{np.dtype(type(idx))}"
        )
    sd = _shape_dtype(idx)
    if sd is None and isinstance(idx, Sequence):
        idx = np.asarray(idx) if len(idx) else np.zeros((0,), np.int32)
        sd = _shape_dtype(idx)
    if sd is not None:
        _, dtype = sd
        if dtype == np.bool_:
            return idx, IndexKind.BOOLEAN
        if np.issubdtype(dtype, np.integer):
            return idx, IndexKind.ARRAY
        raise TypeError(f"Indexer must have integer or boolean type, got indexer with type {dtype}")
    raise IndexError(
        "only integers, slices (`:`), ellipsis (`...`), newaxis (`None`) and "
        f"integer or boolean arrays are valid indices. Got {idx}"
    )


def parse_indices(idx: Any, shape: Sequence[int], /) -> list[ParsedIndex]:
    """Parse an index against an operand shape.

    Args:
      idx: the raw index (a tuple or a single entry).
      shape: the shape of the indexed array.

    Returns:
      One :class:`ParsedIndex` per entry, with the operand axes it consumes.

    Raises:
      IndexError: too many indices or more than one ellipsis.
      TypeError: an entry has an unsupported type.

    >>> [p.axes for p in parse_indices((0, Ellipsis, None), (2, 3, 4))]
    [(0,), (1, 2), ()]
    """
    entries = [_classify(i) for i in as_index_tuple(idx)]
    consumed: list[int] = []
    ellipses = []
    for n, (value, kind) in enumerate(entries):
        if kind in (IndexKind.NONE, IndexKind.ELLIPSIS):
            consumed.append(0)
            if kind is IndexKind.ELLIPSIS:
                ellipses.append(n)
        elif kind is IndexKind.BOOLEAN:
            consumed.append(
                len(np.shape(value)) if isinstance(value, bool | np.bool_) else len(value.shape)
            )
        else:
            consumed.append(1)
    if len(ellipses) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    total = sum(consumed)
    if total > len(shape):
        raise IndexError(
            f"Too many indices: array is {len(shape)}-dimensional, but {total} were indexed"
        )
    if ellipses:
        consumed[ellipses[0]] = len(shape) - total
    out = []
    axis = 0
    for (value, kind), n in zip(entries, consumed, strict=True):
        out.append(ParsedIndex(value, kind, tuple(range(axis, axis + n))))
        axis += n
    return out


def _expand_ellipses(parsed: Sequence[ParsedIndex], ndim: int) -> list[ParsedIndex]:
    out: list[ParsedIndex] = []
    used = 0
    for p in parsed:
        used += len(p.axes)
        if p.kind is IndexKind.ELLIPSIS:
            out.extend(ParsedIndex(slice(None), IndexKind.SLICE, (a,)) for a in p.axes)
        else:
            out.append(p)
    out.extend(ParsedIndex(slice(None), IndexKind.SLICE, (a,)) for a in range(used, ndim))
    return out


def _is_static_int(x: Any) -> bool:
    return x is None or (isinstance(x, int | np.integer) and not isinstance(x, bool))


def _check_static_slices(parsed: Sequence[ParsedIndex]) -> None:
    for position, p in enumerate(parsed):
        if p.kind is IndexKind.SLICE:
            s = p.value
            if not all(_is_static_int(v) for v in (s.start, s.stop, s.step)):
                raise IndexError(
                    f"Slice entries must be static integers. Got {s} at position {position}"
                )


@dataclasses.dataclass(frozen=True, slots=True)
class StaticSlicePlan:
    """``x[idx]`` as ``slice``, then ``rev``, ``squeeze`` and ``expand_dims``."""

    start_indices: tuple[int, ...]
    limit_indices: tuple[int, ...]
    strides: tuple[int, ...] | None
    rev_axes: tuple[int, ...]
    squeeze_axes: tuple[int, ...]
    newaxis_dims: tuple[int, ...]

    def is_trivial(self, shape: Sequence[int], /) -> bool:
        """Whether the slice keeps the whole operand."""
        return self.strides is None and all(
            (s, e) == (0, d)
            for s, e, d in zip(self.start_indices, self.limit_indices, shape, strict=True)
        )


def static_slice_plan(
    parsed: Sequence[ParsedIndex], shape: Sequence[int], /
) -> StaticSlicePlan | None:
    """Plan ``x[idx]`` with static slicing, or ``None`` when that is not possible.

    Args:
      parsed: the parsed index.
      shape: the operand shape.

    Returns:
      The plan, or ``None`` when an index is an array, a boolean, a traced
      value or an out-of-bounds integer.

    >>> static_slice_plan(parse_indices((1, slice(None, None, 2)), (3, 4)), (3, 4))
    StaticSlicePlan(start_indices=(1, 0), limit_indices=(2, 4), strides=(1, 2), rev_axes=(), squeeze_axes=(0,), newaxis_dims=())
    """
    for p in parsed:
        if p.kind not in (IndexKind.INTEGER, IndexKind.ELLIPSIS, IndexKind.SLICE, IndexKind.NONE):
            return None
        if p.kind is IndexKind.INTEGER:
            (axis,) = p.axes
            i = operator.index(p.value)
            if not 0 <= (i + shape[axis] if i < 0 else i) < shape[axis]:
                return None
        if p.kind is IndexKind.SLICE and not all(
            _is_static_int(v) for v in (p.value.start, p.value.stop, p.value.step)
        ):
            return None
    starts: list[int] = []
    limits: list[int] = []
    strides: list[int] = []
    rev: list[int] = []
    squeeze: list[int] = []
    newaxis: list[int] = []
    for p in _expand_ellipses(parsed, len(shape)):
        if p.kind is IndexKind.NONE:
            newaxis.append(len(starts) - len(squeeze) + len(newaxis))
        elif p.kind is IndexKind.INTEGER:
            (axis,) = p.axes
            i = operator.index(p.value)
            i = i + shape[axis] if i < 0 else i
            starts.append(i)
            limits.append(i + 1)
            strides.append(1)
            squeeze.append(axis)
        else:
            (axis,) = p.axes
            size = shape[axis]
            start, stop, step = p.value.indices(size)
            if step < 0:
                first = min(size, stop + 1 + abs(start - stop - 1) % -step)
                starts.append(first)
                limits.append(max(first, start + 1))
                strides.append(-step)
                rev.append(axis)
            else:
                starts.append(start)
                limits.append(max(start, stop))
                strides.append(step)
    return StaticSlicePlan(
        tuple(starts),
        tuple(limits),
        None if all(s == 1 for s in strides) else tuple(strides),
        tuple(rev),
        tuple(squeeze),
        tuple(newaxis),
    )


@dataclasses.dataclass(frozen=True, slots=True)
class DynamicSlicePlan:
    """``x[idx]`` as ``dynamic_slice``; ``starts`` entries are ints or index values."""

    starts: tuple[Any, ...]
    slice_sizes: tuple[int, ...]
    rev_axes: tuple[int, ...]
    squeeze_axes: tuple[int, ...]
    newaxis_dims: tuple[int, ...]
    trivial: bool


def dynamic_slice_plan(
    parsed: Sequence[ParsedIndex], shape: Sequence[int], /
) -> DynamicSlicePlan | None:
    """Plan ``x[idx]`` with ``dynamic_slice``, or ``None`` when not possible.

    Args:
      parsed: the parsed index.
      shape: the operand shape.

    Returns:
      The plan; integer starts stay Python ints, traced scalars stay as given.

    Raises:
      IndexError: an integer indexes an axis of size 0.

    >>> dynamic_slice_plan(parse_indices(11, (10,)), (10,)).starts
    (11,)
    """
    for p in parsed:
        if p.kind is IndexKind.SLICE:
            if p.value.step not in (None, 1, -1) or not all(
                _is_static_int(v) for v in (p.value.start, p.value.stop, p.value.step)
            ):
                return None
        elif p.kind is IndexKind.ARRAY:
            if isinstance(p.value, np.ndarray) or len(p.value.shape) != 0:
                return None
        elif p.kind is IndexKind.BOOLEAN:
            return None
    starts: list[Any] = []
    sizes: list[int] = []
    rev: list[int] = []
    squeeze: list[int] = []
    newaxis: list[int] = []
    trivial = True
    for p in _expand_ellipses(parsed, len(shape)):
        if p.kind is IndexKind.NONE:
            newaxis.append(len(starts) - len(squeeze) + len(newaxis))
        elif p.kind in (IndexKind.INTEGER, IndexKind.ARRAY):
            trivial = False
            (axis,) = p.axes
            if shape[axis] == 0:
                raise IndexError(f"index is out of bounds for axis {axis} with size 0")
            starts.append(operator.index(p.value) if p.kind is IndexKind.INTEGER else p.value)
            sizes.append(1)
            squeeze.append(axis)
        else:
            (axis,) = p.axes
            if p.value != slice(None):
                trivial = False
            start, stop, step = p.value.indices(shape[axis])
            if step < 0:
                first = stop + 1 + abs(start - stop - 1) % -step
                starts.append(first)
                sizes.append(max(0, start + 1 - first))
                rev.append(axis)
            else:
                starts.append(start)
                sizes.append(max(0, stop - start))
    return DynamicSlicePlan(
        tuple(starts), tuple(sizes), tuple(rev), tuple(squeeze), tuple(newaxis), trivial
    )


def expand_bool_indices(
    parsed: Sequence[ParsedIndex],
    shape: Sequence[int],
    /,
    *,
    concrete: Callable[[Any], np.ndarray[Any, Any] | None],
    on_abstract: Callable[[Any], Exception],
) -> list[ParsedIndex]:
    """Replace boolean array indices by the integer arrays of their ``True`` entries.

    Args:
      parsed: the parsed index.
      shape: the operand shape.
      concrete: returns the NumPy value of a boolean index, or ``None`` when
        it is traced.
      on_abstract: builds the exception raised for a traced boolean index.

    Returns:
      The parsed index with only scalar booleans left as booleans.

    Raises:
      IndexError: a boolean index does not match the shape it indexes.

    >>> p = expand_bool_indices(parse_indices(np.array([True, False, True]), (3,)), (3,),
    ...     concrete=np.asarray, on_abstract=ValueError)
    >>> p[0].kind.name, p[0].value.tolist()
    ('ARRAY', [0, 2])
    """
    out: list[ParsedIndex] = []
    for position, p in enumerate(parsed):
        if p.kind is not IndexKind.BOOLEAN:
            out.append(p)
            continue
        if isinstance(p.value, bool | np.bool_):
            out.append(ParsedIndex(bool(p.value), p.kind, ()))
            continue
        value = concrete(p.value)
        if value is None:
            raise on_abstract(p.value)
        if value.ndim == 0:
            out.append(ParsedIndex(bool(value), p.kind, ()))
            continue
        expected = [shape[a] for a in p.axes]
        if not all(s in (0, e) for s, e in zip(value.shape, expected, strict=True)):
            raise IndexError(
                "boolean index did not match shape of indexed array in index "
                f"{position}: got {value.shape}, expected {expected}"
            )
        where = np.nonzero(value)
        out.extend(
            ParsedIndex(w.astype(np.int32), IndexKind.ARRAY, (a,))
            for w, a in zip(where, p.axes, strict=True)
        )
    return out
