"""Weight initializers of ``tessela.nn.initializers``, as in ``jax.nn.initializers``.

A factory (``normal(0.02)``, ``glorot_uniform()``, ...) returns an
``init(key, shape, dtype=None)`` function. Samples come from
``tessela.random``, whose bits are JAX's for the same key, and are scaled by
the same operations in the same order as JAX's, so the values agree with
JAX's. Keys may be traced: every initializer works under ``jit`` and ``vmap``.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Sequence
from typing import Any, Literal, Protocol, TypeAlias, cast, runtime_checkable

import numpy as np
import tessela_numpy as tnp
import tessela_tracer
from numpy.typing import DTypeLike
from tessela_lowering.sharding import NamedSharding, PartitionSpec
from tessela_prng import KeyArray
from tessela_tracer.typing import Array, ArrayLike

from . import _random as random

__all__ = [
    "Initializer", "constant", "delta_orthogonal", "glorot_normal", "glorot_uniform",
    "he_normal", "he_uniform", "kaiming_normal", "kaiming_uniform", "lecun_normal",
    "lecun_uniform", "normal", "ones", "orthogonal", "truncated_normal", "uniform",
    "variance_scaling", "xavier_normal", "xavier_uniform", "zeros",
]  # fmt: skip

Shape = Sequence[int] | int
AxisSpec = int | Sequence[int]
# A typed key, or a raw key as an array of two uint32 words.
KeyLike: TypeAlias = KeyArray | ArrayLike
# What JAX's samplers take as ``out_sharding``; only None is supported here.
OutSharding: TypeAlias = NamedSharding | PartitionSpec | None
# The standard deviation of a unit normal truncated to [-2, 2].
_TRUNCATED_STDDEV = 0.87962566103423978
# The same for a complex normal whose modulus is truncated to 2.
_COMPLEX_TRUNCATED_STDDEV = 0.95311164380491208
_MODES = ("fan_in", "fan_out", "fan_avg", "fan_geo_avg")
_DISTRIBUTIONS = ("truncated_normal", "normal", "uniform")


@runtime_checkable
class Initializer(Protocol):
    """What every factory of this module returns: ``init(key, shape, dtype=None)``."""

    def __call__(
        self,
        key: KeyLike,
        shape: Shape,
        dtype: DTypeLike | None = None,
        out_sharding: OutSharding = None,
    ) -> Array:
        """Sample an array.

        Args:
            key: a PRNG key (ignored by ``zeros``, ``ones`` and ``constant``).
            shape: the shape of the result.
            dtype: its dtype (the factory's, or the default float, when None).
            out_sharding: must be None (one device).

        Returns:
            The initial weights.
        """
        ...


def _dtype(dtype: DTypeLike | None) -> np.dtype[Any]:
    if dtype is None:
        wide = bool(tessela_tracer.config.x64_enabled)
        return np.dtype(np.float64) if wide else np.dtype(np.float32)
    chosen: np.dtype[Any] = np.dtype(dtype)
    return chosen


def _shape(shape: Shape, who: str) -> tuple[int, ...]:
    try:
        dims = (shape,) if isinstance(shape, int) else tuple(shape)
        return tuple(operator.index(d) for d in dims)
    except TypeError:
        raise TypeError(
            f"{who}: shape must be a sequence of static Python ints, got {shape!r}; "
            "pass concrete sizes (mark them static under jit)."
        ) from None


def _no_sharding(out_sharding: OutSharding, who: str) -> None:
    if out_sharding is not None:
        raise NotImplementedError(
            f"{who}: out_sharding is not supported (arrays live on one device); "
            "leave it None and place the result with tessela.device_put."
        )


def _scaled(sample: Array, factor: ArrayLike, dtype: np.dtype[Any]) -> Array:
    # The cast keeps the requested dtype where a sampler widens (float16 normals).
    return sample.astype(dtype) * tnp.asarray(factor, dtype=dtype)


# What a factory supplies: the weights for a key, a checked shape and a dtype.
_Sampler: TypeAlias = Callable[[KeyLike, tuple[int, ...], np.dtype[Any]], Array]


def _initializer(who: str, default: DTypeLike | None, sample: _Sampler) -> Initializer:
    """The ``init`` of the factory ``who``: checks its arguments, then calls ``sample``."""

    def init(
        key: KeyLike,
        shape: Shape,
        dtype: DTypeLike | None = default,
        out_sharding: OutSharding = None,
    ) -> Array:
        _no_sharding(out_sharding, who)
        dims = _shape(shape, who)
        return sample(key, dims, _dtype(dtype))

    return init


def zeros(
    key: KeyLike, shape: Shape, dtype: DTypeLike | None = None, out_sharding: OutSharding = None
) -> Array:
    """An array of zeros; ``key`` is ignored.

    Args:
        key: a PRNG key (unused).
        shape: the shape of the result.
        dtype: its dtype (the default float when None).
        out_sharding: must be None.

    Returns:
        ``zeros(shape, dtype)``.

    Example:
        >>> import tessela.random as random
        >>> zeros(random.key(0), (2, 2)).tolist()
        [[0.0, 0.0], [0.0, 0.0]]
    """
    _no_sharding(out_sharding, "zeros")
    return tnp.zeros(_shape(shape, "zeros"), dtype=_dtype(dtype))


def ones(
    key: KeyLike, shape: Shape, dtype: DTypeLike | None = None, out_sharding: OutSharding = None
) -> Array:
    """An array of ones; ``key`` is ignored.

    Args:
        key: a PRNG key (unused).
        shape: the shape of the result.
        dtype: its dtype (the default float when None).
        out_sharding: must be None.

    Returns:
        ``ones(shape, dtype)``.
    """
    _no_sharding(out_sharding, "ones")
    return tnp.ones(_shape(shape, "ones"), dtype=_dtype(dtype))


def constant(value: ArrayLike, dtype: DTypeLike | None = None) -> Initializer:
    """An initializer filling every entry with ``value``.

    Args:
        value: the fill value (a scalar or an array broadcastable to the shape).
        dtype: the default dtype of the result.

    Returns:
        An initializer; its ``key`` is ignored.

    Example:
        >>> import tessela.random as random
        >>> constant(-7.0)(random.key(0), (3,)).tolist()
        [-7.0, -7.0, -7.0]
    """

    def sample(key: KeyLike, dims: tuple[int, ...], dt: np.dtype[Any]) -> Array:
        return tnp.full(dims, value, dtype=dt)

    return _initializer("constant", dtype, sample)


def uniform(scale: ArrayLike = 1e-2, dtype: DTypeLike | None = None) -> Initializer:
    """An initializer sampling uniformly from ``[0, scale)``.

    Args:
        scale: the upper bound.
        dtype: the default dtype of the result.

    Returns:
        An initializer.
    """

    def sample(key: KeyLike, dims: tuple[int, ...], dt: np.dtype[Any]) -> Array:
        return _scaled(random.uniform(key, dims, dt), scale, dt)

    return _initializer("uniform", dtype, sample)


def normal(stddev: ArrayLike = 1e-2, dtype: DTypeLike | None = None) -> Initializer:
    """An initializer sampling a centred normal with standard deviation ``stddev``.

    Args:
        stddev: the standard deviation.
        dtype: the default dtype of the result.

    Returns:
        An initializer.

    Example:
        >>> import tessela.random as random
        >>> normal(5.0)(random.key(42), (2, 3)).shape
        (2, 3)
    """

    def sample(key: KeyLike, dims: tuple[int, ...], dt: np.dtype[Any]) -> Array:
        return _scaled(random.normal(key, dims, dt), stddev, dt)

    return _initializer("normal", dtype, sample)


def truncated_normal(
    stddev: ArrayLike = 1e-2,
    dtype: DTypeLike | None = None,
    lower: ArrayLike = -2.0,
    upper: ArrayLike = 2.0,
) -> Initializer:
    """An initializer sampling a unit normal truncated to ``(lower, upper)``, times ``stddev``.

    No variance correction is applied: the result's standard deviation is less
    than ``stddev`` (``variance_scaling`` corrects for it).

    Args:
        stddev: the scale applied after truncation.
        dtype: the default dtype of the result.
        lower: the lower truncation bound, in units of ``stddev``.
        upper: the upper truncation bound, in units of ``stddev``.

    Returns:
        An initializer.
    """

    def sample(key: KeyLike, dims: tuple[int, ...], dt: np.dtype[Any]) -> Array:
        return _scaled(random.truncated_normal(key, lower, upper, dims, dt), stddev, dt)

    return _initializer("truncated_normal", dtype, sample)


def _size(shape: tuple[int, ...], axes: AxisSpec, name: str) -> int:
    picked = (axes,) if isinstance(axes, int) else tuple(axes)
    for a in picked:
        if not -len(shape) <= a < len(shape):
            raise IndexError(
                f"variance_scaling: {name}={axes!r} is out of range for a weights shape "
                f"{shape} of {len(shape)} dimensions; pass an axis in "
                f"[-{len(shape)}, {len(shape)})."
            )
    return math.prod(shape[a] for a in picked)


def _fans(
    shape: tuple[int, ...], in_axis: AxisSpec, out_axis: AxisSpec, batch_axis: AxisSpec
) -> tuple[float, float]:
    if isinstance(in_axis, int) and in_axis == -2 and len(shape) <= 1:
        raise ValueError(
            f"variance_scaling: a {len(shape)}-dimensional weights shape has no input axis "
            "at the default in_axis=-2; use a shape of at least 2 dimensions or pass "
            "in_axis (and out_axis) explicitly."
        )
    in_size = _size(shape, in_axis, "in_axis")
    out_size = _size(shape, out_axis, "out_axis")
    batch_size = _size(shape, batch_axis, "batch_axis")
    # Axes in none of the three form the receptive field (a convolution's window).
    receptive = math.prod(shape) / in_size / out_size / batch_size
    return in_size * receptive, out_size * receptive


def _complex_uniform(key: KeyLike, shape: tuple[int, ...], dtype: np.dtype[Any]) -> Array:
    """Uniform on the disk of radius sqrt(2): zero mean, unit variance."""
    key_r, key_theta = random.split(cast("KeyArray | Array", key))
    real = np.zeros((), dtype).real.dtype
    r = tnp.sqrt(2 * random.uniform(key_r, shape, real)).astype(dtype)
    theta = 2 * np.pi * random.uniform(key_theta, shape, real).astype(dtype)
    return r * tnp.exp(1j * theta)


def _complex_truncated_normal(
    key: KeyLike, upper: float, shape: tuple[int, ...], dtype: np.dtype[Any]
) -> Array:
    """A complex normal of unit variance with its modulus truncated to ``upper``."""
    key_r, key_theta = random.split(cast("KeyArray | Array", key))
    real = np.zeros((), dtype).real.dtype
    tail = 1 - tnp.exp(tnp.asarray(-(upper**2), dtype=dtype))
    t = tail * random.uniform(key_r, shape, real).astype(dtype)
    r = tnp.sqrt(-tnp.log(1 - t))
    theta = 2 * np.pi * random.uniform(key_theta, shape, real).astype(dtype)
    return r * tnp.exp(1j * theta)


def variance_scaling(
    scale: ArrayLike,
    mode: Literal["fan_in", "fan_out", "fan_avg", "fan_geo_avg"],
    distribution: Literal["truncated_normal", "normal", "uniform"],
    in_axis: AxisSpec = -2,
    out_axis: AxisSpec = -1,
    batch_axis: AxisSpec = (),
    dtype: DTypeLike | None = None,
) -> Initializer:
    """An initializer whose variance is ``scale / n`` for a fan ``n`` of the shape.

    ``n`` is the number of inputs (``mode="fan_in"``), of outputs
    (``"fan_out"``), their mean (``"fan_avg"``) or geometric mean
    (``"fan_geo_avg"``). The inputs are the sizes along ``in_axis``, the
    outputs those along ``out_axis``, times the receptive field: the product of
    the axes in neither and not in ``batch_axis``. ``"truncated_normal"``
    truncates at two standard deviations and rescales so the variance is still
    ``scale / n``; ``"uniform"`` samples ``[-a, a)`` with ``a = sqrt(3 scale / n)``
    (a disk for complex dtypes).

    Args:
        scale: the variance numerator (positive).
        mode: ``"fan_in"``, ``"fan_out"``, ``"fan_avg"`` or ``"fan_geo_avg"``.
        distribution: ``"truncated_normal"``, ``"normal"`` or ``"uniform"``.
        in_axis: the input axis or axes of the weights.
        out_axis: the output axis or axes.
        batch_axis: axes left out of both fans.
        dtype: the default dtype of the result.

    Returns:
        An initializer.

    Raises:
        ValueError: for an unknown ``mode`` or ``distribution``.

    Example:
        >>> import tessela.random as random
        >>> w = variance_scaling(2.0, "fan_in", "normal")(random.key(0), (3, 4))
        >>> w.shape, str(w.dtype)
        ((3, 4), 'float32')
    """
    if mode not in _MODES:
        raise ValueError(
            f"variance_scaling: invalid mode {mode!r}; pass one of {', '.join(_MODES)}."
        )
    if distribution not in _DISTRIBUTIONS:
        raise ValueError(
            f"variance_scaling: invalid distribution {distribution!r}; pass one of "
            f"{', '.join(_DISTRIBUTIONS)}."
        )

    def sample(key: KeyLike, dims: tuple[int, ...], dt: np.dtype[Any]) -> Array:
        fan_in, fan_out = _fans(dims, in_axis, out_axis, batch_axis)
        fans = {
            "fan_in": fan_in,
            "fan_out": fan_out,
            "fan_avg": (fan_in + fan_out) / 2,
            "fan_geo_avg": (fan_in * fan_out) ** 0.5,
        }
        variance = tnp.asarray(scale / fans[mode], dtype=dt)
        is_complex = dt.kind == "c"
        if distribution == "truncated_normal":
            if is_complex:
                stddev = tnp.sqrt(variance) / tnp.asarray(_COMPLEX_TRUNCATED_STDDEV, dtype=dt)
                return _complex_truncated_normal(key, 2.0, dims, dt) * stddev
            stddev = tnp.sqrt(variance) / tnp.asarray(_TRUNCATED_STDDEV, dtype=dt)
            return cast(Array, random.truncated_normal(key, -2, 2, dims, dt).astype(dt) * stddev)
        if distribution == "normal":
            return cast(Array, random.normal(key, dims, dt).astype(dt) * tnp.sqrt(variance))
        if is_complex:
            return _complex_uniform(key, dims, dt) * tnp.sqrt(variance)
        return cast(Array, random.uniform(key, dims, dt, -1).astype(dt) * tnp.sqrt(3 * variance))

    return _initializer("variance_scaling", dtype, sample)


class _FanFactory(Protocol):
    """The signature of ``glorot_uniform`` and the other fixed-scale factories."""

    __name__: str
    __qualname__: str

    def __call__(
        self,
        in_axis: AxisSpec = -2,
        out_axis: AxisSpec = -1,
        batch_axis: AxisSpec = (),
        dtype: DTypeLike | None = None,
    ) -> Initializer: ...


def _fan_family(
    scale: float,
    mode: Literal["fan_in", "fan_avg"],
    distribution: Literal["truncated_normal", "uniform"],
    doc: str,
) -> _FanFactory:
    def factory(
        in_axis: AxisSpec = -2,
        out_axis: AxisSpec = -1,
        batch_axis: AxisSpec = (),
        dtype: DTypeLike | None = None,
    ) -> Initializer:
        return variance_scaling(scale, mode, distribution, in_axis, out_axis, batch_axis, dtype)

    factory.__doc__ = f"""{doc}: ``variance_scaling({scale}, "{mode}", "{distribution}")``.

    Args:
        in_axis: the input axis or axes of the weights.
        out_axis: the output axis or axes.
        batch_axis: axes left out of both fans.
        dtype: the default dtype of the result.

    Returns:
        An initializer.
    """
    return factory


glorot_uniform = _fan_family(1.0, "fan_avg", "uniform", "The Glorot (Xavier) uniform initializer")
glorot_normal = _fan_family(
    1.0, "fan_avg", "truncated_normal", "The Glorot (Xavier) normal initializer"
)
lecun_uniform = _fan_family(1.0, "fan_in", "uniform", "The LeCun uniform initializer")
lecun_normal = _fan_family(1.0, "fan_in", "truncated_normal", "The LeCun normal initializer")
he_uniform = _fan_family(2.0, "fan_in", "uniform", "The He (Kaiming) uniform initializer")
he_normal = _fan_family(2.0, "fan_in", "truncated_normal", "The He (Kaiming) normal initializer")
for _name, _fn in [
    ("glorot_uniform", glorot_uniform),
    ("glorot_normal", glorot_normal),
    ("lecun_uniform", lecun_uniform),
    ("lecun_normal", lecun_normal),
    ("he_uniform", he_uniform),
    ("he_normal", he_normal),
]:
    _fn.__name__ = _fn.__qualname__ = _name
xavier_uniform = glorot_uniform
xavier_normal = glorot_normal
kaiming_uniform = he_uniform
kaiming_normal = he_normal


def orthogonal(
    scale: ArrayLike = 1.0, column_axis: int = -1, dtype: DTypeLike | None = None
) -> Initializer:
    """An initializer of (scaled) uniformly random orthogonal matrices.

    The shape is viewed as a matrix whose columns run along ``column_axis``
    and whose rows are all the other axes flattened; its columns are
    orthonormal if it is tall, its rows if it is wide.

    Args:
        scale: the factor applied to the orthogonal matrix.
        column_axis: the axis of the columns.
        dtype: the default dtype of the result.

    Returns:
        An initializer for shapes of at least 2 dimensions.

    Example:
        >>> import tessela.numpy as tnp
        >>> import tessela.random as random
        >>> w = orthogonal()(random.key(0), (4, 3))
        >>> bool(tnp.max(tnp.abs(w.T @ w - tnp.eye(3))) < 1e-5)
        True
    """

    def sample(key: KeyLike, dims: tuple[int, ...], dt: np.dtype[Any]) -> Array:
        if len(dims) < 2:
            raise ValueError(
                f"orthogonal: the shape must have at least 2 dimensions, got {dims}; "
                "initialize a matrix (or a stack of them)."
            )
        if not -len(dims) <= column_axis < len(dims):
            raise ValueError(
                f"orthogonal: column_axis={column_axis} is out of range for shape {dims}; "
                f"pass an axis in [-{len(dims)}, {len(dims)})."
            )
        if 0 in dims:
            return tnp.zeros(dims, dtype=dt)
        n_cols = dims[column_axis]
        n_rows = math.prod(dims) // n_cols
        q = random.orthogonal(key, n_rows, (), dt, n_cols)
        rest = tuple(int(d) for d in np.delete(np.asarray(dims), column_axis))
        q = tnp.moveaxis(tnp.reshape(q, (*rest, n_cols)), -1, column_axis)
        return tnp.asarray(scale, dtype=dt) * q

    return _initializer("orthogonal", dtype, sample)


def delta_orthogonal(
    scale: ArrayLike = 1.0, column_axis: int = -1, dtype: DTypeLike | None = None
) -> Initializer:
    """An initializer of convolution kernels that are orthogonal at the window's centre.

    The kernel is zero except at the central spatial position, which holds an
    ``orthogonal(scale, column_axis)`` matrix of shape ``shape[-2:]``.

    Args:
        scale: the factor applied to the orthogonal matrix.
        column_axis: the axis of the columns of that matrix.
        dtype: the default dtype of the result.

    Returns:
        An initializer for 3-, 4- or 5-dimensional shapes with
        ``shape[-1] >= shape[-2]``.

    Example:
        >>> import tessela.random as random
        >>> w = delta_orthogonal()(random.key(0), (3, 2, 2))
        >>> w[0].tolist(), w.shape
        ([[0.0, 0.0], [0.0, 0.0]], (3, 2, 2))
    """

    def sample(key: KeyLike, dims: tuple[int, ...], dt: np.dtype[Any]) -> Array:
        if len(dims) not in (3, 4, 5):
            raise ValueError(
                f"delta_orthogonal: the shape must have 3, 4 or 5 dimensions, got {dims}; "
                "pass a 1D, 2D or 3D convolution kernel (spatial..., in, out)."
            )
        if dims[-1] < dims[-2]:
            raise ValueError(
                f"delta_orthogonal: fan_in={dims[-2]} exceeds fan_out={dims[-1]} in shape "
                f"{dims}; the last axis must be at least as long as the one before it."
            )
        centre = orthogonal(scale, column_axis, dt)(key, dims[-2:])
        middle = tuple((k - 1) // 2 for k in dims[:-2])
        return tnp.zeros(dims, dtype=dt).at[middle].set(centre)

    return _initializer("delta_orthogonal", dtype, sample)
