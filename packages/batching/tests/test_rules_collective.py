"""Batching the collectives: the tracer's primitives, batched by the vmap that owns their axis.

A collective names one or more axes. The ``vmap`` of that name computes it
over its batch axis; any other ``vmap`` batches it as an ordinary primitive.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tessela_batching
import tessela_tracer.primitives as P
from hypothesis import given, settings
from hypothesis import strategies as st
from tessela_batching import (
    BatchAxis,
    NotMapped,
    all_gather,
    not_mapped,
    pmax,
    pmean,
    psum,
    register_collective_batching,
    vmap,
)
from tessela_tracer import lax, make_jaxpr
from tessela_tracer.extend import Primitive, register_abstract_eval

RNG = np.random.RandomState(2)


def _x(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def test_the_collectives_are_the_tracers() -> None:
    for name in ["psum", "pmax", "pmin", "all_gather", "axis_index"]:
        assert getattr(tessela_batching, f"{name}_p") is getattr(P, f"{name}_p")
    assert tessela_batching.psum is lax.psum
    assert not hasattr(tessela_batching, "AxisPrimitive")


def test_the_owning_vmap_reduces_over_its_batch_axis() -> None:
    jaxpr = make_jaxpr(vmap(lambda v: psum(v, "i"), axis_name="i", in_axes=1))(_x(3, 5))
    assert [e.primitive.name for e in jaxpr.eqns] == ["reduce_sum", "broadcast_in_dim"]
    assert jaxpr.eqns[0].params["axes"] == (1,)


def test_an_inner_unnamed_vmap_batches_psum_elementwise() -> None:
    x = _x(2, 3, 4)
    out = vmap(vmap(lambda v: psum(v, "i")), axis_name="i")(x)
    np.testing.assert_allclose(out, np.broadcast_to(x.sum(0), x.shape), rtol=1e-5)
    inner = vmap(lambda v: psum(v, "i"))
    (eqn,) = make_jaxpr(vmap(inner, axis_name="i"))(x).eqns[:1]
    assert eqn.primitive.name == "reduce_sum"


def test_pmax_over_two_names_under_an_unnamed_middle_vmap() -> None:
    x = _x(2, 5, 3)
    f = vmap(vmap(vmap(lambda v: pmax(v, ("i", "j"))), axis_name="j", in_axes=1), axis_name="i")
    out = f(x)
    np.testing.assert_allclose(out, np.broadcast_to(x.max(axis=(0, 2)), (2, 3, 5)), rtol=1e-6)


def test_pmean_of_ints_is_float32() -> None:
    x = np.arange(8, dtype=np.int32).reshape(4, 2)
    out = vmap(lambda v: pmean(v, "i"), axis_name="i")(x)
    assert np.asarray(out).dtype == np.float32
    np.testing.assert_allclose(out, np.broadcast_to(x.mean(0), x.shape))


@pytest.mark.parametrize(("axis", "tiled"), [(0, False), (1, False), (0, True), (1, True)])
def test_all_gather_matches_numpy(axis: int, tiled: bool) -> None:
    x = _x(4, 2, 3)
    out = np.asarray(vmap(lambda v: all_gather(v, "i", axis=axis, tiled=tiled), axis_name="i")(x))
    want = np.concatenate(list(x), axis) if tiled else np.stack(list(x), axis)
    assert out.shape == (4, *want.shape)
    for member in out:
        np.testing.assert_array_equal(member, want)


def test_all_gather_of_a_value_batched_by_an_inner_vmap() -> None:
    x = _x(3, 4, 2)  # axis 0 named "i", axis 1 mapped by an unnamed inner vmap
    out = np.asarray(vmap(vmap(lambda v: all_gather(v, "i")), axis_name="i")(x))
    assert out.shape == (3, 4, 3, 2)
    for i in range(3):
        for j in range(4):
            np.testing.assert_array_equal(out[i, j], x[:, j])


def test_all_gather_of_an_unbatched_value_repeats_it() -> None:
    c = _x(2)
    out = vmap(lambda v: all_gather(c, "i"), axis_name="i")(_x(3))
    np.testing.assert_array_equal(out, np.broadcast_to(c, (3, 3, 2)))


# ----------------------------------------------------------------- a plugin collective

pfirst_p = Primitive("pfirst_test")
register_abstract_eval(pfirst_p, lambda x, *, axis_name: x)
calls: list[tuple[Any, int, bool]] = []


def _pfirst_rule(axis: BatchAxis, args: Any, dims: Any, /, *, axis_name: Any) -> Any:
    (x,), (d,) = args, dims
    calls.append((axis.name, axis.size, isinstance(d, NotMapped)))
    if axis.name not in axis_name:
        return pfirst_p.bind(x, axis_name=axis_name), d
    if isinstance(d, NotMapped):
        return x, not_mapped
    return lax.index_in_dim(x, 0, d, keepdims=False), not_mapped


register_collective_batching(pfirst_p, _pfirst_rule)


def test_a_plugin_collective_gets_the_running_axis() -> None:
    calls.clear()
    x = _x(3, 4)
    out = vmap(vmap(lambda v: pfirst_p.bind(v, axis_name=("i",))), axis_name="i")(x)
    np.testing.assert_array_equal(out, np.broadcast_to(x[0], (3, 4)))
    assert calls == [(None, 4, False), ("i", 3, False)]


def test_a_plugin_collective_runs_on_unbatched_operands_of_its_own_axis() -> None:
    calls.clear()
    c = _x(2)
    out = vmap(lambda v: pfirst_p.bind(c, axis_name=("i",)), axis_name="i")(_x(5))
    np.testing.assert_array_equal(out, np.broadcast_to(c, (5, 2)))
    assert calls == [("i", 5, True)]


def test_ppermute_takes_the_sources_values_and_zeros_elsewhere() -> None:
    xs = _x(4, 3)
    out = vmap(lambda x: lax.ppermute(x, "i", [(0, 2), (2, 1), (1, 0)]), axis_name="i")(xs)
    np.testing.assert_array_equal(np.asarray(out), np.stack([xs[1], xs[2], xs[0], 0 * xs[3]]))
    # Under another vmap's axis it is batched like an ordinary operation.
    inner = vmap(vmap(lambda x: lax.ppermute(x, "i", [(0, 1), (1, 0)])), axis_name="i")(_x(2, 3, 2))
    assert inner.shape == (2, 3, 2)


@pytest.mark.parametrize("tiled", [False, True])
def test_psum_scatter_gives_each_member_its_block_of_the_sum(tiled: bool) -> None:
    xs = _x(3, 2, 6 if tiled else 3)
    out = vmap(lambda x: lax.psum_scatter(x, "i", scatter_dimension=1, tiled=tiled),
               axis_name="i")(xs)  # fmt: skip
    total = xs.sum(0)
    want = np.stack([total[:, 2 * i : 2 * i + 2] if tiled else total[:, i] for i in range(3)])
    np.testing.assert_allclose(np.asarray(out), want, rtol=1e-6)


@pytest.mark.parametrize(("split", "concat", "tiled"),
                         [(0, 0, True), (1, 0, True), (0, 1, False), (1, 0, False)])  # fmt: skip
def test_all_to_all_exchanges_blocks_as_numpy(split: int, concat: int, tiled: bool) -> None:
    n = 2
    shape = [4, 6]
    if not tiled:
        shape[split] = n
    xs = _x(n, *shape)
    out = np.asarray(vmap(lambda x: lax.all_to_all(x, "i", split, concat, tiled=tiled),
                          axis_name="i")(xs))  # fmt: skip
    for j in range(n):
        blocks = [np.split(xs[i], n, axis=split)[j] for i in range(n)]
        if tiled:
            want = np.concatenate(blocks, axis=concat)
        else:
            squeezed = [np.squeeze(b, split) for b in blocks]
            want = np.stack(squeezed, axis=concat)
        np.testing.assert_allclose(out[j], want)


def test_collectives_over_two_names_under_vmap_say_what_is_supported() -> None:
    f = vmap(vmap(lambda x: lax.ppermute(x, ("i", "j"), [(0, 1)]), axis_name="j"), axis_name="i")
    with pytest.raises(NotImplementedError, match="one axis at a time"):
        f(_x(2, 2, 3))


@settings(max_examples=10, deadline=None)
@given(st.integers(1, 4), st.integers(0, 2**31 - 1))
def test_collectives_take_pytrees_leaf_by_leaf(n: int, seed: int) -> None:
    # JAX's collectives take any pytree (``pmean(grads, "batch")``): each
    # leaf is reduced on its own, whatever its shape and dtype.
    rng = np.random.default_rng(seed)
    tree = {
        "w": rng.standard_normal((n, 2, 3)).astype(np.float32),
        "b": [
            rng.integers(-5, 5, (n,)).astype(np.int32),
            rng.standard_normal((n, 1)).astype(np.float32),
        ],
    }
    leaves = [tree["b"][0], tree["b"][1], tree["w"]]

    def run(fn: Any) -> list[np.ndarray]:
        out = vmap(fn, axis_name="i")(tree)
        return [np.asarray(out["b"][0]), np.asarray(out["b"][1]), np.asarray(out["w"])]

    def each(reduce: Any) -> list[np.ndarray]:
        return [np.broadcast_to(reduce(v, axis=0), v.shape) for v in leaves]

    for got, want in zip(run(lambda t: lax.psum(t, "i")), each(np.sum), strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    for got, want in zip(run(lambda t: lax.pmax(t, "i")), each(np.max), strict=True):
        np.testing.assert_array_equal(got, want)
    means = run(lambda t: lax.pmean(t, "i"))
    assert means[0].dtype == np.float32  # an integer leaf's mean is a float
    for got, want in zip(means, each(np.mean), strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    for got, v in zip(run(lambda t: lax.all_gather(t, "i")), leaves, strict=True):
        np.testing.assert_array_equal(got, np.broadcast_to(v, (n, *v.shape)))
    shifted = run(lambda t: lax.ppermute(t, "i", [(j, (j + 1) % n) for j in range(n)]))
    for got, v in zip(shifted, leaves, strict=True):
        np.testing.assert_array_equal(got, np.roll(v, 1, axis=0))
