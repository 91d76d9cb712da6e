"""jaxlib's MLIR dialect modules, imported when a lowering first reads them.

``import tessela`` needs none of them: importing ``stablehlo``, ``chlo``,
``func`` and ``sdy`` (with the typing helpers they pull in) takes about a
tenth of its time, and only a program being lowered reads an op. Each name
here is a module object that imports its dialect the first time one of its
attributes is read, then holds the dialect's names itself, so later reads
are plain attribute reads. Type checkers see the dialect modules.
"""

from __future__ import annotations

import importlib
import types
from typing import TYPE_CHECKING, Any

__all__ = ["chlo", "func_dialect", "sdy", "stablehlo"]


class _Dialect(types.ModuleType):
    """A module that imports ``target`` when one of its attributes is first read."""

    def __init__(self, target: str) -> None:
        super().__init__(target)
        self._target = target

    def __getattr__(self, name: str) -> Any:
        # Only reads of names not yet here come this way: the first one
        # imports the dialect and copies its names in.
        module = importlib.import_module(self._target)
        self.__dict__.update(vars(module))
        return getattr(module, name)


if TYPE_CHECKING:
    from jaxlib.mlir.dialects import chlo, sdy, stablehlo
    from jaxlib.mlir.dialects import func as func_dialect
else:
    chlo = _Dialect("jaxlib.mlir.dialects.chlo")
    func_dialect = _Dialect("jaxlib.mlir.dialects.func")
    sdy = _Dialect("jaxlib.mlir.dialects.sdy")
    stablehlo = _Dialect("jaxlib.mlir.dialects.stablehlo")
