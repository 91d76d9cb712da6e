"""Numerical checks shared by the tests: finite differences and jvp/vjp consistency."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from tessela_autodiff import grad, jvp, vjp
from tessela_tracer import lax


def draw(shape: tuple[int, ...], seed: int, lo: float, hi: float) -> np.ndarray:
    """Uniform float64 values in ``[lo, hi)``, reproducible from ``seed``."""
    return np.random.RandomState(seed).uniform(lo, hi, shape)


def _vdot(a: Any, b: Any) -> float:
    return float(np.sum(np.asarray(a, np.float64) * np.asarray(b, np.float64)))


def check_grads(
    f: Callable[..., Any], args: Sequence[np.ndarray], *, eps: float = 1e-5, rtol: float = 1e-4,
    seed: int = 0,
) -> None:  # fmt: skip
    """Check reverse mode against central differences and jvp against vjp (float64 inputs)."""
    rng = np.random.RandomState(seed)
    out = np.asarray(f(*args))
    w = rng.standard_normal(out.shape)

    def loss(*xs: Any) -> Any:
        y = f(*xs)
        return lax.reduce_sum(lax.mul(y, w.astype(out.dtype)), tuple(range(out.ndim)))

    dirs = [rng.standard_normal(np.shape(a)) for a in args]
    g = grad(loss, argnums=tuple(range(len(args))))(*args)
    lhs = sum(_vdot(gi, d) for gi, d in zip(g, dirs, strict=True))
    plus = loss(*[a + eps * d for a, d in zip(args, dirs, strict=True)])
    minus = loss(*[a - eps * d for a, d in zip(args, dirs, strict=True)])
    fd = (float(plus) - float(minus)) / (2 * eps)
    assert np.isclose(lhs, fd, rtol=rtol, atol=rtol), (lhs, fd)

    _, t_out = jvp(f, tuple(args), tuple(dirs))
    _, pullback = vjp(f, *args)
    cts = pullback(w.astype(out.dtype))
    left = sum(_vdot(c, d) for c, d in zip(cts, dirs, strict=True))
    right = _vdot(w, t_out)
    tol = max(1e-8, rtol * 1e-2)
    assert np.isclose(left, right, rtol=tol, atol=tol), (left, right)
