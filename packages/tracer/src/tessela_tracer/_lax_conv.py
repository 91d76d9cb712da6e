"""lax-level convolution: ``conv_general_dilated`` and its convenience wrappers."""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

from tessela_tracer import _dtypes
from tessela_tracer._avals import OutSharding
from tessela_tracer._core import get_aval_of as _aval
from tessela_tracer._lax_shape import rev, transpose
from tessela_tracer._prims_conv import (
    ConvDimensionNumbers,
    ConvGeneralDilatedDimensionNumbers,
    PrecisionLike,
    canonicalize_precision,
    conv_general_dilated_p,
    dilate_shape,
)
from tessela_tracer.typing import Array, ArrayLike, DTypeLike

__all__ = [
    "conv", "conv_dimension_numbers", "conv_general_dilated", "conv_general_permutations",
    "conv_transpose", "conv_with_general_padding", "padtype_to_pads",
]  # fmt: skip


def padtype_to_pads(
    in_shape: Sequence[int],
    window_shape: Sequence[int],
    window_strides: Sequence[int],
    padding: str,
) -> list[tuple[int, int]]:
    """Explicit ``(low, high)`` pads of a padding mode.

    Args:
      in_shape: the spatial input sizes.
      window_shape: the (dilated) window sizes.
      window_strides: the strides.
      padding: ``'SAME'``, ``'SAME_LOWER'`` or ``'VALID'`` (any case).

    Returns:
      One ``(low, high)`` pair per dimension. ``'SAME'`` keeps
      ``ceil(size / stride)`` outputs, with an odd extra pad at the end
      (``'SAME_LOWER'``: at the start); ``'VALID'`` pads nothing.

    Example:
        >>> padtype_to_pads((5, 6), (3, 2), (1, 2), "SAME")
        [(1, 1), (0, 0)]
    """
    mode = padding.upper() if isinstance(padding, str) else padding
    if mode not in ("SAME", "SAME_LOWER", "VALID"):
        if isinstance(padding, str):
            raise RuntimeError(
                "Unrecognized padding type: expected 'VALID', 'SAME', or 'SAME_LOWER', "
                f"got {padding}."
            )
        raise TypeError(f"Unknown padding type: {padding}.")
    if mode == "VALID":
        return [(0, 0)] * len(in_shape)
    if any(int(s) < 1 for s in window_strides):
        # JAX fails later, lowering the program (a ValueError as well).
        raise ValueError(f"window_strides must be positive integers, got {tuple(window_strides)}.")
    pads = []
    for d, w, s in zip(in_shape, window_shape, window_strides, strict=True):
        out = -(-int(d) // int(s))
        total = max((out - 1) * int(s) + int(w) - int(d), 0)
        small, big = total // 2, total - total // 2
        pads.append((small, big) if mode == "SAME" else (big, small))
    return pads


def conv_general_permutations(
    dimension_numbers: Sequence[str],
) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """Axis permutations of string dimension numbers such as ``('NHWC', 'HWIO', 'NHWC')``.

    Args:
      dimension_numbers: three strings: ``N``/``C`` and the spatial letters
        for the input and output, ``O``/``I`` and the spatial letters for the
        kernel.

    Returns:
      ``(lhs_spec, rhs_spec, out_spec)``; spatial axes follow the kernel's order.
    """
    lhs_s, rhs_s, out_s = dimension_numbers
    charpairs = (("N", "C"), ("O", "I"), ("N", "C"))
    for i, (a, b) in enumerate(charpairs):
        spec = dimension_numbers[i]
        if not spec.count(a) == spec.count(b) == 1:
            raise TypeError(
                f"convolution dimension_numbers[{i}] must contain the characters '{a}' and "
                f"'{b}' exactly once, got {spec}."
            )
        if len(spec) != len(set(spec)):
            raise TypeError(
                f"convolution dimension_numbers[{i}] cannot have duplicate characters, got {spec}."
            )
    if not (set(lhs_s) - {"N", "C"} == set(rhs_s) - {"O", "I"} == set(out_s) - {"N", "C"}):
        raise TypeError(
            "convolution dimension_numbers elements must each have the same set of spatial "
            f"characters, got {tuple(dimension_numbers)}."
        )

    def perm(spec: str, pair: tuple[str, str]) -> tuple[int, ...]:
        spatial = [i for i, c in enumerate(spec) if c not in pair]
        if spec is not rhs_s:
            spatial.sort(key=lambda i: rhs_s.index(spec[i]))
        return (spec.index(pair[0]), spec.index(pair[1]), *spatial)

    return perm(lhs_s, charpairs[0]), perm(rhs_s, charpairs[1]), perm(out_s, charpairs[2])


def conv_dimension_numbers(
    lhs_shape: Sequence[int],
    rhs_shape: Sequence[int],
    dimension_numbers: ConvGeneralDilatedDimensionNumbers,
) -> ConvDimensionNumbers:
    """Canonical :class:`ConvDimensionNumbers` of ``None``, strings or a ConvDimensionNumbers.

    Args:
      lhs_shape: the input's shape.
      rhs_shape: the kernel's shape.
      dimension_numbers: ``None`` (``NCHW``, ``OIHW``, ``NCHW`` order), three
        strings, or a :class:`ConvDimensionNumbers`.

    Returns:
      The dimension numbers as axis tuples.

    Example:
        >>> conv_dimension_numbers((1, 5, 5, 3), (3, 3, 3, 4), ("NHWC", "HWIO", "NHWC"))
        ConvDimensionNumbers(lhs_spec=(0, 3, 1, 2), rhs_spec=(3, 2, 0, 1), out_spec=(0, 3, 1, 2))
    """
    if isinstance(dimension_numbers, ConvDimensionNumbers):
        return dimension_numbers
    if len(lhs_shape) != len(rhs_shape):
        raise TypeError(
            "convolution requires lhs and rhs ndim to be equal, got "
            f"{len(lhs_shape)} and {len(rhs_shape)}."
        )
    if dimension_numbers is None:
        iota = tuple(range(len(lhs_shape)))
        return ConvDimensionNumbers(iota, iota, iota)
    if not isinstance(dimension_numbers, (list, tuple)):
        raise TypeError(
            "convolution dimension_numbers must be tuple/list or None, got "
            f"{type(dimension_numbers)}."
        )
    if len(dimension_numbers) != 3:
        raise TypeError(
            "convolution dimension_numbers list/tuple must be length 3, got "
            f"{len(dimension_numbers)}."
        )
    if not all(isinstance(e, str) for e in dimension_numbers):
        raise TypeError(
            "convolution dimension_numbers elements must be strings, got "
            f"{tuple(map(type, dimension_numbers))}."
        )
    for i, e in enumerate(dimension_numbers):
        if len(e) != len(lhs_shape):
            raise TypeError(
                f"convolution dimension_numbers[{i}] must have len equal to the ndim of lhs "
                f"and rhs, got {len(e)} for lhs and rhs shapes {tuple(lhs_shape)} and "
                f"{tuple(rhs_shape)}."
            )
    return ConvDimensionNumbers(*conv_general_permutations(dimension_numbers))


def conv_general_dilated(
    lhs: ArrayLike,
    rhs: ArrayLike,
    window_strides: Sequence[int],
    padding: str | Sequence[tuple[int, int]],
    lhs_dilation: Sequence[int] | None = None,
    rhs_dilation: Sequence[int] | None = None,
    dimension_numbers: ConvGeneralDilatedDimensionNumbers = None,
    feature_group_count: int = 1,
    batch_group_count: int = 1,
    precision: PrecisionLike = None,
    preferred_element_type: DTypeLike | None = None,
    out_sharding: OutSharding = None,
) -> Array:
    """General n-dimensional convolution with strides, padding, dilations and groups.

    Args:
      lhs: the input, rank ``n + 2``.
      rhs: the kernel, rank ``n + 2``.
      window_strides: ``n`` strides.
      padding: ``'SAME'``, ``'SAME_LOWER'``, ``'VALID'`` or ``n`` ``(low, high)`` pairs.
      lhs_dilation: ``n`` input dilations (transposed convolution), or None.
      rhs_dilation: ``n`` kernel dilations (atrous convolution), or None.
      dimension_numbers: None, three layout strings or a ConvDimensionNumbers.
      feature_group_count: number of feature groups.
      batch_group_count: number of batch groups.
      precision: None, a Precision, or a pair of them.
      preferred_element_type: result dtype, or None.
      out_sharding: reserved; must be None.

    Returns:
      The convolution.

    Example:
        >>> from tessela_tracer import eval_shape, lax, ShapeDtypeStruct
        >>> x = ShapeDtypeStruct((1, 5, 5, 3), "float32")
        >>> w = ShapeDtypeStruct((3, 3, 3, 4), "float32")
        >>> conv = lambda x, w: lax.conv_general_dilated(
        ...     x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
        >>> eval_shape(conv, x, w).shape
        (1, 5, 5, 4)
    """
    if out_sharding is not None:
        raise NotImplementedError("conv_general_dilated: out_sharding must be None")
    la, ra = _aval(lhs), _aval(rhs)
    dnums = conv_dimension_numbers(la.shape, ra.shape, dimension_numbers)
    nsp = la.ndim - 2
    if lhs_dilation is None:
        lhs_dilation = (1,) * nsp
    elif isinstance(padding, str) and any(d != 1 for d in lhs_dilation):
        raise ValueError(
            "String padding is not implemented for transposed convolution using this op. "
            "Please either exactly specify the required padding or use conv_transpose."
        )
    if rhs_dilation is None:
        rhs_dilation = (1,) * (ra.ndim - 2)
    if isinstance(padding, str):
        k_shape = [ra.shape[i] for i in dnums.rhs_spec[2:]]
        pads = padtype_to_pads(
            [la.shape[i] for i in dnums.lhs_spec[2:]],
            dilate_shape(k_shape, rhs_dilation),
            window_strides,
            padding,
        )
    else:
        try:
            pads = [(operator.index(lo), operator.index(hi)) for lo, hi in padding]
        except (ValueError, TypeError) as e:
            raise ValueError(
                "padding argument to conv_general_dilated should be a string or a sequence "
                f"of (low, high) pairs, got {padding}"
            ) from e
    pet = (
        None
        if preferred_element_type is None
        else _dtypes.canonicalize_dtype(preferred_element_type)
    )
    out: Array = conv_general_dilated_p.bind(
        lhs,
        rhs,
        window_strides=tuple(operator.index(s) for s in window_strides),
        padding=tuple(pads),
        lhs_dilation=tuple(operator.index(d) for d in lhs_dilation),
        rhs_dilation=tuple(operator.index(d) for d in rhs_dilation),
        dimension_numbers=dnums,
        feature_group_count=operator.index(feature_group_count),
        batch_group_count=operator.index(batch_group_count),
        precision=canonicalize_precision(precision),
        preferred_element_type=pet,
        out_sharding=None,
    )
    return out


def conv(
    lhs: ArrayLike,
    rhs: ArrayLike,
    window_strides: Sequence[int],
    padding: str,
    precision: PrecisionLike = None,
    preferred_element_type: DTypeLike | None = None,
) -> Array:
    """Convolution in ``NCHW``/``OIHW`` layout without dilation.

    Args:
      lhs: the input, rank ``n + 2``.
      rhs: the kernel, rank ``n + 2``.
      window_strides: ``n`` strides.
      padding: ``'SAME'`` or ``'VALID'`` (or explicit pairs).
      precision: None, a Precision, or a pair of them.
      preferred_element_type: result dtype, or None.

    Returns:
      The convolution.
    """
    return conv_general_dilated(
        lhs, rhs, window_strides, padding, precision=precision,
        preferred_element_type=preferred_element_type,
    )  # fmt: skip


def conv_with_general_padding(
    lhs: ArrayLike,
    rhs: ArrayLike,
    window_strides: Sequence[int],
    padding: str | Sequence[tuple[int, int]],
    lhs_dilation: Sequence[int] | None,
    rhs_dilation: Sequence[int] | None,
    precision: PrecisionLike = None,
    preferred_element_type: DTypeLike | None = None,
) -> Array:
    """Convolution in ``NCHW``/``OIHW`` layout with padding and dilations.

    Args:
      lhs: the input, rank ``n + 2``.
      rhs: the kernel, rank ``n + 2``.
      window_strides: ``n`` strides.
      padding: a padding mode or ``n`` ``(low, high)`` pairs.
      lhs_dilation: input dilations, or None.
      rhs_dilation: kernel dilations, or None.
      precision: None, a Precision, or a pair of them.
      preferred_element_type: result dtype, or None.

    Returns:
      The convolution.
    """
    return conv_general_dilated(
        lhs, rhs, window_strides, padding, lhs_dilation=lhs_dilation,
        rhs_dilation=rhs_dilation, precision=precision,
        preferred_element_type=preferred_element_type,
    )  # fmt: skip


def _conv_transpose_padding(k: int, s: int, padding: Any) -> tuple[int, int]:
    if padding == "SAME":
        pad_len = k + s - 2
        pad_a = k - 1 if s > k - 1 else -(-pad_len // 2)
    elif padding == "VALID":
        pad_len = k + s - 2 + max(k - s, 0)
        pad_a = k - 1
    elif isinstance(padding, tuple):
        pads = tuple(k - p - 1 for p in padding)
        pad_a, pad_len = pads[0], sum(pads)
    else:
        raise ValueError(f"Invalid padding mode: {padding}")
    return pad_a, pad_len - pad_a


_TRANSPOSE_DEFAULTS = {
    2: ("NC", "IO", "NC"), 3: ("NHC", "HIO", "NHC"), 4: ("NHWC", "HWIO", "NHWC"),
    5: ("NHWDC", "HWDIO", "NHWDC"),
}  # fmt: skip


def conv_transpose(
    lhs: ArrayLike,
    rhs: ArrayLike,
    strides: Sequence[int],
    padding: str | Sequence[tuple[int, int]],
    rhs_dilation: Sequence[int] | None = None,
    dimension_numbers: ConvGeneralDilatedDimensionNumbers = None,
    transpose_kernel: bool = False,
    precision: PrecisionLike = None,
    preferred_element_type: DTypeLike | None = None,
    use_consistent_padding: bool = False,
) -> Array:
    """Fractionally strided ("transposed") convolution.

    Args:
      lhs, rhs, precision, preferred_element_type: as :func:`conv_general_dilated`.
      strides: ``n`` fractional strides (dilations of the input).
      padding: ``'SAME'``, ``'VALID'`` or ``n`` ``(low, high)`` pairs.
      rhs_dilation: kernel dilations, or None.
      dimension_numbers: layout; defaults to ``NHWC``/``HWIO``/``NHWC`` style.
      transpose_kernel: flip the kernel's spatial axes and swap its feature axes.
      use_consistent_padding: read explicit pairs as the forward conv's padding.

    Returns:
      The transposed convolution.

    Example:
        >>> from tessela_tracer import eval_shape, lax, ShapeDtypeStruct as S
        >>> x, k = S((1, 4, 4, 3), "float32"), S((3, 3, 3, 2), "float32")
        >>> eval_shape(lambda x, k: lax.conv_transpose(x, k, (2, 2), "SAME"), x, k).shape
        (1, 8, 8, 2)
    """
    la, ra = _aval(lhs), _aval(rhs)
    if la.ndim != ra.ndim or la.ndim < 2:
        raise ValueError(f"conv_transpose needs operands of one rank >= 2, got {la.shape}")
    if dimension_numbers is None:
        if la.ndim not in _TRANSPOSE_DEFAULTS:
            raise ValueError("No 4+ dimensional dimension_number defaults.")
        dimension_numbers = _TRANSPOSE_DEFAULTS[la.ndim]
    dn = conv_dimension_numbers(la.shape, ra.shape, dimension_numbers)
    k_sdims = [ra.shape[i] for i in dn.rhs_spec[2:]]
    if rhs_dilation is None:
        rhs_dilation = (1,) * (ra.ndim - 2)
    pads: Any
    if use_consistent_padding or (isinstance(padding, str) and padding in ("SAME", "VALID")):
        eff = dilate_shape(k_sdims, rhs_dilation)
        rep = [padding] * len(strides) if isinstance(padding, str) else list(padding)
        pads = tuple(
            _conv_transpose_padding(k, s, tuple(p) if not isinstance(p, str) else p)
            for k, s, p in zip(eff, strides, rep, strict=True)
        )
    else:
        pads = padding
    if transpose_kernel:
        rhs = rev(rhs, dn.rhs_spec[2:])
        perm = list(range(ra.ndim))
        perm[dn.rhs_spec[0]], perm[dn.rhs_spec[1]] = dn.rhs_spec[1], dn.rhs_spec[0]
        rhs = transpose(rhs, perm)
    one = (1,) * (la.ndim - 2)
    return conv_general_dilated(
        lhs, rhs, one, pads, strides, rhs_dilation, dn, precision=precision,
        preferred_element_type=preferred_element_type,
    )  # fmt: skip
