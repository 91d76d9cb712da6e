"""tessela.numpy.vectorize and apply_along_axis against NumPy's, eagerly and under jit."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tessela as tx
import tessela.numpy as tnp
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

floats = st.floats(-3, 3, width=32, allow_subnormal=False)


@settings(max_examples=20, deadline=None)
@given(
    hnp.arrays(np.float32, hnp.array_shapes(max_dims=3, max_side=3), elements=floats),
    st.data(),
)
def test_scalar_vectorize_broadcasts_like_numpy(x: np.ndarray, data: Any) -> None:
    # A second argument whose shape broadcasts against x's.
    shape = data.draw(hnp.broadcastable_shapes(x.shape, max_dims=3, max_side=3))
    y = data.draw(hnp.arrays(np.float32, shape, elements=floats))

    want = np.vectorize(lambda a, b: a * 2.0 + b if a > b else a - b, otypes=[np.float32])(x, y)
    # A Python ``if`` on traced values is refused: use where inside the function.
    got = tnp.vectorize(lambda a, b: tnp.where(a > b, a * 2.0 + b, a - b))(x, y)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6, atol=1e-6)
    staged = tx.jit(tnp.vectorize(lambda a, b: tnp.where(a > b, a * 2.0 + b, a - b)))(x, y)
    np.testing.assert_allclose(np.asarray(staged), want, rtol=1e-6, atol=1e-6)


def test_signature_core_axes_and_loop_axes() -> None:
    rng = np.random.default_rng(0)
    a = rng.standard_normal((3, 2, 4)).astype(np.float32)
    b = rng.standard_normal((5, 1, 4)).astype(np.float32)
    matvec = tnp.vectorize(lambda m, v: m @ v, signature="(n,m),(m)->(n)")
    assert matvec(a, b[0, 0]).shape == (3, 2)
    np.testing.assert_allclose(np.asarray(matvec(a, b[0, 0])), a @ b[0, 0], rtol=1e-5)
    # Loop axes (3,) and (5, 1) broadcast to (5, 3).
    out = matvec(a, b)
    assert out.shape == (5, 3, 2)
    want = np.einsum("inm,jkm->jin", a, b)
    np.testing.assert_allclose(np.asarray(out), want, rtol=1e-5, atol=1e-6)
    stats = tnp.vectorize(lambda v: (v.mean(), v.max()), signature="(n)->(),()")
    mean, top = stats(a)
    np.testing.assert_allclose(np.asarray(mean), a.mean(-1), rtol=1e-6)
    np.testing.assert_array_equal(np.asarray(top), a.max(-1))


def test_excluded_arguments_pass_through() -> None:
    scale = tnp.vectorize(lambda x, name, k: x * len(name) + k, excluded={1, "k"})
    out = scale(np.arange(3.0), "abc", k=1.0)
    assert out.tolist() == [1.0, 4.0, 7.0]


@pytest.mark.parametrize(
    ("signature", "args", "match"),
    [
        ("bad", (np.ones(3),), "not a valid gufunc signature"),
        ("(n)->(n)", (np.float32(1),), "does not have enough dimensions"),
        ("(n),(n)->(n)", (np.ones(3), np.ones(2)), "inconsistent size for core dimension 'n'"),
        ("(n)->()", (np.ones(3),), r"output shape \(3,\) does not match core dimensions"),
        ("(n)->(),()", (np.ones(3),), "wrong number of outputs"),
        ("(n),(n)->()", (np.ones(3),), "wrong number of positional arguments"),
    ],
)
def test_errors_say_what_is_wrong(signature: str, args: tuple[Any, ...], match: str) -> None:
    with pytest.raises((ValueError, TypeError), match=match):
        tnp.vectorize(lambda *xs: xs[0], signature=signature)(*args)


@settings(max_examples=15, deadline=None)
@given(hnp.arrays(np.float32, hnp.array_shapes(min_dims=1, max_dims=3, max_side=4), elements=floats),
       st.data())  # fmt: skip
def test_apply_along_axis_matches_numpy(x: np.ndarray, data: Any) -> None:
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    for fun, np_fun in [
        (lambda v: v.sum() * 2.0, lambda v: v.sum() * 2.0),
        (lambda v: v[::-1] - v[0], lambda v: v[::-1] - v[0]),
        (lambda v: tnp.outer(v, v), lambda v: np.outer(v, v)),
    ]:
        want = np.apply_along_axis(np_fun, axis, x)
        got = tnp.apply_along_axis(fun, axis, x)
        assert got.shape == want.shape
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="out of bounds"):
        tnp.apply_along_axis(tnp.sum, x.ndim, x)


def test_apply_along_axis_passes_extra_arguments_and_composes_with_grad() -> None:
    x = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    out = tnp.apply_along_axis(lambda v, s, p: (v**p).sum() * s, -1, x, 2.0, p=2)
    np.testing.assert_allclose(np.asarray(out), (x**2).sum(-1) * 2.0)
    g = tx.grad(lambda y: tnp.apply_along_axis(lambda v: (v**2).sum(), 0, y).sum())(x)
    np.testing.assert_allclose(np.asarray(g), 2 * x)


def test_vmap_of_numpy_shape_functions_matches_a_loop() -> None:
    x = np.arange(24.0, dtype=np.float32).reshape(2, 3, 4)
    for fn in (lambda a: tnp.triu(a, 1), lambda a: tnp.diff(a, axis=0), tnp.trace, tnp.fliplr):
        got = tx.vmap(fn)(x)
        want = np.stack([np.asarray(fn(x[i])) for i in range(2)])
        np.testing.assert_allclose(np.asarray(got), want)
