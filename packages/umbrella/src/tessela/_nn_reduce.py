"""Reductions and encodings of ``tessela.nn``: the softmax family, ``standardize``, ``one_hot``.

Written with ``tessela_numpy`` and ``tessela_tracer.lax`` like the activations
in :mod:`tessela._nn`, so everything here traces, batches, differentiates and
compiles. The maximum subtracted for stability is a ``stop_gradient``, as in JAX.
"""

from __future__ import annotations

import math
from typing import Any, cast

import tessela_numpy as tnp
from numpy.typing import DTypeLike
from tessela_tracer import custom_jvp, lax
from tessela_tracer.typing import Array, ArrayLike

from ._flags import softmax_custom_jvp
from ._staged import staged_eagerly

__all__ = [
    "log_softmax", "logmeanexp", "logsumexp", "one_hot", "softmax", "standardize",
]  # fmt: skip

Axis = int | tuple[int, ...] | None


def logsumexp(a: ArrayLike, /, axis: Axis = None, *, keepdims: bool = False) -> Array:
    """``log(sum(exp(a)))`` along ``axis``, computed stably.

    Args:
        a: an array.
        axis: the axes to reduce (all by default).
        keepdims: keep reduced axes with length one.

    Returns:
        The reduced array.

    Example:
        >>> import tessela.numpy as tnp
        >>> print(round(float(logsumexp(tnp.array([0.0, 0.0]))), 6))
        0.693147
    """
    a = tnp.asarray(a)
    peak = lax.stop_gradient(tnp.max(a, axis=axis, keepdims=True))
    peak = tnp.where(tnp.isfinite(peak), peak, 0.0)
    out = tnp.log(tnp.sum(tnp.exp(a - peak), axis=axis, keepdims=True)) + peak
    if keepdims:
        return out
    return tnp.squeeze(out, axis=axis)


def logmeanexp(
    x: ArrayLike, /, axis: Axis = None, where: ArrayLike | None = None, keepdims: bool = False
) -> Array:
    """``log(mean(exp(x)))`` along ``axis``: ``logsumexp(x) - log(n)``.

    Args:
        x: an array.
        axis: the axes to reduce (all by default).
        where: a boolean array broadcastable to ``x``; only its true entries
            count (in the sum and in ``n``). A slice with none gives NaN.
        keepdims: keep reduced axes with length one.

    Returns:
        The reduced array.

    Example:
        >>> import tessela.numpy as tnp
        >>> print(round(float(logmeanexp(tnp.array([0.0, 0.0]))), 6))
        0.0
    """
    x = tnp.asarray(x)
    if where is None:
        lse = logsumexp(x, axis=axis, keepdims=keepdims)
        axes = range(x.ndim) if axis is None else (axis,) if isinstance(axis, int) else axis
        count = math.prod(x.shape[a] for a in axes)
        return lse - tnp.log(tnp.asarray(count, dtype=lse.dtype))
    keep = tnp.broadcast_to(tnp.asarray(where, dtype=bool), x.shape)
    lse = logsumexp(tnp.where(keep, x, -tnp.inf), axis=axis, keepdims=keepdims)
    counts = tnp.sum(keep, axis=axis, keepdims=keepdims).astype(lse.dtype)
    return lse - tnp.log(counts)


@staged_eagerly(static_argnames=("axis",))
def log_softmax(x: ArrayLike, axis: Axis = -1, where: ArrayLike | None = None) -> Array:
    """``x - logsumexp(x, axis)``.

    Args:
        x: an array.
        axis: the axes normalised over.
        where: a boolean mask broadcastable to ``x``: only its true entries
            take part; the others come out as ``-inf``.

    Returns:
        Log-probabilities.

    Example:
        >>> import tessela.numpy as tnp
        >>> print(tnp.exp(log_softmax(tnp.array([1.0, 1.0]))))
        [0.5 0.5]
        >>> print(log_softmax(tnp.array([1.0, 1.0, 5.0]), where=tnp.array([True, True, False])))
        [-0.6931472 -0.6931472       -inf]
    """
    x = tnp.asarray(x)
    peak = tnp.max(x, axis=axis, where=where, initial=-tnp.inf, keepdims=True)
    x_safe = x if where is None else tnp.where(where, x, -tnp.inf)
    shifted = x_safe - lax.stop_gradient(peak)
    out = shifted - tnp.log(tnp.sum(tnp.exp(shifted), axis=axis, where=where, keepdims=True))
    return out if where is None else tnp.where(where, out, -tnp.inf)


@staged_eagerly(static_argnames=("axis",))
def softmax(x: ArrayLike, axis: Axis = -1, where: ArrayLike | None = None) -> Array:
    """``exp(x) / sum(exp(x), axis)``, computed stably.

    Args:
        x: an array.
        axis: the axes normalised over.
        where: a boolean mask broadcastable to ``x``: only its true entries
            take part; the others come out as 0.

    Returns:
        Probabilities that sum to one along ``axis``.

    With ``jax_softmax_custom_jvp`` set (``with tessela.softmax_custom_jvp():``)
    it is a ``custom_jvp`` function whose tangent is ``y * (t - sum(y * t))``,
    JAX's newer rule; otherwise the operations are differentiated.

    Example:
        >>> import tessela.numpy as tnp
        >>> print(softmax(tnp.array([0.0, 0.0])))
        [0.5 0.5]
        >>> print(softmax(tnp.array([0.0, 0.0, 9.0]), where=tnp.array([True, True, False])))
        [0.5 0.5 0. ]
    """
    if softmax_custom_jvp.value:
        return cast(Array, _softmax_custom(tnp.asarray(x), axis, where))
    return _softmax(tnp.asarray(x), axis, where)


def _softmax(x: Array, axis: Axis, where: ArrayLike | None) -> Array:
    peak = tnp.max(x, axis=axis, where=where, initial=-tnp.inf, keepdims=True)
    x_safe = x if where is None else tnp.where(where, x, -tnp.inf)
    unnormalized = tnp.exp(x_safe - lax.stop_gradient(peak))
    out = unnormalized / tnp.sum(unnormalized, axis=axis, where=where, keepdims=True)
    return out if where is None else tnp.where(where, out, 0)


_softmax_custom = custom_jvp(_softmax, nondiff_argnums=(1,))


def _softmax_jvp(
    axis: Axis, primals: tuple[Array, ArrayLike | None], tangents: tuple[Array, Any]
) -> tuple[Array, Array]:
    (x, where), (x_dot, _) = primals, tangents
    y = _softmax(x, axis, where)
    return y, y * (x_dot - tnp.sum(y * x_dot, axis=axis, where=where, keepdims=True))


_softmax_custom.defjvp(_softmax_jvp)


@staged_eagerly(static_argnames=("axis",))
def standardize(
    x: ArrayLike,
    axis: Axis = -1,
    mean: ArrayLike | None = None,
    variance: ArrayLike | None = None,
    epsilon: float = 1e-5,
    where: ArrayLike | None = None,
    *,
    algorithm: str = "fast",
) -> Array:
    """``(x - mean) / sqrt(variance + epsilon)`` along ``axis``.

    Args:
        x: an array.
        axis: the axes the statistics are taken over.
        mean: a precomputed mean (computed when None).
        variance: a precomputed variance (computed when None).
        epsilon: added to the variance.
        where: a boolean mask: only its true entries enter the statistics.
        algorithm: how the variance is computed: ``"fast"``, ``E[x^2] - E[x]^2``
            clipped at 0, or ``"stable"``, the two-pass ``E[(x - E[x])^2]``.

    Returns:
        The standardised array.

    Example:
        >>> import tessela.numpy as tnp
        >>> print(standardize(tnp.array([1.0, 3.0]), epsilon=0.0))
        [-1.  1.]
    """
    x = tnp.asarray(x)
    if mean is None:
        mean = tnp.mean(x, axis=axis, keepdims=True, where=where)
    if algorithm not in ("fast", "stable"):
        raise ValueError(f"standardize: algorithm must be 'fast' or 'stable', got {algorithm!r}")
    if variance is None and algorithm == "stable":
        variance = tnp.mean(tnp.square(x - mean), axis=axis, keepdims=True, where=where)
    elif variance is None:
        squares = tnp.mean(tnp.square(x), axis=axis, keepdims=True, where=where)
        variance = tnp.clip(squares - tnp.square(mean), 0)
    # A given variance may be any numeric array-like (NumPy's stubs give np.generic no +).
    return (x - mean) * lax.rsqrt(variance + epsilon)  # type: ignore[operator]


def one_hot(
    x: ArrayLike, num_classes: int, *, dtype: DTypeLike | None = None, axis: int = -1
) -> Array:
    """One-hot encode integer labels into a new axis of length ``num_classes``.

    Args:
        x: integer labels; out-of-range labels give all-zero rows.
        num_classes: the length of the new axis.
        dtype: the result dtype (the default float dtype when None).
        axis: where the new axis goes.

    Returns:
        An array of shape ``x.shape`` with ``num_classes`` inserted at ``axis``.

    Example:
        >>> import tessela.numpy as tnp
        >>> print(one_hot(tnp.array([0, 2]), 3))
        [[1. 0. 0.]
         [0. 0. 1.]]
    """
    if not isinstance(num_classes, int) or isinstance(num_classes, bool):
        raise TypeError(
            f"one_hot: num_classes must be a static Python int, got {type(num_classes).__name__};"
            " pass it as a constant (mark it static under jit)."
        )
    return _one_hot(x, num_classes, dtype, axis)


@staged_eagerly(static_argnames=("num_classes", "dtype", "axis"))  # as JAX's jit
def _one_hot(x: ArrayLike, num_classes: int, dtype: DTypeLike | None, axis: int) -> Array:
    x = tnp.asarray(x)
    out_axis = axis % (x.ndim + 1)
    labels = tnp.expand_dims(x, out_axis)
    shape = [1] * (x.ndim + 1)
    shape[out_axis] = num_classes
    classes = tnp.reshape(tnp.arange(num_classes, dtype=x.dtype), tuple(shape))
    return (labels == classes).astype(tnp.float_ if dtype is None else dtype)
