"""``reduce_precision_p``, ``optimization_barrier_p``, the generic ``reduce_p`` and XLA's RNGs.

- ``reduce_precision`` rounds a floating-point array to the values a format
  with ``exponent_bits`` exponent and ``mantissa_bits`` mantissa bits holds
  (rounding to nearest even, overflowing to infinity, flushing what falls
  below the format's range), keeping the operand's dtype.
- ``optimization_barrier`` returns its operands unchanged; the compiler may
  not move computations across it.
- ``reduce`` reduces operands (and one scalar initial value each) over
  ``dimensions`` with a traced ``computation``; ``lax.add`` / ``mul`` /
  ``max`` / ``min`` / ``bitwise_and`` / ``or`` / ``xor`` with their identities become
  ``reduce_sum`` and its siblings instead, as in JAX.
- ``rng_bit_generator`` runs XLA's stateless RngBitGenerator on a ``uint32[4]``
  key (a ``uint64[2]`` one too) and returns the next key and the bits;
  ``rng_uniform`` is XLA's stateful uniform RNG (experimental in JAX too).
- ``copy`` returns a copy of its operand (JAX's ``lax.copy_p``, what
  ``jnp.array(x, copy=True)`` binds): a new buffer with the same values.
- ``create_token`` makes a token (aval :class:`AbstractToken`, ``Tok``) and
  ``after_all`` merges tokens, as XLA's ``create_token`` / ``after_all``.
"""

from __future__ import annotations

import enum
import operator
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt
from tessela_pytree import tree_flatten, tree_unflatten

from tessela_tracer import _dtypes
from tessela_tracer import _lax as L
from tessela_tracer import _lax_reduce as R
from tessela_tracer._avals import AbstractToken, OutSharding, ShapedArray, Token, abstract_token
from tessela_tracer._core import Primitive, Tracer, register_abstract_eval, register_impl
from tessela_tracer._core import get_aval_of as _aval
from tessela_tracer._jaxpr import ClosedJaxpr
from tessela_tracer._prims_reduce import check_reduction_axes
from tessela_tracer._prims_window import _identity_of, flat_operands, reduction_jaxpr
from tessela_tracer.typing import Array, ArrayLike

__all__ = [
    "RandomAlgorithm",
    "after_all",
    "after_all_p",
    "copy_p",
    "create_token",
    "create_token_p",
    "optimization_barrier",
    "optimization_barrier_p",
    "reduce",
    "reduce_p",
    "reduce_precision",
    "reduce_precision_p",
    "rng_bit_generator",
    "rng_bit_generator_p",
    "rng_uniform",
    "rng_uniform_p",
]

_T = TypeVar("_T")


# ------------------------------------------------------------------ reduce_precision


def _reduce_precision_abstract_eval(
    x: ShapedArray, *, exponent_bits: int, mantissa_bits: int
) -> ShapedArray:
    if not _dtypes.issubdtype(x.dtype, np.floating):
        raise TypeError(
            f"reduce_precision does not accept dtype {x.dtype.name}. Accepted dtypes are "
            "subtypes of floating."
        )
    if operator.index(exponent_bits) < 1:
        raise ValueError(f"reduce_precision: exponent_bits must be positive; got {exponent_bits}")
    if operator.index(mantissa_bits) < 0:
        raise ValueError(
            f"reduce_precision: mantissa_bits must be non-negative; got {mantissa_bits}"
        )
    return x


reduce_precision_p = Primitive("reduce_precision")
register_abstract_eval(reduce_precision_p, _reduce_precision_abstract_eval)


def reduce_precision(operand: ArrayLike, exponent_bits: int, mantissa_bits: int) -> Array:
    """Round ``operand`` to a narrower floating-point format, keeping its dtype.

    Args:
      operand: a floating-point array or scalar.
      exponent_bits: the target format's exponent bits (8 for bfloat16, 5 for
        float16).
      mantissa_bits: its explicit mantissa bits (7 for bfloat16, 10 for float16).

    Returns:
      The rounded array, of ``operand``'s dtype and shape.

    Example:
        >>> import numpy as np
        >>> from tessela_tracer import make_jaxpr
        >>> make_jaxpr(lambda x: reduce_precision(x, 8, 7))(np.float32(1)).eqns[0].params
        {'exponent_bits': 8, 'mantissa_bits': 7}
    """
    e = _concrete_index(exponent_bits, "exponent_bits")
    m = _concrete_index(mantissa_bits, "mantissa_bits")
    out: Array = reduce_precision_p.bind(operand, exponent_bits=e, mantissa_bits=m)
    return out


def _concrete_index(v: Any, what: str) -> int:
    if isinstance(v, Tracer):
        raise TypeError(
            f"Abstract tracer value encountered where concrete value is expected: the {what} "
            "argument of lax.reduce_precision must be a Python integer."
        )
    return operator.index(v)


# ------------------------------------------------------------------ optimization_barrier


def _barrier_abstract_eval(*avals: ShapedArray) -> list[ShapedArray]:
    return list(avals)


optimization_barrier_p = Primitive("optimization_barrier", multiple_results=True)
register_abstract_eval(optimization_barrier_p, _barrier_abstract_eval)


def optimization_barrier(operand: _T, /) -> _T:
    """Return ``operand`` (a pytree of arrays) unchanged, as an optimization barrier.

    The compiler keeps every computation an output depends on from moving
    across the barrier, for instance to control rematerialization.

    Args:
      operand: a pytree of arrays.

    Returns:
      The same pytree, its leaves passed through the barrier.

    Example:
        >>> import numpy as np
        >>> from tessela_tracer import make_jaxpr
        >>> make_jaxpr(lambda x, y: optimization_barrier((x, y)))(1.0, 2.0).eqns[0].primitive
        optimization_barrier
    """
    flat, tree = tree_flatten(operand)
    if not flat:
        return operand
    out: _T = tree_unflatten(tree, optimization_barrier_p.bind(*flat))
    return out


# ------------------------------------------------------------------ reduce


class ReduceComputation:
    """The ``computation`` parameter of ``reduce``: prints as JAX prints a function."""

    __slots__ = ("fun",)

    def __init__(self, fun: Callable[..., Any]) -> None:
        self.fun = fun

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ReduceComputation) and other.fun is self.fun

    def __hash__(self) -> int:
        return hash(id(self.fun))

    def __str__(self) -> str:
        name = getattr(self.fun, "__qualname__", None) or type(self.fun).__name__
        return f"<function {name} at {hex(id(self.fun))}>"

    __repr__ = __str__


def _reduce_abstract_eval(
    *avals: ShapedArray, computation: Any, jaxpr: ClosedJaxpr, dimensions: tuple[int, ...]
) -> list[ShapedArray]:
    n = len(avals) // 2
    ops, inits = avals[:n], avals[n:]
    if any(a.shape != () for a in inits):
        raise ValueError(f"reduce found non-scalar initial value: {[a.shape for a in inits]}")
    if [a.dtype for a in ops] != [a.dtype for a in inits]:
        raise TypeError(
            "reduce operand dtypes should match corresponding initial value dtypes, got "
            f"operands={list(ops)} and initial_values={list(inits)}"
        )
    shapes = {a.shape for a in ops}
    if len(shapes) != 1:
        raise ValueError(f"reduce operands must have the same shape, got {sorted(shapes)}")
    check_reduction_axes("reduce", ops[0], dimensions, by_index=True)
    out = []
    for a, i in zip(ops, inits, strict=True):
        shape = tuple(s for k, s in enumerate(a.shape) if k not in dimensions)
        out.append(ShapedArray(shape, a.dtype, a.weak_type and i.weak_type))
    return out


reduce_p = Primitive("reduce", multiple_results=True)
register_abstract_eval(reduce_p, _reduce_abstract_eval)


def _is_concrete_scalar(x: Any) -> bool:
    return not isinstance(x, Tracer) and np.shape(x) == ()


def _monoid_reducer(computation: Any, inits: Sequence[Any]) -> Callable[..., Any] | None:
    if len(inits) != 1 or not _is_concrete_scalar(inits[0]):
        return None
    dt = _aval(inits[0]).dtype
    val = np.asarray(inits[0])
    intlike = dt == np.bool_ or _dtypes.issubdtype(dt, np.integer)
    table: list[tuple[Any, Any, bool, Callable[..., Any]]] = [
        (L.add, lambda: 0, True, R.reduce_sum),
        (L.mul, lambda: 1, True, R.reduce_prod),
        (L.bitwise_or, lambda: np.array(0, dt), intlike, R.reduce_or),
        (L.bitwise_and, lambda: np.array(-1).astype(dt), intlike, R.reduce_and),
        (L.bitwise_xor, lambda: np.array(0, dt), intlike, R.reduce_xor),
        (L.max, lambda: _identity_of("max", dt), True, R.reduce_max),
        (L.min, lambda: _identity_of("min", dt), True, R.reduce_min),
    ]
    for op, identity, ok, reducer in table:
        if computation is op and ok:
            return reducer if bool(np.equal(val, identity())) else None
    return None


def reduce(
    operands: Any,
    init_values: Any,
    computation: Callable[[Any, Any], Any],
    dimensions: Sequence[int],
) -> Any:
    """Reduce ``operands`` over ``dimensions`` with ``computation``.

    Args:
      operands: an array or a pytree of arrays of one shape.
      init_values: scalars with ``operands``' tree structure: the identity of
        ``computation``.
      computation: ``(accumulated, element) -> accumulated`` on pytrees of
        scalars; it must be associative (XLA reorders it).
      dimensions: the axes to reduce.

    Returns:
      The reduced pytree.

    Example:
        >>> import numpy as np
        >>> from tessela_tracer import make_jaxpr, lax
        >>> f = lambda x: reduce(x, np.float32(0), lambda a, b: lax.add(a, lax.mul(b, b)), (0,))
        >>> make_jaxpr(f)(np.ones((2, 3), np.float32)).eqns[0].primitive
        reduce
    """
    flat_ops, _, flat_inits, init_tree = flat_operands(operands, init_values)
    dims = tuple(operator.index(d) for d in dimensions)
    reducer = _monoid_reducer(computation, flat_inits)
    if reducer is not None:
        weak = all(_aval(x).weak_type for x in (*flat_ops, *flat_inits))
        out = reducer(flat_ops[0], dims)
        return L._convert_element_type(out, None, weak_type=weak)
    init_avals = [_aval(x) for x in flat_inits]
    jaxpr, out_tree = reduction_jaxpr(computation, init_avals, init_tree)
    outs = reduce_p.bind(
        *flat_ops, *flat_inits, computation=ReduceComputation(computation), jaxpr=jaxpr,
        dimensions=dims,
    )  # fmt: skip
    return tree_unflatten(out_tree, outs)


# ------------------------------------------------------------------ rng_bit_generator


class RandomAlgorithm(enum.IntEnum):
    """The algorithm of ``rng_bit_generator`` (XLA's RngBitGenerator)."""

    RNG_DEFAULT = 0
    RNG_THREE_FRY = 1
    RNG_PHILOX = 2

    def __str__(self) -> str:
        return self.name


_BIT_DTYPES = frozenset(np.dtype(d) for d in ("uint8", "uint16", "uint32", "uint64"))


def _rng_bit_generator_abstract_eval(
    key: ShapedArray, *, shape: tuple[int, ...], dtype: np.dtype[Any], algorithm: Any,
    out_sharding: Any,
) -> list[ShapedArray]:  # fmt: skip
    ok = (key.shape == (4,) and key.dtype == np.uint32) or (
        key.shape == (2,) and key.dtype == np.uint64
    )
    if not ok:
        raise TypeError(
            f"rng_bit_generator: the key must be uint32[4] (or uint64[2]), got "
            f"{key.str_short()}; make one with e.g. np.zeros(4, np.uint32)"
        )
    return [ShapedArray(key.shape, key.dtype), ShapedArray(shape, dtype)]


rng_bit_generator_p = Primitive("rng_bit_generator", multiple_results=True)
register_abstract_eval(rng_bit_generator_p, _rng_bit_generator_abstract_eval)


def rng_bit_generator(
    key: ArrayLike,
    shape: Sequence[int],
    dtype: npt.DTypeLike = np.uint32,
    algorithm: RandomAlgorithm = RandomAlgorithm.RNG_DEFAULT,
    *,
    out_sharding: OutSharding = None,
) -> tuple[Array, Array]:
    """Random bits from XLA's stateless RngBitGenerator, and the next key.

    Args:
      key: a ``uint32[4]`` (or ``uint64[2]``) key.
      shape: the shape of the bits.
      dtype: ``uint8``, ``uint16``, ``uint32`` or ``uint64``.
      algorithm: a :class:`RandomAlgorithm`.
      out_sharding: reserved; must be None.

    Returns:
      ``(new_key, bits)``.

    Raises:
      TypeError: another dtype, or a key of another shape or dtype.

    Example:
        >>> import numpy as np
        >>> from tessela_tracer import make_jaxpr
        >>> f = lambda k: rng_bit_generator(k, (2,))
        >>> print(make_jaxpr(f)(np.zeros(4, np.uint32)))
        { lambda ; a:u32[4]. let
            b:u32[4] c:u32[2] = rng_bit_generator[
              algorithm=RNG_DEFAULT
              dtype=uint32
              out_sharding=None
              shape=(2,)
            ] a
          in (b, c) }
    """
    if out_sharding is not None:
        raise NotImplementedError("rng_bit_generator: out_sharding is not supported; pass None")
    dt = _dtypes.canonicalize_dtype(dtype)
    if np.dtype(dtype) not in _BIT_DTYPES or dt not in _BIT_DTYPES:
        raise TypeError(f"rng_bit_generator: unsupported dtype {np.dtype(dtype)}")
    shape_t = tuple(operator.index(d) for d in shape)
    new_key, bits = rng_bit_generator_p.bind(
        key, shape=shape_t, dtype=dt, algorithm=RandomAlgorithm(algorithm), out_sharding=None
    )
    return new_key, bits


def _rng_uniform_abstract_eval(
    a: ShapedArray, b: ShapedArray, *, shape: tuple[int, ...]
) -> ShapedArray:
    if a.dtype != b.dtype:
        raise ValueError(
            f"Arguments to rng_uniform must have identical dtypes, got {a.dtype} and {b.dtype}."
        )
    if a.shape != () or b.shape != ():
        raise ValueError(
            f"Arguments to rng_uniform must be scalars; got shapes {a.shape} and {b.shape}."
        )
    return ShapedArray(shape, a.dtype, a.weak_type and b.weak_type)


rng_uniform_p = Primitive("rng_uniform")
register_abstract_eval(rng_uniform_p, _rng_uniform_abstract_eval)


def rng_uniform(a: ArrayLike, b: ArrayLike, shape: Sequence[int]) -> Array:
    """Uniform numbers in ``[a, b)`` from XLA's stateful RNG (experimental, as in JAX).

    Prefer ``tessela.random``: these values depend on the backend.

    Args:
      a: the scalar lower bound.
      b: the scalar upper bound, of ``a``'s dtype.
      shape: the output shape.

    Returns:
      The array.

    Example:
        >>> from tessela_tracer import eval_shape
        >>> eval_shape(lambda: rng_uniform(0.0, 1.0, (3,))).shape
        (3,)
    """
    out: Array = rng_uniform_p.bind(a, b, shape=tuple(operator.index(d) for d in shape))
    return out


# ------------------------------------------------------------------ copy

copy_p = Primitive("copy")
register_abstract_eval(copy_p, lambda x: x)


# ------------------------------------------------------------------ tokens


def _create_token_abstract_eval(*avals: ShapedArray) -> AbstractToken:
    return abstract_token


create_token_p = Primitive("create_token")
register_abstract_eval(create_token_p, _create_token_abstract_eval)
register_impl(create_token_p, lambda *args: Token())


def create_token(_: object = None) -> Token | Array:
    """Create a token with no preconditions, for sequencing effects (experimental, as in JAX).

    Args:
      _: ignored (kept for compatibility with older JAX code).

    Returns:
      A token: a :class:`Token` outside ``jit``, a ``Tok`` tracer inside.

    Example:
        >>> from tessela_tracer import make_jaxpr
        >>> print(make_jaxpr(lambda: create_token())())
        { lambda ; . let a:Tok = create_token  in (a,) }
    """
    token: Token | Array = create_token_p.bind()
    return token


def _after_all_abstract_eval(*avals: ShapedArray) -> AbstractToken:
    if any(not isinstance(a, AbstractToken) for a in avals):
        raise TypeError("Arguments to after_all must be tokens")
    return abstract_token


def _after_all_impl(*tokens: Any) -> Token:
    _after_all_abstract_eval(*(_aval(t) for t in tokens))
    return Token()


after_all_p = Primitive("after_all")
register_abstract_eval(after_all_p, _after_all_abstract_eval)
register_impl(after_all_p, _after_all_impl)


def after_all(*operands: Token | Array) -> Token | Array:
    """Merge tokens into one that comes after all of them (XLA's ``AfterAll``).

    Args:
      *operands: tokens (from :func:`create_token` or ``after_all``).

    Returns:
      A new token.

    Raises:
      TypeError: an operand is not a token.

    Example:
        >>> from tessela_tracer import make_jaxpr
        >>> print(make_jaxpr(lambda t: after_all(t, create_token()))(create_token()))
        { lambda ; a:Tok. let b:Tok = create_token ; c:Tok = after_all a b in (c,) }
    """
    token: Token | Array = after_all_p.bind(*operands)
    return token
