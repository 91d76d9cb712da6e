"""``tessela.stages``: the ahead-of-time stages of a jitted function, as ``jax.stages``.

``jit(f).trace(*args)`` gives a :class:`Traced`, ``.lower()`` a
:class:`Lowered` (the StableHLO module) and ``.compile()`` a
:class:`Compiled` that runs on arguments of the lowered types. The three
classes are ``tessela_lowering``'s. :class:`Wrapped` is the protocol a
jitted function satisfies, :class:`ArgInfo` describes one argument of a
stage (its abstract value and whether it is donated) and
``CompilerOptions`` is the type of XLA compiler options.

Example:
    >>> import tessela as tx
    >>> import tessela.numpy as tnp
    >>> from tessela import stages
    >>> lowered = tx.jit(lambda x: x * 2).lower(tnp.ones(3))
    >>> isinstance(lowered, stages.Lowered), isinstance(lowered.compile(), stages.Compiled)
    (True, True)
"""

from __future__ import annotations

import dataclasses
from typing import Any, Protocol

from tessela_lowering import Compiled, Lowered, Traced

__all__ = ["ArgInfo", "Compiled", "CompilerOptions", "Lowered", "Traced", "Wrapped"]

CompilerOptions = dict[str, str | bool]
"""XLA compiler options: option name to value (``dict[str, str | bool]``)."""


@dataclasses.dataclass(frozen=True, slots=True)
class ArgInfo:
    """One argument of a traced, lowered or compiled function.

    Args:
      _aval: the argument's abstract value (a ``ShapedArray``).
      donated: whether the argument's buffer is donated to the computation.

    Example:
      >>> import numpy as np
      >>> from tessela import ShapeDtypeStruct
      >>> from tessela.stages import ArgInfo
      >>> info = ArgInfo(ShapeDtypeStruct((2, 3), np.float32), donated=False)
      >>> info.shape, info.dtype
      ((2, 3), dtype('float32'))
    """

    _aval: Any
    donated: bool

    @property
    def shape(self) -> tuple[int, ...]:
        """The argument's shape.

        Raises:
          TypeError: if the abstract value has no shape.
        """
        if not hasattr(self._aval, "shape"):
            raise TypeError(f"No shape attribute with aval of type {type(self._aval)}")
        return tuple(self._aval.shape)

    @property
    def dtype(self) -> Any:
        """The argument's dtype.

        Raises:
          TypeError: if the abstract value has no dtype.
        """
        if not hasattr(self._aval, "dtype"):
            raise TypeError(f"No dtype attribute with aval of type {type(self._aval)}")
        return self._aval.dtype


class Wrapped(Protocol):
    """A function ready to be traced, lowered and compiled: what ``jit`` returns.

    Calling it traces, lowers, compiles (once per argument types) and runs;
    ``trace`` and ``lower`` stop at the earlier stages.

    Example:
      >>> import tessela as tx
      >>> from tessela.stages import Wrapped
      >>> f: Wrapped = tx.jit(lambda x: x + 1)
      >>> print(f(1.0))
      2.0
    """

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Runs the wrapped function, lowering and compiling as needed."""
        ...

    def trace(self, *args: Any, **kwargs: Any) -> Traced:
        """Traces the function for these arguments.

        Returns:
          A ``Traced`` stage.
        """
        ...

    def lower(self, *args: Any, **kwargs: Any) -> Lowered:
        """Lowers the function for these arguments (``trace(...).lower()``).

        Returns:
          A ``Lowered`` stage.
        """
        ...
