"""Index planning against NumPy's own indexing (pure Python, no tracing)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tessela_numpy._gather_plan import gather_plan
from tessela_numpy._index_plan import (
    IndexKind,
    as_index_tuple,
    dynamic_slice_plan,
    expand_bool_indices,
    parse_indices,
    static_slice_plan,
)

shapes = st.lists(st.integers(1, 5), min_size=1, max_size=4).map(tuple)


@st.composite
def basic_index(draw: Any, shape: tuple[int, ...]) -> tuple[Any, ...]:
    entries: list[Any] = []
    for d in shape:
        kind = draw(st.sampled_from(["int", "slice", "none", "skip"]))
        if kind == "int":
            entries.append(draw(st.integers(-d, d - 1)))
        elif kind == "slice":
            start = draw(st.none() | st.integers(-d - 2, d + 2))
            stop = draw(st.none() | st.integers(-d - 2, d + 2))
            step = draw(st.none() | st.integers(-3, 3).filter(lambda s: s != 0))
            entries.append(slice(start, stop, step))
        elif kind == "none":
            entries.extend([None, slice(None)])
        else:
            break
    if draw(st.booleans()) and len(entries) < len(shape):
        entries.insert(draw(st.integers(0, len(entries))), Ellipsis)
    return tuple(entries)


def _apply_static(x: np.ndarray, idx: tuple[Any, ...]) -> np.ndarray | None:
    plan = static_slice_plan(parse_indices(idx, x.shape), x.shape)
    if plan is None:
        return None
    strides = plan.strides or (1,) * x.ndim
    y = x[
        tuple(
            slice(s, e, k)
            for s, e, k in zip(plan.start_indices, plan.limit_indices, strides, strict=False)
        )
    ]
    if plan.rev_axes:
        y = np.flip(y, plan.rev_axes)
    y = np.squeeze(y, plan.squeeze_axes) if plan.squeeze_axes else y
    return np.expand_dims(y, plan.newaxis_dims) if plan.newaxis_dims else y


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_static_slice_plan_matches_numpy(data: Any) -> None:
    shape = data.draw(shapes)
    x = np.arange(int(np.prod(shape))).reshape(shape)
    idx = data.draw(basic_index(shape))
    got = _apply_static(x, idx)
    if got is None:  # only out-of-bounds integers leave the static path
        with pytest.raises(IndexError):
            x[idx]
    else:
        np.testing.assert_array_equal(got, x[idx])


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_gather_plan_shape_matches_numpy(data: Any) -> None:
    shape = data.draw(shapes)
    x = np.zeros(shape)
    idx = list(data.draw(basic_index(shape)))
    # Replace some integer entries by integer arrays (advanced indexing).
    arr_shape = data.draw(st.lists(st.integers(1, 3), max_size=2).map(tuple))
    for n, e in enumerate(idx):
        if isinstance(e, int) and data.draw(st.booleans()):
            idx[n] = np.full(arr_shape, e)
    parsed = parse_indices(tuple(idx), shape)
    try:
        expected = x[tuple(idx)].shape
    except IndexError:
        return
    assert gather_plan(parsed, shape).slice_shape == expected


def test_out_of_bounds_integer_goes_to_dynamic_slice() -> None:
    parsed = parse_indices(11, (10,))
    assert static_slice_plan(parsed, (10,)) is None
    plan = dynamic_slice_plan(parsed, (10,))
    assert plan is not None and plan.starts == (11,) and plan.squeeze_axes == (0,)


def test_boolean_expansion_matches_numpy() -> None:
    mask = np.array([[True, False, True], [False, False, True]])
    parsed = expand_bool_indices(
        parse_indices(mask, (2, 3)), (2, 3), concrete=np.asarray, on_abstract=ValueError
    )
    assert [p.kind for p in parsed] == [IndexKind.ARRAY, IndexKind.ARRAY]
    x = np.arange(6).reshape(2, 3)
    rows, cols = (p.value for p in parsed)
    np.testing.assert_array_equal(x[rows, cols], x[mask])


def test_abstract_boolean_calls_on_abstract() -> None:
    class Fake:
        shape = (3,)
        dtype = np.dtype(bool)

    with pytest.raises(KeyError, match="fake"):
        expand_bool_indices(
            parse_indices(Fake(), (3,)),
            (3,),
            concrete=lambda v: None,
            on_abstract=lambda v: KeyError("fake"),
        )


def test_boolean_shape_mismatch_is_index_error() -> None:
    with pytest.raises(IndexError, match="did not match"):
        expand_bool_indices(
            parse_indices(np.array([True, False]), (3,)),
            (3,),
            concrete=np.asarray,
            on_abstract=ValueError,
        )


@pytest.mark.parametrize(
    ("idx", "exc", "match"),
    [
        ([0, 1], TypeError, "non-tuple sequence"),
        ("a", TypeError, "string indexing"),
        (1.0, TypeError, "integer or boolean type"),
        ((0, 0, 0), IndexError, "Too many indices"),
        ((Ellipsis, Ellipsis), IndexError, "single ellipsis"),
        (object(), IndexError, "valid indices"),
    ],
)
def test_index_errors(idx: Any, exc: type[Exception], match: str) -> None:
    with pytest.raises(exc, match=match):
        parse_indices(idx, (2, 2))
    # NumPy refuses these too (with its own messages).
    with pytest.raises((IndexError, TypeError, ValueError)):
        np.zeros((2, 2))[idx] if not isinstance(idx, list) else np.zeros((2, 2))[idx, idx, idx]


def test_list_inside_tuple_becomes_array() -> None:
    parsed = parse_indices((slice(None), [0, 2]), (3, 4))
    assert parsed[1].kind is IndexKind.ARRAY
    assert as_index_tuple((1,)) == (1,)
