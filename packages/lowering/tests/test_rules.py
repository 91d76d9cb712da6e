"""Every primitive's lowering, compiled and run, against NumPy."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
import tessela_lowering as tl
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from tessela_lowering._lowering import has_lowering
from tessela_tracer import ShapedArray, config, custom_jvp, custom_vjp, lax, trace_to_jaxpr
from tessela_tracer import primitives as P


def _floats32(lo: float, hi: float) -> st.SearchStrategy[float]:
    # XLA on CPU flushes subnormals to zero, as JAX does: keep them out.
    return st.floats(float(np.float32(lo)), float(np.float32(hi)), width=32, allow_subnormal=False)


SHAPES = hnp.array_shapes(min_dims=0, max_dims=2, max_side=3)
FLOATS = (np.float32, np.float64)

_erf = np.vectorize(math.erf, otypes=[np.float64])
_erfc = np.vectorize(math.erfc, otypes=[np.float64])
_lgamma = np.vectorize(math.lgamma, otypes=[np.float64])

UNARY = {
    "neg": (lax.neg, np.negative, (-3, 3)),
    "sign": (lax.sign, np.sign, (-3, 3)),
    "floor": (lax.floor, np.floor, (-3, 3)),
    "ceil": (lax.ceil, np.ceil, (-3, 3)),
    "abs": (lax.abs, np.abs, (-3, 3)),
    "exp": (lax.exp, np.exp, (-3, 3)),
    "exp2": (lax.exp2, np.exp2, (-3, 3)),
    "log": (lax.log, np.log, (0.1, 5)),
    "log1p": (lax.log1p, np.log1p, (0, 5)),
    "expm1": (lax.expm1, np.expm1, (-2, 2)),
    "tanh": (lax.tanh, np.tanh, (-3, 3)),
    "logistic": (lax.logistic, lambda x: 1 / (1 + np.exp(-x)), (-3, 3)),
    "sin": (lax.sin, np.sin, (-3, 3)),
    "cos": (lax.cos, np.cos, (-3, 3)),
    "tan": (lax.tan, np.tan, (-1, 1)),
    "asin": (lax.asin, np.arcsin, (-0.9, 0.9)),
    "acos": (lax.acos, np.arccos, (-0.9, 0.9)),
    "atan": (lax.atan, np.arctan, (-3, 3)),
    "sinh": (lax.sinh, np.sinh, (-2, 2)),
    "cosh": (lax.cosh, np.cosh, (-2, 2)),
    "asinh": (lax.asinh, np.arcsinh, (-3, 3)),
    "acosh": (lax.acosh, np.arccosh, (1.1, 4)),
    "atanh": (lax.atanh, np.arctanh, (-0.9, 0.9)),
    "sqrt": (lax.sqrt, np.sqrt, (0, 5)),
    "rsqrt": (lax.rsqrt, lambda x: 1 / np.sqrt(x), (0.1, 5)),
    "cbrt": (lax.cbrt, np.cbrt, (-3, 3)),
    "square": (lax.square, np.square, (-3, 3)),
    "erf": (lax.erf, _erf, (-2, 2)),
    "erfc": (lax.erfc, _erfc, (-2, 2)),
    "erf_inv": (lambda x: lax.erf(lax.erf_inv(x)), lambda x: x, (-0.9, 0.9)),
    "lgamma": (lax.lgamma, _lgamma, (0.5, 5)),
    "digamma": (lax.digamma, lambda x: (_lgamma(x + 1e-5) - _lgamma(x - 1e-5)) / 2e-5, (1, 5)),
    "round": (lax.round, lambda x: np.sign(x) * np.floor(np.abs(x) + 0.5), (-3, 3)),
    "is_finite": (lax.is_finite, np.isfinite, (-3, 3)),
    "stop_gradient": (lax.stop_gradient, lambda x: x, (-3, 3)),
    "integer_pow": (lambda x: lax.integer_pow(x, 3), lambda x: x**3, (-2, 2)),
}


@pytest.mark.parametrize("name", sorted(UNARY))
@settings(max_examples=3)
@given(data=st.data())
def test_unary_matches_numpy(name: str, data: st.DataObject) -> None:
    fn, ref, (lo, hi) = UNARY[name]
    dtype = data.draw(st.sampled_from(FLOATS))
    shape = data.draw(SHAPES)
    x = data.draw(hnp.arrays(dtype, shape, elements=_floats32(lo, hi)))
    out = np.asarray(fn(tl.device_put(x)))
    tol = 2e-3 if name == "digamma" else 1e-5
    np.testing.assert_allclose(out, ref(x.astype(np.float64)), rtol=tol, atol=tol)


BINARY = {
    "add": (lax.add, np.add),
    "sub": (lax.sub, np.subtract),
    "mul": (lax.mul, np.multiply),
    "div": (lax.div, np.divide),
    "max": (lax.max, np.maximum),
    "min": (lax.min, np.minimum),
    "atan2": (lax.atan2, np.arctan2),
    "pow": (lambda a, b: lax.pow(lax.abs(a), b), lambda a, b: np.abs(a) ** b),
    "nextafter": (lax.nextafter, np.nextafter),
    "rem": (lax.rem, np.fmod),
    "lt": (lax.lt, np.less),
    "ge": (lax.ge, np.greater_equal),
    "eq": (lax.eq, np.equal),
}


@pytest.mark.parametrize("name", sorted(BINARY))
@settings(max_examples=3)
@given(data=st.data())
def test_binary_matches_numpy(name: str, data: st.DataObject) -> None:
    fn, ref = BINARY[name]
    dtype = data.draw(st.sampled_from(FLOATS))
    shape = data.draw(SHAPES)
    elems = st.floats(0.5, 3, width=32).flatmap(lambda v: st.sampled_from([v, -v]))
    a = data.draw(hnp.arrays(dtype, shape, elements=elems))
    b = data.draw(hnp.arrays(dtype, shape, elements=elems))
    out = np.asarray(fn(tl.device_put(a), tl.device_put(b)))
    np.testing.assert_allclose(out, ref(a, b), rtol=1e-5, atol=1e-6)


@settings(max_examples=8)
@given(x=hnp.arrays(np.int32, SHAPES, elements=st.integers(-100, 100)),
       s=st.integers(0, 5))  # fmt: skip
def test_integer_bitwise_ops(x: np.ndarray, s: int) -> None:
    d = tl.device_put(x)
    sh = np.full(x.shape, s, np.int32)
    np.testing.assert_array_equal(np.asarray(lax.shift_left(d, sh)), x << s)
    np.testing.assert_array_equal(np.asarray(lax.shift_right_arithmetic(d, sh)), x >> s)
    np.testing.assert_array_equal(
        np.asarray(lax.shift_right_logical(d, sh)), (x.view(np.uint32) >> s).view(np.int32)
    )
    np.testing.assert_array_equal(np.asarray(lax.bitwise_not(d)), ~x)
    np.testing.assert_array_equal(np.asarray(lax.bitwise_xor(d, d)), x ^ x)
    np.testing.assert_array_equal(
        np.asarray(lax.population_count(d)),
        np.array([bin(int(v) & 0xFFFFFFFF).count("1") for v in x.ravel()]).reshape(x.shape),
    )
    np.testing.assert_array_equal(np.asarray(lax.div(d, np.full(x.shape, 7, np.int32))),
                                  np.trunc(x / 7).astype(np.int32))  # fmt: skip


def test_conversions_bitcast_clamp_complex() -> None:
    x = np.array([-1.5, 0.0, 2.5], np.float32)
    d = tl.device_put(x)
    np.testing.assert_array_equal(np.asarray(lax.convert_element_type(d, np.int32)), [-1, 0, 2])
    np.testing.assert_array_equal(np.asarray(lax.convert_element_type(d, np.bool_)), [1, 0, 1])
    np.testing.assert_array_equal(
        np.asarray(lax.bitcast_convert_type(d, np.int32)), x.view(np.int32)
    )
    np.testing.assert_array_equal(
        np.asarray(lax.clamp(np.float32(-1), d, np.float32(1))), [-1, 0, 1]
    )
    z = lax.complex(d, d)
    np.testing.assert_allclose(np.asarray(z), x + 1j * x)
    np.testing.assert_allclose(np.asarray(lax.conj(z)), x - 1j * x)
    np.testing.assert_allclose(np.asarray(lax.abs(z)), np.abs(x + 1j * x), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(lax.real(z)), x)
    np.testing.assert_allclose(np.asarray(lax.imag(z)), x)
    np.testing.assert_array_equal(np.asarray(lax.clz(tl.device_put(np.int32(1)))), 31)


REDUCE_AXES = st.sampled_from([(), (0,), (1,), (0, 1)])


@settings(max_examples=8)
@given(
    x=hnp.arrays(np.float32, (3, 4), elements=st.floats(-3, 3, width=32, allow_subnormal=False)),
    axes=REDUCE_AXES,
)
def test_reductions_and_arg_reductions(x: np.ndarray, axes: tuple[int, ...]) -> None:
    d = tl.device_put(x)
    np.testing.assert_allclose(
        np.asarray(lax.reduce_sum(d, axes)), x.sum(axes), rtol=1e-5, atol=1e-5
    )
    np.testing.assert_array_equal(np.asarray(lax.reduce_max(d, axes)), x.max(axes))
    np.testing.assert_array_equal(np.asarray(lax.reduce_min(d, axes)), x.min(axes))
    for axis in (0, 1):
        np.testing.assert_array_equal(np.asarray(lax.argmax(d, axis, np.int32)), x.argmax(axis))
        np.testing.assert_array_equal(np.asarray(lax.argmin(d, axis, np.int32)), x.argmin(axis))
    b = tl.device_put(x > 0)
    np.testing.assert_array_equal(np.asarray(lax.reduce_or(b, axes)), (x > 0).any(axes))
    np.testing.assert_array_equal(np.asarray(lax.reduce_and(b, axes)), (x > 0).all(axes))
    np.testing.assert_array_equal(
        np.asarray(P.reduce_xor_p.bind(b, axes=axes)),
        np.logical_xor.reduce(x > 0, axis=axes) if axes else x > 0,
    )


def test_argmax_prefers_nan_and_first_index() -> None:
    x = np.array([1.0, 3.0, 3.0, np.nan, np.nan], np.float32)
    assert int(lax.argmax(tl.device_put(x), 0, np.int32)) == 3
    assert int(lax.argmax(tl.device_put(x[:3]), 0, np.int32)) == 1
    assert int(lax.argmin(tl.device_put(x[:3]), 0, np.int32)) == 0


@settings(max_examples=8)
@given(x=hnp.arrays(np.float32, (3, 4), elements=st.floats(-2, 2, width=32, allow_subnormal=False)),
       axis=st.integers(0, 1), reverse=st.booleans())  # fmt: skip
def test_cumulative_ops(x: np.ndarray, axis: int, reverse: bool) -> None:
    d = tl.device_put(x)

    def ref(fn: object) -> np.ndarray:
        y = np.flip(x, axis) if reverse else x
        out = fn(y, axis=axis)  # type: ignore[operator]
        return np.flip(out, axis) if reverse else out

    for ours, theirs in ((lax.cumsum, np.cumsum), (lax.cumprod, np.cumprod),
                         (lax.cummax, np.maximum.accumulate), (lax.cummin, np.minimum.accumulate),
                         (lax.cumlogsumexp, np.logaddexp.accumulate)):  # fmt: skip
        out = np.asarray(ours(d, axis=axis, reverse=reverse))
        np.testing.assert_allclose(out, ref(theirs), rtol=1e-5, atol=1e-5)


@settings(max_examples=8)
@given(
    x=hnp.arrays(
        np.float32,
        (3, 5),
        elements=st.floats(-3, 3, width=32, allow_subnormal=False) | st.just(np.nan),
    )
)
def test_sort_and_top_k(x: np.ndarray) -> None:
    d = tl.device_put(x)
    np.testing.assert_array_equal(np.asarray(lax.sort(d, dimension=1)), np.sort(x, axis=1))
    keys = np.arange(15, dtype=np.int32).reshape(3, 5)[:, ::-1].copy()
    _k_sorted, v_sorted = lax.sort((tl.device_put(keys), d), dimension=1, num_keys=1)
    np.testing.assert_array_equal(np.asarray(v_sorted), x[:, ::-1])
    clean = np.nan_to_num(x)
    vals, idx = lax.top_k(tl.device_put(clean), 2)
    np.testing.assert_array_equal(np.asarray(vals), -np.sort(-clean, axis=1)[:, :2])
    np.testing.assert_array_equal(np.take_along_axis(clean, np.asarray(idx), 1), np.asarray(vals))


def test_shape_and_index_ops() -> None:
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    d = tl.device_put(x)
    np.testing.assert_array_equal(np.asarray(lax.pad(d, np.float32(-1), [(1, 0, 1), (0, -1, 0)])),
                                  _np_pad(x))  # fmt: skip
    np.testing.assert_array_equal(
        np.asarray(lax.dynamic_slice(d, (np.int32(2), 1), (2, 2))), x[1:3, 1:3]
    )
    upd = np.full((1, 2), 9, np.float32)
    want = x.copy()
    want[2, 2:4] = 9
    np.testing.assert_array_equal(np.asarray(lax.dynamic_update_slice(d, upd, (5, 3))), want)
    np.testing.assert_array_equal(np.asarray(lax.rev(d, (0,))), x[::-1])
    np.testing.assert_array_equal(np.asarray(lax.concatenate([d, d], 1)), np.concatenate([x, x], 1))
    np.testing.assert_array_equal(np.asarray(lax.slice(d, (0, 1), (3, 4), (2, 2))), x[0:3:2, 1:4:2])
    np.testing.assert_array_equal(np.asarray(lax.transpose(d, (1, 0))), x.T)
    np.testing.assert_array_equal(np.asarray(lax.broadcasted_iota(np.int32, (2, 3), 1)),
                                  np.broadcast_to(np.arange(3), (2, 3)))  # fmt: skip


def _np_pad(x: np.ndarray) -> np.ndarray:
    out = np.full((6, 3), -1, np.float32)
    out[1::2, :] = x[:, :3]
    return out


def test_gather_modes_and_scatters() -> None:
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    d = tl.device_put(x)
    idx = np.array([[0], [2], [5]], np.int32)
    dn = lax.GatherDimensionNumbers(
        offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,)
    )
    clipped = lax.gather(d, idx, dn, (1, 4), mode="clip")
    np.testing.assert_array_equal(np.asarray(clipped), x[[0, 2, 2]])
    filled = np.asarray(lax.gather(d, idx, dn, (1, 4), mode="fill"))
    np.testing.assert_array_equal(filled[:2], x[[0, 2]])
    assert np.isnan(filled[2]).all()
    sdn = lax.ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,),
                                      scatter_dims_to_operand_dims=(0,))  # fmt: skip
    sidx = np.array([[0], [0], [5]], np.int32)
    upd = np.ones((3, 4), np.float32)
    added = np.asarray(lax.scatter_add(d, sidx, upd, sdn))
    want = x.copy()
    want[0] += 2
    np.testing.assert_array_equal(added, want)
    clipped_add = np.asarray(lax.scatter_add(d, sidx, upd, sdn, mode="clip"))
    want[2] += 1
    np.testing.assert_array_equal(clipped_add, want)
    np.testing.assert_array_equal(np.asarray(lax.scatter(d, sidx[:1], upd[:1], sdn))[0], 1.0)
    np.testing.assert_array_equal(np.asarray(lax.scatter_max(d, sidx[:1], upd[:1] * 5, sdn))[0],
                                  np.maximum(x[0], 5))  # fmt: skip
    np.testing.assert_array_equal(np.asarray(lax.scatter_mul(d, sidx[:1], upd[:1] * 2, sdn))[0],
                                  x[0] * 2)  # fmt: skip
    np.testing.assert_array_equal(np.asarray(lax.scatter_min(d, sidx[:1], upd[:1], sdn))[0],
                                  np.minimum(x[0], 1))  # fmt: skip


@tl.jit
def _control(x: object, n: object) -> object:
    def body(i: object, c: object) -> object:
        return lax.add(c, lax.convert_element_type(i, np.float32))

    total = lax.fori_loop(0, n, body, np.float32(0))
    branch = lax.switch(lax.convert_element_type(lax.gt(total, 5.0), np.int32),
                        [lambda v: lax.neg(v), lambda v: lax.mul(v, 2.0)], x)  # fmt: skip
    carry, ys = lax.scan(lambda c, v: (lax.add(c, v), lax.mul(c, v)), np.zeros(3, np.float32),
                         x, reverse=True)  # fmt: skip
    return total, branch, carry, ys


@settings(max_examples=6)
@given(
    x=hnp.arrays(np.float32, (2, 3), elements=st.floats(-2, 2, width=32, allow_subnormal=False)),
    n=st.integers(0, 5),
)
def test_control_flow_under_jit(x: np.ndarray, n: int) -> None:
    total, branch, carry, ys = _control(x, np.int32(n))
    want_total = float(sum(range(n)))
    assert float(total) == want_total
    np.testing.assert_allclose(np.asarray(branch), x * 2 if want_total > 5 else -x)
    np.testing.assert_allclose(np.asarray(carry), x.sum(0), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(ys), _scan_ys(x), rtol=1e-6, atol=1e-6)


def _scan_ys(x: np.ndarray) -> np.ndarray:
    c = np.zeros(3, np.float32)
    ys = np.zeros_like(x)
    for i in reversed(range(x.shape[0])):
        ys[i] = c * x[i]
        c = c + x[i]
    return ys


def test_custom_jvp_vjp_and_remat_lower_their_primal() -> None:
    @custom_jvp
    def f(x: object) -> object:
        return lax.sin(x)

    f.defjvp(lambda primals, tangents: (lax.sin(primals[0]), tangents[0]))

    @custom_vjp
    def g(x: object) -> object:
        return lax.mul(x, 3.0)

    g.defvjp(lambda x: (g(x), None), lambda _, ct: (ct,))
    x = np.linspace(0, 1, 4, dtype=np.float32)
    np.testing.assert_allclose(np.asarray(tl.jit(lambda v: g(f(v)))(x)), 3 * np.sin(x), rtol=1e-6)
    # Eagerly too: the equations run compiled through the eager backend.
    np.testing.assert_allclose(np.asarray(g(f(tl.device_put(x)))), 3 * np.sin(x), rtol=1e-6)


def test_every_tracer_primitive_has_a_lowering() -> None:
    missing = [n for n in P.__all__ if not has_lowering(getattr(P, n))]
    assert missing == []


def test_scatter_applies_its_update_jaxpr_eagerly_and_under_jit() -> None:
    """``x.at[idx].apply(f)``: scatter's region is ``f(operand element)``."""
    x = np.linspace(-2.0, 2.0, 5, dtype=np.float32)
    scale = np.float32(3.0)
    scalar = ShapedArray((), np.dtype(np.float32))
    closed = trace_to_jaxpr(lambda a, _: [lax.add(lax.mul(lax.sin(a), scale), 1.0)], [scalar] * 2)
    sdn = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
                                      scatter_dims_to_operand_dims=(0,))  # fmt: skip
    idx = np.array([[1], [3], [3], [7]], np.int32)

    def apply(v: object) -> object:
        return P.scatter_p.bind(
            v, idx, np.zeros(4, np.float32), dimension_numbers=sdn,
            indices_are_sorted=False, unique_indices=False, mode=lax.GatherScatterMode.FILL_OR_DROP,
            update_jaxpr=closed.jaxpr, update_consts=tuple(closed.consts),
        )  # fmt: skip

    want = x.copy()
    for i in (1, 3, 3):  # a repeated index applies the function again; 7 is dropped
        want[i] = np.sin(want[i]) * scale + 1.0
    np.testing.assert_allclose(np.asarray(apply(tl.device_put(x))), want, atol=2e-6)
    np.testing.assert_allclose(np.asarray(tl.jit(apply)(x)), want, atol=2e-6)


@settings(max_examples=25, deadline=None)
@given(hnp.array_shapes(min_dims=1, max_dims=3, max_side=3), st.data())
def test_stack_unstack_split_tile_match_numpy(shape: tuple[int, ...], data: st.DataObject) -> None:
    x = np.arange(math.prod(shape), dtype=np.float32).reshape(shape)
    axis = data.draw(st.integers(0, len(shape) - 1))
    np.testing.assert_array_equal(
        np.asarray(lax.stack([x, -x, x], axis)), np.stack([x, -x, x], axis)
    )
    for got, want in zip(lax.unstack(x, axis), np.moveaxis(x, axis, 0), strict=True):
        np.testing.assert_array_equal(np.asarray(got), want)
    cut = data.draw(st.integers(0, shape[axis]))
    pieces = tl.jit(lambda v: lax.split(v, (cut, shape[axis] - cut), axis))(x)
    for got, want in zip(pieces, np.split(x, [cut], axis), strict=True):
        np.testing.assert_array_equal(np.asarray(got), want)
    reps = tuple(data.draw(st.lists(st.integers(0, 3), min_size=len(shape), max_size=len(shape))))
    np.testing.assert_array_equal(np.asarray(lax.tile(x, reps)), np.tile(x, reps))


@pytest.mark.parametrize("precision", ["highest", ("high", "default"), None])
def test_dot_and_conv_carry_their_precision_into_the_module(precision: Any) -> None:
    # A GPU computes float32 products in TF32 unless the module asks for more:
    # the precision must reach stablehlo (JAX 0.10.2 prints the same attribute).
    a = np.ones((4, 4), np.float32)
    img = np.ones((1, 1, 4, 4), np.float32)
    dot_text = tl.jit(lambda x, y: lax.dot(x, y, precision=precision)).lower(a, a).as_text()
    conv = tl.jit(lambda x, k: lax.conv(x, k, (1, 1), "VALID", precision=precision))
    conv_text = conv.lower(img, img[:, :, :2, :2]).as_text()
    if precision is None:
        assert "precision" not in dot_text and "precision_config" not in conv_text
    elif precision == "highest":
        assert "precision = [HIGHEST, HIGHEST]" in dot_text
        assert "#stablehlo<precision HIGHEST>, #stablehlo<precision HIGHEST>" in conv_text
    else:
        assert "precision = [HIGH, DEFAULT]" in dot_text
        assert "#stablehlo<precision HIGH>, #stablehlo<precision DEFAULT>" in conv_text
    config.update("jax_default_matmul_precision", "highest")
    try:
        text = tl.jit(lambda x, y: lax.dot(x, y)).lower(a, a).as_text()
    finally:
        config.update("jax_default_matmul_precision", None)
    assert "precision = [HIGHEST, HIGHEST]" in text
