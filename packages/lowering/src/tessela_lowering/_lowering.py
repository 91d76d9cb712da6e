"""The lowering rule table and the jaxpr-to-StableHLO translation.

A lowering rule turns one equation into StableHLO ops::

    rule(ctx: LoweringRuleContext, *operands: Value, **params) -> Sequence[Value]

It always returns a sequence (one value per output). Rules are registered per
primitive with :func:`register_lowering`, optionally per platform; the
platform-specific rule wins over the generic one.

Tokens: a value of aval ``AbstractToken`` is a ``!stablehlo.token`` inside a
module; the entry function takes and returns it as an empty ``bool[0]``
tensor (its runtime buffer), as JAX does. Ordered effects (``ordered=True``
callbacks) are sequenced by a token the lowering threads through the
program itself: :attr:`ModuleContext.token` holds the current one, each
ordered callback consumes it and yields the next, and the control-flow rules
carry it through ``func.call``, ``stablehlo.case`` and ``stablehlo.while``
(:func:`has_ordered_effects` says when).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from tessela_tracer import (
    ClosedJaxpr,
    Jaxpr,
    Literal,
    Primitive,
    ShapedArray,
    Tracer,
    trace_to_jaxpr,
)
from tessela_tracer.dtypes import is_extended
from tessela_tracer.extend import AbstractToken, jaxpr_effects
from tessela_tracer.typing import ArrayLike

from tessela_lowering import _hlo, _xla
from tessela_lowering._array import Array
from tessela_lowering._xla import Value, func_dialect, ir, stablehlo

__all__ = [
    "LoweringRule",
    "LoweringRuleContext",
    "ModuleContext",
    "aval_type",
    "has_lowering",
    "has_ordered_effects",
    "jaxpr_to_module",
    "lower_closed_jaxpr",
    "lower_fun",
    "lower_jaxpr",
    "lower_reduction_region",
    "lowering_rule",
    "ordered_token",
    "register_lowering",
]

LoweringRule = Callable[..., Sequence[Value]]

_rules: dict[Primitive, dict[str | None, LoweringRule]] = {}


def aval_type(aval: ShapedArray) -> ir.Type:
    """The MLIR type of a value of ``aval`` inside a module: a tensor, or ``!stablehlo.token``.

    Example:
      >>> import numpy as np
      >>> from tessela_tracer.extend import abstract_token
      >>> from tessela_lowering._xla import ir, make_ir_context
      >>> with make_ir_context(), ir.Location.unknown():
      ...     str(aval_type(ShapedArray((2,), np.float32))), str(aval_type(abstract_token))
      ('tensor<2xf32>', '!stablehlo.token')
    """
    if isinstance(aval, AbstractToken):
        return stablehlo.TokenType.get()
    return _hlo.tensor_type(aval.shape, aval.dtype)


def has_ordered_effects(*jaxprs: ClosedJaxpr | Jaxpr) -> bool:
    """Whether any of ``jaxprs`` (sub-jaxprs included) has an ordered effect.

    Example:
      >>> import numpy as np
      >>> from tessela_tracer import debug_print, make_jaxpr
      >>> has_ordered_effects(make_jaxpr(lambda x: debug_print("{}", x, ordered=True))(1.0))
      True
    """
    return any(getattr(e, "ordered", False) for j in jaxprs for e in jaxpr_effects(j))


class ModuleContext:
    """The module being built: where nested functions go, and for which platform.

    Attributes:
      module: the MLIR module.
      platform: the platform compiled for ("cpu", "cuda", "rocm", "tpu").
      host_callbacks: the Python functions that callback custom calls of the
        module name by index; compile the module with them.
      token: the current token of the ordered effects in the region being
        emitted (``None`` until one is needed; :func:`ordered_token`).
    """

    __slots__ = ("_functions", "_names", "host_callbacks", "module", "platform", "token")

    def __init__(
        self,
        module: ir.Module,
        platform: str,
        host_callbacks: list[Callable[..., Any]] | None = None,
    ) -> None:
        self.module = module
        self.platform = platform
        self.host_callbacks: list[Callable[..., Any]] = (
            [] if host_callbacks is None else host_callbacks
        )
        self.token: Value | None = None
        self._names: dict[str, int] = {}
        self._functions: dict[int, tuple[ClosedJaxpr, str]] = {}

    def unique_name(self, base: str) -> str:
        """A symbol name not used yet in this module, derived from ``base``."""
        clean = "".join(c if c.isalnum() or c == "_" else "_" for c in base) or "fun"
        count = self._names.get(clean, 0)
        self._names[clean] = count + 1
        return clean if count == 0 else f"{clean}_{count}"

    def function(self, name: str, closed: ClosedJaxpr) -> str:
        """The symbol of a private function computing ``closed`` (built once per jaxpr).

        When ``closed`` has ordered effects the function takes the ordered
        effects' token first and returns the next one first.
        """
        hit = self._functions.get(id(closed))
        if hit is not None and hit[0] is closed:
            return hit[1]
        jaxpr = closed.jaxpr
        symbol = self.unique_name(name)
        threaded = has_ordered_effects(closed)
        token_types = [stablehlo.TokenType.get()] if threaded else []
        in_types = [*token_types, *(aval_type(v.aval) for v in jaxpr.invars)]
        out_types = [*token_types, *(aval_type(v.aval) for v in jaxpr.outvars)]
        with ir.InsertionPoint(self.module.body):
            fn: Any = func_dialect.FuncOp(symbol, ir.FunctionType.get(in_types, out_types))
            fn.attributes["sym_visibility"] = ir.StringAttr.get("private")
            block = fn.add_entry_block()
        saved = self.token
        args = list(block.arguments)
        with ir.InsertionPoint(block):
            if threaded:
                self.token = args.pop(0)
            outs = lower_closed_jaxpr(self, closed, args)
            if threaded:
                outs = [ordered_token(self), *outs]
            func_dialect.ReturnOp(outs)
        self.token = saved
        self._functions[id(closed)] = (closed, symbol)
        return symbol


def ordered_token(module_context: ModuleContext) -> Value:
    """The current token of the ordered effects, created here if there is none yet.

    A rule that emits an ordered effect passes it to the effect and stores
    the token the effect returns in ``module_context.token``; a rule that
    opens regions calls it before them, so that every region sees a token
    defined outside it.

    Args:
      module_context: the module being built (an insertion point is active).

    Returns:
      A ``!stablehlo.token`` value.
    """
    if module_context.token is None:
        module_context.token = stablehlo.CreateTokenOp().result
    return module_context.token


class LoweringRuleContext:
    """What a lowering rule knows besides its operands.

    Attributes:
      primitive: the primitive being lowered.
      avals_in: abstract values of the operands.
      avals_out: abstract values of the results.
      module_context: the module being built (for nested functions).
    """

    __slots__ = ("avals_in", "avals_out", "module_context", "primitive")

    def __init__(
        self,
        module_context: ModuleContext,
        primitive: Primitive,
        avals_in: Sequence[ShapedArray],
        avals_out: Sequence[ShapedArray],
    ) -> None:
        self.module_context = module_context
        self.primitive = primitive
        self.avals_in = list(avals_in)
        self.avals_out = list(avals_out)

    @property
    def platform(self) -> str:
        """The platform compiled for."""
        return self.module_context.platform


def register_lowering(prim: Primitive, rule: LoweringRule, /, platform: str | None = None) -> None:
    """Register how ``prim`` lowers to StableHLO.

    The rule is used wherever ``prim`` is compiled: inside ``jit``, and when
    ``prim`` is bound on concrete arrays and has no eager implementation of
    its own (``register_impl``), in which case the one equation is compiled
    and cached. Registering a lowering never replaces a ``register_impl``
    rule. Rules write StableHLO with the modules of
    :mod:`tessela_lowering.mlir`, or reuse existing primitives through
    :func:`lower_fun`.

    Args:
      prim: the primitive.
      rule: ``rule(ctx, *operands, **params)`` returning one value per output,
        where ``ctx`` is a :class:`LoweringRuleContext` and the operands are
        MLIR values.
      platform: restrict the rule to one platform ("cpu", "cuda", "rocm",
        "tpu"); ``None`` for every platform. A platform's own rule wins over
        the generic one.

    Returns:
      None.

    Example:
      >>> import numpy as np
      >>> import tessela_lowering as tl
      >>> from tessela_lowering.mlir import stablehlo
      >>> from tessela_tracer.extend import Primitive, register_abstract_eval
      >>> twice_p = Primitive("twice_doc")
      >>> register_abstract_eval(twice_p, lambda x: x)
      >>> tl.register_lowering(twice_p, lambda ctx, x: [stablehlo.AddOp(x, x).result])
      >>> tl.jit(twice_p.bind)(np.float32(2.0))
      Array(4., dtype=float32)
      >>> twice_p.bind(np.float32(3.0))  # eagerly: the equation compiled once
      Array(6., dtype=float32)
    """
    _rules.setdefault(prim, {})[platform] = rule


def lowering_rule(prim: Primitive, platform: str, /) -> LoweringRule | None:
    """The rule that lowers ``prim`` on ``platform``, or ``None``."""
    table = _rules.get(prim)
    if table is None:
        return None
    return table.get(platform) or table.get(None)


def has_lowering(prim: Primitive, /) -> bool:
    """Whether any lowering rule is registered for ``prim``."""
    return prim in _rules


def _host_constant(c: Any, aval: ShapedArray) -> Any:
    # A key array constant is embedded as its uint32 data (it refuses np.asarray).
    if is_extended(aval.dtype):
        return np.asarray(getattr(c, "_value", c))
    if type(c) is Array and c._npy is None:
        # A copy, not the array's cached host view: a view keeps the device buffer
        # referenced, and XLA would then refuse to donate it (an array both closed
        # over and passed to a donating jit).
        return np.array(_xla.to_numpy(c._live_buffer()), dtype=aval.dtype, copy=True)
    return np.asarray(c, dtype=aval.dtype)


def _atom_value(env: dict[Any, Value], atom: Any) -> Value:
    if isinstance(atom, Literal):
        return _hlo.constant(np.asarray(atom.val, dtype=atom.aval.dtype))
    return env[atom]


def lower_jaxpr(
    module_context: ModuleContext, jaxpr: Jaxpr, consts: Sequence[Value], args: Sequence[Value]
) -> list[Value]:
    """Emit the ops of ``jaxpr`` at the current insertion point.

    Args:
      module_context: the module being built.
      jaxpr: the program.
      consts: values for its constvars.
      args: values for its invars.

    Returns:
      The values of its outvars.

    Raises:
      NotImplementedError: a primitive has no lowering rule for the platform.

    Example:
      A rule that emits a traced program in place of its primitive:

      >>> import numpy as np
      >>> import tessela_lowering as tl
      >>> from tessela_tracer import lax, make_jaxpr
      >>> from tessela_tracer.extend import Primitive, register_abstract_eval
      >>> closed = make_jaxpr(lambda x: lax.sin(x))(np.float32(1))
      >>> my_sin_p = Primitive("my_sin_doc")
      >>> register_abstract_eval(my_sin_p, lambda x: x)
      >>> def rule(ctx, x):
      ...     return tl.lower_jaxpr(ctx.module_context, closed.jaxpr, [], [x])
      >>> tl.register_lowering(my_sin_p, rule)
      >>> "stablehlo.sine" in tl.jit(my_sin_p.bind).lower(np.float32(1)).as_text()
      True
    """
    platform = module_context.platform
    env: dict[Any, Value] = dict(zip(jaxpr.constvars, consts, strict=True))
    env.update(zip(jaxpr.invars, args, strict=True))
    for eqn in jaxpr.eqns:
        rule = lowering_rule(eqn.primitive, platform)
        if rule is None:
            raise NotImplementedError(
                f"no lowering rule for primitive {eqn.primitive.name!r} on platform "
                f"{platform!r}; register one with "
                f"tessela_lowering.register_lowering({eqn.primitive.name}_p, rule)."
            )
        ctx = LoweringRuleContext(
            module_context,
            eqn.primitive,
            [v.aval for v in eqn.invars],
            [v.aval for v in eqn.outvars],
        )
        outs = rule(ctx, *(_atom_value(env, a) for a in eqn.invars), **eqn.params)
        for var, val in zip(eqn.outvars, outs, strict=True):
            env[var] = val
    return [_atom_value(env, v) for v in jaxpr.outvars]


def lower_closed_jaxpr(
    module_context: ModuleContext, closed: ClosedJaxpr, args: Sequence[Value]
) -> list[Value]:
    """Emit the ops of ``closed`` at the current insertion point, its consts as constants.

    Args:
      module_context: the module being built.
      closed: the program; its consts become ``stablehlo.constant`` ops.
      args: values for its invars.

    Returns:
      The values of its outvars.
    """
    jaxpr = closed.jaxpr
    consts = [
        _hlo.constant(_host_constant(c, v.aval))
        for v, c in zip(jaxpr.constvars, closed.consts, strict=True)
    ]
    return lower_jaxpr(module_context, jaxpr, consts, list(args))


def lower_reduction_region(
    module_context: ModuleContext, op: Any, closed: ClosedJaxpr, avals: Sequence[Any]
) -> None:
    """Fill the combiner region of a reduce-like ``op`` with the ops of ``closed``.

    The region takes scalars of the operands' dtypes: the accumulated values,
    then the new elements (``reduce``, ``reduce_window``).

    Args:
      module_context: the module being built.
      op: the reduce-like op (its first region is filled).
      closed: the combiner, on ``(*accumulated, *elements)``.
      avals: one aval per operand (their dtypes give the scalars).
    """
    scalars = [_hlo.tensor_type((), a.dtype) for a in avals]
    block: Any = op.regions[0].blocks.append(*scalars, *scalars)
    with ir.InsertionPoint(block):
        stablehlo.ReturnOp(lower_closed_jaxpr(module_context, closed, list(block.arguments)))


def jaxpr_to_module(
    closed: ClosedJaxpr,
    /,
    *,
    platform: str,
    name: str = "main",
    donated_outputs: Sequence[int | None] | None = None,
    donors: Sequence[bool] | None = None,
    host_callbacks: list[Callable[..., Any]] | None = None,
) -> str:
    """Lower a closed jaxpr to a StableHLO module with entry ``@main``.

    Args:
      closed: the program; its consts are embedded as constants.
      platform: the platform compiled for.
      name: the module's name.
      donated_outputs: per input, the output index that reuses its buffer.
      donors: per input, whether it is donated without a chosen output.
      host_callbacks: a list that receives the module's host callbacks, to
        pass to the compiler with the module text.

    Returns:
      The module text.

    Example:
      >>> import numpy as np
      >>> from tessela_tracer import make_jaxpr, lax
      >>> import tessela_lowering as tl
      >>> closed = make_jaxpr(lambda x: lax.add(x, x))(np.ones(2, np.float32))
      >>> "stablehlo.add" in tl.jaxpr_to_module(closed, platform="cpu")
      True
    """
    jaxpr = closed.jaxpr
    n = len(jaxpr.invars)
    aliases = list(donated_outputs) if donated_outputs is not None else [None] * n
    donor_flags = list(donors) if donors is not None else [False] * n
    args = [
        _hlo.ArgSpec(v.aval.shape, v.aval.dtype, alias_output=a, donor=d)
        for v, a, d in zip(jaxpr.invars, aliases, donor_flags, strict=True)
    ]
    results = [(v.aval.shape, v.aval.dtype) for v in jaxpr.outvars]

    callbacks: list[Callable[..., Any]] = [] if host_callbacks is None else host_callbacks

    def body(module: ir.Module, values: list[Value]) -> list[Value]:
        mctx = ModuleContext(module, platform, callbacks)
        mctx.unique_name("main")
        # Tokens cross the entry function as empty bool[0] buffers.
        ins = [
            stablehlo.CreateTokenOp().result if isinstance(v.aval, AbstractToken) else x
            for v, x in zip(jaxpr.invars, values, strict=True)
        ]
        outs = lower_closed_jaxpr(mctx, closed, ins)
        return [
            _hlo.constant(np.zeros((0,), np.bool_)) if isinstance(v.aval, AbstractToken) else x
            for v, x in zip(jaxpr.outvars, outs, strict=True)
        ]

    return _hlo.build_module(args, results, body, name=name)


def lower_fun(fun: Callable[..., Any], /, *, multiple_results: bool = False) -> LoweringRule:
    """A lowering rule that lowers a primitive through existing primitives.

    The rule traces ``fun(*operands, **params)`` on the operands' abstract
    values and emits the resulting jaxpr in place, so a plugin can give its
    primitive an XLA lowering without writing StableHLO.

    Args:
      fun: a Python function of the primitive's operands (and its parameters as
        keyword arguments) written with ``tessela_tracer.lax``.
      multiple_results: ``fun`` returns a sequence of outputs.

    Returns:
      A rule for :func:`register_lowering`.

    Example:
      >>> import numpy as np
      >>> from tessela_tracer import lax
      >>> from tessela_tracer.extend import Primitive, register_abstract_eval
      >>> import tessela_lowering as tl
      >>> softplus_p = Primitive("doc_softplus")
      >>> register_abstract_eval(softplus_p, lambda x: x)
      >>> tl.register_lowering(softplus_p, tl.lower_fun(lambda x: lax.log1p(lax.exp(x))))
      >>> float(tl.jit(softplus_p.bind)(np.float32(0.0)))  # log(2)
      0.6931471824645996
    """

    def rule(ctx: LoweringRuleContext, *args: Value, **params: Any) -> list[Value]:
        def flat(*operands: Tracer) -> list[ArrayLike]:
            out = fun(*operands, **params)
            return list(out) if multiple_results else [out]

        closed = trace_to_jaxpr(flat, ctx.avals_in)
        consts = [_hlo.constant(np.asarray(c)) for c in closed.consts]
        return lower_jaxpr(ctx.module_context, closed.jaxpr, consts, list(args))

    return rule
