"""Writing StableHLO in a lowering rule: the public API for plugins.

A lowering rule turns one equation of a primitive into MLIR operations::

    rule(ctx: LoweringRuleContext, *operands: ir.Value, **params) -> Sequence[ir.Value]

registered with :func:`register_lowering`. The rule runs with an active MLIR
context and insertion point, so it builds ops directly with the dialect
modules re-exported here, the same objects jaxlib's MLIR bindings define:

- ``ir``: types, attributes, values (``jaxlib.mlir.ir``);
- ``stablehlo``: the StableHLO dialect (``stablehlo.AddOp(x, y).result``);
- ``chlo``: the CHLO dialect (``chlo.ErfOp``, ``chlo.TopKOp``, ...), decomposed
  into StableHLO by the compiler;
- ``func``: the func dialect (``func.CallOp``), for calls of functions added to
  the module.

The dialect modules are imported the first time one of their names is read
(in practice, by the first lowering): a rule reads ``stablehlo.AddOp`` when
it runs, not when it is registered, and ``import tessela_lowering`` does not
pay for them.

Besides the dialects: :class:`LoweringRuleContext` (what a rule knows: the
primitive, ``avals_in``, ``avals_out``, the platform and the
:class:`ModuleContext`), :func:`lower_jaxpr` (emit a jaxpr's ops in place),
:func:`lower_fun` (a rule written with existing primitives instead of ops),
and two helpers that rules need often: :func:`aval_to_ir_type` (the tensor
type of an abstract value, e.g. of a result) and :func:`ir_constant` (a
``stablehlo.constant``).

Example:
  A primitive computing ``x * x + 1`` in StableHLO:

  >>> import numpy as np
  >>> import tessela_lowering as tl
  >>> from tessela_lowering import mlir
  >>> from tessela_tracer.extend import Primitive, register_abstract_eval
  >>> sq1_p = Primitive("square_plus_one_doc")
  >>> register_abstract_eval(sq1_p, lambda x: x)
  >>> def sq1_lowering(ctx, x):
  ...     (aval,) = ctx.avals_out
  ...     one = mlir.ir_constant(np.ones(aval.shape, aval.dtype))
  ...     return [mlir.stablehlo.AddOp(mlir.stablehlo.MulOp(x, x), one).result]
  >>> mlir.register_lowering(sq1_p, sq1_lowering)
  >>> tl.jit(sq1_p.bind)(np.arange(3, dtype=np.float32))
  Array([1., 2., 5.], dtype=float32)
  >>> sq1_p.bind(np.float32(3.0))  # eagerly, compiled through the same rule
  Array(10., dtype=float32)
"""

from __future__ import annotations

import numpy as np
from tessela_tracer import ShapedArray
from tessela_tracer.typing import ArrayLike

from tessela_lowering import _hlo
from tessela_lowering._lowering import (
    LoweringRuleContext,
    ModuleContext,
    lower_fun,
    lower_jaxpr,
    register_lowering,
)
from tessela_lowering._xla import DType, Value, chlo, ir, stablehlo
from tessela_lowering._xla import func_dialect as func

__all__ = [
    "LoweringRuleContext",
    "ModuleContext",
    "aval_to_ir_type",
    "chlo",
    "func",
    "ir",
    "ir_constant",
    "lower_fun",
    "lower_jaxpr",
    "register_lowering",
    "stablehlo",
]


def aval_to_ir_type(aval: ShapedArray) -> ir.RankedTensorType:
    """The MLIR tensor type of a value with abstract value ``aval``.

    Call it inside a lowering rule (it needs the rule's MLIR context), e.g. for
    the result types of an op that cannot infer them.

    Args:
      aval: an abstract value (shape and dtype), e.g. ``ctx.avals_out[0]``.

    Returns:
      The ranked tensor type, e.g. ``tensor<2x3xf32>``.

    Example:
      >>> import numpy as np
      >>> import tessela_lowering as tl
      >>> from tessela_lowering import mlir
      >>> from tessela_tracer.extend import Primitive, register_abstract_eval
      >>> to_int_p = Primitive("to_int32_doc")
      >>> register_abstract_eval(to_int_p, lambda x: x.update(dtype=np.dtype(np.int32)))
      >>> def to_int_lowering(ctx, x):
      ...     out = mlir.aval_to_ir_type(ctx.avals_out[0])
      ...     return [mlir.stablehlo.ConvertOp(out, x).result]
      >>> mlir.register_lowering(to_int_p, to_int_lowering)
      >>> "tensor<2xi32>" in tl.jit(to_int_p.bind).lower(np.ones(2, np.float32)).as_text()
      True
    """
    return _hlo.out_type(aval)


def ir_constant(value: ArrayLike, dtype: DType | type | None = None) -> Value:
    """A ``stablehlo.constant`` holding ``value``, inside a lowering rule.

    Args:
      value: a scalar or an array (anything ``numpy.asarray`` accepts).
      dtype: the element type; defaults to the array's own dtype. Mind that
        Python floats become float64: pass the operand's dtype.

    Returns:
      The constant's value, with the array's shape.

    Example:
      >>> import numpy as np
      >>> import tessela_lowering as tl
      >>> from tessela_lowering import mlir
      >>> from tessela_tracer.extend import Primitive, register_abstract_eval
      >>> halve_p = Primitive("halve_doc")
      >>> register_abstract_eval(halve_p, lambda x: x)
      >>> def halve_lowering(ctx, x):
      ...     (aval,) = ctx.avals_in
      ...     half = mlir.ir_constant(np.full(aval.shape, 0.5), aval.dtype)
      ...     return [mlir.stablehlo.MulOp(x, half).result]
      >>> mlir.register_lowering(halve_p, halve_lowering)
      >>> halve_p.bind(np.float32(3.0))
      Array(1.5, dtype=float32)
    """
    return _hlo.constant(np.asarray(value, dtype=dtype))
