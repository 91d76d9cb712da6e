"""Ahead-of-time stages of a jitted function: traced, lowered, compiled.

``jit(f).trace(*args)`` gives a :class:`Traced` (the jaxpr and output
shapes), ``.lower()`` a :class:`Lowered` (the StableHLO module), and
``.compile()`` a :class:`Compiled` that runs on arguments of the same types
without tracing again. A call compiled over a mesh (``jit`` with shardings,
:mod:`tessela_lowering._spmd_jit`) carries its stage through the three;
``Compiled.input_shardings`` and ``output_shardings`` report where the
arguments go and where the results land, as JAX's do.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tessela_pytree import tree_flatten, tree_unflatten
from tessela_tracer import get_aval
from tessela_tracer.extend import Traced as _TracedStage

from tessela_lowering import _xla
from tessela_lowering._array import SingleDeviceSharding
from tessela_lowering._compile import Executable, Plan, compile_plan, short_type
from tessela_lowering._spmd_jit import SpmdStage
from tessela_lowering._xla import MemoryStats, XlaComputation, ir

__all__ = ["Compiled", "Lowered", "Traced"]


class Traced(_TracedStage):
    """A jitted function traced for given argument types, ready to lower with XLA.

    Attributes:
      jaxpr: the traced program (constants embedded, unused inputs pruned).
      out_info: the output pytree of ``ShapeDtypeStruct``.
    """

    def __init__(self, plan: Plan, in_tree: Any, spmd: SpmdStage | None = None) -> None:
        super().__init__(plan.closed, plan.out_tree)
        self._plan = plan
        self._in_tree = in_tree
        self._spmd = spmd

    def lower(self) -> Lowered:
        """The StableHLO module of this trace."""
        return Lowered(self._plan, self._in_tree, self._spmd)


class Lowered:
    """A jitted function lowered to StableHLO for given argument types."""

    def __init__(self, plan: Plan, in_tree: Any, spmd: SpmdStage | None = None) -> None:
        self._plan = plan
        self._in_tree = in_tree
        self._spmd = spmd
        self._text = spmd.text if spmd is not None else plan.module_text()
        self._compiled: Compiled | None = None

    def as_text(self) -> str:
        """The StableHLO module as MLIR text."""
        return self._text

    def compiler_ir(self, dialect: str = "stablehlo") -> ir.Module | XlaComputation:
        """The module as an MLIR ``Module`` (in a fresh context), or as HLO.

        Args:
          dialect: ``"stablehlo"`` (an MLIR module) or ``"hlo"`` (an
            ``XlaComputation``, whose ``as_hlo_text()`` prints HLO).

        Returns:
          The module in that dialect.

        Raises:
          ValueError: for another dialect.
        """
        if dialect == "hlo":
            return _xla.xla_computation(self._text)
        if dialect != "stablehlo":
            raise ValueError(
                f'compiler_ir(dialect={dialect!r}) is not supported; use "stablehlo" or "hlo".'
            )
        ctx = _xla.fresh_ir_context()
        return ir.Module.parse(self._text, context=ctx)

    def cost_analysis(self) -> dict[str, float]:
        """XLA's cost estimate (flops, bytes accessed, ...), from compiling the module."""
        return self.compile().cost_analysis()

    def compile(self) -> Compiled:
        """Compile the module; the result runs on arguments of the lowered types."""
        if self._compiled is None:
            exe = self._spmd if self._spmd is not None else compile_plan(self._plan)
            self._compiled = Compiled(exe, self._in_tree)
        return self._compiled


class Compiled:
    """A compiled jitted function for fixed argument types."""

    def __init__(self, executable: Executable | SpmdStage, in_tree: Any) -> None:
        self._exe = executable
        self._in_tree = in_tree

    @property
    def _xla_executable(self) -> Any:
        exe = self._exe
        return exe.executable.executable if isinstance(exe, SpmdStage) else exe.executable

    @property
    def input_shardings(self) -> Any:
        """Where each argument goes: ``(args, kwargs)`` of shardings (``None``: an unused one)."""
        exe = self._exe
        if isinstance(exe, SpmdStage):
            flat = list(exe.in_shardings)
        else:
            plan = exe.plan
            kept = set(plan.kept)
            here = SingleDeviceSharding(plan.device)
            flat = [here if i in kept else None for i in range(len(plan.in_avals))]
        args, kwargs = tree_unflatten(self._in_tree, flat)
        return tuple(args), kwargs

    @property
    def output_shardings(self) -> Any:
        """The sharding of each output, in the output's pytree structure."""
        exe = self._exe
        if isinstance(exe, SpmdStage):
            flat = list(exe.out_shardings)
        else:
            flat = [SingleDeviceSharding(exe.plan.device)] * len(exe.out_avals)
        return tree_unflatten(exe.plan.out_tree, flat)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        flat, in_tree = tree_flatten((list(args), kwargs))
        plan = self._exe.plan
        avals = [get_aval(x) for x in flat]
        if in_tree != self._in_tree or _types(avals) != _types(plan.in_avals):
            raise TypeError(
                "Argument types differ from the types for which this computation was "
                f"compiled: expected ({_show(plan.in_avals)}), got ({_show(avals)}). Call "
                "the jitted function itself to compile for new types, or lower it again."
            )
        return tree_unflatten(plan.out_tree, self._exe.run(flat))

    def cost_analysis(self) -> dict[str, float]:
        """XLA's cost estimate (flops, bytes accessed, ...)."""
        return _xla.cost_analysis(self._xla_executable)

    def memory_analysis(self) -> MemoryStats:
        """XLA's memory statistics (argument, output, temp and code sizes in bytes)."""
        return _xla.memory_analysis(self._xla_executable)

    def as_text(self) -> str:
        """The optimized HLO XLA compiled."""
        return _xla.hlo_text(self._xla_executable)


def _types(avals: Sequence[Any]) -> list[tuple[Any, Any]]:
    return [(a.shape, a.dtype) for a in avals]


def _show(avals: Sequence[Any]) -> str:
    return ", ".join(short_type(a) for a in avals)
