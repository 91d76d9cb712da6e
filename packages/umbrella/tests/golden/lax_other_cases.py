"""Cases of the composed ``jax.lax`` names, tokens and ordered effects: run with ``jax`` or ``tessela``.

``run(lib)`` returns a dict of NumPy arrays keyed by case name; the generator
saves JAX's, the test compares Tessela's with them. The ``ordered/...`` cases
hold the lines ``debug.print(..., ordered=True)`` printed, in order.
"""

from __future__ import annotations

import contextlib
import functools
import io
from typing import Any

import numpy as np

PRESETS = ("DEFAULT", "F16_F16_F16", "F32_F32_F32", "F64_F64_F64", "BF16_BF16_F32",
           "BF16_BF16_F32_X3", "BF16_BF16_F32_X6")  # fmt: skip


def _printed(lib: Any, fun: Any, *args: Any) -> np.ndarray:
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        fun(*args)
        lib.effects_barrier()
    return np.array(buf.getvalue().splitlines())


def _ordered(lib: Any) -> dict[str, np.ndarray]:
    lax, jnp = lib.lax, lib.numpy

    def print_if(pred: Any, msg: str, **kw: Any) -> None:
        lax.cond(pred, lambda _: lib.debug.print(msg, **kw, ordered=True), lambda _: None, None)

    def body(c: Any) -> Any:
        i, v = c
        lib.debug.print("it {i}", i=i, ordered=True)
        print_if(v > 2, "big {v}", v=v)
        return i + 1, v * 2

    def step(c: Any, x: Any) -> Any:
        lib.debug.print("scan {x}", x=x, ordered=True)
        lib.debug.callback(lambda v: print("cb", v), x * 10, ordered=True)
        return c + x, c

    inner = lib.jit(lambda y: (lib.debug.print("inner {}", y, ordered=True), y + 1)[1])

    def program(x: Any) -> Any:
        lib.debug.print("start {}", x, ordered=True)
        _, v = lax.while_loop(lambda c: c[0] < 4, body, (0, x))
        s, _ = lax.scan(step, jnp.float32(0), jnp.arange(3, dtype=jnp.float32))
        lib.debug.print("end {} {}", inner(v), s, ordered=True)
        return s

    def differentiable(x: Any) -> Any:
        print_if(x > 1, "pos {x}", x=x)
        s, _ = lax.scan(step, x, jnp.arange(2, dtype=jnp.float32))
        return inner(s) * x

    x = np.float32(1.5)
    return {
        "ordered/jit": _printed(lib, lib.jit(program), x),
        "ordered/eager": _printed(lib, program, x),
        "ordered/grad": _printed(lib, lib.jit(lib.grad(differentiable)), x),
    }


def run(lib: Any) -> dict[str, np.ndarray]:
    lax, jnp = lib.lax, lib.numpy
    out: dict[str, Any] = {}
    r = np.random.RandomState(0)
    x = r.randn(2, 3, 5, 6).astype(np.float32)
    nhwc = ("NHWC", "HWIO", "NHWC")
    # Composed operations run under jit (one compilation each); a few eagerly.
    j = lib.jit
    out["patches"] = j(lambda v: lax.conv_general_dilated_patches(v, (2, 3), (1, 2), "SAME"))(x)
    out["patches/nhwc"] = j(
        lambda v: lax.conv_general_dilated_patches(
            v, (3, 2), (2, 1), [(1, 0), (0, 1)], rhs_dilation=(1, 2), dimension_numbers=nhwc
        )
    )(x.transpose(0, 2, 3, 1))
    out["patches/eager"] = lax.conv_general_dilated_patches(x[:1], (2, 2), (2, 2), "VALID")
    w = r.randn(4, 3 * 2 * 3, 5, 3).astype(np.float32)
    local = lambda a, b: lax.conv_general_dilated_local(a, b, (1, 2), "SAME", (2, 3))  # noqa: E731
    out["local"] = j(local)(x, w)
    w2 = r.randn(2, 3, 3 * 3 * 2, 4).astype(np.float32)
    out["local/nhwc"] = j(
        lambda a, b: lax.conv_general_dilated_local(
            a, b, (2, 2), "VALID", (3, 2), dimension_numbers=nhwc
        )
    )(x.transpose(0, 2, 3, 1), w2)
    out["local/grad"] = j(lib.grad(lambda a, b: (local(a, b) ** 2).sum(), (0, 1)))(x, w)

    lhs, rhs = r.randn(7, 4).astype(np.float32), r.randn(3, 4, 5).astype(np.float32)
    gs = np.array([2, 0, 4], np.int32)
    out["ragged_dot"] = j(lax.ragged_dot)(lhs, rhs, gs)
    out["ragged_dot/grad"] = j(
        lib.grad(lambda a, b: (lax.ragged_dot(a, b, gs) ** 2).sum(), (0, 1))
    )(lhs, rhs)
    dnums = lax.RaggedDotDimensionNumbers
    for name, shapes, groups, dn in (
        ("contracting", ((3, 6), (6, 2)), [1, 3, 2], dnums((([1], [0]), ([], [])), [1], [])),
        ("batch", ((2, 3, 4), (2, 4, 2)), [1, 1], dnums((([2], [1]), ([0], [0])), [0], [])),
        ("batched_groups", ((2, 5, 4), (3, 2, 4, 2)), [[1, 2, 2], [0, 4, 1]],
         dnums((([2], [2]), ([0], [1])), [1], [0])),
    ):  # fmt: skip
        operands = [r.randn(*s).astype(np.float32) for s in shapes]
        out[f"ragged_dot_general/{name}"] = j(
            lambda a, b, g, dn=dn: lax.ragged_dot_general(a, b, g, dn)
        )(*operands, np.array(groups, np.int32))

    out["broadcast_like"] = lax.broadcast_like(np.arange(3, dtype=np.int32), np.zeros((2, 3)))
    out["broadcast_like/jit"] = j(lax.broadcast_like)(np.ones((5, 1), np.float32), x[0])
    out["shape_as_value"] = lax.shape_as_value((2, 3))
    out["shape_as_value/empty"] = lax.shape_as_value(())

    a, b = r.randn(3, 4).astype(np.float32), r.randn(4, 2).astype(np.float32)
    for p in PRESETS:
        out[f"dot_algorithm/{p}"] = j(lambda u, v, p=p: lax.dot(u, v, precision=p))(a, b)
    f16 = lax.DotAlgorithmPreset.F16_F16_F16
    out["dot_algorithm/eager"] = lax.dot(a, b, precision=f16)
    out["dot_algorithm/grad"] = j(lib.grad(lambda u: lax.dot(u, b, precision=f16).sum()))(a)

    @functools.partial(lax.composite, name="my.tangent")
    def tangent(v: Any, *, k: int = 1) -> Any:
        return jnp.sin(v) / jnp.cos(v) * k

    out["composite"] = tangent(np.float32(0.7))
    out["composite/jit"] = j(lambda v: tangent(v, k=3))(a)
    pd = lambda v: lax.platform_dependent(v, cpu=jnp.sin, default=jnp.cos)  # noqa: E731
    out["platform_dependent"] = pd(a)
    out["platform_dependent/jit"] = j(pd)(a)
    out["platform_dependent/vmap_grad"] = j(lib.vmap(lib.grad(pd)))(a[0])
    out["platform_dependent/default"] = j(
        lambda v: lax.platform_dependent(v, tpu=jnp.sin, default=jnp.cos)
    )(a)

    _, y = j(lambda t, v: (lax.after_all(t, lax.create_token()), v * 2))(lax.create_token(), a)
    out["token/jit_value"] = y

    res = {k: np.asarray(v) for k, v in out.items() if not isinstance(v, tuple)}
    for k, v in out.items():
        if isinstance(v, tuple):
            res.update({f"{k}/{i}": np.asarray(e) for i, e in enumerate(v)})
    res.update(_ordered(lib))
    return res
