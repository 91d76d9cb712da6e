"""MLIR contexts, attributes and element types."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

import ml_dtypes
import numpy as np
from jaxlib.mlir import ir

from tessela_lowering._xla._dialects import chlo, func_dialect, stablehlo
from tessela_lowering._xla._jaxlib import (
    DType,
    HostArray,
    _mlir_ext,
)

# --------------------------------------------------------------------------
# MLIR contexts and element types.

_BITCAST_AS: dict[int, np.dtype[Any]] = {
    1: np.dtype(np.uint8),
    2: np.dtype(np.uint16),
    4: np.dtype(np.uint32),
    8: np.dtype(np.uint64),
}


# Types narrower than a byte: ml_dtypes keeps one value per byte, in its low bits.
_SUB_BYTE_BITS: dict[np.dtype[Any], int] = {
    np.dtype(ml_dtypes.int2): 2,
    np.dtype(ml_dtypes.uint2): 2,
    np.dtype(ml_dtypes.int4): 4,
    np.dtype(ml_dtypes.uint4): 4,
    np.dtype(ml_dtypes.float4_e2m1fn): 4,
}


def _needs_bitcast(dtype: np.dtype[Any]) -> bool:
    # NumPy's DLPack export refuses the ml_dtypes types (bfloat16, float8, ...).
    return dtype.kind == "V" or dtype.type.__module__.startswith("ml_dtypes")


_registry: list[ir.DialectRegistry] = []


_contexts = threading.local()
_CONTEXT_REUSE = 256  # modules per context before a fresh one (bounds uniqued-attribute growth)


def fresh_ir_context() -> ir.Context:
    """A new MLIR context with the func, StableHLO and CHLO dialects loaded."""
    if not _registry:
        registry = ir.DialectRegistry()
        _mlir_ext.register_dialects(registry)
        _registry.append(registry)
    ctx = ir.Context()
    ctx.append_dialect_registry(_registry[0])
    ctx.load_all_available_dialects()
    stablehlo.register_dialect(ctx)
    chlo.register_dialect(ctx)
    return ctx


def make_ir_context() -> ir.Context:
    """An MLIR context with the func, StableHLO and CHLO dialects loaded.

    Loading the dialects costs about 2 ms, so each thread reuses its context
    for a few hundred modules before starting a fresh one.
    """
    uses = getattr(_contexts, "uses", _CONTEXT_REUSE)
    if uses >= _CONTEXT_REUSE:
        _contexts.ctx = fresh_ir_context()
        uses = 0
    _contexts.uses = uses + 1
    ctx: ir.Context = _contexts.ctx
    return ctx


_IR_TYPES: dict[np.dtype[Any], Callable[[], ir.Type]] = {
    np.dtype(np.bool_): lambda: ir.IntegerType.get_signless(1),
    np.dtype(np.int8): lambda: ir.IntegerType.get_signless(8),
    np.dtype(np.int16): lambda: ir.IntegerType.get_signless(16),
    np.dtype(np.int32): lambda: ir.IntegerType.get_signless(32),
    np.dtype(np.int64): lambda: ir.IntegerType.get_signless(64),
    np.dtype(np.uint8): lambda: ir.IntegerType.get_unsigned(8),
    np.dtype(np.uint16): lambda: ir.IntegerType.get_unsigned(16),
    np.dtype(np.uint32): lambda: ir.IntegerType.get_unsigned(32),
    np.dtype(np.uint64): lambda: ir.IntegerType.get_unsigned(64),
    np.dtype(np.float16): lambda: ir.F16Type.get(),
    np.dtype(np.float32): lambda: ir.F32Type.get(),
    np.dtype(np.float64): lambda: ir.F64Type.get(),
    np.dtype(np.complex64): lambda: ir.ComplexType.get(ir.F32Type.get()),
    np.dtype(np.complex128): lambda: ir.ComplexType.get(ir.F64Type.get()),
    np.dtype(ml_dtypes.bfloat16): lambda: ir.BF16Type.get(),
    np.dtype(ml_dtypes.float8_e4m3fn): lambda: ir.Float8E4M3FNType.get(),
    np.dtype(ml_dtypes.float8_e5m2): lambda: ir.Float8E5M2Type.get(),
    np.dtype(ml_dtypes.float8_e4m3fnuz): lambda: ir.Float8E4M3FNUZType.get(),
    np.dtype(ml_dtypes.float8_e5m2fnuz): lambda: ir.Float8E5M2FNUZType.get(),
    np.dtype(ml_dtypes.float8_e4m3b11fnuz): lambda: ir.Float8E4M3B11FNUZType.get(),
    np.dtype(ml_dtypes.float8_e4m3): lambda: ir.Float8E4M3Type.get(),
    np.dtype(ml_dtypes.float8_e3m4): lambda: ir.Float8E3M4Type.get(),
    np.dtype(ml_dtypes.float8_e8m0fnu): lambda: ir.Float8E8M0FNUType.get(),
    np.dtype(ml_dtypes.float4_e2m1fn): lambda: ir.Float4E2M1FNType.get(),
    np.dtype(ml_dtypes.int2): lambda: ir.IntegerType.get_signless(2),
    np.dtype(ml_dtypes.uint2): lambda: ir.IntegerType.get_unsigned(2),
    np.dtype(ml_dtypes.int4): lambda: ir.IntegerType.get_signless(4),
    np.dtype(ml_dtypes.uint4): lambda: ir.IntegerType.get_unsigned(4),
}
# float6_e2m3fn, float6_e3m2fn, int1 and uint1 are left out: XLA's CPU and GPU
# runtimes hold no buffers of them (JAX 0.10.2 fails to place such arrays too).


def dense_attr(array: HostArray, ty: ir.RankedTensorType) -> ir.Attribute:
    """A dense elements attribute of type ``ty`` holding ``array``'s values."""
    shape = list(array.shape)
    if _needs_bitcast(array.dtype):
        raw = np.ascontiguousarray(array).view(_BITCAST_AS[array.dtype.itemsize])
        data: Any = raw
    else:
        data = np.ascontiguousarray(array)
    attr: ir.Attribute = ir.DenseElementsAttr.get(data, type=ty.element_type, shape=shape)
    return attr


def entry_function(
    module: ir.Module,
    in_types: Sequence[ir.Type],
    out_types: Sequence[ir.Type],
    arg_attrs: Sequence[dict[str, ir.Attribute]],
) -> ir.Block:
    """Add a public ``@main`` to ``module``; returns its entry block."""
    with ir.InsertionPoint(module.body):
        fn: Any = func_dialect.FuncOp("main", ir.FunctionType.get(list(in_types), list(out_types)))
        fn.attributes["sym_visibility"] = ir.StringAttr.get("public")
        if any(arg_attrs):
            fn.arg_attrs = ir.ArrayAttr.get([ir.DictAttr.get(a) for a in arg_attrs])
        block: ir.Block = fn.add_entry_block()
    return block


def module_text(module: ir.Module) -> str:
    """The module as MLIR text in the custom (readable) form."""
    op: Any = module.operation
    return str(op.get_asm(enable_debug_info=False, print_generic_op_form=False))


def ir_element_type(dtype: DType) -> ir.Type:
    """The MLIR element type of a NumPy dtype (needs an active ``ir.Context``).

    Raises:
      TypeError: the dtype has no XLA counterpart.
    """
    make = _IR_TYPES.get(np.dtype(dtype))
    if make is None:
        raise TypeError(
            f"dtype {np.dtype(dtype).name} is not supported on XLA devices; "
            f"convert the array to one of {sorted(d.name for d in _IR_TYPES)} first."
        )
    return make()
