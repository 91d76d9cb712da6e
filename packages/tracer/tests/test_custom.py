"""custom_jvp / custom_vjp staging: pytrees, nondiff_argnums, rule closures and their checks.

These run without an eager runtime: rules are called on tracers inside
``make_jaxpr``, and the printed text is compared with what JAX prints.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from tessela_tracer import custom_jvp, custom_vjp, lax, make_jaxpr
from tessela_tracer.custom_derivatives import (
    CustomVJPPrimal,
    SymbolicZero,
    custom_vjp_primal_tree_values,
    zero_from_primal,
)
from tessela_tracer.errors import UnexpectedTracerError

F = np.float32


def _eqn(fun: Any, *args: Any) -> Any:
    (eqn,) = [e for e in make_jaxpr(fun)(*args).eqns if e.primitive.name.startswith("custom")]
    return eqn


def _dict_fun() -> Any:
    @custom_jvp
    def g(d: Any) -> Any:
        return {"s": lax.mul(d["a"], d["b"][0]), "t": d["b"][1]}

    def g_jvp(primals: Any, tangents: Any) -> Any:
        (d,), (t,) = primals, tangents
        assert isinstance(d, dict) and isinstance(d["b"], tuple)
        ds = lax.add(lax.mul(t["a"], d["b"][0]), lax.mul(d["a"], t["b"][0]))
        return g(d), {"s": ds, "t": t["b"][1]}

    g.defjvp(g_jvp)
    return g


def test_pytree_arguments_flatten_into_operands() -> None:
    g = _dict_fun()
    arg = {"a": np.ones(3, F), "b": (np.ones(3, F), F(2.0))}
    closed = make_jaxpr(g)(arg)
    assert [str(v.aval) for v in closed.jaxpr.invars] == ["float32[3]", "float32[3]", "float32[]"]
    assert len(closed.jaxpr.outvars) == 2
    (eqn,) = closed.eqns
    assert str(eqn.params["jvp"]) == "g_jvp"


def test_flat_jvp_closure_rebuilds_pytrees() -> None:
    g = _dict_fun()
    arg = {"a": np.ones(3, F), "b": (np.ones(3, F), F(2.0))}
    rule = _eqn(g, arg).params["jvp"]

    def run(a: Any, b: Any, c: Any) -> Any:
        outs, touts = rule([a, b, c], [a, b, c])
        assert len(outs) == 2 and len(touts) == 2
        return touts

    text = str(make_jaxpr(run)(np.ones(3, F), np.ones(3, F), F(2.0)))
    assert "custom_jvp_call" in text and text.count("mul") == 3


def test_nondiff_argnums_reach_the_rule_first() -> None:
    seen: list[Any] = []

    @partial(custom_jvp, nondiff_argnums=(0,))
    def f(fn: Any, x: Any) -> Any:
        return fn(x)

    @f.defjvp
    def f_jvp(fn: Any, primals: Any, tangents: Any) -> Any:
        seen.append(fn)
        return f(fn, *primals), lax.mul(tangents[0], 2.0)

    eqn = _eqn(lambda x: f(lax.sin, x), F(1.0))
    assert len(eqn.invars) == 1
    assert "sin" in str(eqn.params["call_jaxpr"])
    make_jaxpr(lambda x, t: eqn.params["jvp"]([x], [t]))(F(1.0), F(1.0))
    assert seen == [lax.sin]


def test_custom_vjp_nondiff_in_place_for_fwd_and_first_for_bwd() -> None:
    calls: list[tuple[str, Any]] = []

    @partial(custom_vjp, nondiff_argnums=(1,))
    def f(x: Any, n: int) -> Any:
        return lax.mul(x, float(n))

    def fwd(x: Any, n: int) -> Any:
        calls.append(("fwd", n))
        return f(x, n), x

    def bwd(n: int, res: Any, g: Any) -> Any:
        calls.append(("bwd", n))
        return (lax.mul(g, float(n)),)

    f.defvjp(fwd, bwd)
    eqn = _eqn(lambda x: f(x, 3), F(1.0))
    p = eqn.params

    def run(x: Any, g: Any) -> Any:
        res_out = p["fwd"]([x], [True])
        out_tree, res_tree = p["out_trees"]()
        assert (out_tree.num_leaves, res_tree.num_leaves) == (1, 1)
        return p["bwd"](res_out[:1], [g])

    text = str(make_jaxpr(run)(F(1.0), F(1.0)))
    assert calls == [("fwd", 3), ("bwd", 3)]
    assert "mul b 3.0" in text


def test_custom_vjp_nondiff_tracer_is_an_error() -> None:
    f = custom_vjp(lambda n, x: lax.mul(x, n), nondiff_argnums=(0,))
    f.defvjp(lambda n, x: (f(n, x), None), lambda n, r, g: (g,))
    with pytest.raises(UnexpectedTracerError, match="nondiff_argnums should only be used"):
        make_jaxpr(lambda n: f(n, 1.0))(F(2.0))


def test_custom_jvp_nondiff_tracer_is_allowed() -> None:
    f = custom_jvp(lambda n, x: lax.mul(x, n), nondiff_argnums=(0,))
    f.defjvp(lambda n, p, t: (f(n, *p), lax.mul(t[0], n)))
    text = str(make_jaxpr(lambda n, x: f(n, x))(F(2.0), F(1.0)))
    assert "stop_gradient" in text and "num_consts=1" in text


def test_keyword_arguments_resolve_to_positions() -> None:
    @custom_jvp
    def f(x: Any, y: Any = 2.0) -> Any:
        return lax.mul(x, y)

    f.defjvp(lambda p, t: (f(*p), lax.mul(t[0], p[1])))
    assert len(_eqn(lambda x: f(x, y=F(3.0)), F(1.0)).invars) == 2
    assert len(_eqn(lambda x: f(x), F(1.0)).invars) == 2
    with pytest.raises(TypeError, match="could not be resolved to positional-only"):
        make_jaxpr(lambda x: f(x, z=1.0))(F(1.0))


def test_missing_rules_are_attribute_errors() -> None:
    f = custom_jvp(lambda x: x)
    with pytest.raises(AttributeError, match="No JVP defined for custom_jvp function <lambda>"):
        make_jaxpr(f)(F(1.0))
    g = custom_vjp(lambda x: x)
    with pytest.raises(AttributeError, match="No VJP defined for custom_vjp function <lambda>"):
        make_jaxpr(g)(F(1.0))


def test_defjvps_sums_terms_and_skips_none() -> None:
    @custom_jvp
    def f(x: Any, y: Any) -> Any:
        return lax.mul(x, y)

    f.defjvps(lambda t, out, x, y: lax.mul(t, y), None)
    rule = _eqn(f, F(2.0), F(3.0)).params["jvp"]
    closed = make_jaxpr(lambda x, y, tx, ty: rule([x, y], [tx, ty])[1])(*[F(1.0)] * 4)
    # the y term is dropped: the tangent depends on tx and y only
    text = str(closed)
    assert "mul c b" in text and " d" not in text.split("in (")[-1]
    with pytest.raises(TypeError, match="Can't use ``defjvps`` with ``nondiff_argnums``"):
        custom_jvp(lambda n, x: x, nondiff_argnums=(0,)).defjvps(None)


def _jvp_error(rule: Any, arg: Any = None) -> str:
    f = custom_jvp(lambda x: x)
    f.__name__ = "bad"
    f.fun.__name__ = "bad"
    f.defjvp(rule)
    x = F(1.0) if arg is None else arg
    eqn = _eqn(f, x)
    with pytest.raises(TypeError) as info:
        make_jaxpr(lambda p, t: eqn.params["jvp"]([p], [t]))(x, x)
    return str(info.value)


def test_jvp_rule_output_checks_use_jax_messages() -> None:
    assert _jvp_error(lambda p, t: (p[0], (t[0],))) == (
        "Custom JVP rule <lambda> for function bad must produce primal and tangent outputs "
        "with equal container (pytree) structures, but got PyTreeDef(*) and PyTreeDef((*,)) "
        "respectively."
    )
    assert _jvp_error(lambda p, t: (p[0], lax.convert_element_type(t[0], np.float16))) == (
        "Custom JVP rule must produce primal and tangent outputs with corresponding shapes and "
        "dtypes. Expected float32[] (tangent type of float32[]) but got float16[]."
    )
    assert _jvp_error(lambda p, t: 1.0) == (
        "Custom JVP rule <lambda> for function bad must produce a pair (list or tuple of length "
        "two) representing primal and tangent outputs, but got 1.0."
    )
    msg = _jvp_error(lambda p, t: ((p[0],), (t[0],)))
    assert "first element had container/pytree structure:\n    (float32[],)\n" in msg
    assert msg.endswith("had output container/pytree structure:\n    float32[].")


def _vjp_bwd_error(bwd: Any) -> Exception:
    f = custom_vjp(lambda x, y: lax.mul(x, y))
    f.defvjp(lambda x, y: (f(x, y), (x, y)), bwd)
    p = _eqn(f, F(1.0), F(2.0)).params

    def run(x: Any, y: Any, g: Any) -> Any:
        res_out = p["fwd"]([x, y], [True, True])
        return p["bwd"](res_out[:2], [g])

    with pytest.raises((TypeError, ValueError)) as info:
        make_jaxpr(run)(F(1.0), F(2.0), F(1.0))
    return info.value


def test_vjp_bwd_output_checks_use_jax_messages() -> None:
    e = _vjp_bwd_error(lambda r, g: (g,))
    assert type(e) is TypeError and str(e) == (
        "Custom VJP bwd rule must produce an output with the same container (pytree) structure "
        "as the args tuple of the primal function, and in particular must produce a tuple of "
        "length equal to the number of arguments to the primal function, but got bwd output "
        "structure PyTreeDef((*,)) for primal input structure PyTreeDef((*, *))."
    )
    e = _vjp_bwd_error(lambda r, g: (g, np.ones(3, F)))
    assert type(e) is ValueError and str(e) == (
        "Custom VJP bwd rule must produce an output with the same type as the args tuple of the "
        "primal function, but at output[1] the bwd rule produced an output of type float32[3] "
        "corresponding to an input of type float32[], so the shapes do not match"
    )


def test_vjp_fwd_must_return_a_pair() -> None:
    f = custom_vjp(lambda x: x)
    f.fun.__name__ = "bv"
    f.defvjp(lambda x: x, lambda r, g: (g,))
    p = _eqn(f, F(1.0)).params
    with pytest.raises(TypeError, match=r"fwd rule <lambda> for function bv must produce a pair"):
        make_jaxpr(lambda x: p["fwd"]([x], [True]))(F(1.0))


def test_bwd_none_and_list_are_accepted() -> None:
    f = custom_vjp(lambda d, y: lax.mul(d["a"], y))
    f.defvjp(lambda d, y: (f(d, y), y), lambda r, g: [{"a": lax.mul(g, r)}, None])
    p = _eqn(f, {"a": F(1.0)}, F(2.0)).params
    seen: list[Any] = []

    def run(x: Any, y: Any, g: Any) -> Any:
        res_out = p["fwd"]([x, y], [True, True])
        cts = p["bwd"](res_out[:1], [g])
        seen.append(cts)
        return cts[0]

    make_jaxpr(run)(F(1.0), F(2.0), F(1.0))
    assert len(seen[0]) == 2 and seen[0][1] is None


def _mul(x: Any, y: Any) -> Any:
    return lax.mul(x, y)


def test_symbolic_zeros_reach_the_rules() -> None:
    got: list[Any] = []

    f = custom_jvp(_mul)

    def f_jvp(p: Any, t: Any) -> Any:
        got.extend(t)
        return f(*p), SymbolicZero(t[1].aval) if isinstance(t[1], SymbolicZero) else t[1]

    f.defjvp(f_jvp, symbolic_zeros=True)
    p = _eqn(f, F(1.0), F(2.0)).params
    assert p["symbolic_zeros"] is True
    outs: list[Any] = []
    make_jaxpr(lambda x, y, t: outs.extend(p["jvp"]([x, y], [t, None])[1]) or [x])(
        F(1.0), F(2.0), F(1.0)
    )
    assert isinstance(got[1], SymbolicZero) and got[1].shape == () and got[1].dtype == F
    assert outs == [None]


def test_symbolic_zeros_fwd_sees_perturbation_flags() -> None:
    flags: list[bool] = []

    f = custom_vjp(_mul)

    def fwd(x: Any, y: Any) -> Any:
        flags.extend([x.perturbed, y.perturbed])
        xv, yv = custom_vjp_primal_tree_values((x, y))
        return f(xv, yv), (xv, yv)

    f.defvjp(fwd, lambda r, g: (lax.mul(g, r[1]), lax.mul(g, r[0])), symbolic_zeros=True)
    p = _eqn(f, F(1.0), F(2.0)).params
    make_jaxpr(lambda x, y: p["fwd"]([x, y], [True, False]))(F(1.0), F(2.0))
    assert flags == [True, False]


def test_helpers() -> None:
    assert repr(zero_from_primal({"a": np.ones(2, F)})) == "{'a': SymbolicZero(float32[2])}"
    assert custom_vjp_primal_tree_values([CustomVJPPrimal(1, True)]) == [1]
    with pytest.raises(TypeError, match="unexpected leaf type"):
        custom_vjp_primal_tree_values([1])


@given(st.lists(st.integers(1, 3), min_size=1, max_size=3))
def test_any_tuple_of_arrays_round_trips(shapes: list[int]) -> None:
    @custom_vjp
    def f(*xs: Any) -> Any:
        return {"sum": xs, "n": xs[0]}

    f.defvjp(lambda *xs: (f(*xs), xs), lambda r, g: tuple(g["sum"]))
    args = [np.ones(n, F) for n in shapes]
    closed = make_jaxpr(f)(*args)
    assert len(closed.jaxpr.outvars) == len(shapes) + 1
    assert [str(v.aval) for v in closed.jaxpr.outvars[1:]] == [f"float32[{n}]" for n in shapes]
