"""Shared machinery of the samplers: argument checks and the core transforms.

The ``_*_data`` functions take raw key data with optional leading batch
dimensions and return samples of shape ``(*batch, *shape)``; the public
samplers are thin wrappers that validate arguments first.
"""

from __future__ import annotations

import functools
import inspect
import math
from collections.abc import Callable
from typing import Any, NamedTuple, ParamSpec, TypeAlias, TypeVar, cast

import numpy as np
from numpy.typing import DTypeLike

from ._config import canonical_dtype, config, default_float, default_int
from ._namespace import (
    ArrayLike,
    Namespace,
    PrngArray,
    backend_ops,
    fused_normal_numpy,
    namespace_of,
)
from ._threefry import random_bits_data, split_data

__all__ = [
    "as_dtype",
    "as_param",
    "bernoulli_data",
    "broadcast_shapes",
    "check_shape",
    "float_dtype",
    "float_info",
    "float_param",
    "int_dtype",
    "is_float",
    "is_narrow_float",
    "narrow_result",
    "normal_data",
    "param_dtype",
    "quiet",
    "rademacher_data",
    "uniform_data",
    "xdtype",
]

Array: TypeAlias = PrngArray
_P = ParamSpec("_P")
_R = TypeVar("_R")


def quiet(fn: Callable[_P, _R]) -> Callable[_P, _R]:
    """Silence NumPy floating-point warnings from masked-out lanes of a sampler."""

    @functools.wraps(fn)
    def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        with np.errstate(all="ignore"):
            return fn(*args, **kwargs)

    return wrapper


def xdtype(xp: Namespace, dt: np.dtype[Any]) -> object:
    """The namespace's dtype object for the NumPy dtype ``dt``.

    A namespace without a name for an ``ml_dtypes`` float (NumPy itself) takes
    the NumPy dtype, which ``ml_dtypes`` registered.
    """
    found = getattr(xp, dt.name, None)
    if found is None and is_narrow_float(dt):
        return dt
    return getattr(xp, dt.name) if found is None else found


def is_narrow_float(dt: np.dtype[Any]) -> bool:
    """Whether ``dt`` is an 8- or 16-bit float of ``ml_dtypes`` (``bfloat16``, ``float8_*``).

    These are the extension floats the reference samples; ``float4``/``float6``
    types (fewer bits than a byte) are not.
    """
    return (
        dt.type.__module__ == "ml_dtypes"
        and "float" in dt.name
        and dt.name.startswith(("bfloat16", "float8_"))
    )


class FloatInfo(NamedTuple):
    """The ``finfo`` fields the samplers use, for NumPy and ``ml_dtypes`` floats."""

    bits: int
    nmant: int
    tiny: float
    eps: float
    epsneg: float


@functools.cache
def float_info(dt: np.dtype[Any]) -> FloatInfo:
    """``finfo`` values of the float dtype ``dt``, read from its bit layout.

    ``numpy.finfo`` does not know the ``ml_dtypes`` floats, so for them every
    bit pattern is decoded: ``eps`` is the gap above ``1.0``, and ``tiny``
    (the smallest normal) is the smallest positive value times ``2**nmant``.

    Args:
        dt: a NumPy float dtype or an ``ml_dtypes`` float dtype.

    Returns:
        A :class:`FloatInfo`.

    Example:
        >>> import numpy as np
        >>> float_info(np.dtype(np.float16))
        FloatInfo(bits=16, nmant=10, tiny=6.103515625e-05, eps=0.0009765625, epsneg=0.00048828125)
    """
    if not is_narrow_float(dt):
        fi = np.finfo(dt)
        return FloatInfo(fi.bits, fi.nmant, float(fi.tiny), float(fi.eps), float(fi.epsneg))
    bits = dt.itemsize * 8
    udt = np.dtype(f"uint{bits}")
    one = int(np.array(1.0, dt).view(udt))
    eps = float(np.array(one + 1, udt).view(dt).astype(np.float64)) - 1.0
    nmant = -math.frexp(eps)[1] + 1
    with np.errstate(invalid="ignore"):  # NaN patterns of formats without NaN
        values = np.arange(2**bits, dtype=np.uint64).astype(udt).view(dt).astype(np.float64)
    smallest = float(values[np.isfinite(values) & (values > 0)].min())
    return FloatInfo(bits, nmant, smallest * 2.0**nmant, eps, eps / 2.0)


def narrow_result(fn: Callable[_P, _R]) -> Callable[_P, _R]:
    """Round a sampler's result to its ``dtype`` argument if that is a 16- or 8-bit float.

    NumPy promotes the mix of ``ml_dtypes`` arrays and Python floats (and some
    float16 special functions) to ``float32``; the reference returns the
    requested dtype.

    Args:
        fn: a sampler with a ``dtype`` parameter.

    Returns:
        The sampler, whose result has the requested narrow dtype.

    Example:
        >>> import numpy as np
        >>> from tessela_prng import key, truncated_normal
        >>> truncated_normal(key(0), -1.0, 1.0, (2,), dtype=np.float16).dtype
        dtype('float16')
    """
    sig = inspect.signature(fn)

    @functools.wraps(fn)
    def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        out = fn(*args, **kwargs)
        dtype = sig.bind(*args, **kwargs).arguments.get("dtype")
        if dtype is None:
            return out
        dt = canonical_dtype(dtype, warn=False)
        if not (is_narrow_float(dt) or dt == np.float16):
            return out
        result = cast(_R, as_dtype(namespace_of(out), cast(Array, out), dt))
        return result

    return wrapper


def as_dtype(xp: Namespace, out: Array, dt: np.dtype[Any]) -> Array:
    """``out`` converted to the float dtype ``dt`` where it has another dtype."""
    target = xdtype(xp, dt)
    return out if out.dtype == target else xp.astype(out, target)


def float_dtype(
    name: str, dtype: DTypeLike | None, *, allow_complex: bool = False
) -> np.dtype[Any]:
    dt = default_float() if dtype is None else canonical_dtype(dtype)
    if not is_float(dt) and not (allow_complex and dt.kind == "c"):
        what = "a float or complex" if allow_complex else "a float"
        raise ValueError(
            f"dtype argument to `{name}` must be {what} dtype, got {dt}; "
            "pass e.g. dtype=numpy.float32."
        )
    return dt


def int_dtype(
    name: str, dtype: DTypeLike | None, *, error: type[Exception] = ValueError
) -> np.dtype[Any]:
    dt = default_int() if dtype is None else canonical_dtype(dtype)
    if dt.kind not in "iu":
        raise error(f"{name} only accepts integer dtypes, got {dt}; pass e.g. dtype=numpy.int32.")
    return dt


def param_dtype(value: ArrayLike) -> np.dtype[Any]:
    """The dtype JAX gives a parameter: Python scalars take the default width."""
    if isinstance(value, bool):
        return np.dtype(bool)
    if isinstance(value, int):
        return default_int()
    if isinstance(value, float):
        return default_float()
    if isinstance(value, complex):
        return canonical_dtype(np.complex128, warn=False)
    dt = getattr(value, "dtype", None)
    if dt is None:
        return canonical_dtype(np.asarray(value).dtype, warn=False)
    try:
        return canonical_dtype(np.dtype(str(dt).split(".")[-1]), warn=False)
    except TypeError:
        return canonical_dtype(np.dtype(dt), warn=False)


def is_float(dt: np.dtype[Any]) -> bool:
    """Whether ``dt`` is a real floating dtype: NumPy's or an ``ml_dtypes`` float."""
    return dt.kind == "f" or is_narrow_float(dt)


def float_param(xp: Namespace, value: ArrayLike) -> tuple[Array, np.dtype[Any]]:
    """A probability-like parameter as an array, and its dtype: the default float if not a float."""
    dt = param_dtype(value)
    dt = dt if is_float(dt) else default_float()
    return as_param(xp, value, dt), dt


def as_param(xp: Namespace, value: ArrayLike, dt: np.dtype[Any] | None = None) -> Array:
    """Convert a sampler parameter to an array of the key's namespace."""
    target = xdtype(xp, param_dtype(value) if dt is None else dt)
    if hasattr(value, "__array_namespace__") and namespace_of(value) is xp:
        arr = cast(Array, value)  # an array of the key's namespace
        return arr if arr.dtype == target else xp.astype(arr, target)
    if not isinstance(value, (bool, int, float, complex)):
        value = np.asarray(value)
        if dt is None:
            value = value.astype(param_dtype(value))
    return xp.asarray(value, dtype=target)


def shape_of(value: ArrayLike) -> tuple[int, ...]:
    return tuple(getattr(value, "shape", np.shape(value)))


def broadcast_shapes(name: str, *shapes: tuple[int, ...]) -> tuple[int, ...]:
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        raise ValueError(
            f"{name}: parameter shapes {list(shapes)} are not broadcast-compatible; "
            "make them broadcast against each other (or pass an explicit shape)."
        ) from None


def check_shape(name: str, shape: tuple[int, ...], *param_shapes: tuple[int, ...]) -> None:
    """Parameters must broadcast to exactly ``shape``, as in JAX."""
    if not param_shapes:
        return
    try:
        result = tuple(np.broadcast_shapes(shape, *param_shapes))
    except ValueError:
        result = None
    if result != shape:
        raise ValueError(
            f"{name} parameter shapes must be broadcast-compatible with shape argument, and "
            f"the result of broadcasting the shapes must equal the shape argument, but got "
            f"parameter shapes {list(param_shapes)} for shape argument {shape}. Pass "
            "shape=None to use the parameters' broadcast shape."
        )


def _static_span(lo: Array, hi: Array) -> float:
    """``hi - lo`` as a Python float, or NaN when the bounds are traced values."""
    try:
        return float(hi - lo)
    except TypeError:  # bounds computed under jit (truncated_normal's erf) are abstract
        return math.nan


def _is_pow2(v: float) -> bool:
    if not math.isfinite(v) or v <= 0.0:
        return False
    m, _ = math.frexp(v)
    return m == 0.5


def uniform_data(
    data: Array,
    shape: tuple[int, ...],
    dt: np.dtype[Any],
    minval: ArrayLike = 0.0,
    maxval: ArrayLike = 1.0,
) -> Array:
    """Uniform floats in ``[minval, maxval)`` for every key of ``data``."""
    xp = namespace_of(data)
    finfo = float_info(dt)
    nbits, nmant = finfo.bits, finfo.nmant
    rng_bits = 8 if nmant < 8 else nbits
    batch = tuple(data.shape[:-1])
    work = shape if (shape or batch) else (1,)
    raw = random_bits_data(data, rng_bits, work)
    udt = xdtype(xp, np.dtype(f"uint{nbits}"))
    fdt = xdtype(xp, dt)
    if rng_bits != nbits:
        raw = xp.astype(raw, udt)
    mant = xp.bitwise_right_shift(raw, xp.asarray(rng_bits - nmant, dtype=udt))
    floats = xp.astype(mant, fdt)
    lo = as_param(xp, minval, dt)
    hi = as_param(xp, maxval, dt)
    unit = float(2.0**-nmant)
    if len(lo.shape) == 0 and len(hi.shape) == 0 and _is_pow2(_static_span(lo, hi)):
        # The product by a power of two is exact, so fused and unfused agree.
        # With a positive span the result cannot fall below ``lo``.
        floats *= unit * float(hi - lo)
        if float(lo) != 0.0:
            floats += lo
        out = floats
    else:
        floats *= unit
        span = hi - lo
        if dt.itemsize == 4:
            # one rounding, as the fused multiply-add of the reference does
            f64 = xp.float64
            fused = xp.astype(floats, f64) * xp.astype(span, f64) + xp.astype(lo, f64)
            floats = xp.astype(fused, fdt)
        else:
            floats *= span  # narrower floats: one rounding per operation
            floats += lo
        out = xp.maximum(lo, floats)
    return xp.reshape(out, batch + shape)


def normal_data(data: Array, shape: tuple[int, ...], dt: np.dtype[Any]) -> Array:
    """Standard normal samples for every key of ``data``."""
    xp = namespace_of(data)
    if dt.kind == "c":
        real = np.dtype("float32" if dt.itemsize == 8 else "float64")
        halves = split_data(data, (2,))
        re = normal_data(halves[..., 0, :], shape, real)
        im = normal_data(halves[..., 1, :], shape, real)
        cdt = xdtype(xp, dt)
        out = xp.astype(re, cdt) + xp.astype(im, cdt) * 1j
        return out / float(np.sqrt(np.array(2.0, real)))
    if dt == np.float32:
        batch = tuple(data.shape[:-1])
        iota = config.threefry_partitionable and not batch and math.prod(shape) < 2**32
        fused = fused_normal_numpy(
            data, shape, lambda: random_bits_data(data, 32, shape), iota=iota
        )
        if fused is not None:
            return fused
    lo = -1.0 + float_info(dt).epsneg
    u = uniform_data(data, shape, dt, lo, 1.0)
    if dt.itemsize < 4:
        # Half-width and 8-bit floats take erf_inv in float32, rounded back.
        out = xp.astype(backend_ops(data).erf_inv(xp.astype(u, xp.float32)), xdtype(xp, dt))
    else:
        out = backend_ops(data).erf_inv(u)
    out *= float(np.array(math.sqrt(2.0), dt))
    return xp.reshape(out, tuple(data.shape[:-1]) + shape)


def x64_enabled() -> bool:
    return config.enable_x64


def bernoulli_data(data: Array, p: Array, shape: tuple[int, ...], mode: str) -> Array:
    """Booleans that are True with probability ``p`` (an array of float dtype)."""
    xp = namespace_of(data)
    dt = param_dtype(p)
    if mode == "high":
        both = uniform_data(data, (2, *shape), dt)
        u1, u2 = both[0, ...], both[1, ...]
        u2 = u2 * float(2.0 ** -float_info(dt).nmant)
        return u2 < p - u1
    out = uniform_data(data, shape, dt) < p
    return xp.reshape(out, tuple(data.shape[:-1]) + shape)


def rademacher_data(data: Array, shape: tuple[int, ...], dt: np.dtype[Any]) -> Array:
    """Random signs (``-1`` or ``+1``) of dtype ``dt``."""
    xp = namespace_of(data)
    half = xp.asarray(0.5, dtype=xdtype(xp, default_float()))
    b = xp.astype(bernoulli_data(data, half, shape, "low"), xdtype(xp, dt))
    return xp.astype(2 * b - 1, xdtype(xp, dt))
