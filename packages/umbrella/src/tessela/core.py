"""``tessela.core``: the few ``jax.core`` names JAX still exports, as Tessela has them.

``ShapedArray``, ``Trace``, ``Tracer`` and ``eval_jaxpr`` are the tracer's;
``eval_context`` runs the block on the eager (evaluation) trace, whatever trace
is current; ``ensure_compile_time_eval`` is the top-level one; ``max_dim`` and
``min_dim`` compare (static) dimension sizes; ``Atom``, ``Value`` and
``ParamDict`` are the type aliases JAX gives those names. ``AbstractValue``
is not provided (Tessela's avals have no common base class).

Example:
    >>> import tessela as tx
    >>> from tessela import core
    >>> def f(x):
    ...     with core.eval_context():
    ...         return isinstance(tx.numpy.sin(1.0), core.Tracer), isinstance(x, core.Tracer)
    >>> tx.jit(lambda x: (print(f(x)), x)[1])(1.0) is not None
    (False, True)
    True
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any, TypeAlias

from tessela_tracer import (
    EvalTrace,
    Literal,
    ShapedArray,
    Trace,
    Tracer,
    Var,
    eval_jaxpr,
    set_current_trace,
)

from ._toplevel import ensure_compile_time_eval

__all__ = [
    "Atom", "ParamDict", "ShapedArray", "Trace", "Tracer", "Value", "ensure_compile_time_eval",
    "eval_context", "eval_jaxpr", "max_dim", "min_dim",
]  # fmt: skip

Atom: TypeAlias = Var | Literal
Value: TypeAlias = Any
ParamDict: TypeAlias = dict[str, Any]


@contextlib.contextmanager
def eval_context() -> Iterator[None]:
    """Run the block on the evaluation trace: operations execute at once.

    Returns:
        A context manager.

    Example:
        >>> from tessela import core
        >>> with core.eval_context():
        ...     pass
    """
    with set_current_trace(EvalTrace()):
        yield


def max_dim(d1: int, d2: int) -> int:
    """The larger of two dimension sizes.

    Args:
        d1: a dimension size.
        d2: a dimension size.

    Returns:
        ``max(d1, d2)``.

    Example:
        >>> max_dim(2, 3)
        3
    """
    return max(int(d1), int(d2))


def min_dim(d1: int, d2: int) -> int:
    """The smaller of two dimension sizes.

    Args:
        d1: a dimension size.
        d2: a dimension size.

    Returns:
        ``min(d1, d2)``.

    Example:
        >>> min_dim(2, 3)
        2
    """
    return min(int(d1), int(d2))
