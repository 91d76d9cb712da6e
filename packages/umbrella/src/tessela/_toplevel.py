"""Top-level helpers of the JAX namespace: ``disable_jit``, ``ensure_compile_time_eval``,
``named_call``, ``named_scope`` and ``print_environment_info``.

``named_call`` and ``named_scope`` only annotate: JAX's jaxprs carry no trace
of them either, so they return the function (or run the block) unchanged.
``ensure_compile_time_eval`` installs a trace that runs every primitive whose
operands are all concrete eagerly, and hands the others to the trace that was
current, so constants computed inside a ``jit`` become concrete values.
"""

from __future__ import annotations

import contextlib
import importlib
import platform
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

import numpy as np
import tessela_lowering
from tessela_tracer import Primitive, Trace, Tracer, get_current_trace, set_current_trace

from ._config import config

__all__ = [
    "disable_jit", "ensure_compile_time_eval", "named_call", "named_scope",
    "print_environment_info",
]  # fmt: skip

_F = TypeVar("_F", bound=Callable[..., Any])


@contextlib.contextmanager
def disable_jit(disable: bool = True) -> Iterator[None]:
    """Run ``jit``-decorated functions as plain Python inside the block.

    Sets the ``jax_disable_jit`` flag for the duration of the ``with`` block and
    restores its previous value afterwards.

    Args:
        disable: the value the flag takes inside the block.

    Returns:
        A context manager.

    Example:
        >>> import tessela as tx
        >>> with tx.disable_jit():
        ...     print(tx.jit(lambda x: x * 2)(3))
        6
    """
    before = config.read("jax_disable_jit")
    config.update("jax_disable_jit", bool(disable))
    try:
        yield
    finally:
        config.update("jax_disable_jit", before)


class _CompileTimeEvalTrace(Trace):
    """Runs primitives on concrete operands at once; defers the rest to ``parent``."""

    __slots__ = ("_eval",)

    def __init__(self, parent: Trace, root: Trace) -> None:
        super().__init__(parent)
        self._eval = root

    def process_primitive(
        self, prim: Primitive, args: Sequence[Any], params: dict[str, Any]
    ) -> Any:
        if any(isinstance(a, Tracer) for a in args):
            assert self.parent is not None
            with set_current_trace(self.parent):
                return self.parent.process_primitive(prim, args, params)
        with set_current_trace(self._eval):
            return self._eval.process_primitive(prim, args, params)


def _root_trace() -> Trace:
    trace = get_current_trace()
    while trace.parent is not None:
        trace = trace.parent
    return trace


@contextlib.contextmanager
def ensure_compile_time_eval() -> Iterator[None]:
    """Evaluate operations on concrete values eagerly, even while tracing.

    Inside the block, a primitive whose operands are all concrete (constants,
    NumPy arrays, Tessela arrays) runs at once and returns a concrete array,
    also under ``jit``; operations on traced values are traced as usual.

    Returns:
        A context manager.

    Example:
        >>> import tessela as tx
        >>> import tessela.numpy as tnp
        >>> @tx.jit
        ... def f(x):
        ...     with tx.ensure_compile_time_eval():
        ...         n = int(tnp.sum(tnp.arange(4)))  # concrete, even under jit
        ...     return x * n
        >>> print(f(1.0))
        6.0
    """
    outer = get_current_trace()
    with set_current_trace(_CompileTimeEvalTrace(outer, _root_trace())):
        yield


def named_call(fun: _F, *, name: str | None = None) -> _F:
    """Give ``fun`` a name in profiles; Tessela returns it unchanged.

    Args:
        fun: the function.
        name: the name (``fun.__name__`` by default).

    Returns:
        ``fun`` itself (JAX's jaxprs show no trace of the name either).

    Example:
        >>> import tessela as tx
        >>> print(tx.named_call(lambda x: x + 1, name="inc")(1))
        2
    """
    if name is not None and not isinstance(name, str):
        raise TypeError(f"named_call: name must be a string, got {type(name).__name__}.")
    return fun


@contextlib.contextmanager
def named_scope(name: str) -> Iterator[None]:
    """Name the operations of a block in profiles; a no-op annotation in Tessela.

    Args:
        name: the scope's name.

    Returns:
        A context manager.

    Raises:
        TypeError: when ``name`` is not a string.

    Example:
        >>> import tessela as tx
        >>> with tx.named_scope("layer1"):
        ...     pass
    """
    if not isinstance(name, str):
        raise TypeError("named_scope name argument must be a string; pass a str.")
    yield


_DISTRIBUTIONS = (
    "tessela", "tessela-pytree", "tessela-prng", "tessela-tracer", "tessela-numpy",
    "tessela-lowering", "tessela-batching", "tessela-autodiff",
)  # fmt: skip


def _version(dist: str) -> str:
    # importlib.metadata is imported here, not with `import tessela`.
    metadata: Any = importlib.import_module("importlib.metadata")
    try:
        version: str = metadata.version(dist)
        return version
    except metadata.PackageNotFoundError:
        return "not installed"


def print_environment_info(return_string: bool = False) -> str | None:
    """Print (or return) the versions, Python, platform and devices in use.

    Args:
        return_string: return the text instead of printing it.

    Returns:
        The text when ``return_string`` is true, else None.

    Example:
        >>> import tessela as tx
        >>> "numpy:" in tx.print_environment_info(return_string=True)
        True
    """
    lines = [f"{dist}: {_version(dist)}" for dist in _DISTRIBUTIONS]
    lines += [
        f"numpy: {np.__version__}",
        f"python: {sys.version}",
        f"device info: {tessela_lowering.default_backend()}-{tessela_lowering.device_count()}, "
        f"{tessela_lowering.local_device_count()} local devices",
        f"process_count: {tessela_lowering.process_count()}",
        f"platform: {platform.uname()}",
    ]
    text = "\n".join(lines)
    if return_string:
        return text
    print(text)
    return None
