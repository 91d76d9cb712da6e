"""The dispatch fast paths: host transfers, call shapes, donation errors, jit options, Ctrl-C."""

from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from typing import Any, NamedTuple

import ml_dtypes
import numpy as np
import pytest
import tessela_lowering as tl
from hypothesis import example, given, settings
from hypothesis import strategies as st
from tessela_lowering import _dispatch, _flags, _jit, _xla
from tessela_lowering._array import DonatedArgumentError
from tessela_lowering._xla import _run
from tessela_lowering.sharding import NamedSharding, PartitionSpec, make_mesh
from tessela_pytree import register_pytree_node, tree_leaves
from tessela_tracer import config, lax


class _Lookups:
    """A meta-path finder that counts module look-ups and finds nothing."""

    def __init__(self) -> None:
        self.names: list[str] = []

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> None:
        self.names.append(name)


def _count_lookups(fn: Any) -> list[str]:
    fn()  # warm: compile, fill caches
    finder = _Lookups()
    sys.meta_path.insert(0, finder)
    try:
        for _ in range(5):
            fn()
    finally:
        sys.meta_path.remove(finder)
    return finder.names


def test_host_transfers_look_no_module_up() -> None:
    np_a = np.arange(3, dtype=np.float32)
    f = tl.jit(lambda x, y: lax.add(x, y))
    x = tl.device_put(np_a)
    assert _count_lookups(lambda: _xla.device_put(np_a, tl.devices()[0])) == []
    assert _count_lookups(lambda: tl.device_put(np_a)) == []
    assert _count_lookups(lambda: tl.device_put(2.0)) == []
    assert _count_lookups(lambda: f(np_a, np_a)) == []
    assert _count_lookups(lambda: f(x, 2.0)) == []
    assert _count_lookups(lambda: lax.add(np_a, np_a)) == []


@pytest.mark.parametrize(
    "value",
    [
        np.arange(6, dtype=np.float64).reshape(2, 3),
        np.arange(6, dtype=np.int16)[::2],
        np.array([True, False]),
        np.array([1 + 2j], np.complex64),
        np.float32(2.5),
        np.arange(4, dtype=np.uint8),
    ],
)
def test_device_put_keeps_every_value(value: Any) -> None:
    buf = _xla.device_put(np.asarray(value), tl.devices()[0])
    out = _xla.to_numpy(buf)
    assert out.dtype == np.asarray(value).dtype
    np.testing.assert_array_equal(out, value)


def test_device_put_copies_the_host_array() -> None:
    host = np.arange(3, dtype=np.float32)
    x = tl.device_put(host)
    host[0] = 100
    np.testing.assert_array_equal(np.asarray(x), [0, 1, 2])


class Pair(NamedTuple):
    a: Any
    b: Any


class Box:
    def __init__(self, value: Any) -> None:
        self.value = value


register_pytree_node(Box, lambda b: ((b.value,), None), lambda _, c: Box(c[0]))


def _leaf(kind: str, rng: np.random.Generator) -> Any:
    if kind == "array":
        return tl.device_put(rng.standard_normal(3).astype(np.float32))
    if kind == "numpy":
        return rng.standard_normal(3).astype(np.float32)
    if kind == "numpy64":
        return rng.standard_normal(3)
    if kind == "committed":
        return tl.device_put(rng.standard_normal(3).astype(np.float32), tl.devices()[0])
    if kind == "int":
        return int(rng.integers(-5, 5))
    return float(rng.standard_normal())


def _wrap(kind: str, leaf: Any) -> Any:
    if kind == "list":
        return [leaf]
    if kind == "dict":
        return {"k": leaf}
    if kind == "pair":  # two buffers: one donated buffer passed twice is an error
        return Pair(leaf, leaf.copy() if isinstance(leaf, tl.Array) else leaf)
    if kind == "box":
        return Box(leaf)
    return leaf


def _total(tree: Any) -> Any:
    acc: Any = 0.0
    for leaf in tree_leaves(tree):
        acc = lax.add(acc, lax.convert_element_type(leaf, np.float32))
    return acc


LEAVES = st.sampled_from(["array", "numpy", "numpy64", "committed", "int", "float"])
WRAPS = st.sampled_from(["leaf", "list", "dict", "pair", "box"])


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.tuples(LEAVES, WRAPS), min_size=1, max_size=4),
    st.booleans(),
    st.sampled_from(["none", "keyword", "positional"]),
    st.booleans(),
    st.integers(0, 3),
)
@pytest.mark.filterwarnings("ignore:Some donated buffers were not usable")
def test_fast_path_agrees_with_full_path(
    shape: list[tuple[str, str]], as_keyword: bool, static: str, donate: bool, seed: int
) -> None:
    traces: list[int] = []

    def fun(n: int, *args: Any, scale: int = 1, **kwargs: Any) -> Any:
        traces.append(1)
        total = lax.add(_total(args), _total(kwargs))
        return lax.mul(total, float(scale * (n if static == "positional" else 1)))

    options: dict[str, Any] = {}
    if static == "keyword":
        options["static_argnames"] = ("scale",)
    if static == "positional":
        options["static_argnums"] = (0,)
    if donate:
        options["donate_argnums"] = (1,)
    f = tl.jit(fun, **options)

    def make_args(rng: np.random.Generator) -> tuple[list[Any], dict[str, Any]]:
        args: list[Any] = [2 if static == "positional" else tl.device_put(np.float32(1))]
        args += [_wrap(w, _leaf(k, rng)) for k, w in shape]
        kwargs: dict[str, Any] = {}
        if as_keyword and len(args) > 2:
            kwargs["last"] = args.pop()
        if static == "keyword":
            kwargs["scale"] = 3
        return args, kwargs

    args, kwargs = make_args(np.random.default_rng(seed))
    first = f(*args, **kwargs)  # full path, fills the fast path
    # Fresh arguments of the same kinds (donation deleted the first ones).
    args, kwargs = make_args(np.random.default_rng(seed + 10))
    expected = fun(*args, **kwargs)  # op by op
    second = f(*args, **kwargs)  # fast path
    assert len(traces) == 2  # one trace for f, one eager call
    assert first.aval == second.aval == expected.aval
    np.testing.assert_allclose(np.asarray(second), np.asarray(expected), rtol=1e-5)
    assert second.committed == first.committed
    assert len(f._fast) == 1


@contextlib.contextmanager
def _no_full_path_call() -> Iterator[None]:
    # Asserts that the jitted calls made in the block all run from the fast table.
    slow_calls: list[int] = []
    full = _jit._call_slow

    def counted(*a: Any) -> Any:
        slow_calls.append(1)
        return full(*a)

    _jit._call_slow = counted
    try:
        yield
    finally:
        _jit._call_slow = full
    assert slow_calls == []


@settings(max_examples=30, deadline=None)
@given(
    st.lists(st.tuples(LEAVES, WRAPS), min_size=1, max_size=4),
    st.integers(0, 3),
    st.sampled_from(["none", "positional", "keyword", "both"]),
    st.booleans(),
)
# Three or more top-level leaves with host values among them, with and
# without a static position; a pytree beside them.
@example([("float", "leaf"), ("numpy", "leaf")], 0, "none", False)
@example([("int", "leaf"), ("array", "leaf"), ("float", "leaf")], 1, "positional", False)
@example([("float", "leaf"), ("array", "dict")], 0, "none", False)
def test_every_call_shape_runs_from_the_fast_table_after_its_first_call(
    shape: list[tuple[str, str]], n_keywords: int, static: str, reverse: bool
) -> None:
    # The second call of a shape (positional and keyword leaves and pytrees,
    # static positions and names, keywords in either order) never takes the
    # full path: its key is the one the first call filled.
    def fun(n: int, *args: Any, scale: int = 1, **kwargs: Any) -> Any:
        total = lax.add(_total(args), _total(kwargs))
        return lax.mul(lax.mul(total, lax.convert_element_type(n, np.float32)), float(scale))

    options: dict[str, Any] = {}
    if static in ("positional", "both"):
        options["static_argnums"] = (0,)
    if static in ("keyword", "both"):
        options["static_argnames"] = ("scale",)
    f = tl.jit(fun, **options)
    rng = np.random.default_rng(0)
    first = 2 if static in ("positional", "both") else tl.device_put(np.float32(2))
    args = [first, *(_wrap(w, _leaf(k, rng)) for k, w in shape)]
    kwargs: dict[str, Any] = {}
    for i in range(min(n_keywords, len(args) - 1)):
        kwargs[f"k{i}"] = args.pop()
    if static in ("keyword", "both"):
        kwargs["scale"] = 3
    f(*args, **kwargs)
    again = dict(reversed(kwargs.items())) if reverse else kwargs
    with _no_full_path_call():
        out = f(*args, **again)
    np.testing.assert_allclose(np.asarray(out), np.asarray(fun(*args, **kwargs)), rtol=1e-5)


def test_a_new_weak_type_or_x64_switch_retraces() -> None:
    traces: list[int] = []
    f = tl.jit(lambda x: traces.append(1) or lax.add(x, x))
    f(2.0)
    f(3.0)
    assert len(traces) == 1
    out = f(np.float32(3.0))
    assert len(traces) == 2 and not out.aval.weak_type
    assert f(3.0).aval.weak_type
    config.update("jax_enable_x64", True)
    try:
        assert f(np.float64(1.0)).dtype == np.float64
        assert f(np.float64(1.0)).dtype == np.float64
    finally:
        config.update("jax_enable_x64", False)
    assert f(np.float64(1.0)).dtype == np.float32


def test_donated_array_passed_again_raises_value_error() -> None:
    f = tl.jit(lambda x: lax.add(x, 1.0), donate_argnums=0)
    x = tl.device_put(np.ones(3, np.float32))
    for _ in range(2):  # the full path, then with the fast path filled
        y = f(x)
        with pytest.raises(ValueError, match="Array has been deleted"):
            f(x)
        x = y
    y.delete()
    with pytest.raises(DonatedArgumentError):
        f(y)


def test_deleted_array_errors_have_jax_classes() -> None:
    f = tl.jit(lambda x: lax.add(x, 1.0), donate_argnums=0)
    x = tl.device_put(np.ones(3, np.float32))
    f(x)
    with pytest.raises(RuntimeError) as info:
        repr(x)
    assert not isinstance(info.value, ValueError)
    with pytest.raises(_xla.XlaRuntimeError):
        x.block_until_ready()
    with pytest.raises(RuntimeError) as info:
        tl.jit(lambda v: lax.neg(v))(x)  # a jit that donates nothing
    assert not isinstance(info.value, ValueError)


def test_committed_device_conflicts_and_traces_in_progress_still_checked() -> None:
    devices = tl.devices()
    f = tl.jit(lambda x, y: lax.add(x, y))
    a = tl.device_put(np.ones(3, np.float32), devices[0])
    f(a, a)
    f(a, a)
    if len(devices) > 1:
        b = tl.device_put(np.ones(3, np.float32), devices[1])
        with pytest.raises(ValueError, match="incompatible devices"):
            f(a, b)
    g = tl.jit(lambda x: lax.mul(f(x, x), 2.0))
    np.testing.assert_allclose(np.asarray(g(np.ones(3, np.float32))), 4.0)


def fun1(x: Any) -> Any:
    return x


def fun2(x: Any, y: Any) -> Any:
    return x


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"static_argnums": 3}, r"static_argnums=\(3,\), but only accepts 1 positional"),
        ({"static_argnums": -2}, r"static_argnums=\(-2,\), but only accepts 1 positional"),
        ({"static_argnames": "y"}, r"invalid argnames \{'y'\} in static_argnames"),
        ({"donate_argnames": "z"}, r"invalid argnames \{'z'\} in donate_argnames"),
    ],
)
def test_jit_rejects_argnums_the_function_lacks(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        tl.jit(fun1, **options)


def test_jit_rejects_donation_out_of_range_and_static_donated() -> None:
    with pytest.raises(ValueError, match=r"donate_argnums=\(5,\), but only accepts 2"):
        tl.jit(fun2, donate_argnums=5)
    with pytest.raises(ValueError, match="static_argnames and donate_argnames cannot intersect"):
        tl.jit(fun2, static_argnums=0, donate_argnums=0)
    with pytest.raises(ValueError, match="cannot intersect"):
        tl.jit(fun2, static_argnames="y", donate_argnames="y")
    # As JAX: *args and **kwargs accept any position or name.
    tl.jit(lambda *a: a[0], static_argnums=3)
    tl.jit(lambda x, **kw: x, static_argnames="y")


CHILD = textwrap.dedent(
    """
    import numpy as np
    import tessela_lowering as tl
    from tessela_tracer import lax

    f = tl.jit(lambda x, y: lax.add(x, y))
    a = np.ones(3, np.float32)
    for kind in ("eager", "jit"):
        for _ in range(TRIES):
            try:  # "ready" from inside the loop: an interrupt after it lands here
                ready = False
                while True:
                    if kind == "eager":
                        lax.add(a, a)
                    else:
                        f(a, 2.0)
                    if not ready:
                        ready = True
                        print("ready", kind, flush=True)
            except KeyboardInterrupt:
                print("caught", kind, flush=True)
    print("after", float(f(a, 1.0)[0]), flush=True)
    """
)


def test_ctrl_c_reaches_loops_of_eager_and_jitted_calls() -> None:
    tries = 3
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD.replace("TRIES", str(tries))],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        # A shell may start the test with SIGINT ignored; the child must not inherit it.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip
    assert proc.stdout is not None
    caught = 0
    try:
        for _ in range(2 * tries):
            line = proc.stdout.readline()
            assert line.startswith("ready"), line + (proc.stderr.read() if proc.stderr else "")
            time.sleep(0.3)  # let the loop start
            os.kill(proc.pid, signal.SIGINT)  # one interrupt: it must not be lost
            ready, _, _ = select.select([proc.stdout], [], [], 20)
            assert ready, "the interrupt did not reach the loop"
            assert proc.stdout.readline().startswith("caught")
            caught += 1
        assert proc.stdout.readline().strip() == "after 2.0"
    finally:
        proc.kill()
        proc.wait()
    assert caught == 2 * tries


def test_dlpack_fallback_moves_every_dtype(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_run, "_use_dlpack", [True])
    for value in (np.arange(3, dtype=np.float32), np.arange(3).astype(ml_dtypes.bfloat16)):
        out = _xla.to_numpy(_xla.device_put(value, tl.devices()[0]))
        assert out.dtype == value.dtype
        np.testing.assert_array_equal(out, value)


MULTI = textwrap.dedent(
    """
    import numpy as np
    import tessela_lowering as tl
    from tessela_tracer import lax

    devs = tl.devices()
    f = tl.jit(lambda x, y: lax.add(x, y))
    one = np.ones(3, np.float32)
    with tl.default_device(devs[3]):
        a = tl.device_put(one)
    b = tl.device_put(one)
    c = tl.device_put(one, devs[5])
    for _ in range(3):
        r1 = f(a, b)  # a lives on device 3, uncommitted: moved to device 0
        r2 = f(c, one)  # committed to device 5
        r3 = lax.add(c, 2.0)
        with tl.default_device(devs[3]):
            r4 = f(a, 1.0)
    print(r1.device.id, r1.committed, r2.device.id, r2.committed, r3.device.id,
          r3.committed, r4.device.id, float(r1[0] + r2[0] + r3[0] + r4[0]))
    try:
        f(c, tl.device_put(one, devs[6]))
    except ValueError as err:
        print("ValueError", "incompatible devices" in str(err))
    """
)


def test_several_devices_keep_placement_on_the_fast_path() -> None:
    env = dict(os.environ, TESSELA_NUM_CPU_DEVICES="8")
    out = subprocess.run(
        [sys.executable, "-c", MULTI], capture_output=True, text=True, env=env, check=True
    ).stdout.split("\n")
    assert out[0] == "0 False 5 True 5 True 3 9.0"
    assert out[1] == "ValueError True"


# ------------------------------------------------------------ scalar memo, static splits

SCALARS = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True, width=32),
    st.sampled_from([0.0, -0.0, 1.0, -1.0, 1e-3]),
)


@settings(max_examples=30, deadline=None)
@given(st.lists(SCALARS, min_size=1, max_size=40))
def test_python_scalars_on_the_fast_path_keep_every_value(values: list[float]) -> None:
    # The fast path keeps device copies of recent scalar values: every call
    # must still see its own value, signed zeros and NaNs included.
    f = tl.jit(lambda x, s: lax.mul(x, s))
    one = tl.device_put(np.float32(1))
    for v in values:
        out = np.asarray(f(one, v))
        with config_disable_fast():  # the full path: a fresh copy of v each call
            expected = np.asarray(f(one, v))
        assert out.dtype == expected.dtype == np.float32
        assert out.tobytes() == expected.tobytes()  # signed zeros and NaNs included
        if not np.isnan(out) and abs(v) > 1e-30:  # XLA flushes subnormals
            assert out == np.float32(v)


@settings(max_examples=20, deadline=None)
@given(st.lists(st.one_of(st.integers(-5, 5), st.booleans()), min_size=1, max_size=20))
def test_python_ints_and_bools_on_the_fast_path_keep_their_types(values: list[Any]) -> None:
    f = tl.jit(lambda s: lax.convert_element_type(s, np.int32))
    g = tl.jit(lambda s: s)
    for v in values:
        assert int(f(v)) == int(v)
        assert g(v).dtype == (np.bool_ if isinstance(v, bool) else np.int32)


def test_scalar_outputs_and_donated_scalars_do_not_share_kept_copies() -> None:
    a = tl.device_put(np.float32(1))
    same = tl.jit(lambda x, s: s)
    for _ in range(3):
        out = same(a, 3.0)
        assert float(out) == 3.0
        out.delete()
    donating = tl.jit(lambda x, s: lax.add(x, s), donate_argnums=1)
    for i in range(4):
        assert float(donating(np.float32(1), 2.5)) == 3.5, i


@settings(max_examples=30, deadline=None)
@given(
    st.sampled_from([(0,), (1,), (-1,), (0, 2), (-3, -1), (1, 2)]),
    st.integers(3, 4),
    st.booleans(),
)
def test_static_positions_agree_on_fast_and_full_paths(
    static: tuple[int, ...], n: int, host: bool
) -> None:
    traces: list[int] = []

    def fun(*args: Any) -> Any:
        traces.append(1)
        acc: Any = 0.0
        for i, x in enumerate(args):
            if i in {s % n for s in static}:
                acc = lax.add(acc, float(x))
            else:
                acc = lax.add(acc, lax.mul(x, float(i + 1)))
        return acc

    f = tl.jit(fun, static_argnums=static)
    positions = {s % n for s in static}

    def make(seed: int) -> list[Any]:
        rng = np.random.default_rng(seed)
        out: list[Any] = []
        for i in range(n):
            if i in positions:
                out.append(i + 1)
            elif host:
                out.append(rng.standard_normal(2).astype(np.float32))
            else:
                out.append(tl.device_put(rng.standard_normal(2).astype(np.float32)))
        return out

    f(*make(0))  # full path
    args = make(1)
    with config_disable_fast():
        expected = np.asarray(f(*args))
    got = np.asarray(f(*args))  # fast path
    np.testing.assert_allclose(got, expected, rtol=1e-6)
    assert len(traces) == 1
    assert len(f._fast) == 1


@settings(max_examples=25, deadline=None)
@given(st.permutations(["u", "v", "w"]), st.lists(st.booleans(), min_size=3, max_size=3))
def test_keyword_order_and_kinds_agree_on_fast_and_full_paths(
    order: list[str], host: list[bool]
) -> None:
    traces: list[int] = []

    def fun(x: Any, *, u: Any, v: Any, w: Any) -> Any:
        traces.append(1)
        return lax.add(lax.add(lax.mul(x, u), lax.mul(v, 2.0)), lax.mul(w, 3.0))

    f = tl.jit(fun)
    rng = np.random.default_rng(len(traces))
    x = tl.device_put(np.float32(1.5))

    def make() -> dict[str, Any]:
        values = {k: rng.standard_normal(2).astype(np.float32) for k in "uvw"}
        kinds = {
            k: (v if h else tl.device_put(v))
            for (k, v), h in zip(values.items(), host, strict=True)
        }
        return {k: kinds[k] for k in order}

    f(x, **make())  # full path
    kwargs = make()
    with config_disable_fast():
        expected = np.asarray(f(x, **kwargs))
    got = np.asarray(f(x, **dict(reversed(list(kwargs.items())))))  # fast path, other order
    np.testing.assert_allclose(got, expected, rtol=1e-6)
    assert len(traces) == 1
    assert len(f._fast) == 1


# ------------------------------------------------------------ jaxlib's compiled-call engine

HOST_LEAVES = st.sampled_from(["numpy", "numpy64", "int", "float", "array", "committed", "bf16"])


def _host_leaf(kind: str, rng: np.random.Generator) -> Any:
    if kind == "bf16":
        return rng.standard_normal(3).astype(ml_dtypes.bfloat16)
    return _leaf(kind, rng)


@settings(max_examples=25, deadline=None)
@given(st.lists(HOST_LEAVES, min_size=1, max_size=4), st.integers(0, 3))
def test_calls_with_host_values_agree_with_op_by_op_on_every_call(
    kinds: list[str], seed: int
) -> None:
    # The first call compiles, the second fills jaxlib's compiled-call object
    # from Python, later ones run in it: each call's own values come back.
    f = tl.jit(lambda *xs: _total(xs))
    rng = np.random.default_rng(seed)
    for _ in range(4):
        args = [_host_leaf(k, rng) for k in kinds]
        got, expected = f(*args), _total(args)
        assert got.aval == expected.aval
        np.testing.assert_allclose(np.asarray(got), np.asarray(expected), rtol=1e-2)
    assert len(f._fast) == 1


@pytest.mark.parametrize("k", [1, _dispatch.ENGINE_MAX_ARRAYS, _dispatch.ENGINE_MAX_ARRAYS + 1])
def test_a_numpy_batch_beside_device_arrays_gives_each_calls_values(k: int) -> None:
    # Up to ENGINE_MAX_ARRAYS device arrays the batch moves in jaxlib's object,
    # beyond them from Python: either way each call sees its own batch.
    f = tl.jit(lambda b, *xs: [lax.add(x, lax.reduce_sum(b, (0,))) for x in xs])
    xs = [tl.device_put(np.full(2, i, np.float32)) for i in range(k)]
    batch = np.zeros((3, 2), np.float32)
    for step in range(4):
        batch[:] = step
        outs = f(batch, *xs)
        assert [np.asarray(o).tolist() for o in outs] == [[i + 3.0 * step] * 2 for i in range(k)]
    assert len(f._fast) == 1


@pytest.mark.parametrize("where", ["first", "middle", "last"])
def test_a_numpy_batch_anywhere_among_many_device_arrays_gives_each_calls_values(
    where: str,
) -> None:
    # More device arrays than the engine takes: the Python route reads their
    # buffers (a slice when they lead, else picked out) and inserts the batch.
    k = _dispatch.ENGINE_MAX_ARRAYS + 3
    at = {"first": 0, "middle": k // 2, "last": k}[where]

    def fn(*leaves: Any) -> list[Any]:
        b = lax.reduce_sum(leaves[at], (0,))
        return [lax.add(x, b) for i, x in enumerate(leaves) if i != at]

    f = tl.jit(fn)
    xs = [tl.device_put(np.full(2, i, np.float32)) for i in range(k)]
    batch = np.zeros((3, 2), np.float32)
    for step in range(4):
        batch[:] = step
        outs = f(*xs[:at], batch, *xs[at:])
        assert [np.asarray(o).tolist() for o in outs] == [[i + 3.0 * step] * 2 for i in range(k)]
    assert len(f._fast) == 1


@settings(max_examples=25, deadline=None)
@given(
    dtype=st.sampled_from(
        [np.bool_, np.int8, np.uint16, np.int32, np.float16, np.float32, ml_dtypes.bfloat16]
    ),
    shape=st.sampled_from([(), (1,), (3,), (2, 5)]),
    seed=st.integers(0, 2**16),
)
def test_fast_path_host_copies_keep_every_value(
    dtype: Any, shape: tuple[int, ...], seed: int
) -> None:
    device = tl.devices()[0]
    put = _xla.host_putter(device, shape, np.dtype(dtype))
    value = np.random.default_rng(seed).normal(size=shape).astype(dtype)
    out = _run.to_numpy(put(value))
    assert out.dtype == value.dtype
    np.testing.assert_array_equal(out, value)


def test_fast_path_host_copies_use_jaxlibs_native_sharding() -> None:
    # The fast paths' copies go to jaxlib's own replicated sharding, which its
    # transfer reads without calling back into Python.
    device = tl.devices()[0]
    _xla.host_putter(device, (2,), np.dtype(np.float32))(np.ones(2, np.float32))
    assert type(_run._transient[device]) is _run._jax.GSPMDSharding


def test_engine_serves_later_calls_without_python() -> None:
    device = tl.devices()[0]
    f = tl.jit(lambda x, s: lax.mul(x, s))
    f(np.ones(2, np.float32), 2.0)
    (exe,) = f._cache.runtime.full.values()
    firsts: list[int] = []

    def first(raw: Any) -> list[Any]:
        firsts.append(1)
        bufs = [_xla.device_put(np.asarray(x, np.float32), device) for x in raw]
        return _xla.execute(exe.executable, bufs, exe.handlers)

    engine = _xla.engine(
        exe.executable, first, exe.plan.in_avals, exe.out_avals, [0, 1], [0, 1], device
    )
    assert engine is not None and engine.usable
    for k in range(1, 4):
        (out,) = engine.call(np.full(2, k, np.float32), 2.0)
        np.testing.assert_array_equal(_run.to_numpy(out), [2.0 * k, 2.0 * k])
    assert firsts == [1]
    with pytest.raises(_xla.EngineMiss):  # another signature: the caller's Python route
        engine.call(np.ones(3, np.float32), 2.0)
    assert not engine.usable and firsts == [1]


def test_host_arrays_are_copied_at_the_call() -> None:
    # Later writes to a NumPy argument never reach a result, even one that
    # returns the argument itself.
    same = tl.jit(lambda x: x)
    plus = tl.jit(lambda x, s: lax.add(x, s))
    host = np.arange(4, dtype=np.float32)
    for i in range(4):
        expected = host.copy()
        out, out_plus = same(host), plus(host, 1.0)
        host[0] = 100 + i
        np.testing.assert_array_equal(np.asarray(out), expected)
        np.testing.assert_array_equal(np.asarray(out_plus), expected + 1)


def test_engine_calls_keep_errors_of_the_full_path() -> None:
    f = tl.jit(lambda x, y: lax.add(x, y))
    x = tl.device_put(np.ones(3, np.float32))
    for _ in range(3):
        f(x, np.ones(3, np.float32))
    x.delete()
    with pytest.raises(RuntimeError, match="deleted"):
        f(x, np.ones(3, np.float32))
    with pytest.raises(OverflowError, match="int32"):
        f(np.int32(1), 2**40)


@contextlib.contextmanager
def config_disable_fast() -> Iterator[None]:
    """Every call takes the full path while inside."""
    before = _flags.state.fast
    _flags.state.fast = False
    try:
        yield
    finally:
        _flags.state.fast = before


def test_calls_on_three_sharded_arrays_run_from_the_fast_table() -> None:
    mesh = make_mesh((1,), ("x",))
    spec = NamedSharding(mesh, PartitionSpec("x"))
    xs = [tl.device_put(np.full(2, float(i), np.float32), spec) for i in range(3)]
    f = tl.jit(lambda a, b, c: lax.add(lax.add(a, b), c))
    f(*xs)
    with _no_full_path_call():
        out = f(*xs)
    np.testing.assert_array_equal(np.asarray(out), [3.0, 3.0])


def test_a_jitted_call_reaches_the_backend_directly() -> None:
    # The backend's call is the class's ``__call__`` (no frame in between),
    # and ``jax_no_execution`` wraps and unwraps it in place.
    f = tl.jit(lambda x: lax.neg(x))
    assert type(f).__call__ is _jit._call
    config.update("jax_no_execution", True)
    try:
        assert type(f).__call__ is not _jit._call
        with pytest.raises(RuntimeError, match="no_execution"):
            f(np.float32(1))
    finally:
        config.update("jax_no_execution", False)
    assert type(f).__call__ is _jit._call
    assert float(f(np.float32(2))) == -2.0
