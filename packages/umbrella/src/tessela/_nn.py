"""``tessela.nn``'s activation functions, as in ``jax.nn``.

Everything is written with ``tessela_numpy`` and ``tessela_tracer.lax``, so it
traces, batches, differentiates and compiles. Where JAX gives a function a
custom derivative (``relu`` has derivative 0 at 0), so does Tessela.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TypeAlias, cast

import tessela_numpy as tnp
from tessela_tracer import custom_jvp, lax
from tessela_tracer.typing import Array, ArrayLike

from ._staged import staged_eagerly

__all__ = [
    "celu", "elu", "gelu", "glu", "hard_sigmoid", "hard_silu", "hard_swish", "hard_tanh",
    "identity", "leaky_relu", "log1mexp", "log_sigmoid", "mish", "relu", "relu6", "selu",
    "sigmoid", "silu", "soft_sign", "softplus", "sparse_plus", "sparse_sigmoid",
    "squareplus", "swish", "tanh",
]  # fmt: skip

tanh = tnp.tanh  # the same object as ``tessela.numpy.tanh``, as in JAX


def identity(x: ArrayLike, /) -> Array:
    """The identity activation: ``x`` unchanged, as an array.

    Args:
        x: an array or scalar.

    Returns:
        ``x`` as a Tessela array.

    Example:
        >>> import tessela.numpy as tnp
        >>> print(identity(tnp.array([-1.0, 2.0])))
        [-1.  2.]
    """
    return tnp.asarray(x)


_JVPRule: TypeAlias = Callable[[tuple[Array, ...], tuple[Array, ...]], tuple[Array, Array]]


def _gated_jvp(f: Callable[[Array], Array], passes: Callable[[Array], Array]) -> _JVPRule:
    """The JVP of ``f`` whose derivative is 1 where ``passes(x)`` and 0 elsewhere."""

    def rule(primals: tuple[Array, ...], tangents: tuple[Array, ...]) -> tuple[Array, Array]:
        (x,), (t,) = primals, tangents
        return f(x), tnp.where(passes(x), t, tnp.zeros_like(t))

    return rule


def _relu(x: ArrayLike) -> Array:
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


relu.defjvp(_gated_jvp(_relu, lambda x: x > 0))


def _relu6(x: ArrayLike) -> Array:
    return tnp.minimum(tnp.maximum(x, 0), 6.0)


relu6 = custom_jvp(_relu6)
relu6.__doc__ = """``min(max(x, 0), 6)``; its derivative is 0 at 0 and at 6.

Args:
    x: an array.

Returns:
    The clipped array.

Example:
    >>> print(relu6(7.0))
    6.0
"""


relu6.defjvp(_gated_jvp(_relu6, lambda x: (x > 0) & (x < 6)))


def sigmoid(x: ArrayLike, /) -> Array:
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


def log_sigmoid(x: ArrayLike, /) -> Array:
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


def softplus(x: ArrayLike, /) -> Array:
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


def sparse_plus(x: ArrayLike, /) -> Array:
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


def squareplus(x: ArrayLike, /, b: ArrayLike = 4) -> Array:
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


def soft_sign(x: ArrayLike, /) -> Array:
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


def sparse_sigmoid(x: ArrayLike, /) -> Array:
    """0 below -1, 1 above 1, ``(x + 1) / 2`` between (the derivative of ``sparse_plus``).

    Args:
        x: an array.

    Returns:
        Values in ``[0, 1]``.

    Example:
        >>> import tessela.numpy as tnp
        >>> print(sparse_sigmoid(tnp.array([-2.0, 0.0, 0.5, 3.0])))
        [0.   0.5  0.75 1.  ]
    """
    return 0.5 * tnp.clip(tnp.asarray(x) + 1.0, 0.0, 2.0)


def mish(x: ArrayLike, /) -> Array:
    """``x * tanh(softplus(x))``.

    Args:
        x: an array.

    Returns:
        The activation.

    Example:
        >>> print(round(float(mish(1.0)), 6))
        0.865098
    """
    x = tnp.asarray(x)
    return x * tnp.tanh(softplus(x))


def _log1mexp(x: ArrayLike) -> Array:
    x = tnp.asarray(x)
    # log(-expm1(-x)) is accurate for small x, log1p(-exp(-x)) for large x.
    return tnp.where(x < math.log(2.0), tnp.log(-tnp.expm1(-x)), tnp.log1p(-tnp.exp(-x)))


log1mexp = custom_jvp(_log1mexp)
log1mexp.__doc__ = """``log(1 - exp(-x))`` for ``x >= 0``, accurate at both ends of the range.

Negative ``x`` gives NaN; ``x = 0`` gives ``-inf``. The derivative is
``1 / expm1(x)``.

Args:
    x: a non-negative array.

Returns:
    Non-positive values.

Example:
    >>> print(round(float(log1mexp(1.0)), 6))
    -0.458675
"""


def _log1mexp_jvp(primals: tuple[Array, ...], tangents: tuple[Array, ...]) -> tuple[Array, Array]:
    (x,), (t,) = primals, tangents
    return _log1mexp(x), t / tnp.expm1(x)


log1mexp.defjvp(_log1mexp_jvp)


@staged_eagerly()
def silu(x: ArrayLike, /) -> Array:
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


def hard_sigmoid(x: ArrayLike, /) -> Array:
    """``relu6(x + 3) / 6``.

    Args:
        x: an array.

    Returns:
        Values in ``[0, 1]``.

    Example:
        >>> print(hard_sigmoid(0.0))
        0.5
    """
    return cast(Array, relu6(tnp.asarray(x) + 3.0) / 6.0)


def hard_silu(x: ArrayLike, /) -> Array:
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


def hard_tanh(x: ArrayLike, /) -> Array:
    """``x`` clipped to ``[-1, 1]`` (derivative 1 at the ends, as in JAX).

    Args:
        x: an array.

    Returns:
        The clipped array.

    Example:
        >>> print(hard_tanh(-3.0))
        -1.0
    """
    x = tnp.asarray(x)
    return tnp.where(x > 1, 1.0, tnp.where(x < -1, -1.0, x)).astype(x.dtype)


@staged_eagerly()
def elu(x: ArrayLike, /, alpha: ArrayLike = 1.0) -> Array:
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


@staged_eagerly()
def celu(x: ArrayLike, /, alpha: ArrayLike = 1.0) -> Array:
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


@staged_eagerly()
def selu(x: ArrayLike, /) -> Array:
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


@staged_eagerly()
def leaky_relu(x: ArrayLike, /, negative_slope: ArrayLike = 0.01) -> Array:
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


def gelu(x: ArrayLike, /, approximate: bool = True) -> Array:
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
    return 0.5 * x * lax.erfc(-x * math.sqrt(0.5))


@staged_eagerly(static_argnames=("axis",))
def glu(x: ArrayLike, /, axis: int = -1) -> Array:
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
