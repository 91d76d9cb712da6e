"""Shape, axis and broadcasting helpers against NumPy."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tessela_numpy._shapes import (
    broadcast_shapes,
    canonicalize_axis,
    canonicalize_shape,
    move_axis_permutation,
    normalize_reduction_axes,
    reduced_shape,
)

small = st.lists(st.sampled_from([1, 2, 3]), max_size=4).map(tuple)


@settings(max_examples=100, deadline=None)
@given(st.lists(small, min_size=1, max_size=3))
def test_broadcast_shapes_matches_numpy(shapes: list[tuple[int, ...]]) -> None:
    try:
        expected = np.broadcast_shapes(*shapes)
    except ValueError:
        with pytest.raises(ValueError, match="Incompatible shapes for broadcasting"):
            broadcast_shapes(*shapes)
    else:
        assert broadcast_shapes(*shapes) == expected


@settings(max_examples=60, deadline=None)
@given(small.filter(bool), st.data())
def test_reduction_axes_match_numpy(shape: tuple[int, ...], data: Any) -> None:
    nd = len(shape)
    axes = data.draw(st.lists(st.integers(-nd, nd - 1), unique_by=lambda a: a % nd, max_size=nd))
    norm = normalize_reduction_axes(tuple(axes), nd)
    for keep in (True, False):
        expected = np.zeros(shape).sum(axis=tuple(axes), keepdims=keep).shape
        assert reduced_shape(shape, norm, keepdims=keep) == expected


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 5), st.data())
def test_move_axis_permutation_matches_numpy(nd: int, data: Any) -> None:
    src = data.draw(st.lists(st.integers(0, nd - 1), unique=True, max_size=nd))
    dst = data.draw(
        st.lists(st.integers(0, nd - 1), unique=True, min_size=len(src), max_size=len(src))
    )
    x = np.zeros(tuple(range(2, 2 + nd)))
    perm = move_axis_permutation(nd, tuple(src), tuple(dst))
    assert np.transpose(x, perm).shape == np.moveaxis(x, src, dst).shape


def test_axis_errors() -> None:
    with pytest.raises(ValueError, match="out of bounds"):
        canonicalize_axis(3, 2)
    with pytest.raises(TypeError, match="static integer"):
        canonicalize_axis(1.0, 2)
    with pytest.raises(ValueError, match="duplicate"):
        normalize_reduction_axes((0, -2), 2)


def test_shape_errors() -> None:
    assert canonicalize_shape([2, np.int32(3)]) == (2, 3)
    with pytest.raises(TypeError, match="concrete values of integer type"):
        canonicalize_shape((2.0,))
    with pytest.raises(ValueError, match="negative"):
        canonicalize_shape(-1)
