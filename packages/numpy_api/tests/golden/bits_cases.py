"""Cases whose results must equal JAX 0.10.2's to the last bit (CPU).

``jnp.mean``, ``var``, ``std``, ``nanvar``, ... run as one compiled program in
JAX, where XLA turns a division by a constant count into a multiplication by
its reciprocal (and ``average``, ``polyval``, ``logaddexp2``, ``interp`` fuse their
multiply-adds as JAX's compiled programs do); ``log10`` multiplies by JAX's
constant ``1 / log(10)`` and ``log2`` of complex numbers divides the real and
imaginary parts apart. Each
case is ``name -> (function of (xp, inputs), input names)``; :func:`inputs`
builds the same arrays, from a seeded generator, in both processes.
``X64_CASES`` run with 64-bit types enabled.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

Fn = Callable[[Any, list[np.ndarray]], Any]


def inputs() -> dict[str, np.ndarray]:
    """The named inputs: float32 arrays of a few shapes and magnitudes, with and without NaNs."""
    rng = np.random.default_rng(20261126)
    out: dict[str, np.ndarray] = {}
    for i, shape in enumerate([(7,), (3, 5), (4, 6, 5), (33,), (10, 17)]):
        x = rng.standard_normal(shape) * 10.0 ** rng.integers(-3, 4)
        out[f"f{i}"] = x.astype(np.float32)
        with_nan = x.copy().reshape(-1)
        with_nan[rng.integers(0, with_nan.size, 2)] = np.nan
        out[f"n{i}"] = with_nan.reshape(shape).astype(np.float32)
    logs = np.abs(rng.standard_normal(48)) * 10.0 ** rng.integers(-30, 30, 48)
    logs = np.concatenate([logs, [0.0, 1.0, 2.0, 8.0, 10.0, 100.0, np.inf, np.nan]])
    out["pos32"] = logs.astype(np.float32)
    out["pos64"] = logs.astype(np.float64)
    out["c64"] = (logs + 1j * rng.standard_normal(logs.size)).astype(np.complex64)
    out["c128"] = (logs + 1j * rng.standard_normal(logs.size)).astype(np.complex128)
    return out


def _stats(k: str) -> dict[str, tuple[Fn, list[str]]]:
    f, n = f"f{k}", f"n{k}"
    return {
        f"mean_{k}": (lambda xp, a: xp.mean(a[0]), [f]),
        f"mean_axis0_{k}": (lambda xp, a: xp.mean(a[0], axis=0), [f]),
        f"mean_last_keepdims_{k}": (lambda xp, a: xp.mean(a[0], axis=-1, keepdims=True), [f]),
        f"mean_where_{k}": (lambda xp, a: xp.mean(a[0], where=a[0] > 0), [f]),
        f"mean_int_{k}": (lambda xp, a: xp.mean((a[0] * 100).astype(xp.int32)), [f]),
        f"var_{k}": (lambda xp, a: xp.var(a[0]), [f]),
        f"var_axis0_{k}": (lambda xp, a: xp.var(a[0], axis=0), [f]),
        f"std_ddof1_{k}": (lambda xp, a: xp.std(a[0], ddof=1), [f]),
        f"average_{k}": (lambda xp, a: xp.average(a[0]), [f]),
        f"nanmean_{k}": (lambda xp, a: xp.nanmean(a[0]), [n]),
        f"nanvar_{k}": (lambda xp, a: xp.nanvar(a[0]), [n]),
        f"nanvar_axis0_{k}": (lambda xp, a: xp.nanvar(a[0], axis=0, ddof=1), [n]),
        f"nanstd_{k}": (lambda xp, a: xp.nanstd(a[0]), [n]),
    }


CASES: dict[str, tuple[Fn, list[str]]] = {
    **_stats("0"),
    **_stats("2"),
    **_stats("4"),
    "var_given_mean": (
        lambda xp, a: xp.var(a[0], axis=0, mean=xp.mean(a[0], axis=0, keepdims=True)),
        ["f2"],
    ),
    "where_one_argument": (lambda xp, a: xp.stack(xp.where(a[0] > 0)), ["f2"]),
    "where_size_fill": (
        lambda xp, a: xp.stack(xp.where(a[0] > 0, size=40, fill_value=-1)),
        ["f4"],
    ),
    "roll_array_shift": (lambda xp, a: xp.roll(a[0], xp.asarray(-7), axis=1), ["f4"]),
    "roll_array_shifts": (
        lambda xp, a: xp.roll(a[0], xp.asarray([2, -1]), axis=(0, 2)),
        ["f2"],
    ),
    "logaddexp2_f32": (lambda xp, a: xp.logaddexp2(a[0], a[1]), ["f4", "n4"]),
    "polyval_f32": (lambda xp, a: xp.polyval(xp.asarray(a[0]), a[1]), ["f0", "f4"]),
    "average_weights": (
        lambda xp, a: xp.average(a[0], axis=-1, weights=xp.asarray(a[1][0])),
        ["f4", "f4"],
    ),
    "average_weights_returned": (
        lambda xp, a: xp.stack(xp.average(a[0], axis=0, weights=a[0] * a[0], returned=True)),
        ["f2"],
    ),
    "interp_f32": (
        lambda xp, a: xp.interp(a[0], xp.linspace(-5.0, 5.0, 11), xp.linspace(0.0, 1.0, 11) ** 2),
        ["f4"],
    ),
    "interp_bounds_period": (
        lambda xp, a: xp.stack(
            [
                xp.interp(
                    a[0], xp.asarray([-1.0, 0.5, 2.0]), xp.asarray([3.0, -1.0, 0.25]), -2.0, 7.0
                ),
                xp.interp(
                    a[0], xp.asarray([0.1, 2.0, 4.5]), xp.asarray([1.0, 3.0, -2.0]), period=5.0
                ),
            ]
        ),
        ["f4"],
    ),
    "log10_f32": (lambda xp, a: xp.log10(a[0]), ["pos32"]),
    "log10_c64": (lambda xp, a: xp.log10(a[0]), ["c64"]),
    "log2_c64": (lambda xp, a: xp.log2(a[0]), ["c64"]),
}

X64_CASES: dict[str, tuple[Fn, list[str]]] = {
    "log10_f64": (lambda xp, a: xp.log10(a[0]), ["pos64"]),
    "log10_c128": (lambda xp, a: xp.log10(a[0]), ["c128"]),
    "log2_c128": (lambda xp, a: xp.log2(a[0]), ["c128"]),
    "mean_f64": (lambda xp, a: xp.mean(a[0]), ["pos64"]),
}
