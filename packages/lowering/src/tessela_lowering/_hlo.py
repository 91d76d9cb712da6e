"""A small StableHLO module builder on jaxlib's MLIR bindings, and the rules' helpers.

A module has one public entry function ``@main``. :func:`build_module` opens a
fresh MLIR context, creates ``@main`` with the given argument and result types
(and argument attributes for donation), calls a body function with the block
arguments and returns the module as text. The helpers below (types, constants,
broadcasts, conversions, comparisons, reduction identities and regions,
window paddings) need the active context and insertion point that
:func:`build_module` provides; the lowering rules of every family share them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from tessela_tracer import ShapedArray
from tessela_tracer.dtypes import finfo, iinfo, is_extended, issubdtype, physical_shape_dtype
from tessela_tracer.lax import DotAlgorithmPreset, Precision

from tessela_lowering._xla import (
    DType,
    HostArray,
    Value,
    dense_attr,
    entry_function,
    func_dialect,
    ir,
    ir_element_type,
    make_ir_context,
    module_text,
    stablehlo,
)

__all__ = [
    "ArgSpec",
    "broadcast_in_dim",
    "broadcast_to",
    "build_module",
    "compare_values",
    "constant",
    "convert",
    "dtype_of",
    "key_trailing",
    "out_type",
    "padding_attr",
    "reduce_region",
    "scalar_identity",
    "shape_of",
    "tensor_type",
]


class ArgSpec:
    """One argument of ``@main``: its shape, dtype and donation.

    Args:
      shape: the argument's shape.
      dtype: its NumPy dtype.
      alias_output: index of the output that reuses this argument's buffer, or
        ``None``.
      donor: donate the buffer without naming an output (XLA picks one).
    """

    __slots__ = ("alias_output", "donor", "dtype", "shape")

    def __init__(
        self,
        shape: Sequence[int],
        dtype: DType | type,
        *,
        alias_output: int | None = None,
        donor: bool = False,
    ) -> None:
        # A key array's argument is its uint32 data (physical shape and dtype).
        phys_shape, phys_dtype = physical_shape_dtype(tuple(int(d) for d in shape), dtype)
        self.shape = phys_shape
        self.dtype = phys_dtype
        self.alias_output = alias_output
        self.donor = donor


def tensor_type(shape: Sequence[int], dtype: DType | type) -> ir.RankedTensorType:
    """The MLIR tensor type ``tensor<shape x dtype>``.

    An extended dtype (typed PRNG keys) gives the type of its physical data:
    ``key<fry>[3]`` is ``tensor<3x2xui32>``.
    """
    if is_extended(dtype):
        shape, dtype = physical_shape_dtype(tuple(shape), dtype)
    return ir.RankedTensorType.get(list(shape), ir_element_type(np.dtype(dtype)))


def key_trailing(aval: ShapedArray) -> tuple[int, ...]:
    """The trailing physical shape of one element of ``aval``: ``(2,)`` for keys, else ``()``.

    Shape rules append it to their shape parameters, so that an operation on a
    key array moves whole keys of its ``uint32`` data.

    Example:
      >>> import numpy as np
      >>> from tessela_tracer.dtypes import key_fry
      >>> key_trailing(ShapedArray((3,), key_fry)), key_trailing(ShapedArray((3,), np.int8))
      ((2,), ())
    """
    shape, _ = physical_shape_dtype(aval.shape, aval.dtype)
    return shape[len(aval.shape) :]


def shape_of(value: Value) -> tuple[int, ...]:
    """The static shape of a tensor value."""
    return tuple(ir.RankedTensorType(value.type).shape)


def dtype_of(value: Value) -> ir.Type:
    """The MLIR element type of a tensor value."""
    return ir.RankedTensorType(value.type).element_type


def constant(value: object, dtype: DType | type | None = None) -> Value:
    """A ``stablehlo.constant`` holding ``value`` (a scalar or an array).

    Args:
      value: anything ``np.asarray`` accepts.
      dtype: the element type; defaults to the array's own dtype.

    Returns:
      The constant's value.
    """
    array = np.asarray(value, dtype=dtype)
    ty = tensor_type(array.shape, array.dtype)
    return stablehlo.ConstantOp(dense_attr(array, ty)).result


def broadcast_in_dim(
    value: Value, shape: Sequence[int], broadcast_dimensions: Sequence[int]
) -> Value:
    """Broadcast ``value`` to ``shape``, mapping its axes to ``broadcast_dimensions``."""
    if shape_of(value) == tuple(shape) and list(broadcast_dimensions) == list(range(len(shape))):
        return value
    out_ty = ir.RankedTensorType.get(list(shape), dtype_of(value))
    return stablehlo.BroadcastInDimOp(out_ty, value, list(broadcast_dimensions)).result


def convert(value: Value, dtype: DType | type) -> Value:
    """Convert the elements of ``value`` to ``dtype`` (no-op when equal)."""
    target = ir_element_type(np.dtype(dtype))
    if dtype_of(value) == target:
        return value
    out_ty = ir.RankedTensorType.get(list(shape_of(value)), target)
    return stablehlo.ConvertOp(out_ty, value).result


def out_type(aval: ShapedArray) -> ir.RankedTensorType:
    """The tensor type of a value with abstract value ``aval``."""
    return tensor_type(aval.shape, aval.dtype)


def broadcast_to(value: Value, shape: tuple[int, ...]) -> Value:
    """``value`` broadcast to ``shape`` by NumPy's rule (its axes are the trailing ones)."""
    have = shape_of(value)
    if have == shape:
        return value
    offset = len(shape) - len(have)
    return broadcast_in_dim(value, shape, list(range(offset, len(shape))))


def _compare_type(dtype: DType) -> str:
    if dtype.kind == "b":
        return "UNSIGNED"
    # ml_dtypes' floats are kind "V", or "f" without being NumPy floating
    # types (float8_e5m2): the tracer's issubdtype knows them all.
    if issubdtype(dtype, np.inexact):
        return "FLOAT"
    if issubdtype(dtype, np.unsignedinteger):
        return "UNSIGNED"
    return "SIGNED"


def compare_values(lhs: Value, rhs: Value, direction: str, dtype: DType) -> Value:
    """``stablehlo.compare`` of two same-shaped values of ``dtype`` ("EQ", "LT", ...)."""
    return stablehlo.CompareOp(
        lhs,
        rhs,
        stablehlo.ComparisonDirectionAttr.get(direction),
        compare_type=stablehlo.ComparisonTypeAttr.get(_compare_type(dtype)),
    ).result


def extremum(x: Value, y: Value, *, larger: bool) -> Value:
    """``stablehlo.maximum`` (``larger``) or ``minimum`` of two same-typed values.

    Complex numbers are ordered lexicographically (real part, then imaginary
    part), as JAX orders them; XLA's own complex max/min does not.
    """
    element = ir.RankedTensorType(x.type).element_type
    if not isinstance(element, ir.ComplexType):
        return (stablehlo.MaxOp if larger else stablehlo.MinOp)(x, y).result
    direction = "GT" if larger else "LT"
    real = np.dtype(np.float64 if isinstance(element.element_type, ir.F64Type) else np.float32)
    rx, ry = stablehlo.RealOp(x).result, stablehlo.RealOp(y).result
    ix, iy = stablehlo.ImagOp(x).result, stablehlo.ImagOp(y).result
    ahead = compare_values(rx, ry, direction, real)
    tie = stablehlo.AndOp(
        compare_values(rx, ry, "EQ", real), compare_values(ix, iy, direction, real)
    ).result
    return stablehlo.SelectOp(stablehlo.OrOp(ahead, tie).result, x, y).result


def scalar_identity(name: str, dtype: DType) -> HostArray:
    """The identity of reduction ``name`` ("sum", "prod", "max", "min", "and", "or", "xor").

    A NumPy scalar of ``dtype``: ``-inf`` (or the smallest integer, or ``False``)
    for "max", and so on.
    """
    if name == "sum":
        return np.zeros((), dtype)
    if name == "prod":
        return np.ones((), dtype)
    if name in ("and", "or", "xor"):
        if dtype.kind == "b":
            return np.array(name == "and")
        return np.array(-1 if name == "and" else 0).astype(dtype)
    if issubdtype(dtype, np.inexact):  # complex: (-inf + 0j) first, lexicographically, as JAX
        extreme = np.array(-np.inf if name == "max" else np.inf).astype(dtype)
        if np.isinf(extreme):
            return extreme
        # A float without infinities (float8_e4m3fn, ...): its finite extreme.
        fi = finfo(dtype)
        return np.array(fi.min if name == "max" else fi.max, dtype)
    if dtype.kind == "b":
        return np.array(name == "min")
    info = iinfo(dtype)  # the tracer's: it knows int4 and the other narrow integers
    return np.array(info.min if name == "max" else info.max, dtype)


def reduce_region(op: ir.OpView, dtype: DType, combine: Callable[[Value, Value], Value]) -> None:
    """Fill the combiner region of a reduce-like ``op`` on scalars of ``dtype``."""
    scalar = tensor_type((), dtype)
    block: Any = op.regions[0].blocks.append(scalar, scalar)
    with ir.InsertionPoint(block):
        stablehlo.ReturnOp([combine(block.arguments[0], block.arguments[1])])


def precision_attr(
    precision: tuple[Precision, Precision] | DotAlgorithmPreset | None,
) -> ir.ArrayAttr | None:
    """``precision_config`` of a dot or convolution: ``None`` for the default.

    ``precision`` is the primitive's canonical parameter: ``None``, a
    ``(lhs, rhs)`` pair of ``Precision`` values, or a dot algorithm (which
    carries no precision config). A pair of ``DEFAULT`` gives ``None`` too, so
    the module reads as it does without one.
    """
    if not isinstance(precision, tuple) or all(p.name == "DEFAULT" for p in precision):
        return None
    return ir.ArrayAttr.get([stablehlo.PrecisionAttr.get(p.name) for p in precision])


def padding_attr(padding: Sequence[Sequence[int]]) -> ir.Attribute:
    """The ``(low, high)`` pairs per axis as the ``i64`` attribute windowed ops take."""
    pads = np.asarray(padding, np.int64).reshape(len(padding), 2)
    ty = ir.RankedTensorType.get([len(padding), 2], ir.IntegerType.get_signless(64))
    return dense_attr(pads, ty)


def build_module(
    args: Sequence[ArgSpec],
    results: Sequence[tuple[Sequence[int], DType | type]],
    body: Callable[[ir.Module, list[Value]], Sequence[Value]],
    *,
    name: str = "main",
) -> str:
    """Build a StableHLO module whose ``@main`` computes ``body``.

    Args:
      args: the entry arguments (shape, dtype, donation).
      results: (shape, dtype) of each result.
      body: called with the module and the block arguments inside the entry
        block (it may add functions to the module); returns the result values.
      name: a module name, shown in compiler dumps.

    Returns:
      The module as MLIR text, ready for :func:`tessela_lowering._xla.compile_module`.

    Example:
      >>> import numpy as np
      >>> from tessela_lowering._hlo import ArgSpec, build_module
      >>> from tessela_lowering.mlir import stablehlo
      >>> text = build_module(
      ...     [ArgSpec((3,), np.float32)] * 2,
      ...     [((3,), np.float32)],
      ...     lambda module, xs: [stablehlo.AddOp(xs[0], xs[1]).result],
      ... )
      >>> "stablehlo.add" in text
      True
    """
    with make_ir_context(), ir.Location.unknown():
        module = ir.Module.create()
        module.operation.attributes["sym_name"] = ir.StringAttr.get(_symbol(name))
        in_types = [tensor_type(a.shape, a.dtype) for a in args]
        out_types = [tensor_type(s, d) for s, d in results]
        block = entry_function(module, in_types, out_types, [_arg_attrs(a) for a in args])
        with ir.InsertionPoint(block):
            outs = list(body(module, list(block.arguments)))
            func_dialect.ReturnOp(outs)
        return module_text(module)


def _symbol(name: str) -> str:
    cleaned = "".join(c if c.isalnum() or c == "_" else "_" for c in name)
    return f"jit_{cleaned}" if cleaned else "jit_fun"


def _arg_attrs(arg: ArgSpec) -> dict[str, ir.Attribute]:
    attrs: dict[str, ir.Attribute] = {}
    if arg.alias_output is not None:
        i32 = ir.IntegerType.get_signless(32)
        attrs["tf.aliasing_output"] = ir.IntegerAttr.get(i32, arg.alias_output)
    elif arg.donor:
        attrs["jax.buffer_donor"] = ir.BoolAttr.get(True)
    return attrs
