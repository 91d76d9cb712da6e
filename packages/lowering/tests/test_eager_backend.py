"""The eager backend: which implementation runs a primitive bound on concrete arrays.

A primitive's own ``register_impl`` rule runs eagerly; without one, a primitive
with a lowering rule is compiled through XLA (``apply_primitive``, installed
with ``set_eager_backend``); registering a lowering never replaces an
implementation. Also: the public ``tessela_lowering.mlir`` route for raw
StableHLO, and the higher-order primitives running compiled when bound eagerly.
"""

from __future__ import annotations

import inspect
import itertools
from typing import Any

import numpy as np
import pytest
import tessela_lowering as tl
from tessela_lowering import _dispatch, mlir
from tessela_tracer import ShapedArray, custom_jvp, lax
from tessela_tracer import primitives as P
from tessela_tracer.extend import Primitive, find_impl, register_abstract_eval, register_impl

_names = (f"test_backend_{i}" for i in itertools.count())


def _new_primitive() -> Primitive:
    prim = Primitive(next(_names))
    register_abstract_eval(prim, lambda x: x)
    return prim


def _plus(amount: float) -> Any:
    """A lowering rule computing ``x + amount`` in raw StableHLO."""

    def rule(ctx: mlir.LoweringRuleContext, x: Any) -> list[Any]:
        (aval,) = ctx.avals_in
        c = mlir.ir_constant(np.full(aval.shape, amount), aval.dtype)
        return [mlir.stablehlo.AddOp(x, c).result]

    return rule


X = np.arange(3, dtype=np.float32)


@pytest.mark.parametrize("impl_first", [True, False])
def test_own_impl_runs_eagerly_and_lowering_under_jit(impl_first: bool) -> None:
    prim = _new_primitive()
    calls: list[Any] = []

    def impl(x: Any) -> Any:
        calls.append(x)
        return tl.device_put(np.asarray(x) + 100)

    if impl_first:
        register_impl(prim, impl)
        tl.register_lowering(prim, _plus(1.0))
    else:
        tl.register_lowering(prim, _plus(1.0))
        register_impl(prim, impl)
    assert find_impl(prim) is impl
    np.testing.assert_array_equal(np.asarray(prim.bind(X)), X + 100)
    assert len(calls) == 1
    np.testing.assert_array_equal(np.asarray(tl.jit(prim.bind)(X)), X + 1)
    assert len(calls) == 1  # jit compiled the lowering; the impl did not run
    # A second lowering (e.g. for one platform) keeps the impl too.
    tl.register_lowering(prim, _plus(2.0), platform="cpu")
    np.testing.assert_array_equal(np.asarray(prim.bind(X)), X + 100)
    np.testing.assert_array_equal(np.asarray(tl.jit(prim.bind)(X)), X + 2)


def test_a_lowering_alone_runs_eagerly_through_xla() -> None:
    prim = _new_primitive()
    tl.register_lowering(prim, _plus(1.0))
    assert find_impl(prim) is None
    before = tl.eager_cache_size()
    out = prim.bind(X)
    assert isinstance(out, tl.Array)
    np.testing.assert_array_equal(np.asarray(out), X + 1)
    assert tl.eager_cache_size() == before + 1
    assert any(key[0] is prim for key in list(_dispatch._cache))


def test_a_primitive_without_impl_or_lowering_says_how_to_fix_it() -> None:
    prim = _new_primitive()
    with pytest.raises(NotImplementedError, match="register_lowering"):
        prim.bind(X)


def test_apply_primitive_takes_the_backend_signature() -> None:
    out = tl.apply_primitive(P.mul_p, (X, np.float32(2.0)), {})
    np.testing.assert_array_equal(np.asarray(out), X * 2)
    outs = tl.apply_primitive(P.split_p, (X,), {"sizes": (1, 2), "axis": 0})
    assert [np.asarray(o).tolist() for o in outs] == [[0.0], [1.0, 2.0]]


def _eager_prims_run(fun: Any, *args: Any) -> tuple[Any, set[Primitive]]:
    """``fun(*args)`` eagerly, and the primitives compiled for it."""
    tl.clear_caches()
    out = fun(*args)
    return out, {key[0] for key in list(_dispatch._cache)}


def test_higher_order_primitives_run_compiled_when_bound_eagerly() -> None:
    x = tl.device_put(X)
    out, ran = _eager_prims_run(lambda v: lax.cond(True, lax.sin, lax.cos, v), x)
    np.testing.assert_allclose(np.asarray(out), np.sin(X), rtol=1e-6)
    assert P.cond_p in ran

    out, ran = _eager_prims_run(
        lambda v: lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] * 2), (0, v)), x
    )
    np.testing.assert_array_equal(np.asarray(out[1]), X * 8)
    assert P.while_p in ran


def test_custom_jvp_call_evaluates_its_body_op_by_op_as_jax() -> None:
    @custom_jvp
    def f(v: Any) -> Any:
        return lax.mul(v, 3.0)

    f.defjvp(lambda primals, tangents: (f(primals[0]), tangents[0]))
    out, ran = _eager_prims_run(f, tl.device_put(X))
    np.testing.assert_array_equal(np.asarray(out), X * 3)
    assert P.custom_jvp_call_p not in ran and P.mul_p in ran


def test_device_put_and_callbacks_keep_their_own_eager_implementations() -> None:
    impl = find_impl(P.device_put_p)
    assert impl is not None and impl.__module__.startswith("tessela_lowering.")
    # The callbacks are a plain Python call: the tracer's own implementation.
    for prim in (P.debug_callback_p, P.debug_print_p, P.pure_callback_p, P.io_callback_p):
        impl = find_impl(prim)
        assert impl is not None and impl.__module__ == "tessela_tracer._prims_callback", prim
    seen: list[Any] = []
    P.debug_callback_p.bind(X, callback=lambda a: seen.append(type(a)), effect=None,
                            partitioned=False)  # fmt: skip
    assert seen == [tl.Array]


def test_custom_lin_under_jit_raises_jax_type_error() -> None:
    def fun(x: Any) -> Any:
        return P.custom_lin_p.bind(
            x, num_res=0, bwd=None, symbolic_zeros=False,
            out_avals=lambda: [ShapedArray((3,), np.dtype(np.float32))],
        )  # fmt: skip

    with pytest.raises(TypeError, match="forward-mode autodiff"):
        tl.jit(fun)(X)


def test_mlir_module_exports_the_dialects_and_rule_api() -> None:
    assert mlir.register_lowering is tl.register_lowering
    assert mlir.lower_fun is tl.lower_fun
    assert mlir.lower_jaxpr is tl.lower_jaxpr
    assert mlir.LoweringRuleContext is tl.LoweringRuleContext
    for dialect, op in ((mlir.stablehlo, "AddOp"), (mlir.chlo, "ErfOp"), (mlir.func, "CallOp")):
        assert hasattr(dialect, op)
    assert hasattr(mlir.ir, "RankedTensorType")


def test_public_docstrings_use_only_public_modules() -> None:
    public = [getattr(tl, n) for n in tl.__all__] + [getattr(mlir, n) for n in mlir.__all__]
    offenders = []
    for obj in [tl, mlir, *public]:
        doc = inspect.getdoc(obj) if callable(obj) or inspect.ismodule(obj) else None
        if doc and ("tessela_lowering._" in doc or "import _" in doc):
            offenders.append(getattr(obj, "__name__", repr(obj)))
    assert offenders == []
