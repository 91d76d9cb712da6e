"""The ``jax_no_execution`` flag: refuse to run computations on concrete values.

While the flag is set (``with tessela.no_execution():``), a jitted function
called on concrete arguments and a primitive applied eagerly by the eager
backend raise ``RuntimeError`` with JAX's message instead of running; tracing,
lowering and compiling still work, so a block can check that it only stages
programs. Nothing is checked while the flag is off: setting it swaps a
checking wrapper in front of the jit backend (:func:`set_jit_backend`) and the
eager backend (:func:`set_eager_backend`), clearing it swaps them back. A
backend installed while the flag is set is not wrapped until the flag is set
again. Primitives with their own eager implementation (``register_impl``) are
plain Python and run.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tessela_pytree import tree_leaves

from tessela_tracer import _core, _jit
from tessela_tracer._config import config
from tessela_tracer._core import EvalTrace, Primitive, Tracer, get_current_trace

__all__ = ["check_execution_allowed"]

# The wrapped backends while the flag is set: (jit call, eager backend or None).
_wrapped: list[Any] = []


def check_execution_allowed(name: str, /) -> None:
    """Raise when ``jax_no_execution`` is set: ``name`` would run on concrete values.

    Args:
        name: what would run, as JAX names it (``jit(f)``).

    Returns:
        None.

    Raises:
        RuntimeError: the flag is set, with JAX's message.

    Example:
        >>> check_execution_allowed("jit(f)")
        >>> config.update("jax_no_execution", True)
        >>> try:
        ...     check_execution_allowed("jit(f)")
        ... except RuntimeError as e:
        ...     print(e)
        JAX tried to execute function jit(f), but the no_execution config option is set
        >>> config.update("jax_no_execution", False)
    """
    if config.read("jax_no_execution"):
        raise RuntimeError(
            f"JAX tried to execute function {name}, but the no_execution config option is set"
        )


def _guarded_jit_call(jitted: Any, /, *args: Any, **kwargs: Any) -> Any:
    if type(get_current_trace()) is EvalTrace and not any(
        isinstance(x, Tracer) for x in tree_leaves((args, kwargs))
    ):
        check_execution_allowed(f"jit({jitted._name})")
    return _wrapped[0](jitted, *args, **kwargs)


def _guarded_eager(prim: Primitive, args: Sequence[Any], params: dict[str, Any]) -> Any:
    check_execution_allowed(f"jit({prim.name})")
    return _wrapped[1](prim, args, params)


def _on_change(value: bool) -> None:
    if value and not _wrapped:
        eager = _core._eager_backend
        _wrapped[:] = [_jit._backend[0], None if eager is None else eager[0]]
        _jit.install_call(_guarded_jit_call)
        if eager is not None:
            _core.set_eager_backend(_guarded_eager, eager[1])
    elif not value and _wrapped:
        if _jit._backend[0] is _guarded_jit_call:
            _jit.install_call(_wrapped[0])
        eager = _core._eager_backend
        if eager is not None and eager[0] is _guarded_eager:
            _core.set_eager_backend(_wrapped[1], eager[1])
        _wrapped.clear()


config.define_bool(
    "jax_no_execution",
    False,
    env=(),  # no environment variable, as before the naming rule
    help="Raise RuntimeError when a computation would run on concrete values.",
    on_change=_on_change,
)
