"""Control flow, custom derivatives, collectives, in/out axes, nesting and errors."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import check
from tessela_batching import all_gather, axis_index, pmax, pmean, pmin, psum, vmap
from tessela_tracer import custom_jvp, custom_vjp, jit, lax, make_jaxpr

rng = np.random.default_rng(1)


def f32(*shape: int) -> np.ndarray:
    return rng.standard_normal(shape).astype(np.float32)


def test_jit_inside_vmap_batches_the_jaxpr():
    g = jit(lambda x, y: lax.mul(lax.sin(x), y))
    check(g, (0, None), f32(4, 3), f32(3))
    jaxpr = make_jaxpr(vmap(g, (0, None)))(f32(4, 3), f32(3))
    assert jaxpr.eqns[0].primitive.name == "jit"
    assert jaxpr.eqns[0].params["jaxpr"].in_avals[0].shape == (4, 3)


@pytest.mark.parametrize("ax", [(None, 0), (0, 0), (0, None)])
def test_cond(ax):
    def f(p, x):
        return lax.cond(p, lambda x: lax.sin(x), lambda x: lax.mul(x, 2.0), x)

    p = np.array([True, False, True, False]) if ax[0] == 0 else np.bool_(True)
    x = f32(4, 3) if ax[1] == 0 else f32(3)
    check(f, ax, p, x)


def test_cond_batched_predicate_becomes_select():
    f = vmap(lambda p, x: lax.cond(p, lax.sin, lax.cos, x))
    jaxpr = make_jaxpr(f)(np.array([True, False]), f32(2, 3))
    names = [e.primitive.name for e in jaxpr.eqns]
    assert "cond" not in names and "select_n" in names


def test_switch_batched_index():
    def f(i, x):
        return lax.switch(i, [lax.sin, lax.cos, lambda x: lax.neg(x)], x)

    check(f, (0, 0), np.array([0, 2, 1, 5], np.int32), f32(4, 3))


def test_while_batched_predicate():
    def f(n, x):
        def body(c):
            i, y = c
            return lax.add(i, 1), lax.mul(y, 2.0)

        return lax.while_loop(lambda c: lax.lt(c[0], n), body, (np.int32(0), x))

    check(f, (0, None), np.array([0, 3, 1, 5], np.int32), f32(3))
    check(f, (None, 0), np.int32(3), f32(4, 3))


def test_fori_loop_and_scan():
    def cumulative(x, c0):
        return lax.scan(lambda c, x: (lax.add(c, x), lax.mul(c, x)), c0, x)

    check(cumulative, (1, None), f32(5, 4, 3), f32(3))
    check(cumulative, (None, 0), f32(5, 3), f32(4, 3))
    check(lambda x: lax.fori_loop(0, 3, lambda i, c: lax.mul(c, x), x), 0, f32(4, 2))


def test_custom_jvp_and_vjp_primal_values():
    @custom_jvp
    def f(x):
        return lax.sin(x)

    f.defjvp(lambda p, t: (f(p[0]), lax.mul(lax.cos(p[0]), t[0])))

    @custom_vjp
    def g(x, y):
        return lax.mul(x, y)

    g.defvjp(lambda x, y: (g(x, y), (x, y)), lambda r, ct: (lax.mul(r[1], ct), lax.mul(r[0], ct)))
    check(f, 0, f32(4, 3))
    check(g, (0, None), f32(4, 3), f32(3))
    eqn = make_jaxpr(vmap(f))(f32(4, 3)).eqns[0]
    assert eqn.primitive.name == "custom_jvp_call"
    assert eqn.params["call_jaxpr"].in_avals[0].shape == (4, 3)


def test_collectives():
    x = f32(4, 3)
    np.testing.assert_allclose(vmap(lambda x: psum(x, "i"), axis_name="i")(x),
                               np.broadcast_to(x.sum(0), x.shape), rtol=1e-5)  # fmt: skip
    np.testing.assert_allclose(vmap(lambda x: lax.div(x, psum(x, "i")), axis_name="i")(x),
                               x / x.sum(0), rtol=1e-4)  # fmt: skip
    np.testing.assert_allclose(vmap(lambda x: pmean(x, "i"), axis_name="i")(x),
                               np.broadcast_to(x.mean(0), x.shape), rtol=1e-5)  # fmt: skip
    np.testing.assert_allclose(vmap(lambda x: pmax(x, "i"), axis_name="i")(x),
                               np.broadcast_to(x.max(0), x.shape))  # fmt: skip
    np.testing.assert_allclose(vmap(lambda x: pmin(x, "i"), axis_name="i")(x),
                               np.broadcast_to(x.min(0), x.shape))  # fmt: skip
    gathered = vmap(lambda x: all_gather(x, "i"), axis_name="i")(x)
    np.testing.assert_allclose(gathered, np.broadcast_to(x, (4, 4, 3)))
    np.testing.assert_array_equal(vmap(lambda x: axis_index("i"), axis_name="i")(x),
                                  np.arange(4))  # fmt: skip
    np.testing.assert_allclose(vmap(lambda x: psum(1.0, "i"), axis_name="i")(x), [4.0] * 4)


def test_nested_named_axes():
    x = f32(2, 3)

    def f(x):
        return (
            psum(x, ("i", "j")),
            psum(x, "j"),
            lax.convert_element_type(
                lax.add(lax.mul(axis_index("i"), 10), axis_index("j")), np.float32
            ),
        )

    total, rows, idx = vmap(vmap(f, axis_name="j"), axis_name="i")(x)
    np.testing.assert_allclose(total, np.full((2, 3), x.sum()), rtol=1e-5)
    np.testing.assert_allclose(rows, np.broadcast_to(x.sum(1, keepdims=True), x.shape), rtol=1e-5)
    np.testing.assert_array_equal(idx, [[0, 1, 2], [10, 11, 12]])
    inner = vmap(vmap(lambda x: psum(x, "i"), axis_name="j"), axis_name="i")(x)
    np.testing.assert_allclose(inner, np.broadcast_to(x.sum(0), x.shape), rtol=1e-5)


def test_collective_inside_jit_under_vmap():
    f = vmap(jit(lambda x: lax.sub(x, pmean(x, "i"))), axis_name="i")
    x = f32(4, 3)
    np.testing.assert_allclose(f(x), x - x.mean(0), rtol=1e-4, atol=1e-6)


def test_unbound_axis_name():
    with pytest.raises(NameError, match="unbound axis name: j"):
        vmap(lambda x: psum(x, "j"), axis_name="i")(f32(3))
    with pytest.raises(NameError, match="unbound axis name: i"):
        make_jaxpr(lambda x: axis_index("i"))(f32(3))


def test_nested_vmap_matches_double_loop():
    x, y = f32(3, 4, 2), f32(4, 2)
    f = vmap(vmap(lambda a, b: lax.mul(lax.sin(a), b), (0, 0)), (0, None))
    want = np.stack([np.stack([np.sin(x[i, j]) * y[j] for j in range(4)]) for i in range(3)])
    np.testing.assert_allclose(f(x, y), want, rtol=1e-5)
    g = vmap(vmap(lambda a: lax.reduce_sum(a, (0,)), in_axes=1), in_axes=2)
    np.testing.assert_allclose(g(x), np.moveaxis(x.sum(0), (0, 1), (1, 0)), rtol=1e-5)


def test_pytree_axes_and_kwargs():
    def f(d, s, *, k):
        return {"sum": lax.add(d["a"], d["b"]), "s": lax.mul(s, k)}

    a, b, k = f32(4, 3), f32(3, 4), f32(4)
    out = vmap(f, in_axes=({"a": 0, "b": 1}, None))({"a": a, "b": b}, np.float32(2.0), k=k)
    np.testing.assert_allclose(out["sum"], a + b.T, rtol=1e-6)
    np.testing.assert_allclose(out["s"], 2.0 * k, rtol=1e-6)
    out2 = vmap(lambda t: (lax.neg(t[0]), t[1]), in_axes=[(1, None)])((f32(3, 4), f32(2)))
    assert out2[0].shape == (4, 3) and out2[1].shape == (4, 2)


def test_out_axes():
    x = f32(4, 3, 2)
    np.testing.assert_allclose(vmap(lax.sin, out_axes=2)(x), np.moveaxis(np.sin(x), 0, 2),
                               rtol=1e-6)  # fmt: skip
    np.testing.assert_allclose(vmap(lax.sin, out_axes=-1)(x), np.moveaxis(np.sin(x), 0, -1),
                               rtol=1e-6)  # fmt: skip
    a, b = vmap(lambda x: (x, np.float32(1.0)), out_axes=(0, None))(x)
    assert np.shape(b) == () and a.shape == x.shape
    c = vmap(lambda x: np.ones(2, np.float32), out_axes=1)(x)
    assert c.shape == (2, 4)
    np.testing.assert_array_equal(vmap(lambda: np.float32(1.0), axis_size=3)(), [1.0] * 3)


def test_errors():
    with pytest.raises(ValueError, match=r"inconsistent sizes.*\n.*size 3: axis 0 of argument x"):
        vmap(lambda x, y: lax.add(x, y))(f32(3), f32(4))
    with pytest.raises(ValueError, match=r"most axes \(2 of them\) had size 3"):
        vmap(lambda x, y, z: x)(f32(3), f32(3), f32(4))
    with pytest.raises(ValueError, match="at least one non-None value in in_axes"):
        vmap(lambda x: x, in_axes=None)(f32(3))
    with pytest.raises(ValueError, match="along axis 2, which implies that its rank should be"):
        vmap(lambda x: x, in_axes=2)(f32(3, 2))
    with pytest.raises(ValueError, match="got axis spec None but output was batched on axis 0"):
        vmap(lambda x: x, out_axes=None)(f32(3, 2))
    with pytest.raises(ValueError, match="axis 3 is out of bounds for array of dimension 2"):
        vmap(lambda x: x, out_axes=3)(f32(3, 2))
    with pytest.raises(ValueError, match=r"len\(in_axes\)=2, len\(args\)=1"):
        vmap(lambda x: x, in_axes=(0, 0))(f32(3, 2))
    with pytest.raises(TypeError, match="vmap in_axes must be an int, None, or a tuple"):
        vmap(lambda x: x, in_axes=0.5)
    with pytest.raises(ValueError, match="tree prefix"):
        vmap(lambda x: x, in_axes=({"a": 0, "b": 0},))({"a": f32(2)})


def test_escaped_tracer_and_repr():
    box = []
    vmap(lambda x: box.append(x) or x)(f32(3))
    assert repr(box[0]) == "BatchTracer<float32[]>"
