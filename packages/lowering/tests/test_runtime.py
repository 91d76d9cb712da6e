"""Thread safety, buffer lifetimes, memory and the dispatch fast paths of compiled execution."""

from __future__ import annotations

import gc
import os
import threading
from typing import Any

import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
import tessela_lowering as tl
from hypothesis import given, settings
from hypothesis import strategies as st
from tessela_lowering import _xla
from tessela_lowering._array import signature
from tessela_tracer import ShapedArray, config, lax


def test_eight_threads_share_one_jit_and_eager_cache() -> None:
    f = tl.jit(lambda x, y: lax.add(lax.mul(x, y), 1.0))
    errors: list[BaseException] = []
    results: dict[int, list[float]] = {}

    def work(k: int) -> None:
        try:
            out = []
            for i in range(40):
                x = tl.device_put(np.full(4, float(k), np.float32))
                y = np.full(4 if i % 2 else 5, float(i), np.float32)[:4]
                out.append(float(np.asarray(f(x, y))[0]) + float(np.asarray(lax.neg(x))[0]))
            results[k] = out
        except BaseException as err:  # collected and re-raised in the main thread
            errors.append(err)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    for k in range(8):
        assert results[k] == [k * i + 1.0 - k for i in range(40)]


def test_many_jitted_calls_do_not_leak_buffers() -> None:
    device = tl.devices()[0]
    f = tl.jit(lambda x: [lax.add(x, 1.0), lax.mul(x, 2.0)])
    x: Any = tl.device_put(np.zeros(8, np.float32))
    for _ in range(20):
        x = f(x)[0]
        lax.neg(x)
    gc.collect()
    before = _xla.live_array_count(device)
    for i in range(100_000):
        x = f(x)[0]
        if i % 100 == 0:
            lax.neg(x)
    gc.collect()
    assert _xla.live_array_count(device) <= before
    assert float(np.asarray(x)[0]) == 100_020.0


def test_many_jitted_calls_do_not_grow_memory() -> None:
    # jaxlib keeps about 60 bytes per ``execute_sharded`` call while its Python
    # tracebacks are enabled (its default; benchmarks/bench_memory.py measures
    # the bare jaxlib loop); the runtime turns them off, so nothing may grow.
    f = tl.jit(lambda x: lax.add(x, 1.0))
    x: Any = tl.device_put(np.zeros(8, np.float32))
    for _ in range(20_000):  # warm-up: caches and allocator pools fill here
        x = f(x)
    gc.collect()
    rss_before = _resident_bytes()
    for _ in range(100_000):
        x = f(x)
    gc.collect()
    assert _resident_bytes() - rss_before < 2**20
    assert float(np.asarray(x)[0]) == 120_000.0


def test_many_eager_ops_do_not_grow_memory() -> None:
    x: Any = tl.device_put(np.zeros(8, np.float32))
    one = tl.device_put(np.ones(8, np.float32))
    for _ in range(20_000):
        x = lax.add(x, one)
    gc.collect()
    rss_before = _resident_bytes()
    for _ in range(100_000):
        x = lax.add(x, one)
    gc.collect()
    assert _resident_bytes() - rss_before < 2**20
    assert float(np.asarray(x)[0]) == 120_000.0


def _resident_bytes() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


# ----------------------------------------------------------------- fast paths
# A compiled call seen before takes a lean path (no pytree work, no aval
# hashing); these tests call each function at least twice, so that the later
# calls take it, and check what they return.

_shapes = st.sampled_from([(), (3,), (2, 3)])  # few shapes: few compilations
_halves = st.integers(-8, 8).map(lambda i: i / 2)  # exact sums and products
_OFFSET = tl.device_put(np.float32(0.5))  # a closed-over constant
_TWO = tl.jit(lambda a, b: lax.add(a, b))
_PRUNED = tl.jit(
    lambda a, unused, b: lax.mul(lax.add(a, lax.broadcast_in_dim(_OFFSET, a.shape, ())), b)
)
_TREE = tl.jit(lambda d: {"s": lax.sub(d["a"], d["b"][0]), "p": lax.mul(d["a"], d["b"][1])})


@settings(max_examples=10)
@given(shape=_shapes, data=st.data())
def test_jit_fast_paths_match_numpy(shape: tuple[int, ...], data: st.DataObject) -> None:
    for _ in range(3):
        a, u, b, c = (data.draw(hnp.arrays(np.float32, shape, elements=_halves)) for _ in range(4))
        xa, xu, xb, xc = (tl.device_put(v) for v in (a, u, b, c))
        out = _TWO(xa, xb)
        assert not out.committed and out.aval == ShapedArray(shape, np.float32)
        np.testing.assert_array_equal(np.asarray(out), a + b)
        np.testing.assert_array_equal(np.asarray(_PRUNED(xa, xu, xb)), (a + np.float32(0.5)) * b)
        res = _TREE({"a": xa, "b": [xb, xc]})
        assert sorted(res) == ["p", "s"]
        np.testing.assert_array_equal(np.asarray(res["s"]), a - b)
        np.testing.assert_array_equal(np.asarray(res["p"]), a * c)


def test_weak_and_strong_arguments_take_their_own_compiled_calls() -> None:
    double = tl.jit(lambda a: lax.add(a, a))
    for _ in range(2):
        weak, strong = tl.device_put(1.5), tl.device_put(np.float32(1.5))
        assert double(weak).aval.weak_type
        assert not double(strong).aval.weak_type
        assert double(weak).aval.weak_type


def test_committed_arguments_give_committed_results_after_uncommitted_calls() -> None:
    device = tl.devices()[0]
    f = tl.jit(lambda a: lax.neg(a))
    x = tl.device_put(np.ones(2, np.float32))
    for _ in range(2):
        assert not f(x).committed and not lax.neg(x).committed
    y = tl.device_put(np.ones(2, np.float32), device)
    assert f(y).committed and lax.neg(y).committed
    assert not f(x).committed and not lax.neg(x).committed


def test_the_fast_path_follows_the_x64_flag() -> None:
    widen = tl.jit(lambda a: lax.convert_element_type(a, np.float64))
    x = tl.device_put(np.ones(2, np.float32))
    try:
        for _ in range(2):
            assert widen(x).dtype == np.float32
        config.update("jax_enable_x64", True)
        for _ in range(2):
            assert widen(x).dtype == np.float64
    finally:
        config.update("jax_enable_x64", False)
    assert widen(x).dtype == np.float32


def test_eager_fast_path_keys_on_parameters() -> None:
    x = tl.device_put(np.arange(6, dtype=np.float32).reshape(2, 3))
    for _ in range(2):
        np.testing.assert_array_equal(np.asarray(lax.reduce_sum(x, (0,))), [3, 5, 7])
        np.testing.assert_array_equal(np.asarray(lax.reduce_sum(x, (1,))), [3, 12])


def test_deleted_arguments_are_reported_after_fast_calls() -> None:
    f = tl.jit(lambda a: lax.mul(a, 2.0))
    for _ in range(2):
        f(tl.device_put(np.ones(3, np.float32)))
        lax.neg(tl.device_put(np.ones(3, np.float32)))
    gone = tl.device_put(np.ones(3, np.float32))
    gone.delete()
    with pytest.raises(RuntimeError, match="deleted"):
        f(gone)
    with pytest.raises(RuntimeError, match="deleted"):
        lax.neg(gone)


_avals = st.builds(
    ShapedArray,
    hnp.array_shapes(min_dims=0, max_dims=2, max_side=2),
    st.sampled_from([np.float32, np.int32, np.bool_]),
    st.booleans(),
)


@given(a=_avals, b=_avals)
def test_signatures_are_equal_exactly_when_avals_are(a: ShapedArray, b: ShapedArray) -> None:
    assert (signature(a) == signature(b)) == (a == b)
    assert signature(a) == signature(ShapedArray(a.shape, a.dtype, a.weak_type))
