"""Array namespaces and the backend-ops table.

The samplers are written against the Python array API standard: they take the
namespace from the key's data (``data.__array_namespace__()``) and call only
standard functions on it. NumPy arrays get a thin adapter (:data:`numpy_xp`)
that fills the few standard names NumPy 1.26 lacks.

A handful of operations are not in the standard, or must be replaceable by a
tracing backend (a primitive instead of a Python loop). They live in a
:class:`BackendOps` table, looked up per namespace with :func:`backend_ops`:

``threefry2x32(k0, k1, x0, x1) -> (y0, y1)``
    the Threefry-2x32 hash on broadcast-compatible ``uint32`` arrays.
``threefry2x32_iota(k0, k1, shape) -> (y0, y1)``
    the hash of the counters ``(0, i)`` for every flat index ``i`` of
    ``shape`` (fewer than ``2**32`` elements) under scalar key words.
``erf_inv(x)``, ``erf(x)``, ``lgamma(x)``
    special functions on floating arrays, elementwise.
``while_loop(cond, body, init)``
    ``lax.while_loop`` semantics over a tuple of arrays; ``cond`` returns a
    boolean scalar array.
``sort_key_val(keys, values)``
    stable sort of ``values`` by ``keys`` along the last axis.
``top_k(x, k)``
    indices of the ``k`` largest entries along the last axis (ties: lower
    index first).

Every entry has a default written in standard operations, so any conforming
namespace works unchanged; :func:`register_backend_ops` lets another array
library register faster or traceable versions.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol, TypeAlias, cast

import numpy as np
import numpy.typing as npt

from ._normal_numpy import (
    BLOCK,
    ERFINV_LT5_DIGITS,
    ErfInvScratch,
    F32Array,
    erf_inv_f32_block,
    normal_f32_from_bits,
    normal_f32_iota,
)
from ._threefry_numpy import (
    U32Array,
    parallel_blocks,
    threefry2x32_iota_numpy,
    threefry2x32_iota_pairs_numpy,
    threefry2x32_numpy,
)

__all__ = [
    "ArrayLike",
    "BackendOps",
    "PrngArray",
    "SupportsArray",
    "backend_ops",
    "fused_normal_numpy",
    "iota_pairs_numpy",
    "namespace_of",
    "numpy_xp",
    "register_backend_ops",
]


class Namespace(Protocol):
    """An array namespace (an array's ``__array_namespace__()``) as the samplers call it.

    Each function named by the array API standard is looked up by name and
    returns an array; ``numpy_xp`` and ``array-api-strict`` qualify.

    Example:
        >>> def zeros(xp: Namespace) -> PrngArray:
        ...     return xp.zeros((2,))
        >>> zeros(numpy_xp)
        array([0., 0.])
    """

    def __getattr__(self, name: str, /) -> Callable[..., PrngArray]: ...

    @property
    def linalg(self) -> Any:
        """The linear-algebra extension: its functions give arrays or tuples of them (``qr``, ``svd``)."""


class SupportsArray(Protocol):
    """An array of any array-API library, as the samplers' arguments are read: shape and dtype.

    NumPy arrays and scalars, ``array-api-strict`` arrays, Tessela's arrays
    and tracers and :class:`~tessela_prng.KeyArray` all qualify, by their
    attributes alone. (Results are :class:`PrngArray`, which adds the
    operators.)

    Example:
        >>> import numpy as np
        >>> def rank(x: SupportsArray) -> int:
        ...     return len(x.shape)
        >>> rank(np.zeros((2, 3)))
        2
    """

    @property
    def shape(self) -> tuple[int, ...]: ...

    @property
    def dtype(self) -> object: ...


Array: TypeAlias = "PrngArray"


class PrngArray(Protocol):
    """An array as the samplers compute with it and return it: NumPy's, ``array-api-strict``'s or Tessela's.

    It declares what the array API standard gives every array and this
    package applies to one: ``shape``, ``dtype`` and ``ndim``, indexing, and
    the arithmetic, comparison and bitwise operators, each giving another such
    array. Other operations go through the array's namespace (``xp.reshape``,
    ``xp.astype``), since ``array-api-strict`` arrays have no such methods.
    NumPy arrays, ``array-api-strict`` arrays and Tessela's arrays and tracers
    satisfy it by their methods alone; the samplers return this type. (NumPy's
    floating scalars do not: they have no bitwise operators or indexing.)

    Example:
        >>> import numpy as np
        >>> def affine(x: PrngArray) -> PrngArray:
        ...     return (x * 2 + 1)[0]
        >>> affine(np.zeros((2, 2)))
        array([1., 1.])
    """

    @property
    def shape(self) -> tuple[int, ...]: ...

    @property
    def dtype(self) -> object: ...

    @property
    def ndim(self) -> int: ...

    def __getitem__(self, index: Any, /) -> PrngArray: ...

    def __float__(self) -> float: ...

    def __int__(self) -> int: ...

    def __eq__(self, other: Any, /) -> PrngArray: ...  # type: ignore[override]

    def __ne__(self, other: Any, /) -> PrngArray: ...  # type: ignore[override]

    def __neg__(self) -> PrngArray: ...

    def __invert__(self) -> PrngArray: ...

    def __add__(self, other: Any, /) -> PrngArray: ...

    def __radd__(self, other: Any, /) -> PrngArray: ...

    def __sub__(self, other: Any, /) -> PrngArray: ...

    def __rsub__(self, other: Any, /) -> PrngArray: ...

    def __mul__(self, other: Any, /) -> PrngArray: ...

    def __rmul__(self, other: Any, /) -> PrngArray: ...

    def __truediv__(self, other: Any, /) -> PrngArray: ...

    def __rtruediv__(self, other: Any, /) -> PrngArray: ...

    def __floordiv__(self, other: Any, /) -> PrngArray: ...

    def __mod__(self, other: Any, /) -> PrngArray: ...

    def __pow__(self, other: Any, /) -> PrngArray: ...

    def __rpow__(self, other: Any, /) -> PrngArray: ...

    def __lt__(self, other: Any, /) -> PrngArray: ...

    def __le__(self, other: Any, /) -> PrngArray: ...

    def __gt__(self, other: Any, /) -> PrngArray: ...

    def __ge__(self, other: Any, /) -> PrngArray: ...

    def __and__(self, other: Any, /) -> PrngArray: ...

    def __or__(self, other: Any, /) -> PrngArray: ...

    def __xor__(self, other: Any, /) -> PrngArray: ...

    def __lshift__(self, other: Any, /) -> PrngArray: ...

    def __rshift__(self, other: Any, /) -> PrngArray: ...


ArrayLike: TypeAlias = SupportsArray | bool | int | float | complex
"""A sampler's parameter: an array of any array-API library, or a Python scalar."""

NumPyValue: TypeAlias = npt.NDArray[np.generic] | np.generic
"""What NumPy's functions return: an array, or a scalar for 0-d results."""


class _NumPyNamespace:
    """NumPy under the array-API names used by the samplers."""

    __name__ = "numpy"

    def __getattr__(self, name: str) -> Any:
        return getattr(np, name)

    @staticmethod
    def astype(x: npt.ArrayLike, dtype: npt.DTypeLike, /, *, copy: bool = True) -> NumPyValue:
        return np.asarray(x).astype(dtype, copy=copy)

    @staticmethod
    def concat(arrays: Sequence[npt.ArrayLike], /, *, axis: int = 0) -> NumPyValue:
        return np.concatenate(arrays, axis=axis)

    @staticmethod
    def permute_dims(x: npt.ArrayLike, /, axes: tuple[int, ...]) -> NumPyValue:
        return np.transpose(x, axes)

    @staticmethod
    def pow(x: npt.ArrayLike, y: npt.ArrayLike, /) -> NumPyValue:
        return np.power(x, y)

    @staticmethod
    def bitwise_left_shift(x: npt.ArrayLike, y: npt.ArrayLike, /) -> NumPyValue:
        return np.left_shift(x, y)

    @staticmethod
    def bitwise_right_shift(x: npt.ArrayLike, y: npt.ArrayLike, /) -> NumPyValue:
        return np.right_shift(x, y)

    @staticmethod
    def bitwise_invert(x: npt.ArrayLike, /) -> NumPyValue:
        return np.invert(x)

    @staticmethod
    def cumulative_sum(x: npt.ArrayLike, /, *, axis: int | None = None) -> NumPyValue:
        return np.cumsum(x, axis=axis)

    @staticmethod
    def take_along_axis(
        x: npt.NDArray[np.generic], indices: npt.NDArray[np.integer[Any]], /, *, axis: int = -1
    ) -> NumPyValue:
        return np.take_along_axis(x, indices, axis=axis)

    @staticmethod
    def matrix_transpose(x: npt.ArrayLike, /) -> NumPyValue:
        return np.swapaxes(x, -1, -2)

    @staticmethod
    def argsort(
        x: npt.NDArray[np.generic],
        /,
        *,
        axis: int = -1,
        descending: bool = False,
        stable: bool = True,
    ) -> NumPyValue:
        if descending:
            flipped = np.flip(x, axis=axis)
            idx = np.argsort(flipped, axis=axis, kind="stable")
            n = x.shape[axis]
            return cast(NumPyValue, np.flip(n - 1 - idx, axis=axis))
        return np.argsort(x, axis=axis, kind="stable")


numpy_xp: Namespace = _NumPyNamespace()


def namespace_of(x: object, /) -> Namespace:
    """Return the array namespace of ``x`` (the NumPy adapter for NumPy arrays)."""
    if isinstance(x, (np.ndarray, np.generic)):
        return numpy_xp
    get = getattr(x, "__array_namespace__", None)
    if get is None:
        return numpy_xp
    return cast(Namespace, get())


# ----------------------------------------------------------------------------
# Default implementations, in standard operations only.


def _threefry2x32_generic(k0: Array, k1: Array, x0: Array, x1: Array) -> tuple[Array, Array]:
    xp = namespace_of(x0)
    u32 = xp.uint32
    k0 = xp.astype(k0, u32)
    k1 = xp.astype(k1, u32)
    k2 = k0 ^ k1 ^ xp.asarray(0x1BD11BDA, dtype=u32)
    ks = (k0, k1, k2)
    rotations = ((13, 15, 26, 6), (17, 29, 16, 24))
    a = x0 + k0
    b = x1 + k1
    for i in range(5):
        for r in rotations[i % 2]:
            a = a + b
            b = xp.bitwise_left_shift(b, xp.asarray(r, dtype=u32)) | xp.bitwise_right_shift(
                b, xp.asarray(32 - r, dtype=u32)
            )
            b = a ^ b
        a = a + ks[(i + 1) % 3]
        b = b + ks[(i + 2) % 3] + xp.asarray(i + 1, dtype=u32)
    return a, b


def _threefry2x32_iota_generic(k0: Array, k1: Array, shape: tuple[int, ...]) -> tuple[Array, Array]:
    xp = namespace_of(k0)
    n = math.prod(shape)
    lo = xp.reshape(xp.arange(n, dtype=xp.uint32), shape)
    return _threefry2x32_generic(k0, k1, xp.zeros(shape, dtype=xp.uint32), lo)


def _poly(xp: Namespace, x: Array, coeffs: tuple[float, ...]) -> Array:
    acc = xp.full(x.shape, coeffs[0], dtype=x.dtype)
    for c in coeffs[1:]:
        acc = acc * x + c
    return acc


_ERFINV_LT5 = ERFINV_LT5_DIGITS
_ERFINV_GE5 = (
    -0.000200214257,
    0.000100950558,
    0.00134934322,
    -0.00367342844,
    0.00573950773,
    -0.0076224613,
    0.00943887047,
    1.00167406,
    2.83297682,
)


def _fma32(xp: Namespace, a: Array, b: Array, c: float) -> Array:
    """``a * b + c`` rounded once to float32, as a fused multiply-add does."""
    f64 = xp.float64
    return xp.astype(xp.astype(a, f64) * xp.astype(b, f64) + c, xp.float32)


def _poly_fma32(xp: Namespace, x: Array, coeffs: tuple[float, ...]) -> Array:
    acc = xp.full(x.shape, coeffs[0], dtype=xp.float32)
    for c in coeffs[1:]:
        acc = _fma32(xp, acc, x, float(np.float32(c)))
    return acc


def _erf_inv32(xp: Namespace, x: Array) -> Array:
    # Giles' single-precision approximation, with w = -log1p(-x*x) and the
    # polynomials evaluated with fused multiply-adds (emulated in float64).
    w = -xp.log1p(-(x * x))
    small = w < 5.0
    w = xp.where(small, w - 2.5, xp.sqrt(w) - 3.0)
    p = xp.where(small, _poly_fma32(xp, w, _ERFINV_LT5), _poly_fma32(xp, w, _ERFINV_GE5))
    out = p * x
    return xp.where(xp.abs(x) == 1.0, x * math.inf, out)


def _erf64(xp: Namespace, x: Array) -> Array:
    # erf by its everywhere-positive series below 3 and by the continued
    # fraction of erfc above; both converge to double precision in 60 terms.
    ax = xp.abs(x)
    small = xp.minimum(ax, 3.0)
    z2 = small * small
    term = small
    total = small
    for n in range(1, 80):
        term = term * (2.0 * z2) / (2.0 * n + 1.0)
        total = total + term
    series = (2.0 / math.sqrt(math.pi)) * xp.exp(-z2) * total
    big = xp.maximum(ax, 3.0)
    frac = big
    for n in range(60, 0, -1):
        frac = big + (n / 2.0) / frac
    erfc = xp.exp(-big * big) / (math.sqrt(math.pi) * frac)
    mag = xp.where(ax < 3.0, series, 1.0 - erfc)
    return xp.where(x < 0.0, -mag, mag)


_ERF32_ALPHA = (
    -2.72614225801306e-10,
    2.77068142495902e-08,
    -2.10102402082508e-06,
    -5.69250639462346e-05,
    -7.34990630326855e-04,
    -2.95459980854025e-03,
    -1.60960333262415e-02,
)
_ERF32_BETA = (
    -1.45660718464996e-05,
    -2.13374055278905e-04,
    -1.68282697438203e-03,
    -7.37332916720468e-03,
    -1.42647390514189e-02,
)


def _erf_generic(x: Array) -> Array:
    xp = namespace_of(x)
    if x.dtype == xp.float64:
        return _erf64(xp, x)
    c = xp.clip(x, -4.0, 4.0)
    c2 = c * c
    return c * _poly(xp, c2, _ERF32_ALPHA) / _poly(xp, c2, _ERF32_BETA)


def _erf_inv_generic(x: Array) -> Array:
    xp = namespace_of(x)
    if x.dtype != xp.float64:
        return _erf_inv32(xp, x)
    y = _erf_inv32(xp, x)
    finite = xp.abs(x) < 1.0
    y = xp.where(finite, y, 0.0)
    for _ in range(3):
        step = (_erf64(xp, y) - x) / ((2.0 / math.sqrt(math.pi)) * xp.exp(-y * y))
        y = y - xp.where(finite, step, 0.0)
    return xp.where(finite, y, x * math.inf)


_LANCZOS_G = 7.0
_LANCZOS_BASE = 0.99999999999980993227684700473478
_LANCZOS = (
    676.520368121885098567009190444019,
    -1259.13921672240287047156078755283,
    771.3234287776530788486528258894,
    -176.61502916214059906584551354,
    12.507343278686904814458936853,
    -0.13857109526572011689554707,
    9.984369578019570859563e-6,
    1.50563273514931155834e-7,
)


def _lgamma_generic(x: Array) -> Array:
    xp = namespace_of(x)
    reflect = x < 0.5
    z = xp.where(reflect, -x, x - 1.0)
    acc = xp.full(x.shape, _LANCZOS_BASE, dtype=x.dtype)
    for i, c in enumerate(_LANCZOS):
        acc = acc + c / (z + float(i) + 1.0)
    t = (_LANCZOS_G + 0.5) + z
    log_t = math.log(_LANCZOS_G + 0.5) + xp.log1p(z / (_LANCZOS_G + 0.5))
    log_y = (math.log(2.0) + math.log(math.pi)) / 2.0 + (z + 0.5 - t / log_t) * log_t + xp.log(acc)
    ax = xp.abs(x)
    frac = ax - xp.floor(ax)
    frac = xp.where(frac > 0.5, 1.0 - frac, frac)
    denom = xp.log(xp.sin(math.pi * frac))
    reflection = xp.where(xp.isfinite(denom), math.log(math.pi) - denom - log_y, -denom)
    out = xp.where(reflect, reflection, log_y)
    return xp.where(xp.isinf(x), math.inf, out)


def _while_loop_python(
    cond: Callable[[tuple[Array, ...]], Array],
    body: Callable[[tuple[Array, ...]], tuple[Array, ...]],
    init: tuple[Array, ...],
) -> tuple[Array, ...]:
    state = init
    while bool(cond(state)):
        state = body(state)
    return state


def _sort_key_val_generic(keys: Array, values: Array) -> Array:
    xp = namespace_of(keys)
    order = xp.argsort(keys, axis=-1, stable=True)
    return xp.take_along_axis(values, order, axis=-1)


def _top_k_generic(x: Array, k: int) -> Array:
    xp = namespace_of(x)
    order = xp.argsort(x, axis=-1, descending=True, stable=True)
    return order[..., :k]


_Hash: TypeAlias = Callable[[Array, Array, Array, Array], tuple[Array, Array]]
_HashIota: TypeAlias = Callable[[Array, Array, tuple[int, ...]], tuple[Array, Array]]


@dataclass(frozen=True)
class BackendOps:
    """Operations outside the array API standard, one set per namespace.

    Example:
        >>> import numpy as np
        >>> from tessela_prng import backend_ops
        >>> ops = backend_ops(np.zeros(1))
        >>> float(ops.erf_inv(np.float32(0.5)))
        0.4769362807273865
    """

    threefry2x32: _Hash
    threefry2x32_iota: _HashIota
    erf_inv: Callable[[Array], Array]
    erf: Callable[[Array], Array]
    lgamma: Callable[[Array], Array]
    while_loop: Callable[..., tuple[Array, ...]]
    sort_key_val: Callable[[Array, Array], Array]
    top_k: Callable[[Array, int], Array]


_GENERIC = BackendOps(
    threefry2x32=_threefry2x32_generic,
    threefry2x32_iota=_threefry2x32_iota_generic,
    erf_inv=_erf_inv_generic,
    erf=_erf_generic,
    lgamma=_lgamma_generic,
    while_loop=_while_loop_python,
    sort_key_val=_sort_key_val_generic,
    top_k=_top_k_generic,
)


def _erf_inv_tail(x: F32Array) -> F32Array:
    return cast(F32Array, _erf_inv32(numpy_xp, x))


def _erf_inv_numpy(x: Array) -> Array:
    """Blocked, multi-threaded NumPy version of :func:`_erf_inv32` (within 3 ulps)."""
    x = np.asarray(x)
    if x.dtype != np.float32 or x.size < 4096:
        return _erf_inv_generic(x)
    flat = np.ascontiguousarray(x).reshape(-1)
    out = np.empty_like(flat)

    def work(start: int, stop: int) -> None:
        scratch = ErfInvScratch()
        for s in range(start, stop, BLOCK):
            e = min(s + BLOCK, stop)
            erf_inv_f32_block(flat[s:e], out[s:e], scratch, _erf_inv_tail)

    with np.errstate(all="ignore"):
        parallel_blocks(flat.size, work)
    return out.reshape(x.shape)


def _np_unary(f: Callable[[Array], Array]) -> Callable[[Array], Array]:
    def wrapped(x: Array) -> Array:
        return f(np.asarray(x))

    return wrapped


_REGISTRY: dict[int, tuple[Namespace, BackendOps]] = {
    id(numpy_xp): (
        numpy_xp,
        replace(
            _GENERIC,
            # NumPy's hash accepts any array-like; here it is given NumPy arrays.
            threefry2x32=cast(_Hash, threefry2x32_numpy),
            threefry2x32_iota=cast(_HashIota, threefry2x32_iota_numpy),
            erf_inv=_erf_inv_numpy,
            erf=_np_unary(_erf_generic),
            lgamma=_np_unary(_lgamma_generic),
        ),
    )
}


_NUMPY_OPS = _REGISTRY[id(numpy_xp)][1]
_FUSED_MIN = 4096


def fused_normal_numpy(
    data: Array, shape: tuple[int, ...], bits: Callable[[], Array], *, iota: bool
) -> Array | None:
    """``float32`` normal samples for NumPy key data, fused block by block.

    Returns None where the fused kernels do not apply: another namespace,
    replaced backend ops, or fewer than ``_FUSED_MIN`` samples. With ``iota``
    the counters are hashed in the same blocks; otherwise ``bits()`` gives
    the random words, shaped ``(*batch, *shape)``.
    """
    if namespace_of(data) is not numpy_xp:
        return None
    ops = _REGISTRY[id(numpy_xp)][1]
    if ops.erf_inv is not _NUMPY_OPS.erf_inv or math.prod(data.shape[:-1] + shape) < _FUSED_MIN:
        return None
    lo = np.nextafter(np.float32(-1.0), np.float32(0.0))
    if iota and ops.threefry2x32_iota is _NUMPY_OPS.threefry2x32_iota:
        w0 = int(np.asarray(data[0]))
        w1 = int(np.asarray(data[1]))
        return normal_f32_iota(w0, w1, math.prod(shape), lo, _erf_inv_tail).reshape(shape)
    return normal_f32_from_bits(cast(U32Array, bits()), lo, _erf_inv_tail)


def iota_pairs_numpy(data: Array, shape: tuple[int, ...]) -> Array | None:
    """Stacked ``threefry2x32_iota`` words ``(*shape, 2)`` for one NumPy key, or None.

    None where the key is not a NumPy array or NumPy's hash was replaced.
    """
    if namespace_of(data) is not numpy_xp:
        return None
    if _REGISTRY[id(numpy_xp)][1].threefry2x32_iota is not _NUMPY_OPS.threefry2x32_iota:
        return None
    words = cast(U32Array, data)  # a NumPy key, checked above
    return threefry2x32_iota_pairs_numpy(words[0], words[1], shape)


def register_backend_ops(namespace: Namespace, /, **ops: Callable[..., Any]) -> None:
    """Register replacements for backend ops of an array namespace.

    Args:
        namespace: the object returned by the arrays' ``__array_namespace__()``.
        **ops: any of the :class:`BackendOps` fields; the others keep their
            standard-operations defaults.

    Returns:
        None.

    Example:
        >>> import types
        >>> from tessela_prng import register_backend_ops, backend_ops
        >>> ns = types.SimpleNamespace()
        >>> register_backend_ops(ns, top_k=lambda x, k: x[:k])
        >>> backend_ops(ns).top_k([3, 2, 1], 2)
        [3, 2]
    """
    unknown = set(ops) - set(BackendOps.__dataclass_fields__)
    if unknown:
        fields = ", ".join(BackendOps.__dataclass_fields__)
        raise TypeError(
            f"register_backend_ops got unknown op(s) {sorted(unknown)}; known ops are {fields}."
        )
    _, base = _REGISTRY.get(id(namespace), (namespace, _GENERIC))
    _REGISTRY[id(namespace)] = (namespace, replace(base, **ops))


def backend_ops(x: object, /) -> BackendOps:
    """Return the backend ops for the namespace of array ``x``.

    Args:
        x: an array (its namespace selects the table) or a namespace itself.

    Returns:
        The registered :class:`BackendOps`, or the standard-operations defaults.

    Example:
        >>> import numpy as np
        >>> from tessela_prng import backend_ops
        >>> backend_ops(np.zeros(2)).top_k(np.array([1.0, 3.0, 2.0]), 2).tolist()
        [1, 2]
    """
    xp = x if id(x) in _REGISTRY else namespace_of(x)
    entry = _REGISTRY.get(id(xp))
    return entry[1] if entry is not None else _GENERIC
