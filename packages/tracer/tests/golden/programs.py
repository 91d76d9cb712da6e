"""Programs written against a ``lax``-like namespace, shared by the golden
generator (run with JAX) and the printer tests (run with tessela_tracer).

Each entry maps a name to ``build(ns) -> (fun, args)`` where ``ns`` has the
attributes ``lax``, ``jit``, ``custom_jvp``, ``custom_vjp``, ``checkpoint``,
``pure_callback``, ``io_callback`` and ``ShapeDtypeStruct``.
"""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import numpy as np

F = np.float32
I32 = np.int32

# The entry points besides ``lax`` and ``io_callback``, by their names on the
# top-level module (``jax`` or ``tessela_tracer``).
ENTRY_POINTS = (
    "jit", "custom_jvp", "custom_vjp", "checkpoint", "pure_callback", "ShapeDtypeStruct",
)  # fmt: skip


def namespace(top: Any, lax: Any, io_callback: Any) -> SimpleNamespace:
    """The ``ns`` to build the programs with: ``lax``, ``io_callback`` and ``top``'s entry points."""
    return SimpleNamespace(
        lax=lax, io_callback=io_callback, **{n: getattr(top, n) for n in ENTRY_POINTS}
    )


def _x(*shape: int) -> np.ndarray:
    return np.ones(shape, F)


def _quickstart(ns: Any) -> Any:
    lax = ns.lax

    def f(x, y):
        a = lax.add(x, 1.0)
        b = lax.add(y, 1.0)
        return lax.dot_general(a, b, (((1,), (0,)), ((), ())), preferred_element_type=F)

    return f, (_x(3, 4), _x(4))


def _elementwise(ns: Any) -> Any:
    lax = ns.lax

    def f(x, i):
        return (
            lax.exp(x), lax.log1p(x), lax.tanh(x), lax.logistic(x), lax.sin(x), lax.cos(x),
            lax.atan2(x, x), lax.sqrt(x), lax.rsqrt(x), lax.cbrt(x), lax.erf(x), lax.erfc(x),
            lax.erf_inv(x), lax.lgamma(x), lax.digamma(x), lax.is_finite(x), lax.floor(x),
            lax.ceil(x), lax.round(x), lax.sign(x), lax.abs(x), lax.nextafter(x, x),
            lax.clamp(0.0, x, 1.0), lax.max(x, 0.0), lax.min(x, x), lax.pow(x, x),
            lax.integer_pow(x, 3), lax.eq(x, x), lax.ne(x, 0.5), lax.ge(i, 2), lax.shift_left(i, i),
            lax.shift_right_logical(i, i), lax.bitwise_and(i, 3), lax.bitwise_xor(i, i),
            lax.population_count(i), lax.rem(i, i), lax.div(x, 2.0), lax.sub(x, 0.1),
            lax.mul(x, np.float32(0.1)), lax.neg(x), lax.square(x), lax.expm1(x),
        )  # fmt: skip

    return f, (_x(2, 3), np.ones((2, 3), I32))


def _special(ns: Any) -> Any:
    lax = ns.lax

    def f(m, x):
        return (
            lax.polygamma(m, x), lax.polygamma(1.0, x), lax.polygamma(m, 2.5),
            lax.zeta(lax.add(m, 2.0), x), lax.zeta(3.0, x), lax.zeta(2.0, 1.5),
        )  # fmt: skip

    return f, (np.array([0.0, 1.0, 2.0], F), np.array([0.5, 1.5, 4.0], F))


def _complex(ns: Any) -> Any:
    lax = ns.lax

    def f(x):
        c = lax.complex(x, x)
        return lax.real(c), lax.imag(c), lax.conj(c), lax.abs(c), lax.conj(x)

    return f, (_x(3),)


def _shapes(ns: Any) -> Any:
    lax = ns.lax

    def f(x):
        return (
            lax.convert_element_type(x, I32), lax.bitcast_convert_type(x, I32),
            lax.broadcast_in_dim(x, (4, 2, 3), (1, 2)), lax.reshape(x, (3, 2)),
            lax.squeeze(lax.reshape(x, (1, 6)), (0,)), lax.expand_dims(x, (0,)),
            lax.transpose(x, (1, 0)), lax.rev(x, (0,)), lax.concatenate([x, x], 1),
            lax.pad(x, 0.0, [(1, 2, 0), (0, 0, 1)]), lax.slice(x, (0, 1), (2, 3)),
            lax.slice(x, (0, 0), (2, 3), (1, 2)), lax.dynamic_slice(x, (1, 0), (1, 3)),
            lax.dynamic_update_slice(x, x, (0, 0)), lax.iota(F, 3),
            lax.broadcasted_iota(I32, (2, 3), 1), lax.select_n(True, x, x),
            lax.select(lax.gt(x, 0.0), x, x), lax.stop_gradient(x),
        )  # fmt: skip

    return f, (_x(2, 3),)


def _reductions(ns: Any) -> Any:
    lax = ns.lax

    def f(x, b):
        return (
            lax.reduce_sum(x, (0,)), lax.reduce_prod(x, (1,)), lax.reduce_max(x, (0, 1)),
            lax.reduce_min(x, (0,)), lax.reduce_and(b, (0,)), lax.reduce_or(b, (1,)),
            lax.argmax(x, 1, I32), lax.argmin(x, 0, I32), lax.cumsum(x, 1), lax.cumprod(x, 0, True),
            lax.cummax(x), lax.cummin(x, 1), lax.sort(x), lax.sort((x, x), num_keys=1),
            lax.dot_general(x, x, (((1,), (1,)), ((), ()))), lax.dot(x, lax.transpose(x, (1, 0))),
        )  # fmt: skip

    return f, (_x(2, 3), np.ones((2, 3), bool))


def _gather_scatter(ns: Any) -> Any:
    lax = ns.lax
    dn = lax.GatherDimensionNumbers(
        offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,)
    )
    sdn = lax.ScatterDimensionNumbers(
        update_window_dims=(1,), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,)
    )

    def f(x, idx):
        return (
            lax.gather(x, idx, dn, (1, 3)),
            lax.scatter(x, idx, x, sdn),
            lax.scatter_add(x, idx, x, sdn),
            lax.scatter_mul(x, idx, x, sdn),
            lax.scatter_min(x, idx, x, sdn),
            lax.scatter_max(x, idx, x, sdn),
        )

    return f, (_x(2, 3), np.zeros((2, 1), I32))


def _jit_nested(ns: Any) -> Any:
    lax = ns.lax

    def f(x, y):
        z = ns.jit(lambda a: lax.mul(lax.sin(a), 2.0))(x)
        w = ns.jit(lambda a: lax.add(a, y))(z)
        return ns.jit(lambda a: (a, 1.0, lax.cos(a), a))(w)

    return f, (_x(3), np.float32(2.0))


def _jit_shared(ns: Any) -> Any:
    lax = ns.lax

    def f(x):
        g = ns.jit(lambda z: lax.sin(z))
        return g(g(x))

    return f, (1.0,)


def _cond_switch(ns: Any) -> Any:
    lax = ns.lax

    def f(x, p, i):
        a = lax.cond(lax.gt(p, 0.0), lambda v: lax.add(v, 1.0), lambda v: lax.sub(v, 1.0), x)
        b = lax.switch(i, [lambda v: v, lax.neg, lambda v: lax.mul(v, v)], a)
        return lax.cond(True, lambda v: lax.mul(v, p), lambda v: v, b)

    return f, (_x(3), np.float32(1.0), 1)


def _loops(ns: Any) -> Any:
    lax = ns.lax

    def f(x, n):
        w = lax.while_loop(
            lambda c: lax.lt(c[0], 10), lambda c: (lax.add(c[0], 1), lax.mul(c[1], 2.0)), (0, x)
        )
        fl = lax.fori_loop(0, 5, lambda i, c: lax.add(c, lax.convert_element_type(i, F)), x)
        fd = lax.fori_loop(0, n, lambda i, c: lax.mul(c, 2.0), x)
        return w, fl, fd

    return f, (np.float32(1.0), 3)


def _scan_map(ns: Any) -> Any:
    lax = ns.lax

    def f(xs, k):
        def body(c, x):
            return lax.add(c, lax.mul(x, k)), lax.sin(c)

        c, ys = lax.scan(body, np.float32(0.0), xs)
        c2, _ = lax.scan(body, c, xs, reverse=True)
        m = lax.map(lambda v: lax.mul(v, 2.0), xs)
        return c2, ys, m

    return f, (_x(4), np.float32(3.0))


def _custom(ns: Any) -> Any:
    lax = ns.lax

    @ns.custom_jvp
    def g(x):
        return lax.sin(x)

    g.defjvp(lambda p, t: (g(p[0]), lax.mul(t[0], 2.0)))

    def fwd(x):
        return h(x), x

    def bwd(r, ct):
        return (lax.mul(ct, r),)

    @ns.custom_vjp
    def h(x):
        return lax.cos(x)

    h.defvjp(fwd, bwd)
    return (lambda x: h(g(x))), (np.float32(1.0),)


def _consts(ns: Any) -> Any:
    lax = ns.lax
    c = np.arange(3, dtype=F)

    def f(x):
        return lax.add(lax.add(x, c), np.array(2.0, F)), x, 1.0

    return f, (_x(3),)


def _mlp(ns: Any) -> Any:
    lax = ns.lax
    rng = np.random.RandomState(0)
    params = [(rng.randn(16, 16).astype(F), rng.randn(16).astype(F)) for _ in range(4)]

    def f(params, x):
        for w, b in params:
            x = lax.tanh(
                lax.add(
                    lax.dot_general(x, w, (((1,), (0,)), ((), ()))),
                    lax.broadcast_in_dim(b, (8, 16), (1,)),
                )
            )
        return lax.reduce_sum(x, (0, 1))

    return f, (params, _x(8, 16))


def _unrolled(ns: Any) -> Any:
    lax = ns.lax

    def f(x):
        for i in range(12):
            x = lax.add(lax.mul(x, 1.5), float(i))
        return x

    return f, (_x(4),)


def _cond_closures(ns: Any) -> Any:
    lax = ns.lax
    c = np.arange(3, dtype=F)
    d = np.ones(3, F)

    def f(x, y, z, v):
        a = lax.cond(lax.gt(y, 0.0), lambda a: lax.add(a, y), lambda a: lax.mul(a, z), z)
        b = lax.cond(lax.gt(y, 0.0), lambda a: lax.add(a, c), lambda a: lax.mul(a, d), v)
        e = lax.switch(
            x,
            [
                lambda a: lax.add(a, y),
                lambda a: lax.mul(a, z),
                lambda a: lax.sub(a, y),
                lambda a: a,
            ],
            a,
        )
        g = lax.cond(lax.lt(y, z), lambda a: lax.add(a, y), lambda a: lax.sub(a, y), e)
        return b, g

    return f, (np.int32(1), np.float32(2.0), np.float32(3.0), _x(3))


def _remat(ns: Any) -> Any:
    lax = ns.lax
    c = np.arange(3, dtype=F)

    def saves_nothing(*args, **kwargs):
        return False

    def f(x, y):
        a = ns.checkpoint(lambda u: lax.sin(lax.sin(u)))(x)
        b = ns.checkpoint(lambda u, v: lax.mul(u, v), prevent_cse=False)(a, y)
        e = ns.checkpoint(lambda u: lax.add(u, c), policy=saves_nothing)(b)
        g = ns.checkpoint(lambda u, n: lax.mul(u, float(n)), static_argnums=(1,))(e, 3)
        h = ns.checkpoint(lambda p: {"s": lax.add(p["u"], p["v"][0])})({"u": g, "v": (y,)})
        return h["s"]

    return f, (_x(3), np.float32(2.0))


def _custom_pytree(ns: Any) -> Any:
    lax = ns.lax

    @ns.custom_jvp
    def g(d):
        return {"s": lax.mul(d["a"], d["b"][0]), "t": d["b"][1]}

    def g_jvp(primals, tangents):
        (d,), (t,) = primals, tangents
        ds = lax.add(lax.mul(t["a"], d["b"][0]), lax.mul(d["a"], t["b"][0]))
        return g(d), {"s": ds, "t": t["b"][1]}

    g.defjvp(g_jvp)
    return g, ({"a": _x(3), "b": (_x(3), np.float32(2.0))},)


def _custom_nondiff(ns: Any) -> Any:
    lax = ns.lax

    def clip_fwd(lo, hi, x):
        return x, None

    def clip_bwd(lo, hi, _, g):
        return (lax.clamp(lo, g, hi),)

    clip = ns.custom_vjp(lambda lo, hi, x: x, nondiff_argnums=(0, 1))
    clip.defvjp(clip_fwd, clip_bwd)

    def scale_jvp(k, primals, tangents):
        return scale(k, *primals), lax.mul(tangents[0], k)

    scale = ns.custom_jvp(lambda k, x: lax.mul(x, k), nondiff_argnums=(0,))
    scale.defjvp(scale_jvp)
    return (lambda x: scale(3.0, lax.sin(clip(-0.5, 0.5, x)))), (_x(2),)


def _custom_consts(ns: Any) -> Any:
    lax = ns.lax
    c = np.arange(3, dtype=F)

    @ns.custom_jvp
    def f(x):
        return lax.mul(lax.sin(x), c)

    def f_jvp(p, t):
        return f(p[0]), lax.mul(t[0], c)

    f.defjvp(f_jvp)

    @ns.custom_vjp
    def g(x):
        return lax.add(x, c)

    def g_fwd(x):
        return g(x), None

    def g_bwd(_, ct):
        return (ct,)

    g.defvjp(g_fwd, g_bwd)
    return (lambda x: g(f(x))), (_x(3),)


def _host_callbacks(ns: Any) -> Any:
    # debug_print's parameters include NumPy's print options, which vary with
    # the NumPy version: tests/test_callback.py checks its text instead.
    lax = ns.lax
    spec = ns.ShapeDtypeStruct((3,), F)

    def f(x, y):
        s = ns.pure_callback(np.sin, spec, x, vmap_method="sequential")
        c = ns.io_callback(np.cos, spec, s)
        ns.io_callback(np.tanh, (), c, ordered=True)
        return lax.add(c, y)

    return f, (_x(3), np.float32(2.0))


def _decompositions(ns: Any) -> Any:
    linalg = ns.lax.linalg

    def f(x, c, t):
        v, w = linalg.eigh(x)
        vu, wu = linalg.eigh(c, lower=False, symmetrize_input=False)
        u, s, vt = linalg.svd(t)
        ur, sr, vtr = linalg.svd(t, full_matrices=False, algorithm=linalg.SvdAlgorithm.QR)
        sv = linalg.svd(c, compute_uv=False)
        return v, w, vu, wu, u, s, vt, ur, sr, vtr, sv

    c = (np.eye(3) + 1j * np.ones((3, 3))).astype(np.complex64)
    return f, (_x(2, 3, 3), c, _x(4, 3))


def _composites(ns: Any) -> Any:
    lax = ns.lax

    def f(x, i, v):
        return (
            lax.full((2, 3), 1.0),
            lax.full((2,), 1, I32),
            lax.full_like(x, 2),
            lax.full_like(x, 2, shape=(4,)),
            lax.full_like(x, 2, dtype=I32),
            lax.slice_in_dim(x, 1, None, axis=1),
            lax.index_in_dim(x, -1, 1, False),
            lax.dynamic_slice_in_dim(x, i, 2, axis=1),
            lax.dynamic_index_in_dim(x, i, axis=0, keepdims=False),
            lax.dynamic_update_slice_in_dim(x, lax.slice_in_dim(x, 0, 1, axis=1), i, axis=1),
            lax.dynamic_update_index_in_dim(x, v, i, 0),
            lax.sort_key_val(x, lax.neg(x)),
            lax.batch_matmul(lax.broadcast(x, (1,)), lax.broadcast(lax.transpose(x, (1, 0)), (1,))),
            lax.associative_scan(lax.add, lax.index_in_dim(x, 0, 0, False)),
            lax.associative_scan(lax.max, x, reverse=True, axis=1),
        )

    return f, (_x(2, 3), np.int32(1), _x(3))


def _conv(ns: Any) -> Any:
    lax = ns.lax

    def f(x, w, g):
        return (
            lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")),
            lax.conv_general_dilated(
                lax.transpose(x, (0, 3, 1, 2)), g, (2, 1), ((1, 0), (2, 2)), lhs_dilation=(1, 2),
                rhs_dilation=(2, 1), feature_group_count=3,
            ),
            lax.conv(lax.transpose(x, (0, 3, 1, 2)), lax.transpose(w, (3, 2, 0, 1)), (1, 1), "VALID"),
            lax.conv_with_general_padding(
                lax.transpose(x, (0, 3, 1, 2)), lax.transpose(w, (3, 2, 0, 1)), (1, 2), "SAME_LOWER",
                None, (1, 2),
            ),
            lax.conv_general_dilated(
                x, w, (1, 1), "VALID", dimension_numbers=("NHWC", "HWIO", "NHWC"),
                precision=lax.Precision.HIGHEST, preferred_element_type=F,
            ),
            lax.conv_transpose(x, w, (2, 2), "SAME"),
        )  # fmt: skip

    return f, (_x(2, 5, 5, 3), _x(3, 3, 3, 4), _x(6, 1, 3, 2))


def _windows(ns: Any) -> Any:
    lax = ns.lax

    def f(x, i):
        return (
            lax.reduce_window(x, 0.0, lax.add, (1, 2, 2, 1), (1, 2, 2, 1), "SAME"),
            lax.reduce_window(x, -np.inf, lax.max, (1, 2, 2, 1), (1, 1, 1, 1), "VALID",
                              base_dilation=(1, 2, 1, 1), window_dilation=(1, 1, 2, 1)),
            lax.reduce_window(x, np.inf, lax.min, (1, 2, 2, 1), None, ((0, 0), (1, 1), (0, 1), (0, 0))),
            lax.reduce_window(i, np.int32(np.iinfo(np.int32).min), lax.max, (2, 2), (1, 1), "VALID"),
        )  # fmt: skip

    return f, (_x(2, 5, 5, 3), np.ones((3, 4), I32))


def _fft(ns: Any) -> Any:
    lax = ns.lax

    def f(x, c, i):
        return (
            lax.fft(c, lax.FftType.FFT, (3, 8)), lax.fft(c, "ifft", (8,)),
            lax.fft(x, "rfft", (8,)), lax.fft(i, lax.FftType.RFFT, (3, 8)),
            lax.fft(c, "IRFFT", (3, 14)), lax.fft(x, lax.FftType.IFFT, (8,)),
            lax.fft(i, "fft", ()),
        )  # fmt: skip

    return f, (_x(2, 3, 8), np.ones((2, 3, 8), np.complex64), np.ones((3, 8), I32))


PROGRAMS: dict[str, Callable[[Any], Any]] = {
    "quickstart": _quickstart,
    "elementwise": _elementwise,
    "special": _special,
    "complex": _complex,
    "shapes": _shapes,
    "reductions": _reductions,
    "gather_scatter": _gather_scatter,
    "jit_nested": _jit_nested,
    "jit_shared": _jit_shared,
    "cond_switch": _cond_switch,
    "loops": _loops,
    "scan_map": _scan_map,
    "custom": _custom,
    "custom_pytree": _custom_pytree,
    "custom_nondiff": _custom_nondiff,
    "custom_consts": _custom_consts,
    "consts": _consts,
    "mlp": _mlp,
    "unrolled": _unrolled,
    "cond_closures": _cond_closures,
    "remat": _remat,
    "host_callbacks": _host_callbacks,
    "decompositions": _decompositions,
    "composites": _composites,
    "conv": _conv,
    "windows": _windows,
    "fft": _fft,
}
