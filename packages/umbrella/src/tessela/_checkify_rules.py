"""``checkify``'s interpreter: each primitive's check rule, threading the error state."""

from __future__ import annotations

import functools
import weakref
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import tessela_numpy as jnp
from tessela_pytree import tree_unflatten
from tessela_tracer import Tracer, config, dtypes, lax
from tessela_tracer import primitives as P
from tessela_tracer.extend import (
    ClosedJaxpr,
    Jaxpr,
    Literal,
    Primitive,
    ShapedArray,
    get_aval_of,
    hoist_consts,
    random_wrap,
    trace_to_jaxpr,
)

from tessela._checkify_check import (
    DivisionByZeroError,
    Error,
    ErrorCategory,
    ErrorEffect,
    Meta,
    NaNError,
    OOBError,
    check_p,
    last_failure,
    next_code,
)

# ------------------------------------------------------------------ the interpreter


__all__ = ["Ctx", "State", "interpret"]


class Ctx:
    """What one ``checkify`` call shares: the enabled categories and each code's meaning."""

    __slots__ = ("enabled", "meta")

    def __init__(self, enabled: frozenset[ErrorCategory]) -> None:
        self.enabled = enabled
        self.meta: dict[int, Meta] = {}

    def code(self, meta: Meta) -> np.int32:
        c = next_code()
        self.meta[c] = meta
        return np.int32(c)


class State:
    """The error state being threaded: per kind of error, (failed, code, payload)."""

    __slots__ = ("entries",)

    def __init__(self) -> None:
        self.entries: dict[ErrorEffect, tuple[Any, Any, list[Any]]] = {}

    def update(self, effect: ErrorEffect, pred: Any, code: Any, payload: Sequence[Any]) -> None:
        old = self.entries.get(effect)
        if old is None:
            self.entries[effect] = (pred, code, list(payload))
            return
        op, oc, opl = old
        self.entries[effect] = (
            jnp.logical_or(op, pred),
            jnp.where(op, oc, code),
            [jnp.where(op, o, n) for o, n in zip(opl, payload, strict=True)],
        )

    def ensure(self, keys: Sequence[ErrorEffect]) -> None:
        # A kind of error not met yet gets a placeholder that never fails: as
        # in JAX, code -1 and a payload of ones (typed PRNG keys included).
        for k in keys:
            if k not in self.entries:
                ones = [_ones(s, d) for s, d in k.shape_dtypes]
                self.entries[k] = (np.bool_(False), np.int32(-1), ones)

    def flat(self, keys: Sequence[ErrorEffect]) -> list[Any]:
        out: list[Any] = []
        for k in keys:
            p, c, pl = self.entries[k]
            out += [
                lax.convert_element_type(p, np.dtype(bool)),
                lax.convert_element_type(c, np.dtype(np.int32)),
                *(lax.convert_element_type(x, d) for x, (_, d) in zip(pl, k.shape_dtypes, strict=True)),
            ]  # fmt: skip
        return out

    def set_flat(self, keys: Sequence[ErrorEffect], flat: Sequence[Any]) -> None:
        it = iter(flat)
        for k in keys:
            p, c = next(it), next(it)
            self.entries[k] = (p, c, [next(it) for _ in k.shape_dtypes])

    @staticmethod
    def from_flat(keys: Sequence[ErrorEffect], flat: Sequence[Any]) -> State:
        st = State()
        st.set_flat(keys, flat)
        return st

    def to_error(self, meta: dict[int, Meta]) -> Error:
        return Error(
            {k: v[0] for k, v in self.entries.items()},
            {k: v[1] for k, v in self.entries.items()},
            dict(meta),
            {k: list(v[2]) for k, v in self.entries.items()},
        )


def _ones(shape: tuple[int, ...], dtype: Any) -> Any:
    """Ones of ``dtype``; a key dtype's are the keys whose every word is 1 (as ``jnp.ones`` in JAX)."""
    if dtypes.is_key_dtype(dtype):
        bits_shape, bits_dtype = dtypes.physical_shape_dtype(shape, dtype)
        return random_wrap(jnp.ones(bits_shape, bits_dtype), impl=dtype)
    return jnp.ones(shape, dtype)


_Rule = Callable[[Ctx, State, list[Any], dict[str, Any]], Any]
_rules: dict[Primitive, _Rule] = {}


def interpret(
    jaxpr: Jaxpr, consts: Sequence[Any], ctx: Ctx, state: State, args: Sequence[Any]
) -> list[Any]:
    env: dict[Any, Any] = {}
    for v, x in zip(jaxpr.constvars, consts, strict=True):
        env[v] = x
    for v, x in zip(jaxpr.invars, args, strict=True):
        env[v] = x
    for eqn in jaxpr.eqns:
        invals = [a.val if isinstance(a, Literal) else env[a] for a in eqn.invars]
        rule = _rules.get(eqn.primitive)
        if rule is None:
            out = eqn.primitive.bind(*invals, **eqn.params)
        else:
            out = rule(ctx, state, invals, dict(eqn.params))
        if eqn.primitive.multiple_results:
            for v, x in zip(eqn.outvars, out, strict=True):
                env[v] = x
        else:
            env[eqn.outvars[0]] = out
    return [a.val if isinstance(a, Literal) else env[a] for a in jaxpr.outvars]


def _discover(
    ctx: Ctx, run: Callable[[State, list[Any]], Any], avals: Sequence[ShapedArray]
) -> list[ErrorEffect]:
    """The kinds of error that ``run`` records, in program order (by tracing it once)."""
    found: list[ErrorEffect] = []

    def fun(*xs: Any) -> list[Any]:
        st = State()
        run(st, list(xs))
        found.extend(st.entries)
        return []

    trace_to_jaxpr(fun, list(avals))
    return found


def _aval(x: Any) -> ShapedArray:
    return get_aval_of(x)


def _union(*lists: list[ErrorEffect]) -> list[ErrorEffect]:
    out: list[ErrorEffect] = []
    for lst in lists:
        for k in lst:
            if k not in out:
                out.append(k)
    return out


# ------------------------------------------------------------------ check rules


def _check_rule(ctx: Ctx, state: State, invals: list[Any], params: dict[str, Any]) -> list[Any]:
    err: Error = tree_unflatten(params["err_tree"], invals)
    for k, p in err._pred.items():
        if not (params["debug"] or k.error_type in ctx.enabled):
            continue
        code, payload = err._code[k], list(err._payload[k])
        nd = np.ndim(p)
        if nd:
            p, (code, *payload) = last_failure(p, [code, *payload], nd)
        state.update(k, p, code, payload)
    ctx.meta.update(err._metadata)
    return []


_rules[check_p] = _check_rule

_NAN = ErrorEffect(NaNError, ())
_DIV = ErrorEffect(DivisionByZeroError, ())
_OOB = ErrorEffect(OOBError, (((3,), np.dtype(np.int32)),))


def _record_nan(ctx: Ctx, state: State, prim: Primitive, out: Any) -> None:
    if NaNError not in ctx.enabled:
        return
    outs = out if prim.multiple_results else [out]
    checks = [
        jnp.any(jnp.isnan(o)) for o in outs if dtypes.issubdtype(_aval(o).dtype, np.inexact)
    ]  # fmt: skip
    if not checks:
        return
    any_nan = functools.reduce(jnp.logical_or, checks)
    state.update(_NAN, any_nan, ctx.code((NaNError, prim.name)), [])


def _nan_rule(prim: Primitive) -> _Rule:
    def rule(ctx: Ctx, state: State, invals: list[Any], params: dict[str, Any]) -> Any:
        out = prim.bind(*invals, **params)
        _record_nan(ctx, state, prim, out)
        return out

    return rule


# The primitives whose NaN results JAX 0.10.2 reports (max, min, exp2, select_n, the
# reductions by max/min and the conversions are not among them).
_NAN_PRIMS = (
    P.sin_p,
    P.cos_p,
    P.tan_p,
    P.asin_p,
    P.acos_p,
    P.atan_p,
    P.sinh_p,
    P.cosh_p,
    P.tanh_p,
    P.asinh_p,
    P.acosh_p,
    P.atanh_p,
    P.exp_p,
    P.expm1_p,
    P.log_p,
    P.log1p_p,
    P.logistic_p,
    P.sqrt_p,
    P.rsqrt_p,
    P.cbrt_p,
    P.integer_pow_p,
    P.pow_p,
    P.lgamma_p,
    P.digamma_p,
    P.erf_p,
    P.erfc_p,
    P.erf_inv_p,
    P.bessel_i0e_p,
    P.bessel_i1e_p,
    P.igamma_p,
    P.igammac_p,
    P.add_p,
    P.sub_p,
    P.mul_p,
    P.rem_p,
    P.atan2_p,
    P.reduce_sum_p,
    P.reduce_prod_p,
    P.cumsum_p,
    P.cumprod_p,
    P.cummax_p,
    P.cummin_p,
    P.cumlogsumexp_p,
    P.dot_general_p,
    P.conv_general_dilated_p,
)
for _p in _NAN_PRIMS:
    _rules[_p] = _nan_rule(_p)


def _div_rule(ctx: Ctx, state: State, invals: list[Any], params: dict[str, Any]) -> Any:
    out = P.div_p.bind(*invals, **params)
    if DivisionByZeroError in ctx.enabled:
        any_zero = jnp.any(jnp.equal(invals[1], 0))
        state.update(_DIV, any_zero, ctx.code((DivisionByZeroError, None)), [])
    _record_nan(ctx, state, P.div_p, out)
    return out


_rules[P.div_p] = _div_rule


def _pick(values: Sequence[int], i: Any) -> Any:
    """``values[i]`` for a traced ``i``, as a sum of selects (the list is short)."""
    table = np.asarray(values, np.int32)
    return jnp.sum(jnp.where(np.arange(len(values)) == i, table, np.int32(0)))


def _oob_payload(oob: Any, indices: Any, dims_map: Sequence[int], shape: Sequence[int]) -> Any:
    """JAX's payload: the first out-of-bounds index, its operand axis and that axis's size."""
    flat_idx = jnp.argmax(jnp.ravel(oob))
    k = flat_idx % len(dims_map)
    dims = [int(d) for d in dims_map]
    axis = _pick(dims, k)
    size = _pick([int(shape[d]) for d in dims], k)
    index = jnp.ravel(indices)[flat_idx]
    return jnp.stack(
        [
            lax.convert_element_type(index, np.dtype(np.int32)),
            lax.convert_element_type(axis, np.dtype(np.int32)),
            lax.convert_element_type(size, np.dtype(np.int32)),
        ]
    )


def _record_oob(
    ctx: Ctx,
    state: State,
    oob: Any,
    indices: Any,
    dims_map: Sequence[int],
    shape: tuple[int, ...],
) -> None:
    payload = _oob_payload(oob, indices, dims_map, shape)
    state.update(_OOB, jnp.any(oob), ctx.code((OOBError, shape)), [payload])


def _gather_rule(ctx: Ctx, state: State, invals: list[Any], params: dict[str, Any]) -> Any:
    out = P.gather_p.bind(*invals, **params)
    sim = tuple(params["dimension_numbers"].start_index_map)
    if OOBError not in ctx.enabled or not sim:
        return out
    operand, idx = invals
    shape = tuple(_aval(operand).shape)
    sizes = params["slice_sizes"]
    upper = np.asarray([shape[d] - sizes[d] for d in sim], np.int64)
    idx64 = lax.convert_element_type(idx, np.dtype(np.int32))
    oob = jnp.logical_or(idx64 < 0, idx64 > jnp.asarray(upper.astype(np.int32)))
    _record_oob(ctx, state, oob, idx64, sim, shape)
    return out


_rules[P.gather_p] = _gather_rule


def _scatter_rule(prim: Primitive) -> _Rule:
    def rule(ctx: Ctx, state: State, invals: list[Any], params: dict[str, Any]) -> Any:
        out = prim.bind(*invals, **params)
        dn = params["dimension_numbers"]
        sdod = tuple(dn.scatter_dims_to_operand_dims)
        if OOBError not in ctx.enabled or not sdod:
            return out
        operand, idx, updates = invals
        shape = tuple(_aval(operand).shape)
        ushape = tuple(_aval(updates).shape)
        skipped = set(dn.inserted_window_dims) | set(getattr(dn, "operand_batching_dims", ()))
        window = iter(ushape[d] for d in dn.update_window_dims)
        sizes = [1 if d in skipped else next(window, 1) for d in range(len(shape))]
        upper = np.asarray([shape[d] - sizes[d] for d in sdod], np.int32)
        i32 = lax.convert_element_type(idx, np.dtype(np.int32))
        oob = jnp.logical_or(i32 < 0, i32 > jnp.asarray(upper))
        _record_oob(ctx, state, oob, i32, sdod, shape)
        return out

    return rule


for _p in (P.scatter_p, P.scatter_add_p, P.scatter_sub_p, P.scatter_mul_p, P.scatter_min_p,
           P.scatter_max_p):  # fmt: skip
    _rules[_p] = _scatter_rule(_p)


def _slice_oob(
    ctx: Ctx, state: State, operand: Any, indices: Sequence[Any], sizes: Sequence[int]
) -> None:
    shape = tuple(_aval(operand).shape)
    if not shape:
        return
    starts = jnp.stack([lax.convert_element_type(i, np.dtype(np.int32)) for i in indices])
    dims = np.asarray(shape, np.int32)
    oob = jnp.logical_or(starts < 0, starts + jnp.asarray(np.asarray(sizes, np.int32)) > dims)
    _record_oob(ctx, state, oob, starts, range(len(shape)), shape)


def _dynamic_slice_rule(ctx: Ctx, state: State, invals: list[Any], params: dict[str, Any]) -> Any:
    out = P.dynamic_slice_p.bind(*invals, **params)
    if OOBError in ctx.enabled:
        _slice_oob(ctx, state, invals[0], invals[1:], params["slice_sizes"])
    return out


def _dynamic_update_slice_rule(
    ctx: Ctx, state: State, invals: list[Any], params: dict[str, Any]
) -> Any:
    out = P.dynamic_update_slice_p.bind(*invals, **params)
    if OOBError in ctx.enabled:
        _slice_oob(ctx, state, invals[0], invals[2:], tuple(_aval(invals[1]).shape))
    return out


_rules[P.dynamic_slice_p] = _dynamic_slice_rule
_rules[P.dynamic_update_slice_p] = _dynamic_update_slice_rule


# ------------------------------------------------------------------ higher-order primitives


def _closed_runner(body: ClosedJaxpr, ctx: Ctx) -> Callable[[State, list[Any]], list[Any]]:
    def run(st: State, xs: list[Any]) -> list[Any]:
        return interpret(body.jaxpr, body.consts, ctx, st, xs)

    return run


class _CheckedJit:
    """A ``jit`` body's checked version, for one set of enabled checks and input avals.

    ``keys`` are the kinds of error the body records (none: the body is bound
    as it is); ``jaxpr`` takes ``consts``, the error state (whose avals are
    ``state_avals``) and the operands; ``meta`` gives its codes' meanings.
    """

    __slots__ = ("consts", "jaxpr", "keys", "meta", "state_avals")

    def __init__(self, keys: list[ErrorEffect]) -> None:
        self.keys = keys
        self.jaxpr: ClosedJaxpr | None = None
        self.consts: list[Any] = []
        self.meta: dict[int, Meta] = {}
        self.state_avals: tuple[ShapedArray, ...] = ()


# Checked ``jit`` bodies, by body (held weakly), enabled checks, input avals
# and tracing flags. A checkified function traces anew on each call, but the
# ``jit`` calls inside it find their bodies in ``jit``'s own cache: checking
# such a body once and binding the same checked jaxpr each time lets the
# compiled executable be reused (JAX caches its checked jaxprs likewise).
_jit_cache: weakref.WeakKeyDictionary[ClosedJaxpr, dict[Any, _CheckedJit]] = (
    weakref.WeakKeyDictionary()
)


def _check_jit_body(
    enabled: frozenset[ErrorCategory],
    body: ClosedJaxpr,
    entry: _CheckedJit,
    s_avals: tuple[ShapedArray, ...],
    avals: tuple[ShapedArray, ...],
) -> bool:
    """Trace ``body``'s checked version into ``entry``; True when it may be cached."""
    tctx = Ctx(enabled)  # collects the meanings of the codes the trace allocates
    run = _closed_runner(body, tctx)
    keys, n = entry.keys, len(s_avals)

    def fun(*flat: Any) -> list[Any]:
        st = State.from_flat(keys, flat[:n])
        outs = run(st, list(flat[n:]))
        return [*st.flat(keys), *outs]

    entry.jaxpr, entry.consts = hoist_consts(trace_to_jaxpr(fun, [*s_avals, *avals]))
    entry.meta, entry.state_avals = tctx.meta, s_avals
    return not any(isinstance(c, Tracer) for c in entry.consts)


def _jit_rule(ctx: Ctx, state: State, invals: list[Any], params: dict[str, Any]) -> Any:
    body: ClosedJaxpr = params["jaxpr"]
    avals = tuple(_aval(x) for x in invals)
    key = (ctx.enabled, avals, config.trace_key)
    per_body = _jit_cache.get(body)
    if per_body is None:
        per_body = _jit_cache[body] = {}
    entry = per_body.get(key)
    if entry is None:
        entry = _CheckedJit(_discover(ctx, _closed_runner(body, ctx), avals))
    if not entry.keys:
        per_body[key] = entry
        return P.jit_p.bind(*invals, **params)
    keys = entry.keys
    state.ensure(keys)
    s_in = state.flat(keys)
    s_avals = tuple(_aval(x) for x in s_in)
    if entry.jaxpr is None or entry.state_avals != s_avals:
        entry = _CheckedJit(keys)
        if _check_jit_body(ctx.enabled, body, entry, s_avals, avals):
            per_body[key] = entry
    assert entry.jaxpr is not None
    ctx.meta.update(entry.meta)
    n = len(s_in)
    donated = tuple(params.get("donated_invars", ()))
    new_params = {
        **params,
        "jaxpr": entry.jaxpr,
        "donated_invars": (False,) * (len(entry.consts) + n) + (donated or (False,) * len(invals)),
    }
    outs = P.jit_p.bind(*entry.consts, *s_in, *invals, **new_params)
    state.set_flat(keys, outs[:n])
    return list(outs[n:])


_rules[P.jit_p] = _jit_rule


def _cond_rule(ctx: Ctx, state: State, invals: list[Any], params: dict[str, Any]) -> Any:
    index, *ops = invals
    branches: Sequence[ClosedJaxpr] = params["branches"]
    runs = [_closed_runner(b, ctx) for b in branches]
    avals = [_aval(x) for x in ops]
    keys = _union(*(_discover(ctx, r, avals) for r in runs))
    if not keys:
        return P.cond_p.bind(*invals, **params)
    state.ensure(keys)

    def branch(run: Callable[[State, list[Any]], list[Any]]) -> Callable[..., Any]:
        def f(s: list[Any], xs: list[Any]) -> tuple[list[Any], list[Any]]:
            st = State.from_flat(keys, s)
            outs = run(st, list(xs))
            return st.flat(keys), outs

        return f

    s_out, outs = lax.switch(index, [branch(r) for r in runs], state.flat(keys), list(ops))
    state.set_flat(keys, s_out)
    return list(outs)


_rules[P.cond_p] = _cond_rule


def _while_rule(ctx: Ctx, state: State, invals: list[Any], params: dict[str, Any]) -> Any:
    cj: ClosedJaxpr = params["cond_jaxpr"]
    bj: ClosedJaxpr = params["body_jaxpr"]
    cn, bn = params["cond_nconsts"], params["body_nconsts"]
    cconsts, bconsts, init = invals[:cn], invals[cn : cn + bn], invals[cn + bn :]
    run_c, run_b = _closed_runner(cj, ctx), _closed_runner(bj, ctx)
    avals = [_aval(x) for x in init]
    keys = _union(
        _discover(ctx, lambda st, xs: run_c(st, [*cconsts, *xs]), avals),
        _discover(ctx, lambda st, xs: run_b(st, [*bconsts, *xs]), avals),
    )
    if not keys:
        return P.while_p.bind(*invals, **params)
    # The loop's predicate runs once on the initial carry: its checks count.
    run_c(state, [*cconsts, *init])
    state.ensure(keys)

    def cond_fun(carry: tuple[list[Any], list[Any]]) -> Any:
        s, xs = carry
        return run_c(State.from_flat(keys, s), [*cconsts, *xs])[0]

    def body_fun(carry: tuple[list[Any], list[Any]]) -> tuple[list[Any], list[Any]]:
        s, xs = carry
        st = State.from_flat(keys, s)
        new = run_b(st, [*bconsts, *xs])
        run_c(st, [*cconsts, *new])
        return st.flat(keys), list(new)

    s_out, outs = lax.while_loop(cond_fun, body_fun, (state.flat(keys), list(init)))
    state.set_flat(keys, s_out)
    return list(outs)


_rules[P.while_p] = _while_rule


def _scan_rule(ctx: Ctx, state: State, invals: list[Any], params: dict[str, Any]) -> Any:
    body: ClosedJaxpr = params["jaxpr"]
    nconst, ncarry = params["num_consts"], params["num_carry"]
    consts, init, xs = invals[:nconst], invals[nconst : nconst + ncarry], invals[nconst + ncarry :]
    run = _closed_runner(body, ctx)
    x_avals = [ShapedArray(a.shape[1:], a.dtype, a.weak_type) for a in map(_aval, xs)]
    avals = [*(_aval(c) for c in init), *x_avals]
    keys = _discover(ctx, lambda st, vs: run(st, [*consts, *vs]), avals)
    if not keys:
        return P.scan_p.bind(*invals, **params)
    state.ensure(keys)

    def step(carry: tuple[list[Any], list[Any]], x: list[Any]) -> Any:
        s, c = carry
        st = State.from_flat(keys, s)
        outs = run(st, [*consts, *c, *x])
        return (st.flat(keys), list(outs[:ncarry])), list(outs[ncarry:])

    (s_out, c_out), ys = lax.scan(
        step,
        (state.flat(keys), list(init)),
        list(xs),
        length=params["length"],
        reverse=params["reverse"],
        unroll=params["unroll"],
    )
    state.set_flat(keys, s_out)
    return [*c_out, *ys]


_rules[P.scan_p] = _scan_rule


def _inline_rule(key: str, open_jaxpr: bool) -> _Rule:
    def rule(ctx: Ctx, state: State, invals: list[Any], params: dict[str, Any]) -> Any:
        j = params[key]
        if open_jaxpr:
            return interpret(j, [], ctx, state, invals)
        return interpret(j.jaxpr, j.consts, ctx, state, invals)

    return rule


_rules[P.custom_jvp_call_p] = _inline_rule("call_jaxpr", False)
_rules[P.custom_vjp_call_p] = _inline_rule("call_jaxpr", False)
_rules[P.remat_p] = _inline_rule("jaxpr", True)
