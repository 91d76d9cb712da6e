"""Matrix helpers, joining/splitting, differences and element-wise extras against NumPy."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tessela_lowering  # noqa: F401  (eager execution)
import tessela_numpy as tnp
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from tessela_tracer import jit

floats32 = st.floats(-100, 100, width=32, allow_subnormal=False)
small_shapes = st.sampled_from([(1, 1), (2, 3), (3, 2), (3, 3), (2, 2, 4)])


def _close(got: Any, want: Any, **kw: Any) -> None:
    got = np.asarray(got)
    want = np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_allclose(got, want, equal_nan=True, **kw)


@settings(max_examples=6)
@given(hnp.arrays(np.float32, small_shapes, elements=floats32), st.integers(-2, 2))
def test_triangles_diagonals_match_numpy(x: np.ndarray, k: int) -> None:
    _close(tnp.tril(x, k), np.tril(x, k))
    _close(tnp.triu(x, k), np.triu(x, k))
    _close(tnp.diagonal(x, k), np.diagonal(x, k))
    _close(tnp.diagonal(x, k, -1, 0), np.diagonal(x, k, -1, 0))
    _close(tnp.trace(x, k), np.trace(x, k), rtol=1e-5, atol=1e-4)
    _close(tnp.rot90(x, k), np.rot90(x, k))
    _close(tnp.fliplr(x), np.fliplr(x))
    _close(tnp.flipud(x), np.flipud(x))
    if x.ndim == 2:
        _close(tnp.diag(x, k), np.diag(x, k))
        _close(jit(lambda a: tnp.tril(a, k))(x), np.tril(x, k))
    _close(tnp.diag(x.reshape(-1)[:3], k), np.diag(x.reshape(-1)[:3], k))
    _close(tnp.tri(3, 4, k), np.tri(3, 4, k, dtype=np.float32))


def test_diagflat_matches_numpy() -> None:
    x = np.arange(4.0, dtype=np.float32).reshape(2, 2)
    _close(tnp.diagflat(x, -1), np.diagflat(x, -1))


def test_matrix_dtypes_follow_jax() -> None:
    i = np.arange(6, dtype=np.int8).reshape(2, 3)
    assert tnp.trace(i).dtype == np.int32
    assert tnp.trace(i > 2).dtype == np.int32
    assert tnp.tri(2).dtype == np.float32
    assert tnp.tri(2, dtype=bool).dtype == np.bool_
    assert tnp.kron(i, np.ones(2, np.float32)).dtype == np.float32


@settings(max_examples=15)
@given(
    hnp.arrays(np.int32, st.sampled_from([(2,), (2, 3), (1, 2, 2)]), elements=st.integers(-9, 9)),
    hnp.arrays(np.int32, st.sampled_from([(3,), (2, 1), (2, 2)]), elements=st.integers(-9, 9)),
)
def test_kron_matches_numpy(a: np.ndarray, b: np.ndarray) -> None:
    _close(tnp.kron(a, b), np.kron(a, b))


@pytest.mark.parametrize(
    ("sa", "sb", "kw"),
    [
        ((3,), (3,), {}),
        ((4, 3), (3,), {}),
        ((2, 4), (4, 3), {"axisa": 0}),
        ((3, 5), (3, 5), {"axis": 0}),
        ((5, 3), (5, 3), {"axisc": 0}),
        ((3,), (2,), {}),
    ],
)
def test_cross_matches_numpy(sa: tuple[int, ...], sb: tuple[int, ...], kw: dict[str, int]) -> None:
    rng = np.random.default_rng(0)
    a = rng.normal(size=sa).astype(np.float32)
    b = rng.normal(size=sb).astype(np.float32)
    _close(tnp.cross(a, b, **kw), np.cross(a, b, **kw), rtol=1e-5, atol=1e-6)


def test_cross_of_two_vectors_is_the_z_component() -> None:
    a, b = np.array([1.0, 2.0], np.float32), np.array([3.0, 5.0], np.float32)
    assert float(tnp.cross(a, b)) == -1.0
    with pytest.raises(ValueError, match="2 or 3"):
        tnp.cross(np.ones(4), np.ones(3))


def test_shape_errors_are_jax_errors() -> None:
    with pytest.raises(ValueError, match="at least 2D"):
        tnp.tril(np.ones(3))
    with pytest.raises(ValueError, match="1d or 2d"):
        tnp.diag(np.ones((2, 2, 2)))
    with pytest.raises(ValueError, match="Axes must be different"):
        tnp.rot90(np.ones((2, 2)), axes=(0, 0))
    with pytest.raises(ValueError, match="out of bounds"):
        tnp.fliplr(np.ones(3))
    with pytest.raises(ValueError, match="must be 1D"):
        tnp.meshgrid(np.ones((2, 2)))
    with pytest.raises(ValueError, match="non-negative"):
        tnp.diff(np.ones(3), n=-1)
    with pytest.raises(ValueError, match="equal division"):
        tnp.hsplit(np.ones((2, 5)), 2)
    with pytest.raises(ValueError, match="2 or more"):
        tnp.vsplit(np.ones(4), 2)
    with pytest.raises(TypeError, match="requires ndarray"):
        tnp.diff([1, 2, 3])


@settings(max_examples=10)
@given(
    hnp.arrays(np.float32, st.sampled_from([(5,), (2, 4), (3, 3)]), elements=floats32),
    st.integers(0, 3),
    st.sampled_from([None, 0.5, "arr"]),
)
def test_diff_matches_numpy(x: np.ndarray, n: int, prepend: Any) -> None:
    pre = x[..., :1] * 2 if isinstance(prepend, str) else prepend
    kw = {} if pre is None else {"prepend": pre, "append": pre}
    _close(tnp.diff(x, n=n, **kw), np.diff(x, n=n, **kw), rtol=1e-5, atol=1e-3)
    _close(jit(lambda a: tnp.diff(a, n=n, axis=0))(x), np.diff(x, n=n, axis=0), atol=1e-3)
    _close(tnp.diff(x > 0), np.diff(x > 0))
    _close(
        tnp.ediff1d(x, to_begin=np.array([7.0], np.float32), to_end=-1.0),
        np.ediff1d(x, to_begin=[7.0], to_end=[-1.0]),
        atol=1e-3,
    )


@pytest.mark.parametrize("sections", [1, 2, 3, 5, [1, 3], [0, -1, 9]])
def test_splitting_matches_numpy(sections: Any) -> None:
    x = np.arange(2 * 5 * 3).reshape(2, 5, 3)
    for got, want in zip(
        tnp.array_split(x, sections, axis=1), np.array_split(x, sections, axis=1), strict=True
    ):
        _close(got, want)
    if not isinstance(sections, int) or 3 % sections == 0:
        for got, want in zip(tnp.dsplit(x, sections), np.dsplit(x, sections), strict=True):
            _close(got, want)
    if not isinstance(sections, int) or 2 % sections == 0:
        for got, want in zip(tnp.vsplit(x, sections), np.vsplit(x, sections), strict=True):
            _close(got, want)
    y = np.arange(6)
    if not isinstance(sections, int) or 6 % sections == 0:
        for got, want in zip(tnp.hsplit(y, sections), np.hsplit(y, sections), strict=True):
            _close(got, want)


def test_stacking_and_grids_match_numpy() -> None:
    a, b = np.arange(3), np.arange(3.0, 6.0)
    m = np.arange(6.0).reshape(3, 2)
    _close(tnp.dstack([a, b]), np.dstack([a, b]))
    _close(tnp.dstack([m, m]), np.dstack([m, m]))
    _close(tnp.column_stack([a, m, b]), np.column_stack([a, m, b]))
    assert tnp.column_stack([a, b]).dtype == np.float32
    for sparse in (False, True):
        for indexing in ("xy", "ij"):
            got = tnp.meshgrid(a, b, m[:, 0], sparse=sparse, indexing=indexing)
            want = np.meshgrid(a, b, m[:, 0], sparse=sparse, indexing=indexing)
            for g, w in zip(got, want, strict=True):
                _close(g, w)
    assert [g.dtype for g in tnp.meshgrid(a, b)] == [np.int32, np.float32]


@pytest.mark.parametrize(
    ("start", "stop", "num", "endpoint"),
    [(0.0, 2.0, 3, True), (1.0, 3.0, 7, False), (-2.0, 1.0, 5, True)],
)
def test_log_and_geometric_spacing_match_numpy(
    start: float, stop: float, num: int, endpoint: bool
) -> None:
    _close(
        tnp.logspace(start, stop, num, endpoint), np.logspace(start, stop, num, endpoint), rtol=1e-5
    )
    _close(
        tnp.logspace(start, stop, num, endpoint, base=2.0),
        np.logspace(start, stop, num, endpoint, base=2.0),
        rtol=1e-5,
    )
    lo, hi = 10.0**start, 10.0**stop
    _close(tnp.geomspace(lo, hi, num, endpoint), np.geomspace(lo, hi, num, endpoint), rtol=1e-5)
    _close(tnp.geomspace(-lo, -hi, num, endpoint), np.geomspace(-lo, -hi, num, endpoint), rtol=1e-5)
    assert tnp.logspace(0, 2, 3, dtype=int).tolist() == [1, 10, 100]


special = st.sampled_from([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, 1.0 + 1e-7])


@settings(max_examples=12)
@given(
    hnp.arrays(np.float32, (6,), elements=floats32 | special),
    hnp.arrays(np.float32, (6,), elements=floats32 | special),
    st.booleans(),
)
def test_closeness_and_equality_match_numpy(a: np.ndarray, b: np.ndarray, equal_nan: bool) -> None:
    _close(tnp.isclose(a, b, equal_nan=equal_nan), np.isclose(a, b, equal_nan=equal_nan))
    _close(tnp.isclose(a, b, 0.1, 0.5), np.isclose(a, b, 0.1, 0.5))
    assert bool(tnp.allclose(a, b, equal_nan=equal_nan)) == np.allclose(a, b, equal_nan=equal_nan)
    assert bool(tnp.array_equal(a, b, equal_nan)) == np.array_equal(a, b, equal_nan)
    assert bool(tnp.array_equal(a, a, equal_nan)) == np.array_equal(a, a, equal_nan)
    assert bool(tnp.array_equiv(a, a[None])) == np.array_equiv(a, a[None])
    assert bool(jit(tnp.allclose)(a, b)) == np.allclose(a, b)


def test_equality_of_different_shapes_is_false() -> None:
    assert not bool(tnp.array_equal(np.ones(2), np.ones(3)))
    assert not bool(tnp.array_equiv(np.ones(2), np.ones(3)))
    assert bool(tnp.array_equiv(np.ones((2, 3)), 1.0))
    assert tnp.isclose(np.arange(3), np.arange(3)).dtype == np.bool_


@settings(max_examples=12)
@given(hnp.arrays(np.float32, (7,), elements=floats32 | special))
def test_float_decomposition_matches_numpy(x: np.ndarray) -> None:
    _close(tnp.nan_to_num(x), np.nan_to_num(x))
    _close(
        tnp.nan_to_num(x, nan=-1.0, posinf=9.0, neginf=-9.0),
        np.nan_to_num(x, nan=-1.0, posinf=9.0, neginf=-9.0),
    )
    m, e = tnp.frexp(x)
    wm, we = np.frexp(x)
    _close(m, wm)
    finite = np.isfinite(x)
    np.testing.assert_array_equal(np.asarray(e)[finite], we[finite])
    assert e.dtype == np.int32
    frac, whole = tnp.modf(x)
    wf, ww = np.modf(x)
    _close(whole, ww)
    _close(np.asarray(frac)[finite], wf[finite])
    _close(tnp.around(x, 1), np.around(x, 1), rtol=1e-6)


def test_frexp_of_integers_and_modf_of_inf() -> None:
    m, e = tnp.frexp(np.arange(5, dtype=np.int32))
    assert m.dtype == np.float32 and e.dtype == np.int32
    _close(m, np.frexp(np.arange(5.0))[0])
    frac, whole = tnp.modf(np.array([np.inf], np.float32))
    assert np.isnan(np.asarray(frac)[0]) and np.asarray(whole)[0] == np.inf  # JAX's modf(inf)


@settings(max_examples=10)
@given(hnp.arrays(np.int32, (2, 5), elements=st.integers(-5, 5)))
def test_selection_matches_numpy(x: np.ndarray) -> None:
    conds = [x < -2, x > 2, x == 0]
    choices = [x, 10 * x, np.full_like(x, 7)]
    _close(tnp.select(conds, choices, default=-1), np.select(conds, choices, default=-1))
    _close(jit(lambda v: tnp.select([v < 0], [v * 2]))(x), np.select([x < 0], [x * 2]))
    funcs = [lambda v: v * 2, 5, lambda v: -v]
    _close(tnp.piecewise(x, conds[:2], funcs), np.piecewise(x, conds[:2], funcs))
    _close(tnp.piecewise(x, conds, funcs), np.piecewise(x, conds, funcs))
    _close(tnp.count_nonzero(x), np.count_nonzero(x))
    _close(tnp.count_nonzero(x, axis=1, keepdims=True), np.count_nonzero(x, axis=1, keepdims=True))
    assert tnp.count_nonzero(x, axis=0).dtype == np.int32


def test_select_errors_and_dtypes() -> None:
    x = np.arange(4, dtype=np.int32)
    with pytest.raises(ValueError, match="condlist must have length equal to choicelist"):
        tnp.select([x > 1], [x, x])
    assert tnp.select([x > 1], [1]).dtype == np.int32
    assert tnp.select([x > 1], [x.astype(np.float32)]).dtype == np.float32
    assert tnp.piecewise(x, [x < 2], [1.5, 7]).dtype == np.int32
    with pytest.raises(ValueError, match="functions"):
        tnp.piecewise(x, [x < 2], [1, 2, 3])


def test_i0_matches_numpy() -> None:
    x = np.array([0.0, 0.5, -1.0, 3.0, 10.0, -30.0, 80.0], np.float32)
    _close(tnp.i0(x), np.i0(x.astype(np.float64)).astype(np.float32), rtol=2e-6)
    _close(jit(tnp.i0)(x), np.i0(x.astype(np.float64)).astype(np.float32), rtol=2e-6)
    assert tnp.i0(np.arange(3)).dtype == np.float32


@settings(max_examples=10, deadline=None)
@given(
    hnp.arrays(np.float32, hnp.array_shapes(min_dims=1, max_dims=3, min_side=2, max_side=5),
               elements=st.floats(-3, 3, width=32, allow_subnormal=False)),
    st.floats(0.5, 2.0),
)  # fmt: skip
def test_gradient_matches_numpy(f: np.ndarray, h: float) -> None:
    want = np.gradient(f.astype(np.float64), h)
    got = tnp.gradient(f, h)
    want = want if isinstance(want, list | tuple) else [want]
    got = got if isinstance(got, list) else [got]
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(np.asarray(g), w, rtol=1e-4, atol=1e-4)
    # Coordinates along the last axis: the non-uniform formula.
    n = f.shape[-1]
    x = np.cumsum(np.linspace(0.5, 1.5, n)).astype(np.float32)
    got_last = tnp.gradient(f, x, axis=-1)
    np.testing.assert_allclose(np.asarray(got_last), np.gradient(f.astype(np.float64), x, axis=-1),
                               rtol=1e-4, atol=1e-4)  # fmt: skip


def test_gradient_errors() -> None:
    with pytest.raises(NotImplementedError, match="edge_order"):
        tnp.gradient(np.ones(3), edge_order=1)
    with pytest.raises(ValueError, match="at least 2 elements"):
        tnp.gradient(np.ones((3, 1)))
    with pytest.raises(TypeError, match="spacings"):
        tnp.gradient(np.ones((3, 3)), 1.0, 2.0, 3.0)
    assert tnp.gradient(np.arange(4)).dtype == np.float32
