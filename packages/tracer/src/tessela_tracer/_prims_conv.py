"""Convolution: ``conv_general_dilated_p``, its dimension numbers and precision.

``conv_general_dilated`` takes JAX 0.10.2's parameters: ``window_strides``,
``padding`` as explicit ``(low, high)`` pairs, ``lhs_dilation``,
``rhs_dilation``, ``dimension_numbers`` as a :class:`ConvDimensionNumbers`
(the axis of batch, feature and each spatial dimension of the input, of
output feature, input feature and each spatial dimension of the kernel, and
of batch, feature and each spatial dimension of the output),
``feature_group_count``, ``batch_group_count``, ``precision``,
``preferred_element_type`` and ``out_sharding`` (always ``None``). The lax
wrappers are in :mod:`tessela_tracer._lax_conv`.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from typing import Any, NamedTuple, TypeAlias

import numpy as np

from tessela_tracer import _dtypes
from tessela_tracer._avals import ShapedArray
from tessela_tracer._config import config
from tessela_tracer._core import Primitive, register_abstract_eval
from tessela_tracer._dot_algorithm import DotAlgorithm, DotAlgorithmPreset

__all__ = [
    "ConvDimensionNumbers", "ConvGeneralDilatedDimensionNumbers", "Precision", "PrecisionLike",
    "conv_general_dilated_p", "dilate_shape",
]  # fmt: skip


class ConvDimensionNumbers(NamedTuple):
    """Axis layout of a convolution, each spec ``(batch/out, feature/in, *spatial)``.

    Attributes:
      lhs_spec: input axes: batch, feature, then the spatial axes.
      rhs_spec: kernel axes: output feature, input feature, then spatial.
      out_spec: output axes: batch, feature, then spatial.
    """

    lhs_spec: tuple[int, ...]
    rhs_spec: tuple[int, ...]
    out_spec: tuple[int, ...]


class Precision(enum.Enum):
    """Precision hints of convolutions and contractions (printed as JAX prints them)."""

    DEFAULT = 0
    HIGH = 1
    HIGHEST = 2

    def __repr__(self) -> str:
        return f"Precision.{self.name}"

    def __str__(self) -> str:
        return self.name


PrecisionLike: TypeAlias = (
    str
    | Precision
    | tuple[str | Precision, str | Precision]
    | list[str | Precision]
    | DotAlgorithm
    | DotAlgorithmPreset
    | None
)
"""What a ``precision`` argument accepts: None, a Precision or its name, a pair of
them, a dot algorithm or a preset (or its name)."""
ConvGeneralDilatedDimensionNumbers: TypeAlias = tuple[str, str, str] | ConvDimensionNumbers | None
"""The ``dimension_numbers`` of ``conv_general_dilated``."""


_default_precision = config.state("jax_default_matmul_precision")

_PRECISION_NAMES = {
    "default": Precision.DEFAULT, "bfloat16": Precision.DEFAULT, "fastest": Precision.DEFAULT,
    "high": Precision.HIGH, "bfloat16_3x": Precision.HIGH, "tensorfloat32": Precision.HIGH,
    "highest": Precision.HIGHEST, "float32": Precision.HIGHEST,
}  # fmt: skip


def _one_precision(p: str | Precision) -> Precision:
    if isinstance(p, Precision):
        return p
    if isinstance(p, str) and p.lower() in _PRECISION_NAMES:
        return _PRECISION_NAMES[p.lower()]
    raise ValueError(
        "Precision argument must be one of: None, a Precision enum value, one of the strings "
        f"{sorted(_PRECISION_NAMES)}, or a pair of them; got {p!r}."
    )


def canonicalize_precision(
    precision: PrecisionLike,
) -> tuple[Precision, Precision] | DotAlgorithm | DotAlgorithmPreset | None:
    """``None``, a pair of :class:`Precision` values, or a dot algorithm, as JAX's parameter holds it.

    ``None`` takes the ``jax_default_matmul_precision`` flag's value (as in
    JAX, the flag fills in only an absent precision). A
    :class:`DotAlgorithm` or :class:`DotAlgorithmPreset` (or a preset's name)
    is kept as it is.

    Args:
      precision: None, a Precision, a precision name, a pair of them, a dot
        algorithm or a preset's name.

    Returns:
      None, ``(lhs_precision, rhs_precision)`` or the dot algorithm.

    Example:
        >>> canonicalize_precision("highest"), canonicalize_precision("F16_F16_F32")
        ((Precision.HIGHEST, Precision.HIGHEST), DotAlgorithmPreset.F16_F16_F32)
    """
    if precision is None:
        default = _default_precision.value
        if default is None:
            return None
        if (
            default.lower() not in _PRECISION_NAMES
            and default not in DotAlgorithmPreset.__members__
        ):
            raise ValueError(
                "jax_default_matmul_precision flag must be set to None, a value in "
                f"{sorted(_PRECISION_NAMES)}, or the name of a lax.DotAlgorithmPreset, but got "
                f"{default}"
            )
        precision = default
    if isinstance(precision, (DotAlgorithm, DotAlgorithmPreset)):
        return precision
    if isinstance(precision, str) and precision in DotAlgorithmPreset.__members__:
        return DotAlgorithmPreset[precision]
    if isinstance(precision, (tuple, list)):
        if len(precision) != 2:
            raise ValueError(f"precision must be a pair, got {precision!r}")
        return (_one_precision(precision[0]), _one_precision(precision[1]))
    p = _one_precision(precision)
    return (p, p)


def dilate_shape(shape: Sequence[int], dilation: Sequence[int]) -> tuple[int, ...]:
    """The size of each dimension after inserting ``dilation - 1`` holes between elements.

    Args:
      shape: the sizes.
      dilation: the dilation factors (1 keeps a size).

    Returns:
      ``0`` for empty dimensions, else ``1 + dilation * (size - 1)``.
    """
    return tuple(0 if d == 0 else 1 + r * (d - 1) for d, r in zip(shape, dilation, strict=True))


def _stride_dim(padded: int, window: int, stride: int) -> int:
    return max(0, (padded - window) // stride + 1)


def _same_dtypes(name: str, lhs: ShapedArray, rhs: ShapedArray) -> None:
    if lhs.dtype != rhs.dtype:
        raise TypeError(
            f"lax.{name} requires arguments to have the same dtypes, got "
            f"{lhs.dtype.name}, {rhs.dtype.name}."
        )


def _conv_rule(
    lhs: ShapedArray,
    rhs: ShapedArray,
    *,
    window_strides: tuple[int, ...],
    padding: tuple[tuple[int, int], ...],
    lhs_dilation: tuple[int, ...],
    rhs_dilation: tuple[int, ...],
    dimension_numbers: ConvDimensionNumbers,
    feature_group_count: int,
    batch_group_count: int,
    precision: Any,
    preferred_element_type: Any,
    out_sharding: Any,
) -> ShapedArray:
    name = "conv_general_dilated"
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    if lhs.ndim != rhs.ndim:
        raise ValueError(
            f"{name} lhs and rhs must have the same number of dimensions, but got "
            f"{lhs.shape} and {rhs.shape}."
        )
    if not feature_group_count > 0:
        raise ValueError(
            f"{name} feature_group_count must be a positive integer, got {feature_group_count}."
        )
    lhs_features = lhs.shape[lhs_spec[1]]
    quot, rem = divmod(lhs_features, feature_group_count)
    if rem:
        raise ValueError(
            f"{name} feature_group_count must divide lhs feature dimension size, but "
            f"{feature_group_count} does not divide {lhs_features}."
        )
    if quot != rhs.shape[rhs_spec[1]]:
        raise ValueError(
            f"{name} lhs feature dimension size divided by feature_group_count must equal "
            f"the rhs input feature dimension size, but {lhs_features} // "
            f"{feature_group_count} != {rhs.shape[rhs_spec[1]]}."
        )
    out_features = rhs.shape[rhs_spec[0]]
    if out_features % feature_group_count:
        raise ValueError(
            f"{name} rhs output feature dimension size must be a multiple of "
            f"feature_group_count, but {out_features} is not a multiple of "
            f"{feature_group_count}."
        )
    if not batch_group_count > 0:
        raise ValueError(
            f"{name} batch_group_count must be a positive integer, got {batch_group_count}."
        )
    lhs_batch = lhs.shape[lhs_spec[0]]
    if batch_group_count > 1 and lhs_batch % batch_group_count:
        raise ValueError(
            f"{name} batch_group_count must divide lhs batch dimension size, but "
            f"{batch_group_count} does not divide {lhs_batch}."
        )
    if out_features % batch_group_count:
        raise ValueError(
            f"{name} rhs output feature dimension size must be a multiple of "
            f"batch_group_count, but {out_features} is not a multiple of {batch_group_count}."
        )
    if batch_group_count > 1 and feature_group_count > 1:
        raise ValueError(
            "At most one of batch_group_count and feature_group_count may be > 1, got "
            f"batch_group_count={batch_group_count} and "
            f"feature_group_count={feature_group_count}"
        )
    nspatial = len(rhs_spec) - 2
    if nspatial != len(window_strides):
        raise ValueError(
            f"{name} window and window_strides must have the same number of dimensions, "
            f"but got {nspatial} and {len(window_strides)}"
        )
    if len(padding) != nspatial:
        raise TypeError(
            "Wrong number of explicit pads for convolution: expected "
            f"{nspatial}, got {len(padding)}."
        )
    for what, vals in (("lhs_dilation", lhs_dilation), ("rhs_dilation", rhs_dilation)):
        if len(vals) != nspatial or any(v < 1 for v in vals):
            raise ValueError(
                f"{name} {what} must be {nspatial} positive integers, got {tuple(vals)}."
            )
    if any(s < 1 for s in window_strides):
        raise ValueError(
            f"{name} window_strides must be positive integers, got {tuple(window_strides)}."
        )
    _same_dtypes(name, lhs, rhs)
    in_sp = dilate_shape([lhs.shape[i] for i in lhs_spec[2:]], lhs_dilation)
    k_sp = dilate_shape([rhs.shape[i] for i in rhs_spec[2:]], rhs_dilation)
    padded = [d + lo + hi for d, (lo, hi) in zip(in_sp, padding, strict=True)]
    if any(p < 0 for p in padded):
        raise ValueError(
            "Negative padding is larger than the size of the corresponding dimension: "
            f"got padding={padding} for lhs_shape[2:]={tuple(in_sp)}"
        )
    spatial = [_stride_dim(p, k, s) for p, k, s in zip(padded, k_sp, window_strides, strict=True)]
    canonical = [lhs_batch // batch_group_count, out_features, *spatial]
    shape = [0] * lhs.ndim
    for size, axis in zip(canonical, out_spec, strict=True):
        shape[axis] = size
    dtype = lhs.dtype
    if preferred_element_type is not None:
        dtype = np.dtype(preferred_element_type)
        _check_preferred(lhs.dtype, dtype)
    return ShapedArray(tuple(shape), dtype, lhs.weak_type and rhs.weak_type)


def _check_preferred(input_dtype: np.dtype[Any], preferred: np.dtype[Any]) -> None:
    # JAX's checks of a convolution's ``preferred_element_type``, with its texts.
    sub = _dtypes.issubdtype
    if not (sub(input_dtype, np.integer) and sub(preferred, np.floating)):
        kinds = (np.integer, np.floating, np.complexfloating)
        if any(sub(input_dtype, k) and not sub(preferred, k) for k in kinds):
            raise TypeError(
                "Input type is incompatible with `preferred_element_type`. The compatible "
                "combinations of (input_type, preferred_element_type) are (integral, integral), "
                "(integral, floating), (floating, floating), (complex, complex."
            )
        if sub(input_dtype, np.signedinteger) and not sub(preferred, np.signedinteger):
            raise TypeError(
                "`preferred_element_type` must have the same signedness as the original type."
            )
    if preferred.itemsize < input_dtype.itemsize:
        raise TypeError("`preferred_element_type` must not be narrower than the original type.")


conv_general_dilated_p = Primitive("conv_general_dilated")
register_abstract_eval(conv_general_dilated_p, _conv_rule)
