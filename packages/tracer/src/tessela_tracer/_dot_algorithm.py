"""Dot algorithms: ``DotAlgorithm`` and ``DotAlgorithmPreset``, accepted as ``precision=``.

A dot algorithm names the types a contraction rounds its operands to, the
type it accumulates in and how many passes it makes (``BF16_BF16_F32_X3``
emulates float32 with three bfloat16 products). ``dot_general`` (and
``dot``, ``matmul``, ...) accept one wherever they accept a
:class:`~tessela_tracer.lax.Precision`, also by preset name
(``precision="F16_F16_F32"``). The lowering converts the operands to the
algorithm's input types, emits ``stablehlo.dot_general`` with the
``algorithm`` attribute, and converts the result back to the output dtype,
as JAX does; on CPU it accepts the presets XLA's CPU backend runs
(``DEFAULT``, ``F16_F16_F16``, ``F32_F32_F32``, ``F64_F64_F64``,
``BF16_BF16_F32``, ``BF16_BF16_F32_X3``, ``BF16_BF16_F32_X6``) and raises
``ValueError`` for the others, as JAX does.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from typing import Any, NamedTuple, TypeAlias

import numpy as np
import numpy.typing as npt

from tessela_tracer import _dtypes

__all__ = [
    "CPU_DOT_ALGORITHMS",
    "DotAlgorithm",
    "DotAlgorithmPreset",
    "algorithm_compute_types",
    "algorithm_spec",
]


class DotAlgorithm(NamedTuple):
    """An explicit dot algorithm: operand and accumulation types, and the decomposition.

    Attributes:
      lhs_precision_type: the type the left operand is rounded to.
      rhs_precision_type: the type the right operand is rounded to.
      accumulation_type: the type of the accumulator (and of the result).
      lhs_component_count: components the left operand is split into.
      rhs_component_count: components the right operand is split into.
      num_primitive_operations: products computed per output element.
      allow_imprecise_accumulation: whether some steps may accumulate in lower
        precision.

    Example:
        >>> import numpy as np
        >>> DotAlgorithm(np.float16, np.float16, np.float32).num_primitive_operations
        1
    """

    lhs_precision_type: npt.DTypeLike
    rhs_precision_type: npt.DTypeLike
    accumulation_type: npt.DTypeLike
    lhs_component_count: int = 1
    rhs_component_count: int = 1
    num_primitive_operations: int = 1
    allow_imprecise_accumulation: bool = False


class DotAlgorithmPreset(enum.Enum):
    """The named dot algorithms of JAX (``lax.DotAlgorithmPreset``).

    Example:
        >>> DotAlgorithmPreset.BF16_BF16_F32_X3
        DotAlgorithmPreset.BF16_BF16_F32_X3
        >>> DotAlgorithmPreset.F16_F16_F32.accumulation_type
        <class 'numpy.float32'>
    """

    DEFAULT = enum.auto()
    ANY_F8_ANY_F8_F32 = enum.auto()
    ANY_F8_ANY_F8_F32_FAST_ACCUM = enum.auto()
    ANY_F8_ANY_F8_ANY = enum.auto()
    ANY_F8_ANY_F8_ANY_FAST_ACCUM = enum.auto()
    F16_F16_F16 = enum.auto()
    F16_F16_F32 = enum.auto()
    BF16_BF16_BF16 = enum.auto()
    BF16_BF16_F32 = enum.auto()
    BF16_BF16_F32_X3 = enum.auto()
    BF16_BF16_F32_X6 = enum.auto()
    BF16_BF16_F32_X9 = enum.auto()
    TF32_TF32_F32 = enum.auto()
    TF32_TF32_F32_X3 = enum.auto()
    F32_F32_F32 = enum.auto()
    F64_F64_F64 = enum.auto()

    def __repr__(self) -> str:
        return f"{type(self).__name__}.{self.name}"

    def __str__(self) -> str:
        return self.name

    @property
    def supported_lhs_types(self) -> tuple[type[np.generic], ...] | None:
        """The operand types the algorithm takes as they are (``None``: any)."""
        name = self.name
        if name == "DEFAULT" or name.startswith("ANY_F8"):
            return None
        if name.startswith("F16_"):
            return (np.float16,)
        if name in ("BF16_BF16_BF16", "BF16_BF16_F32"):
            return (_dtypes.bfloat16.type, np.float32)
        if name == "F64_F64_F64":
            return (np.float64,)
        return (np.float32,)

    @property
    def supported_rhs_types(self) -> tuple[type[np.generic], ...] | None:
        """As :attr:`supported_lhs_types`."""
        return self.supported_lhs_types

    @property
    def accumulation_type(self) -> type[np.generic] | None:
        """The accumulation type (``None``: the output's)."""
        name = self.name
        if name in ("DEFAULT", "ANY_F8_ANY_F8_ANY", "ANY_F8_ANY_F8_ANY_FAST_ACCUM"):
            return None
        acc: type[np.generic] = {
            "F16_F16_F16": np.float16, "BF16_BF16_BF16": _dtypes.bfloat16.type,
            "F64_F64_F64": np.float64,
        }.get(name, np.float32)  # fmt: skip
        return acc

    def supported_output_types(
        self, lhs_dtype: npt.DTypeLike, rhs_dtype: npt.DTypeLike
    ) -> tuple[type[np.generic], ...] | None:
        """The result types the algorithm produces directly (``None``: any).

        Args:
          lhs_dtype: the (converted) left operand type.
          rhs_dtype: the (converted) right operand type.

        Returns:
          A tuple of types, or None.
        """
        name = self.name
        if name in ("ANY_F8_ANY_F8_F32", "ANY_F8_ANY_F8_F32_FAST_ACCUM"):
            return (np.float32, np.float16, _dtypes.bfloat16.type, *_dtypes._FLOAT8)
        both = _dtypes.promote_types(np.dtype(lhs_dtype), np.dtype(rhs_dtype))
        if name == "F16_F16_F32":
            return (np.float32, np.float16) if both == np.float16 else (np.float32,)
        if name == "BF16_BF16_F32":
            bf16 = _dtypes.bfloat16.type
            return (np.float32, bf16) if both == _dtypes.bfloat16 else (np.float32,)
        acc = self.accumulation_type
        return None if acc is None else (acc,)


# The presets XLA's CPU backend runs (it ignores the others silently).
CPU_DOT_ALGORITHMS = frozenset(
    DotAlgorithmPreset[n]
    for n in (
        "DEFAULT", "F16_F16_F16", "F32_F32_F32", "F64_F64_F64", "BF16_BF16_F32",
        "BF16_BF16_F32_X3", "BF16_BF16_F32_X6",
    )
)  # fmt: skip


def _pick(dtype: Any, targets: Sequence[Any] | None) -> np.dtype[Any]:
    own: np.dtype[Any] = np.dtype(dtype)
    if targets is None or any(own == np.dtype(t) for t in targets):
        return own
    first: np.dtype[Any] = np.dtype(targets[0])
    return first


def algorithm_compute_types(
    algorithm: DotAlgorithm | DotAlgorithmPreset,
    lhs_dtype: npt.DTypeLike,
    rhs_dtype: npt.DTypeLike,
    out_dtype: npt.DTypeLike,
) -> tuple[np.dtype[Any], np.dtype[Any], np.dtype[Any]]:
    """The operand and accumulation types a dot with ``algorithm`` computes in.

    Args:
      algorithm: the algorithm.
      lhs_dtype: the left operand's dtype.
      rhs_dtype: the right operand's dtype.
      out_dtype: the result's dtype.

    Returns:
      ``(lhs_type, rhs_type, accumulation_type)``.

    Example:
        >>> algorithm_compute_types(DotAlgorithmPreset.F16_F16_F16, "float32", "float32", "float32")
        (dtype('float16'), dtype('float16'), dtype('float16'))
    """
    if isinstance(algorithm, DotAlgorithm):
        return (
            np.dtype(algorithm.lhs_precision_type),
            np.dtype(algorithm.rhs_precision_type),
            np.dtype(algorithm.accumulation_type),
        )
    lhs = _pick(lhs_dtype, algorithm.supported_lhs_types)
    rhs = _pick(rhs_dtype, algorithm.supported_rhs_types)
    return lhs, rhs, _pick(out_dtype, algorithm.supported_output_types(lhs, rhs))


# (lhs type, rhs type, accumulation type, lhs count, rhs count, operations, imprecise); a
# type of None means the operand's own.
# A type of a dot algorithm spec: a NumPy dtype, or "tf32" (no NumPy dtype exists).
_SpecType: TypeAlias = np.dtype[Any] | str
_SPECS: dict[str, tuple[Any, Any, Any, int, int, int]] = {
    "F16_F16_F16": (np.float16, np.float16, np.float16, 1, 1, 1),
    "F16_F16_F32": (np.float16, np.float16, np.float32, 1, 1, 1),
    "BF16_BF16_BF16": ("bfloat16", "bfloat16", "bfloat16", 1, 1, 1),
    "BF16_BF16_F32": ("bfloat16", "bfloat16", np.float32, 1, 1, 1),
    "BF16_BF16_F32_X3": ("bfloat16", "bfloat16", np.float32, 1, 1, 3),
    "BF16_BF16_F32_X6": ("bfloat16", "bfloat16", np.float32, 1, 1, 6),
    "BF16_BF16_F32_X9": ("bfloat16", "bfloat16", np.float32, 1, 1, 9),
    "TF32_TF32_F32": ("tf32", "tf32", np.float32, 1, 1, 1),
    "TF32_TF32_F32_X3": ("tf32", "tf32", np.float32, 1, 1, 3),
    "F32_F32_F32": (np.float32, np.float32, np.float32, 1, 1, 1),
    "F64_F64_F64": (np.float64, np.float64, np.float64, 1, 1, 1),
}


def algorithm_spec(
    algorithm: DotAlgorithm | DotAlgorithmPreset, lhs_dtype: npt.DTypeLike, rhs_dtype: npt.DTypeLike
) -> tuple[_SpecType, _SpecType, _SpecType, int, int, int, bool] | None:
    """The fields of StableHLO's ``#stablehlo.dot_algorithm`` for ``algorithm`` (None: none).

    Types are NumPy dtypes, or the string ``"tf32"`` (no NumPy dtype exists).

    Args:
      algorithm: the algorithm.
      lhs_dtype: the (converted) left operand type.
      rhs_dtype: the (converted) right operand type.

    Returns:
      ``(lhs, rhs, accumulation, lhs_count, rhs_count, operations, imprecise)`` or None.

    Raises:
      ValueError: a float8 preset with operands that are not float8.

    Example:
        >>> algorithm_spec(DotAlgorithmPreset.DEFAULT, "float32", "float32") is None
        True
    """
    if isinstance(algorithm, DotAlgorithm):
        return (
            np.dtype(algorithm.lhs_precision_type), np.dtype(algorithm.rhs_precision_type),
            np.dtype(algorithm.accumulation_type), algorithm.lhs_component_count,
            algorithm.rhs_component_count, algorithm.num_primitive_operations,
            bool(algorithm.allow_imprecise_accumulation),
        )  # fmt: skip
    name = algorithm.name
    if name.startswith("ANY_F8"):
        f8 = {np.dtype(t) for t in _dtypes._FLOAT8}
        if np.dtype(lhs_dtype) not in f8 or np.dtype(rhs_dtype) not in f8:
            raise ValueError(
                f"The dot algorithm '{algorithm}' requires both inputs to have float8 dtypes. "
                f"Got {np.dtype(lhs_dtype)} and {np.dtype(rhs_dtype)} instead."
            )
        fast = name.endswith("FAST_ACCUM")
        return (np.dtype(lhs_dtype), np.dtype(rhs_dtype), np.dtype(np.float32), 1, 1, 1, fast)
    spec = _SPECS.get(name)
    if spec is None:
        return None
    lhs, rhs, acc, lc, rc, ops = spec
    return (_spec_type(lhs), _spec_type(rhs), _spec_type(acc), lc, rc, ops, False)


def _spec_type(t: Any) -> _SpecType:
    out: _SpecType = t if t == "tf32" else np.dtype(t)
    return out
