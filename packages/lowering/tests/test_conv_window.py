"""Convolution and windowed reductions, compiled and run, against direct NumPy versions."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tessela_lowering as tl
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.lib.stride_tricks import sliding_window_view
from tessela_tracer import lax
from tessela_tracer.primitives import (
    ge_p,
    le_p,
    select_and_gather_add_p,
    select_and_scatter_add_p,
)

F = np.float32


def _dilate_pad(x: np.ndarray, dil: tuple[int, ...], pads: Any, fill: Any) -> np.ndarray:
    """Insert ``dil - 1`` holes along the trailing axes, then pad (negative pads crop)."""
    lead = x.ndim - len(dil)
    shape = list(x.shape[:lead]) + [
        0 if n == 0 else (n - 1) * d + 1 for n, d in zip(x.shape[lead:], dil, strict=True)
    ]
    out = np.full(shape, fill, x.dtype)
    out[(slice(None),) * lead + tuple(slice(None, None, d) for d in dil)] = x
    widths = [(0, 0)] * lead + [(max(lo, 0), max(hi, 0)) for lo, hi in pads]
    out = np.pad(out, widths, constant_values=fill)
    crop = tuple(
        slice(max(-lo, 0), out.shape[lead + i] - max(-hi, 0)) for i, (lo, hi) in enumerate(pads)
    )
    return out[(slice(None),) * lead + crop]


def _windows(
    x: np.ndarray, win: tuple[int, ...], strides: tuple[int, ...], wdil: tuple[int, ...]
) -> np.ndarray:
    """``x[..., *positions, *window]`` for the trailing axes."""
    lead = x.ndim - len(win)
    span = tuple((w - 1) * d + 1 for w, d in zip(win, wdil, strict=True))
    if any(x.shape[lead + i] < s for i, s in enumerate(span)):
        counts = [
            max(0, (x.shape[lead + i] - sp) // st + 1)
            for i, (sp, st) in enumerate(zip(span, strides, strict=True))
        ]
        return np.zeros([*x.shape[:lead], *counts, *win], x.dtype)
    v = sliding_window_view(x, span, axis=tuple(range(lead, x.ndim)))
    idx = (slice(None),) * lead + tuple(slice(None, None, s) for s in strides)
    idx += tuple(slice(None, None, d) for d in wdil)
    return v[idx]


def np_conv(lhs, rhs, strides, padding, lhs_dil, rhs_dil, dn, fg=1, bg=1):  # type: ignore[no-untyped-def]
    """A direct convolution: windows of the dilated, padded input times the kernel."""
    lhs_spec, rhs_spec, out_spec = dn
    x = np.transpose(lhs, lhs_spec).astype(np.float64 if lhs.dtype.kind == "f" else lhs.dtype)
    k = np.transpose(rhs, rhs_spec).astype(x.dtype)
    nsp = x.ndim - 2
    xw = _windows(_dilate_pad(x, lhs_dil, padding, 0), k.shape[2:], strides, rhs_dil)
    n, c, o = x.shape[0], x.shape[1], k.shape[0]
    sp_axes = "".join("pqrs"[:nsp])
    win_axes = "".join("wxyz"[:nsp])
    spec = f"nc{sp_axes}{win_axes},oc{win_axes}->no{sp_axes}"
    if bg > 1:
        nb, og = n // bg, o // bg
        parts = [
            np.einsum(spec, xw[g * nb : (g + 1) * nb], k[g * og : (g + 1) * og]) for g in range(bg)
        ]
    else:
        cg, og = c // fg, o // fg
        parts = [
            np.einsum(spec, xw[:, g * cg : (g + 1) * cg], k[g * og : (g + 1) * og])
            for g in range(fg)
        ]
    out = np.concatenate(parts, axis=1)
    return np.transpose(out, np.argsort(out_spec)).astype(lhs.dtype)


def np_reduce_window(x, kind, win, strides, padding, bdil, wdil):  # type: ignore[no-untyped-def]
    fill = {"sum": 0, "max": -np.inf, "min": np.inf}[kind]
    if x.dtype.kind == "i" and kind != "sum":
        info = np.iinfo(x.dtype)
        fill = info.min if kind == "max" else info.max
    xw = _windows(_dilate_pad(x, bdil, padding, fill), win, strides, wdil)
    axes = tuple(range(x.ndim, 2 * x.ndim))
    if xw.size == 0:
        return np.full(xw.shape[: x.ndim], fill, x.dtype)
    return {"sum": np.sum, "max": np.max, "min": np.min}[kind](xw, axis=axes).astype(x.dtype)


def _ints_f(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    return rng.integers(-3, 4, shape).astype(F)


@settings(max_examples=30, deadline=None)
@given(
    n=st.integers(1, 6), k=st.integers(1, 3), s=st.integers(1, 2), lo=st.integers(-1, 2),
    hi=st.integers(-1, 2), ld=st.integers(1, 2), rd=st.integers(1, 2),
    groups=st.sampled_from([(1, 1), (2, 1), (1, 2)]), seed=st.integers(0, 2**16),
    layout=st.sampled_from([None, ("NWC", "WIO", "NWC"), ("CWN", "OWI", "WNC")]),
)  # fmt: skip
def test_conv_1d_matches_numpy(n, k, s, lo, hi, ld, rd, groups, seed, layout) -> None:  # type: ignore[no-untyped-def]
    fg, bg = groups
    if (n - 1) * ld + 1 + lo + hi < (k - 1) * rd + 1:
        return
    rng = np.random.default_rng(seed)
    dn = lax.conv_dimension_numbers((0,) * 3, (0,) * 3, layout)
    x_c = _ints_f(rng, (2 * bg, 2 * fg, n))
    w_c = _ints_f(rng, (2 * fg * bg, 2, k))
    x = np.transpose(x_c, np.argsort(dn.lhs_spec))
    w = np.transpose(w_c, np.argsort(dn.rhs_spec))
    f = lambda x, w: lax.conv_general_dilated(  # noqa: E731
        x, w, (s,), [(lo, hi)], (ld,), (rd,), layout, fg, bg
    )
    want = np_conv(x, w, (s,), [(lo, hi)], (ld,), (rd,), dn, fg, bg)
    np.testing.assert_array_equal(np.asarray(tl.jit(f)(x, w)), want)


@pytest.mark.parametrize("padding", ["SAME", "VALID", "SAME_LOWER", ((1, 2), (0, -1))])
@pytest.mark.parametrize("strides", [(1, 1), (2, 1)])
def test_conv_2d_nhwc_jit_and_eager(padding: Any, strides: tuple[int, int]) -> None:
    rng = np.random.default_rng(0)
    x, w = _ints_f(rng, (2, 5, 6, 3)), _ints_f(rng, (3, 2, 3, 4))
    dims = ("NHWC", "HWIO", "NHWC")
    f = lambda x, w: lax.conv_general_dilated(x, w, strides, padding, None, (1, 2), dims)  # noqa: E731
    dn = lax.conv_dimension_numbers(x.shape, w.shape, dims)
    pads = padding
    if isinstance(padding, str):
        pads = lax.padtype_to_pads((5, 6), (3, 3), strides, padding)
    want = np_conv(x, w, strides, pads, (1, 1), (1, 2), dn)
    np.testing.assert_array_equal(np.asarray(tl.jit(f)(x, w)), want)
    np.testing.assert_array_equal(np.asarray(f(x, w)), want)


def test_conv_preferred_element_type_and_float64() -> None:
    rng = np.random.default_rng(1)
    x, w = _ints_f(rng, (1, 2, 5)).astype(np.float16), _ints_f(rng, (3, 2, 2)).astype(np.float16)
    out = tl.jit(lambda x, w: lax.conv(x, w, (1,), "VALID", preferred_element_type=F))(x, w)
    assert np.asarray(out).dtype == F
    np.testing.assert_array_equal(
        np.asarray(out),
        np_conv(x.astype(F), w.astype(F), (1,), [(0, 0)], (1,), (1,), ((0, 1, 2),) * 3),
    )


@settings(max_examples=30, deadline=None)
@given(
    n=st.integers(1, 6), w=st.integers(1, 3), s=st.integers(1, 3), lo=st.integers(0, 2),
    hi=st.integers(0, 2), bd=st.integers(1, 2), wd=st.integers(1, 2),
    kind=st.sampled_from(["sum", "max", "min"]), seed=st.integers(0, 2**16),
)  # fmt: skip
def test_reduce_window_matches_numpy(n, w, s, lo, hi, bd, wd, kind, seed) -> None:  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(seed)
    x = _ints_f(rng, (2, n))
    op, init = {"sum": (lax.add, 0.0), "max": (lax.max, -np.inf), "min": (lax.min, np.inf)}[kind]
    args = ((1, w), (1, s), [(0, 0), (lo, hi)], (1, bd), (1, wd))
    f = lambda x: lax.reduce_window(x, init, op, *args)  # noqa: E731
    want = np_reduce_window(x, kind, *args)
    np.testing.assert_array_equal(np.asarray(tl.jit(f)(x)), want)
    np.testing.assert_array_equal(np.asarray(f(x)), want)


def test_reduce_window_int_max_pool() -> None:
    x = np.arange(20, dtype=np.int32).reshape(4, 5)
    out = lax.reduce_window(x, np.iinfo(np.int32).min, lax.max, (2, 2), (2, 2), "SAME")
    np.testing.assert_array_equal(np.asarray(out), [[6, 8, 9], [16, 18, 19]])


def _np_gather_scatter(t, x, win, strides, pads, select):  # type: ignore[no-untyped-def]
    """The chosen element of each window (first on ties) and the scatter back."""
    fill = -np.inf if select == "ge" else np.inf
    xp = _dilate_pad(x.astype(np.float64), (1,) * x.ndim, pads, fill)
    tp = _dilate_pad(t.astype(np.float64), (1,) * x.ndim, pads, 0)
    xw = _windows(xp, win, strides, (1,) * x.ndim)
    out_shape = xw.shape[: x.ndim]
    flat = xw.reshape(*out_shape, -1)
    pick = np.argmax(flat, -1) if select == "ge" else np.argmin(flat, -1)
    gathered = np.zeros(out_shape)
    positions = []
    for idx in np.ndindex(*out_shape):
        off = np.unravel_index(pick[idx], win)
        pos = tuple(i * s + o for i, s, o in zip(idx, strides, off, strict=True))
        gathered[idx] = tp[pos]
        positions.append((idx, pos))
    return gathered, positions, xp.shape


@pytest.mark.parametrize("select", ["ge", "le"])
@pytest.mark.parametrize("pads", [((0, 0), (0, 0)), ((1, 0), (0, 1))])
def test_select_and_gather_and_scatter(select: str, pads: Any) -> None:
    rng = np.random.default_rng(2)
    # Distinct values for the gather (the order in which XLA's reduce_window visits a window
    # is its own); many ties for the scatter, where the first element of a window wins.
    x = rng.permutation(30).reshape(5, 6).astype(F)
    t = rng.standard_normal((5, 6)).astype(F)
    prim = ge_p if select == "ge" else le_p
    win = {"window_dimensions": (2, 3), "window_strides": (2, 2), "padding": pads}
    ones = (1, 1)
    gathered, positions, padded_shape = _np_gather_scatter(t, x, (2, 3), (2, 2), pads, select)
    g = tl.jit(
        lambda t, x: select_and_gather_add_p.bind(
            t, x, select_prim=prim, base_dilation=ones, window_dilation=ones, **win
        )
    )(t, x)
    np.testing.assert_array_equal(np.asarray(g), gathered.astype(F))
    x = rng.integers(-2, 3, (5, 6)).astype(F)
    _, positions, padded_shape = _np_gather_scatter(t, x, (2, 3), (2, 2), pads, select)
    src = rng.standard_normal(gathered.shape).astype(F)
    want = np.zeros(padded_shape)
    for idx, pos in positions:
        want[pos] += src[idx]
    want = want[pads[0][0] : pads[0][0] + 5, pads[1][0] : pads[1][0] + 6]
    s = tl.jit(lambda s, x: select_and_scatter_add_p.bind(s, x, select_prim=prim, **win))(src, x)
    np.testing.assert_allclose(np.asarray(s), want.astype(F), rtol=1e-6)
