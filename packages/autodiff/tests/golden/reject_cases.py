"""Bad arguments to the differentiation API, run under JAX (to record) and Tessela.

Shared by ``generate_rejects.py`` (JAX 0.10.2 only) and ``test_rejects.py``
(Tessela only); it imports neither, only NumPy. A case is a builder taking a
namespace ``ad`` (the transformations, ``lax`` and ``float0`` of JAX or of
Tessela) and returning a function of no arguments, which runs eagerly.

``NAMED`` holds single cases, ``GRIDS`` families recorded on a grid that the
tests sample with hypothesis. The golden file maps each case to ``"ok"`` or
the name of the exception class JAX raises; ``RESULTS`` cases record what the
returned leaves are (an array or a NumPy value, dtype, weak type).
"""

from __future__ import annotations

import itertools
import types
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

Builder = Callable[[Any], Callable[[], Any]]

NAMED: dict[str, Builder] = {}


def named(name: str, build: Builder) -> None:
    NAMED[name] = build


def _ident(x: Any) -> Any:
    return x


named("grad_of_int", lambda ad: lambda: ad.grad(3))
named("grad_of_none", lambda ad: lambda: ad.grad(None))
named("value_and_grad_of_str", lambda ad: lambda: ad.value_and_grad("f"))
named("jvp_of_int", lambda ad: lambda: ad.jvp(3, (1.0,), (1.0,)))
named("vjp_of_int", lambda ad: lambda: ad.vjp(3, 1.0))
named("linearize_of_int", lambda ad: lambda: ad.linearize(3, 1.0))
named("jacfwd_of_int", lambda ad: lambda: ad.jacfwd(3))
named("jacrev_of_int", lambda ad: lambda: ad.jacrev(3))
named("hessian_of_int", lambda ad: lambda: ad.hessian(3))
named("grad_argnums_out_of_range", lambda ad: lambda: ad.grad(_ident, argnums=1)(1.0))
named("grad_of_str_argument", lambda ad: lambda: ad.grad(_ident)("a"))
named("grad_of_int_argument", lambda ad: lambda: ad.grad(_ident)(1))
named("grad_of_vector_output", lambda ad: lambda: ad.grad(_ident)(np.ones(2, np.float32)))
named("jvp_primals_not_tuple", lambda ad: lambda: ad.jvp(_ident, 1.0, 1.0))
named("jvp_structure_mismatch", lambda ad: lambda: ad.jvp(_ident, (1.0,), (1.0, 2.0)))
named(
    "jvp_shape_mismatch",
    lambda ad: lambda: ad.jvp(_ident, (np.ones(2, np.float32),), (np.ones(3, np.float32),)),
)
named("jvp_dtype_mismatch", lambda ad: lambda: ad.jvp(_ident, (1.0,), (1,)))
named(
    "vjp_cotangent_shape",
    lambda ad: lambda: ad.vjp(_ident, np.ones(2, np.float32))[1](np.ones(3, np.float32)),
)
named("stop_gradient_of_str", lambda ad: lambda: ad.lax.stop_gradient("a"))

# Returned values: each leaf described as (kind, dtype, weak_type).
RESULTS: dict[str, Builder] = {
    "grad_identity_python_float": lambda ad: lambda: ad.grad(_ident)(1.0),
    "grad_identity_float32": lambda ad: lambda: ad.grad(_ident)(np.float32(1.0)),
    "grad_identity_two_args": lambda ad: lambda: ad.grad(lambda x, y: x, argnums=(0, 1))(1.0, 2.0),
    "value_and_grad_identity": lambda ad: lambda: ad.value_and_grad(_ident)(1.0),
    "grad_of_sin": lambda ad: lambda: ad.grad(ad.lax.sin)(1.0),
}

TRANSFORMS = (
    "grad", "value_and_grad", "jvp", "vjp", "linearize", "jacfwd", "jacrev", "hessian",
)  # fmt: skip
NOT_CALLABLE = ("int", "none", "str", "list", "float", "callable")
DTYPES = ("float32", "float16", "int32", "bool", "complex64", "uint8")
ARGNUMS = (0, 1, -1, -2, 2, (0,), (0, 1), (1, 2), (-1, 0))
OUT_SHAPES = ((), (1,), (2,), (1, 1))


def namespace(ad: Any, lax: Any, float0: Any) -> types.SimpleNamespace:
    """The ``ad`` a builder takes: ``TRANSFORMS`` taken from ``ad``, with ``lax`` and ``float0``."""
    transforms = {name: getattr(ad, name) for name in TRANSFORMS}
    return types.SimpleNamespace(**transforms, lax=lax, float0=float0)


def _fun(kind: str) -> Any:
    return {"int": 3, "none": None, "str": "f", "list": [1], "float": 1.5}.get(kind, _ident)


def _not_callable(key: tuple[Any, ...]) -> Builder:
    transform, kind = key
    fun = _fun(kind)
    calls: dict[str, Callable[[Any], Any]] = {
        "grad": lambda ad: ad.grad(fun),
        "value_and_grad": lambda ad: ad.value_and_grad(fun),
        "jvp": lambda ad: ad.jvp(fun, (1.0,), (1.0,)),
        "vjp": lambda ad: ad.vjp(fun, 1.0),
        "linearize": lambda ad: ad.linearize(fun, 1.0),
        "jacfwd": lambda ad: ad.jacfwd(fun),
        "jacrev": lambda ad: ad.jacrev(fun),
        "hessian": lambda ad: ad.hessian(fun),
    }
    return lambda ad: lambda: calls[transform](ad)


def _argnums(key: tuple[Any, ...]) -> Builder:
    argnums, nargs = key
    args = (1.0, 2.0, 3.0)[:nargs]
    return lambda ad: lambda: ad.grad(lambda *xs: xs[0], argnums=argnums)(*args)


def _input_dtype(key: tuple[Any, ...]) -> Builder:
    dtype, allow_int, holomorphic = key
    x = np.ones((), dtype)
    return lambda ad: lambda: ad.grad(_ident, allow_int=allow_int, holomorphic=holomorphic)(x)


def _output_shape(key: tuple[Any, ...]) -> Builder:
    (shape,) = key
    return lambda ad: lambda: ad.grad(lambda x: ad.lax.broadcast_in_dim(x, shape, ()))(1.0)


def _jvp_tangent(key: tuple[Any, ...]) -> Builder:
    primal_dtype, tangent_dtype, same_shape = key
    p = np.ones((2,), primal_dtype)
    shape = (2,) if same_shape else (3,)

    def build(ad: Any) -> Callable[[], Any]:
        t = np.zeros(shape, ad.float0 if tangent_dtype == "float0" else tangent_dtype)
        return lambda: ad.jvp(_ident, (p,), (t,))

    return build


def describe(tree_leaves: list[Any], array_type: type) -> list[list[Any]]:
    """Each returned leaf as ``[kind, dtype, weak_type]`` (kind: array, or its type name)."""
    out = []
    for leaf in tree_leaves:
        if isinstance(leaf, array_type):
            kind = "array"
        elif isinstance(leaf, float) and not isinstance(leaf, np.generic):
            # A Python float (JAX returns its subclass ``TypedFloat`` here).
            out.append(["float", "python", True])
            continue
        else:
            kind = type(leaf).__name__
        dtype = str(np.dtype(getattr(leaf, "dtype", type(leaf))))
        out.append([kind, dtype, bool(getattr(leaf, "weak_type", False))])
    return out


GRIDS: dict[str, tuple[Callable[[], Iterator[tuple[Any, ...]]], Callable[..., Builder]]] = {
    "not_callable": (lambda: itertools.product(TRANSFORMS, NOT_CALLABLE), _not_callable),
    "argnums": (lambda: itertools.product(ARGNUMS, (1, 2, 3)), _argnums),
    "input_dtype": (
        lambda: itertools.product(DTYPES, (False, True), (False, True)),
        _input_dtype,
    ),
    "output_shape": (lambda: ((s,) for s in OUT_SHAPES), _output_shape),
    "jvp_tangent": (
        lambda: itertools.product(
            ("float32", "int32"), ("float32", "float16", "int32", "float0"), (True, False)
        ),
        _jvp_tangent,
    ),
}


def key_str(key: tuple[Any, ...]) -> str:
    """The golden file's key for a grid point."""
    return repr(key)
