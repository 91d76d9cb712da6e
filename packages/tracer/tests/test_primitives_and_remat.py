"""Every primitive is public; ``checkpoint``/``remat`` stages and evaluates."""

from __future__ import annotations

import importlib
import pkgutil

import numpy as np
import pytest
import tessela_tracer as tt
from tessela_tracer import extend, lax, primitives
from tessela_tracer.extend import Primitive, abstract_eval_rule, find_impl, remat_p, subjaxprs


def _all_primitives() -> dict[int, tuple[str, Primitive]]:
    found: dict[int, tuple[str, Primitive]] = {}
    for info in pkgutil.walk_packages(tt.__path__, tt.__name__ + "."):
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if isinstance(value, Primitive):
                found.setdefault(id(value), (f"{info.name}.{name}", value))
    return found


def test_every_primitive_is_exported_by_primitives_module() -> None:
    exported = {id(getattr(primitives, n)) for n in primitives.__all__}
    missing = sorted(where for key, (where, _) in _all_primitives().items() if key not in exported)
    assert not missing, f"add these to tessela_tracer.primitives.__all__: {missing}"


def test_primitives_module_exports_only_primitives_with_rules() -> None:
    for name in primitives.__all__:
        prim = getattr(primitives, name)
        assert isinstance(prim, Primitive), name
        assert name == prim.name.replace("remat2", "remat") + "_p" or name.endswith("_p")
        assert abstract_eval_rule(prim) is not None, name


def test_remat_is_public_everywhere() -> None:
    assert primitives.remat_p is remat_p is extend.remat_p
    assert tt.remat is tt.checkpoint
    assert remat_p.name == "remat2"


X = np.arange(3, dtype=np.float32)


def test_checkpoint_params_and_subjaxpr() -> None:
    closed = tt.make_jaxpr(tt.checkpoint(lambda x: lax.sin(lax.mul(x, X))))(X)
    (eqn,) = closed.eqns
    assert eqn.primitive is remat_p
    assert eqn.params["prevent_cse"] is True
    assert eqn.params["differentiated"] is False
    assert eqn.params["policy"] is None
    (body,) = subjaxprs(eqn)
    assert body is eqn.params["jaxpr"]
    assert [e.primitive.name for e in body.eqns] == ["mul", "sin"]
    # The closed-over array is hoisted to a leading operand.
    assert len(eqn.invars) == 2 and eqn.invars[0] is closed.jaxpr.constvars[0]
    tt.check_jaxpr(closed)


def test_checkpoint_pytrees_and_static_args() -> None:
    def f(p, n):
        return {"y": lax.mul(p["a"], float(n)), "z": (p["b"],)}

    g = tt.checkpoint(f, static_argnums=(1,))
    out = tt.eval_shape(lambda p: g(p, 4), {"a": X, "b": np.int32(1)})
    assert out["y"].shape == (3,) and out["z"][0].dtype == np.int32
    closed = tt.make_jaxpr(lambda p: g(p, 4))({"a": X, "b": np.int32(1)})
    body = closed.eqns[0].params["jaxpr"]
    assert str(body.eqns[0].invars[1]) == "4.0:f32[]"


def test_checkpoint_impl_evaluates_the_body() -> None:
    closed = tt.make_jaxpr(tt.checkpoint(lambda x: lax.cos(lax.neg(x))))(X)
    params = closed.eqns[0].params
    impl = find_impl(remat_p)
    assert impl is not None
    inlined = tt.make_jaxpr(lambda x: impl(x, **params))(X)
    assert [e.primitive.name for e in inlined.eqns] == ["neg", "cos"]


def test_checkpoint_eval_jaxpr_round_trip() -> None:
    closed = tt.make_jaxpr(tt.checkpoint(lambda x, y: lax.add(x, y), prevent_cse=False))(X, X)
    again = tt.make_jaxpr(lambda x, y: tt.eval_jaxpr(closed.jaxpr, closed.consts, x, y))(X, X)
    assert str(again) == str(closed)


def test_checkpoint_argument_errors() -> None:
    with pytest.raises(TypeError, match="policy must be None or a callable"):
        tt.checkpoint(lax.sin, policy="nothing")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="pass the static argument positionally"):
        tt.make_jaxpr(tt.checkpoint(lambda x, n=1: x, static_argnums=(1,)))(X)
    closed = tt.make_jaxpr(tt.checkpoint(lax.sin))(X)
    with pytest.raises(TypeError, match="operands"):
        remat_p.abstract_eval(**closed.eqns[0].params)


def test_cond_branch_consts_are_joined_once() -> None:
    c = np.ones(3, np.float32)

    def f(x, y):
        return lax.cond(
            lax.gt(y, 0.0), lambda a: lax.add(a, c), lambda a: lax.mul(lax.add(a, c), y), x
        )

    closed = tt.make_jaxpr(f)(X, np.float32(1.0))
    eqn = closed.eqns[-1]
    # index, c (shared by both branches, passed once), y, x
    assert len(eqn.invars) == 4
    for branch in eqn.params["branches"]:
        assert [v.aval for v in branch.jaxpr.invars] == [a.aval for a in eqn.invars[1:]]
    tt.check_jaxpr(closed)


def test_fori_loop_index_is_weak_for_python_int_bounds() -> None:
    # JAX: the index carry of fori_loop(0, ...) is ~int32 (weak), so
    # fori_loop(0, 10, lambda i, x: x + i, 0) returns a weakly typed result.
    closed = tt.make_jaxpr(lambda: lax.fori_loop(0, 10, lambda i, x: lax.add(x, i), 0))()
    assert closed.out_avals[0].weak_type
    strong = tt.make_jaxpr(lambda: lax.fori_loop(np.int32(0), 10, lambda i, x: lax.add(x, i), 0))()
    assert not strong.out_avals[0].weak_type


def test_checkpoint_name_stages_a_name_equation() -> None:
    closed = tt.make_jaxpr(lambda x: tt.checkpoint_name({"h": lax.sin(x)}, "h"))(X)
    assert "c:f32[3] = name[name=h] b" in str(closed)
    (eqn,) = [e for e in closed.eqns if e.primitive is primitives.name_p]
    assert eqn.params == {"name": "h"}
    np.testing.assert_array_equal(find_impl(primitives.name_p)(X, name="h"), X)
    assert tt.checkpoint_name(X, "h") is X
    with pytest.raises(TypeError, match="name must be a str"):
        tt.checkpoint_name(X, 3)  # type: ignore[arg-type]


def test_checkpoint_policies() -> None:
    cp = tt.checkpoint_policies
    f32 = tt.ShapedArray((3,), np.dtype("float32"))
    plain = (((1,), (0,)), ((), ()))
    batched = (((2,), (1,)), ((0,), (0,)))
    dot, sin, name = primitives.dot_general_p, primitives.sin_p, primitives.name_p
    assert cp.everything_saveable(sin, f32) is True
    assert cp.nothing_saveable(dot, f32, f32, dimension_numbers=plain) is False
    assert cp.dots_saveable(dot, f32, f32, dimension_numbers=batched) is True
    assert cp.checkpoint_dots is cp.dots_saveable
    assert cp.dots_saveable(sin, f32) is False
    nb = cp.dots_with_no_batch_dims_saveable
    assert nb is cp.checkpoint_dots_with_no_batch_dims
    assert nb(dot, f32, f32, dimension_numbers=plain) is True
    assert nb(dot, f32, f32, dimension_numbers=batched) is False
    only = cp.save_only_these_names("a", "b")
    assert only(name, f32, name="a") and not only(name, f32, name="c") and not only(sin, f32)
    but = cp.save_any_names_but_these("a")
    assert but(name, f32, name="c") and not but(name, f32, name="a") and not but(sin, f32)
    # As in JAX, this policy saves everything (the names are not consulted).
    assert cp.save_anything_except_these_names("a")(name, f32, name="a") is True
    assert repr(cp.dots_saveable) == "DotsSaveable(only_if_no_batch_dims=False)"
    closed = tt.make_jaxpr(tt.checkpoint(lax.sin, policy=cp.dots_saveable))(X)
    assert closed.eqns[0].params["policy"] is cp.dots_saveable
