"""Eager NumPy functions as cached jitted programs, and their fast tables.

JAX compiles most NumPy functions with ``jit``; run eagerly, Tessela does the
same for the reductions, ``matmul`` and the binary functions that promote:
:func:`program_for` makes one jitted program per (name, static arguments),
and the program keys on its operands' signatures and the tracing flags.
On a concrete array outside any trace the functions then skip their
argument checks: a per-function table from exactly typed static arguments to
the program answers with one lookup (:data:`FAST`, :func:`fast_program`),
once :data:`CONCRETE_TYPES` knows the operand's type.
"""

from __future__ import annotations

import enum
import threading
from collections.abc import Callable
from typing import Any

import numpy as np
from tessela_tracer import ArrayOps, EvalTrace, Tracer, get_current_trace, jit

__all__ = [
    "CONCRETE_TYPES", "EAGER_PROGRAMS", "FAST", "FAST_TABLE_SIZE", "RUNNING", "UNHASHABLE", "eager_program",
    "fast_program", "is_concrete", "program_for", "remember_fast", "remember_program", "run_compiled",
    "run_whole",
]  # fmt: skip

RUNNING = [0]
"""How many program bodies run as Python now (first traces, or ``jax_disable_jit``).

A body calls the public functions again; while one runs, the eager paths
step aside (:func:`run_compiled` and :func:`fast_program` answer None), so
that a body run without ``jit`` (``disable_jit``, a ``debug_nans`` rerun)
computes step by step instead of calling its own program again. (Another
thread's eager calls take their checked paths meanwhile: the same values.)
"""
_RUNNING_LOCK = threading.Lock()


def _run_body(
    body: Callable[..., Any], xs: tuple[Any, ...], static: tuple[Any, ...], fixed: dict[str, Any]
) -> Any:
    with _RUNNING_LOCK:  # no update lost between threads
        RUNNING[0] += 1
    try:
        return body(*xs, *static, **fixed)
    finally:
        with _RUNNING_LOCK:
            RUNNING[0] -= 1


CONCRETE_TYPES: set[type] = set()
"""The concrete (not traced) array types seen so far: the eager fast paths' test.

An eager call checks ``type(x) in CONCRETE_TYPES`` and that the current trace
is the root one before it looks up a cached program; :func:`is_concrete`
adds a type the first time an array of it reaches a slow path.
"""


def is_concrete(x: object, /) -> bool:
    """Whether ``x`` is a concrete array, not a tracer; its type joins :data:`CONCRETE_TYPES`.

    Args:
      x: any value.

    Returns:
      True for a backend's array (``ArrayOps`` that is not a ``Tracer``).

    Example:
      >>> import numpy as np
      >>> is_concrete(np.ones(2)), is_concrete(1.0)
      (False, False)
    """
    if type(x) in CONCRETE_TYPES:
        return True
    if isinstance(x, ArrayOps) and not isinstance(x, Tracer):
        CONCRETE_TYPES.add(type(x))
        return True
    return False


FAST_TABLE_SIZE = 256
"""How many programs each eager fast table keeps before it starts again."""


def remember_program(table: dict[Any, Any], key: tuple[Any, ...], program: object, /) -> None:
    """Keep ``program`` under ``key`` in an eager fast table (bounded by :data:`FAST_TABLE_SIZE`).

    A fast table maps a function's static arguments, exactly typed, to its
    jitted program; the program itself keys on its operands' types, shapes,
    weak types and the flags that change tracing (x64, promotion, precision).

    Args:
      table: the function's table.
      key: the static arguments' key.
      program: the jitted program for them.

    Returns:
      None.

    Example:
      >>> table: dict[Any, Any] = {}
      >>> remember_program(table, (None, False), "program")
      >>> table
      {(None, False): 'program'}
    """
    if len(table) >= FAST_TABLE_SIZE:
        table.clear()
    table[key] = program


EAGER_PROGRAMS: dict[tuple[Any, ...], Callable[..., Any]] = {}
"""Eager NumPy functions as jitted programs, per (name, static arguments)."""
UNHASHABLE = object()
"""What :func:`eager_program` returns when its static arguments cannot key a program."""


def program_for(
    name: str, body: Callable[..., Any], /, *static: Any, **fixed: Any
) -> Callable[..., Any] | None:
    """The jitted ``lambda *xs: body(*xs, *static, **fixed)``, one per (name, ``static``).

    Eager NumPy functions that JAX compiles (reductions, ``matmul``) run so,
    instead of one dispatch per step (upcast, reduce, expand, divide).
    ``fixed`` is the same for every call with the same name and is not part
    of the key; it is bound when the program is first made. The program
    itself keys on its operands' signatures and the tracing flags.

    Args:
      name: the function's name (the program's name).
      body: the function, operands first, then ``static``.
      *static: static arguments, part of the key.
      **fixed: keyword arguments bound once per name.

    Returns:
      The program, or None when ``static`` cannot key one (unhashable).

    Example:
      >>> import numpy as np
      >>> from tessela_tracer import ShapeDtypeStruct, lax
      >>> p = program_for("doc_sum", lambda x, axis: lax.reduce_sum(x, (axis,)), 0)
      >>> p is program_for("doc_sum", lambda x, axis: x, 0)
      True
      >>> p.eval_shape(ShapeDtypeStruct((2, 3), np.float32)).shape
      (3,)
    """
    key = (name, *static)
    try:
        program = EAGER_PROGRAMS.get(key)
    except TypeError:
        return None
    if program is None:
        if len(EAGER_PROGRAMS) >= 4096:
            EAGER_PROGRAMS.clear()

        def run(*xs: Any) -> Any:
            return _run_body(body, xs, static, fixed)

        run.__name__ = run.__qualname__ = name
        program = EAGER_PROGRAMS[key] = jit(run)
    return program


def eager_program(
    name: str, body: Callable[..., Any], operands: tuple[Any, ...], /, *static: Any, **fixed: Any
) -> Any:
    """``body(*operands, *static, **fixed)`` run by :func:`program_for`'s program.

    Returns:
      The result, or :data:`UNHASHABLE` when ``static`` cannot key a program.
    """
    program = program_for(name, body, *static, **fixed)
    if program is None:
        return UNHASHABLE
    return program(*operands)


def remember_fast(
    fast: dict[Any, Any], a: object, axis: object, keepdims: object, program: object
) -> None:
    """Keep a reduction's program in its fast table, when its key is exact.

    The fast table's key is ``(type(axis), axis, keepdims)`` for an ``int`` or
    ``None`` axis and a ``bool`` keepdims, the default ``dtype`` and the
    other options absent; a concrete array then finds its program with one
    lookup. A key of another type (``axis=1.0``, a list) never enters, so
    its calls take the checked path (an equal value of another type, such
    as ``keepdims=1``, finds the ``True`` entry and means the same).
    """
    if (axis is None or type(axis) is int) and type(keepdims) is bool and is_concrete(a):
        remember_program(fast, (type(axis), axis, keepdims), program)


FAST: dict[str, dict[Any, Any]] = {
    name: {}
    for name in (
        "sum",
        "prod",
        "max",
        "min",
        "all",
        "any",
        "mean",
        "var",
        "std",
        "argmax",
        "argmin",
    )
}
"""Per reduction, its eager programs under ``(type(axis), axis, keepdims)`` (:func:`remember_fast`)."""


def fast_program(table: dict[Any, Any], a: object, axis: object, keepdims: object) -> Any:
    """The cached program of an eager reduction of a concrete array, else None.

    Args:
      table: the function's table in :data:`FAST`.
      a: the operand.
      axis: the ``axis`` argument.
      keepdims: the ``keepdims`` argument.

    Returns:
      The program :func:`remember_fast` kept for these arguments, or None
      (under a trace, for a tracer or a host value, or a key not seen yet).

    Example:
      >>> import numpy as np
      >>> fast_program(FAST["sum"], np.ones(3), None, False) is None
      True
    """
    if type(a) in CONCRETE_TYPES and type(get_current_trace()) is EvalTrace and not RUNNING[0]:
        try:
            return table.get((type(axis), axis, keepdims))
        except TypeError:  # an unhashable axis: the checked path says what is wrong
            return None
    return None


_COMPILED: dict[object, Callable[..., Any]] = {}
_STATIC_TYPES = frozenset({type(None), bool, int, str})
_OPERAND_TYPES = frozenset({bool, int, float, complex})
_HOST_KINDS = frozenset("biufc")  # NumPy values a program takes as operands


def _operand(x: object) -> bool:
    # A program's operand: a concrete array, a Python scalar, or a NumPy array
    # or scalar of a boolean or numeric dtype (moved to the device at the
    # program's edge, as a jitted function's arguments are).
    kind = type(x)
    if kind in CONCRETE_TYPES or kind in _OPERAND_TYPES:
        return True
    if kind is np.ndarray or isinstance(x, np.generic):
        return x.dtype.kind in _HOST_KINDS  # type: ignore[attr-defined]
    return is_concrete(x)


def _static_key(value: object) -> object:
    # A static argument's key: its value and type (``1``, ``True`` and ``1.0``
    # hash alike), or None when it cannot key a program exactly (a float:
    # ``-0.0 == 0.0`` and NaN equals nothing).
    t = type(value)
    if t in _STATIC_TYPES or isinstance(value, (np.dtype, enum.Enum)):  # ``Precision.HIGHEST``
        return (t, value)
    if t is tuple and all(type(v) is int for v in value):  # type: ignore[attr-defined]
        return (t, value)
    return None


def run_compiled(
    name: str, body: Callable[..., Any], operands: tuple[Any, ...], /, *static: Any
) -> Any:
    """``body(*operands, *static)`` as one jitted program, when the call runs eagerly.

    NumPy functions that JAX compiles as a whole (``outer``, ``diff``,
    ``nan_to_num``, ``ravel``, ...) run so on concrete arrays outside any
    trace: one program per (name, static arguments and their types), which
    keys on its operands' signatures and the tracing flags, instead of one
    dispatch per step.

    Args:
      name: the program's name.
      body: the function, operands first, then ``static`` (with the static
        arguments, the key).
      operands: the program's arguments: concrete arrays, Python scalars,
        NumPy arrays and scalars of boolean or numeric dtypes (which convert
        at the program's edge, as in JAX's jitted functions).
      *static: ``None``, ``bool``, ``int``, ``str``, dtypes, enum members
        (``lax.Precision``) and tuples of ints.

    Returns:
      The result, or None when the call does not run eagerly (a trace, a
      tracer, another operand such as a list, or a static argument of
      another type, such as a float): the caller then takes its own path.

    Example:
      >>> import numpy as np
      >>> from tessela_tracer import lax
      >>> run_compiled("doc_neg", lambda x: lax.neg(x), ([1.0, 2.0],)) is None
      True
    """
    if type(get_current_trace()) is not EvalTrace or RUNNING[0]:
        return None
    for x in operands:
        if not _operand(x):
            return None
    key: object = body  # no static arguments: the function alone
    if static:
        # The values and their types key the program; a tuple's elements' types too.
        types = tuple(map(type, static))
        key = (body, static, types) if tuple not in types else (body, *map(_static_key, static))
    try:
        program = _COMPILED.get(key)
    except TypeError:  # an unhashable static argument
        return None
    if program is None:
        if None in map(_static_key, static):
            return None  # never kept: such a key could find another value's program
        if len(_COMPILED) >= 4096:
            _COMPILED.clear()

        def run(*xs: Any) -> Any:
            return _run_body(body, xs, static, {})

        run.__name__ = run.__qualname__ = name
        program = _COMPILED[key] = jit(run)
    return program(*operands)


def run_whole(
    name: str, body: Callable[..., Any], operands: tuple[Any, ...], /, *static: Any
) -> Any:
    """``body(*operands, *static)``: one program when the call runs eagerly, else step by step.

    :func:`run_compiled` when it takes the call; otherwise (a trace, another
    operand, a static argument it cannot key) the body runs as written.

    Args:
      name: the program's name.
      body: the function, operands first, then ``static``.
      operands: the program's arguments (see :func:`run_compiled`).
      *static: the static arguments.

    Returns:
      The body's result.

    Example:
      >>> from tessela_tracer import lax, make_jaxpr
      >>> make_jaxpr(lambda x: run_whole("doc_neg", lax.neg, (x,)))(1.0).eqns[0].primitive.name
      'neg'
    """
    out = run_compiled(name, body, operands, *static)
    return body(*operands, *static) if out is None else out
