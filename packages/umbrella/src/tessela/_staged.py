"""Functions JAX compiles with ``jit``: one program when called eagerly.

JAX's ``nn`` functions (``elu``, ``gelu``, ``log_softmax``, ...) are jitted:
called outside any trace, each runs as one compiled program, not one
dispatch per operation. :func:`staged_eagerly` gives Tessela's the same
behaviour; inside a trace (``jit``, ``grad``, ``vmap``) the function runs
as written, so that its equations are staged in place.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np
from tessela_tracer import EvalTrace, get_current_trace, jit
from tessela_tracer.typing import Array

__all__ = ["staged_eagerly"]

_F = TypeVar("_F", bound=Callable[..., Any])
_OPERAND_TYPES = (Array, np.ndarray, np.generic, bool, int, float, complex, type(None))


def staged_eagerly(*, static_argnames: tuple[str, ...] = ()) -> Callable[[_F], _F]:
    """Decorate a function to run as one jitted program when called eagerly.

    The arguments named in ``static_argnames`` are static (each new value
    compiles once, as JAX's ``static_argnames``); the others must be
    arrays, NumPy values, Python scalars or None. A call with anything else
    (a list, an unhashable static value), or inside a trace, runs the
    function itself.

    Args:
      static_argnames: the names of the static parameters (passed by keyword
        or by position).

    Returns:
      A decorator.

    Example:
      >>> import tessela.numpy as tnp
      >>> @staged_eagerly()
      ... def double_exp(x):
      ...     return 2 * tnp.exp(x)
      >>> print(double_exp(0.0))
      2.0
    """

    def decorate(fn: _F) -> _F:
        jitted = jit(fn, static_argnames=static_argnames)
        names = tuple(inspect.signature(fn).parameters)
        static_positions = frozenset(i for i, n in enumerate(names) if n in static_argnames)

        @functools.wraps(fn)
        def call(*args: Any, **kwargs: Any) -> Any:
            if type(get_current_trace()) is EvalTrace and _eager_call(
                args, kwargs, static_positions, static_argnames
            ):
                return jitted(*args, **kwargs)
            return fn(*args, **kwargs)

        return call  # type: ignore[return-value]

    return decorate


def _eager_call(
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    static_positions: frozenset[int],
    static_names: tuple[str, ...],
) -> bool:
    # Static values must be hashable, the others operands of the program.
    for i, value in enumerate(args):
        if not (_hashable(value) if i in static_positions else isinstance(value, _OPERAND_TYPES)):
            return False
    for name, value in kwargs.items():
        if not (_hashable(value) if name in static_names else isinstance(value, _OPERAND_TYPES)):
            return False
    return True


def _hashable(value: Any) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True
