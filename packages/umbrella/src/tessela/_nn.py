"""``tessela.nn``: activation functions and friends, as in ``jax.nn``.

Everything is written with ``tessela_numpy`` and ``tessela_tracer.lax``, so it
traces, batches, differentiates and compiles. Where JAX gives a function a
custom derivative (``relu`` has derivative 0 at 0), so does Tessela.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import tessela_numpy as tnp
from tessela_tracer import custom_jvp, lax

__all__ = [
    "celu", "elu", "gelu", "glu", "hard_sigmoid", "hard_silu", "hard_swish", "hard_tanh",
    "leaky_relu", "log_sigmoid", "log_softmax", "logsumexp", "one_hot", "relu", "relu6",
    "selu", "sigmoid", "silu", "soft_sign", "softmax", "softplus", "sparse_plus",
    "squareplus", "standardize", "swish",
]  # fmt: skip

Axis = int | tuple[int, ...] | None


def _relu(x: Any) -> Any:
    return tnp.maximum(x, 0)


relu = custom_jvp(_relu)
relu.__doc__ = """Rectified linear unit, ``max(x, 0)``; its derivative at 0 is 0.

Args:
    x: an array.

Returns:
    ``max(x, 0)`` elementwise.

Example:
    >>> import tessela.numpy as tnp
    >>> print(relu(tnp.array([-1.0, 0.0, 2.0])))
    [0. 0. 2.]
"""


def _relu_jvp(primals: tuple[Any, ...], tangents: tuple[Any, ...]) -> tuple[Any, Any]:
    (x,), (t,) = primals, tangents
    return _relu(x), tnp.where(x > 0, t, tnp.zeros_like(t))


relu.defjvp(_relu_jvp)


def relu6(x: Any, /) -> Any:
    """``min(max(x, 0), 6)``.

    Args:
        x: an array.

    Returns:
        The clipped array.

    Example:
        >>> print(relu6(7.0))
        6.0
    """
    return tnp.minimum(tnp.maximum(x, 0), 6.0)


def sigmoid(x: Any, /) -> Any:
    """The logistic function ``1 / (1 + exp(-x))``.

    Args:
        x: an array.

    Returns:
        Values in ``(0, 1)``.

    Example:
        >>> print(sigmoid(0.0))
        0.5
    """
    return lax.logistic(tnp.asarray(x))


def log_sigmoid(x: Any, /) -> Any:
    """``log(sigmoid(x))``, computed stably as ``-softplus(-x)``.

    Args:
        x: an array.

    Returns:
        Non-positive values.

    Example:
        >>> print(round(float(log_sigmoid(0.0)), 6))
        -0.693147
    """
    return -softplus(-tnp.asarray(x))


def softplus(x: Any, /) -> Any:
    """``log(1 + exp(x))``, computed stably.

    Args:
        x: an array.

    Returns:
        Positive values.

    Example:
        >>> print(round(float(softplus(0.0)), 6))
        0.693147
    """
    return tnp.logaddexp(x, 0.0)


def sparse_plus(x: Any, /) -> Any:
    """0 below -1, ``x`` above 1, ``(x + 1)**2 / 4`` between.

    Args:
        x: an array.

    Returns:
        The smoothed ReLU.

    Example:
        >>> print(sparse_plus(0.0))
        0.25
    """
    x = tnp.asarray(x)
    return tnp.where(x <= -1.0, 0.0, tnp.where(x >= 1.0, x, (x + 1.0) ** 2 / 4))


def squareplus(x: Any, /, b: Any = 4) -> Any:
    """``(x + sqrt(x**2 + b)) / 2``, a smooth ReLU.

    Args:
        x: an array.
        b: smoothness (``b >= 0``).

    Returns:
        Positive values.

    Example:
        >>> print(squareplus(0.0))
        1.0
    """
    x = tnp.asarray(x)
    return (x + tnp.sqrt(x * x + b)) / 2


def soft_sign(x: Any, /) -> Any:
    """``x / (|x| + 1)``.

    Args:
        x: an array.

    Returns:
        Values in ``(-1, 1)``.

    Example:
        >>> print(soft_sign(1.0))
        0.5
    """
    x = tnp.asarray(x)
    return x / (tnp.abs(x) + 1)


def silu(x: Any, /) -> Any:
    """``x * sigmoid(x)`` (also called swish).

    Args:
        x: an array.

    Returns:
        The activation.

    Example:
        >>> print(silu(0.0))
        0.0
    """
    x = tnp.asarray(x)
    return x * sigmoid(x)


swish = silu


def hard_sigmoid(x: Any, /) -> Any:
    """``relu6(x + 3) / 6``.

    Args:
        x: an array.

    Returns:
        Values in ``[0, 1]``.

    Example:
        >>> print(hard_sigmoid(0.0))
        0.5
    """
    return relu6(tnp.asarray(x) + 3.0) / 6.0


def hard_silu(x: Any, /) -> Any:
    """``x * hard_sigmoid(x)`` (also called hard_swish).

    Args:
        x: an array.

    Returns:
        The activation.

    Example:
        >>> print(hard_silu(3.0))
        3.0
    """
    x = tnp.asarray(x)
    return x * hard_sigmoid(x)


hard_swish = hard_silu


def hard_tanh(x: Any, /) -> Any:
    """``x`` clipped to ``[-1, 1]``.

    Args:
        x: an array.

    Returns:
        The clipped array.

    Example:
        >>> print(hard_tanh(-3.0))
        -1.0
    """
    return tnp.clip(x, -1.0, 1.0)


def elu(x: Any, /, alpha: Any = 1.0) -> Any:
    """``x`` where positive, ``alpha * (exp(x) - 1)`` elsewhere.

    Args:
        x: an array.
        alpha: scale of the negative part.

    Returns:
        The activation.

    Example:
        >>> print(elu(2.0))
        2.0
    """
    x = tnp.asarray(x)
    safe = tnp.where(x > 0, 0.0, x)
    return tnp.where(x > 0, x, alpha * tnp.expm1(safe))


def celu(x: Any, /, alpha: Any = 1.0) -> Any:
    """``max(x, 0) + alpha * min(exp(x / alpha) - 1, 0)``.

    Args:
        x: an array.
        alpha: scale.

    Returns:
        The activation.

    Example:
        >>> print(celu(1.0))
        1.0
    """
    x = tnp.asarray(x)
    return tnp.maximum(x, 0.0) + alpha * tnp.expm1(tnp.minimum(x, 0.0) / alpha)


def selu(x: Any, /) -> Any:
    """Scaled ELU with the self-normalising constants.

    Args:
        x: an array.

    Returns:
        The activation.

    Example:
        >>> print(round(float(selu(1.0)), 4))
        1.0507
    """
    alpha = 1.6732632423543772
    scale = 1.0507009873554805
    return scale * elu(x, alpha)


def leaky_relu(x: Any, /, negative_slope: Any = 0.01) -> Any:
    """``x`` where non-negative, ``negative_slope * x`` elsewhere.

    Args:
        x: an array.
        negative_slope: slope of the negative part.

    Returns:
        The activation.

    Example:
        >>> print(leaky_relu(-2.0))
        -0.02
    """
    x = tnp.asarray(x)
    return tnp.where(x >= 0, x, negative_slope * x)


def gelu(x: Any, /, approximate: bool = True) -> Any:
    """Gaussian error linear unit (tanh approximation by default).

    Args:
        x: an array.
        approximate: use the tanh approximation; else the exact erf form.

    Returns:
        The activation.

    Example:
        >>> print(round(float(gelu(1.0)), 4))
        0.8412
    """
    x = tnp.asarray(x)
    if approximate:
        c = math.sqrt(2 / math.pi)
        return 0.5 * x * (1 + tnp.tanh(c * (x + 0.044715 * x**3)))
    return 0.5 * x * (1 + lax.erf(x / math.sqrt(2)))


def glu(x: Any, /, axis: int = -1) -> Any:
    """Gated linear unit: the first half of ``axis`` times sigmoid of the second.

    Args:
        x: an array whose ``axis`` has even length.
        axis: the axis to split.

    Returns:
        An array with half the length along ``axis``.

    Example:
        >>> import tessela.numpy as tnp
        >>> glu(tnp.array([2.0, 0.0])).tolist()
        [1.0]
    """
    x = tnp.asarray(x)
    size = x.shape[axis]
    if size % 2:
        raise ValueError(f"glu: axis {axis} of x must have even length, got {size}; pad it.")
    a, b = tnp.split(x, 2, axis=axis)
    return a * sigmoid(b)


def logsumexp(a: Any, /, axis: Axis = None, *, keepdims: bool = False) -> Any:
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


def log_softmax(x: Any, /, axis: Axis = -1) -> Any:
    """``x - logsumexp(x, axis)``.

    Args:
        x: an array.
        axis: the axes normalised over.

    Returns:
        Log-probabilities.

    Example:
        >>> import tessela.numpy as tnp
        >>> print(tnp.exp(log_softmax(tnp.array([1.0, 1.0]))))
        [0.5 0.5]
    """
    x = tnp.asarray(x)
    shifted = x - lax.stop_gradient(tnp.max(x, axis=axis, keepdims=True))
    return shifted - tnp.log(tnp.sum(tnp.exp(shifted), axis=axis, keepdims=True))


def softmax(x: Any, /, axis: Axis = -1) -> Any:
    """``exp(x) / sum(exp(x), axis)``, computed stably.

    Args:
        x: an array.
        axis: the axes normalised over.

    Returns:
        Probabilities that sum to one along ``axis``.

    Example:
        >>> import tessela.numpy as tnp
        >>> print(softmax(tnp.array([0.0, 0.0])))
        [0.5 0.5]
    """
    x = tnp.asarray(x)
    unnormalized = tnp.exp(x - lax.stop_gradient(tnp.max(x, axis=axis, keepdims=True)))
    return unnormalized / tnp.sum(unnormalized, axis=axis, keepdims=True)


def standardize(
    x: Any, /, axis: Axis = -1, mean: Any = None, variance: Any = None, epsilon: float = 1e-5
) -> Any:
    """``(x - mean) / sqrt(variance + epsilon)`` along ``axis``.

    Args:
        x: an array.
        axis: the axes the statistics are taken over.
        mean: a precomputed mean (computed when None).
        variance: a precomputed variance (computed when None).
        epsilon: added to the variance.

    Returns:
        The standardised array.

    Example:
        >>> import tessela.numpy as tnp
        >>> print(standardize(tnp.array([1.0, 3.0]), epsilon=0.0))
        [-1.  1.]
    """
    x = tnp.asarray(x)
    if mean is None:
        mean = tnp.mean(x, axis=axis, keepdims=True)
    if variance is None:
        variance = tnp.mean(tnp.square(x), axis=axis, keepdims=True) - tnp.square(mean)
    return (x - mean) * lax.rsqrt(variance + epsilon)


def one_hot(x: Any, num_classes: int, /, *, dtype: Any = np.float32, axis: int = -1) -> Any:
    """One-hot encode integer labels into a new axis of length ``num_classes``.

    Args:
        x: integer labels; out-of-range labels give all-zero rows.
        num_classes: the length of the new axis.
        dtype: the result dtype.
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
    x = tnp.asarray(x)
    out_axis = axis % (x.ndim + 1)
    labels = tnp.expand_dims(x, out_axis)
    shape = [1] * (x.ndim + 1)
    shape[out_axis] = num_classes
    classes = tnp.reshape(tnp.arange(num_classes, dtype=x.dtype), tuple(shape))
    return (labels == classes).astype(dtype)
