"""Cases of the newer ``jax.lax`` names for the golden test: run with ``jax`` or ``tessela`` as ``lib``.

``run(lib)`` returns a dict of NumPy arrays keyed by case name; the generator
saves JAX's, the test compares Tessela's with them (exactly for integers).
"""

from __future__ import annotations

from typing import Any

import numpy as np

I32 = np.array([[7, -3, 2**31 - 1, -(2**31)], [123456789, -987654321, 65535, -1]], np.int32)
U32 = np.array([[7, 3, 2**32 - 1, 2**31], [123456789, 987654321, 65535, 1]], np.uint32)
I8 = np.array([-100, 127, -128, 5], np.int8)
U16 = np.array([65535, 300, 1, 40000], np.uint16)
F = np.array([[3.0, 1.0, 2.0, -4.0, 0.5], [0.0, 5.0, 4.0, 4.5, -1.0]], np.float32)


def _sub_dn(lax: Any) -> Any:
    return lax.ScatterDimensionNumbers(
        update_window_dims=(1,), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,)
    )


def run(lib: Any) -> dict[str, np.ndarray]:
    lax = lib.lax
    jnp = lib.numpy
    out: dict[str, np.ndarray] = {}
    for name, a, b in (
        ("i32", I32, I32[::-1]),
        ("u32", U32, U32[::-1]),
        ("i8", I8, I8[::-1]),
        ("u16", U16, U16[::-1]),
    ):
        out[f"mulhi/{name}"] = np.asarray(lax.mulhi(jnp.asarray(a), jnp.asarray(b)))
    out["mulhi/vmap"] = np.asarray(lib.vmap(lax.mulhi)(jnp.asarray(I32), jnp.asarray(I32[::-1])))
    out["mulhi/jit"] = np.asarray(lib.jit(lax.mulhi)(jnp.asarray(U32), jnp.asarray(U32)))
    out["reduce_xor/0"] = np.asarray(lax.reduce_xor(jnp.asarray(I32), (0,)))
    out["reduce_xor/1"] = np.asarray(lax.reduce_xor(jnp.asarray(U32), (1,)))
    out["reduce_xor/bool"] = np.asarray(lax.reduce_xor(jnp.asarray(I32 > 0), (0, 1)))

    x = jnp.asarray(np.arange(12, dtype=np.float32).reshape(4, 3))
    idx = jnp.asarray(np.array([[1], [3], [1]], np.int32))
    upd = jnp.asarray(np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [0.5, 0.5, 0.5]], np.float32))
    dn = _sub_dn(lax)
    out["scatter_sub"] = np.asarray(lax.scatter_sub(x, idx, upd, dn))
    out["scatter_sub/jit"] = np.asarray(
        lib.jit(lambda a, u: lax.scatter_sub(a, idx, u, dn))(x, upd)
    )
    gx, gu = lib.grad(lambda a, u: (lax.scatter_sub(a, idx, u, dn) ** 2).sum(), (0, 1))(x, upd)
    out["scatter_sub/grad_x"], out["scatter_sub/grad_u"] = np.asarray(gx), np.asarray(gu)
    xs = jnp.stack([x, x * 2])
    us = jnp.stack([upd, -upd])
    out["scatter_sub/vmap"] = np.asarray(
        lib.vmap(lambda a, u: lax.scatter_sub(a, idx, u, dn))(xs, us)
    )
    unique = jnp.asarray(np.array([[0], [2]], np.int32))
    out["scatter_apply"] = np.asarray(
        lax.scatter_apply(x, unique, lambda v: v * 10 + 1, dn, update_shape=(2, 3))
    )
    out["scatter_apply/jit"] = np.asarray(
        lib.jit(lambda a: lax.scatter_apply(a, unique, jnp.sin, dn, update_shape=(2, 3)))(x)
    )

    src = jnp.asarray(np.arange(24, dtype=np.float32).reshape(2, 3, 4))
    i0 = jnp.asarray(np.array([0, 1, -1, 3], np.int32))
    i2 = jnp.asarray(np.array([3, -2, 5, 0], np.int32))
    out["index_take/1"] = np.asarray(lax.index_take(src, (i0,), (1,)))
    out["index_take/0,2"] = np.asarray(lax.index_take(src, (i0, i2), (0, 2)))

    f = jnp.asarray(F)
    for name, fn, args in (
        ("approx_max_k", lax.approx_max_k, (f, 2)),
        ("approx_max_k/dim0", lax.approx_max_k, (f, 1, 0)),
        ("approx_min_k", lax.approx_min_k, (f, 3)),
        ("approx_min_k/dim0", lax.approx_min_k, (f, 2, 0)),
    ):
        values, indices = fn(*args)
        out[f"{name}/values"], out[f"{name}/indices"] = np.asarray(values), np.asarray(indices)

    e = lax.empty((2, 3), jnp.int16)
    out["empty/shape_dtype"] = np.array([*e.shape, np.dtype(e.dtype).itemsize])
    sized = lib.vmap(
        lib.vmap(lambda v: v * lax.axis_size(("i", "j")) + lax.axis_size("j"), axis_name="j"),
        axis_name="i",
    )
    out["axis_size"] = np.asarray(sized(jnp.ones((2, 3))))

    key = jnp.asarray(np.array([1, 2, 3, 4], np.uint32))
    for alg in (lax.RandomAlgorithm.RNG_DEFAULT, lax.RandomAlgorithm.RNG_THREE_FRY,
                lax.RandomAlgorithm.RNG_PHILOX):  # fmt: skip
        for dt in (jnp.uint8, jnp.uint16, jnp.uint32):
            new_key, bits = lax.rng_bit_generator(key, (2, 3), dt, alg)
            name = f"rng_bit_generator/{alg.name}/{np.dtype(dt).name}"
            out[f"{name}/key"], out[f"{name}/bits"] = np.asarray(new_key), np.asarray(bits)
    jitted = lib.jit(lambda k: lax.rng_bit_generator(k, (5,))[1])
    out["rng_bit_generator/jit"] = np.asarray(jitted(key + 7))
    return out
