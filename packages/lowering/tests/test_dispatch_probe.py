"""The jit probe: a function's last call shape, served before the call is keyed.

Whatever the probe guesses, every call must give what the full path gives:
the same values, avals (weak types, x64), commitment and errors, in every
context (x64 switched, a default device set, under an enclosing trace).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
import tessela_lowering as tl
from hypothesis import given, settings
from hypothesis import strategies as st
from tessela_tracer import config, get_aval, lax

KINDS = ["array", "array4", "committed", "numpy", "numpy4", "numpy64", "int32", "float", "int"]


def _leaf(kind: str, rng: np.random.Generator) -> Any:
    values = rng.standard_normal(4 if kind.endswith("4") else 3)
    if kind.startswith("array"):
        return tl.device_put(values.astype(np.float32))
    if kind == "committed":
        return tl.device_put(values.astype(np.float32), tl.devices()[0])
    if kind.startswith("numpy"):
        return values if kind == "numpy64" else values.astype(np.float32)
    if kind == "int32":
        return np.int32(rng.integers(-5, 5))
    if kind == "int":
        return int(rng.integers(-5, 5))
    return float(values[0])


def _total(xs: tuple[Any, ...]) -> Any:
    acc: Any = np.float32(0)
    for x in xs:
        acc = lax.add(acc, lax.reduce_sum(lax.convert_element_type(x, np.float32), ()))
    return acc


def fun(*xs: Any, last: Any = None, n: int = 1) -> Any:
    # The total, and the first argument as the program received it (its aval
    # shows the weak type and the x64 conversion, its commitment the call's);
    # ``n`` is static in the static forms.
    xs = xs if last is None else (*xs, last)
    total = _total(tuple(lax.reduce_sum(x, tuple(range(np.ndim(x)))) for x in xs))
    return lax.mul(total, np.float32(n)), xs[0]


FORMS = {  # how a call passes its leaves (and the static n, when there is one)
    "positional": ({}, lambda xs, n: (xs, {})),
    "keyword": ({}, lambda xs, n: (xs[:-1], {"last": xs[-1]}) if len(xs) > 1 else (xs, {})),
    "static_keyword": ({"static_argnames": "n"}, lambda xs, n: (xs, {"n": n})),
    "static_and_keyword": (
        {"static_argnames": "n"},
        lambda xs, n: (xs[:-1], {"n": n, "last": xs[-1]}) if len(xs) > 1 else (xs, {"n": n}),
    ),
}


@contextlib.contextmanager
def _context(name: str) -> Iterator[None]:
    if name == "x64":
        config.update("jax_enable_x64", True)
        try:
            yield
        finally:
            config.update("jax_enable_x64", False)
    elif name == "default_device":
        with tl.default_device(tl.devices()[0]):
            yield
    else:
        yield


def _check(got: Any, args: list[Any], n: int) -> None:
    total, first = got
    np.testing.assert_allclose(np.asarray(total), np.asarray(fun(*args, n=n)[0]), rtol=1e-5)
    assert first.aval == get_aval(args[0])
    np.testing.assert_array_equal(np.asarray(first), np.asarray(args[0], first.dtype))
    committed = any(isinstance(x, tl.Array) and x.committed for x in args)
    assert first.committed == committed == total.committed


SHAPES = st.lists(st.sampled_from(KINDS), min_size=1, max_size=4)
CONTEXTS = st.sampled_from(["plain", "plain", "plain", "x64", "default_device", "traced"])


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from(sorted(FORMS)),
    st.lists(SHAPES, min_size=3, max_size=3),
    st.lists(st.tuples(st.integers(0, 2), CONTEXTS, st.integers(1, 2)), min_size=2, max_size=10),
    st.integers(0, 5),
)
def test_every_call_agrees_with_the_full_path_whatever_the_probe_holds(
    form: str, shapes: list[list[str]], calls: list[tuple[int, str, int]], seed: int
) -> None:
    options, split = FORMS[form]
    f = tl.jit(fun, **options)
    rng = np.random.default_rng(seed)
    for which, context, n in calls:
        leaves = [_leaf(kind, rng) for kind in shapes[which]]
        args, kwargs = split(leaves, n)
        if "static" not in form:
            n = 1
        with _context(context):
            if context == "traced":  # f called under an enclosing trace
                got = tl.jit(lambda *xs, kw=kwargs: f(*xs, **kw))(*args)
            else:
                got = f(*args, **kwargs)
                _check(got, leaves, n)
        if context == "traced":
            want = fun(*leaves, n=n)[0]
            np.testing.assert_allclose(np.asarray(got[0]), np.asarray(want), rtol=1e-5)


def test_the_probe_serves_one_call_shape_and_is_dropped_when_calls_vary() -> None:
    f = tl.jit(lambda x, y, z: lax.add(lax.add(x, y), z))
    host = np.ones(3, np.float32)
    for k in range(3):
        np.testing.assert_array_equal(np.asarray(f(host * k, host, host)), host * k + 2)
    probe = f._cache.probe
    assert probe is not None
    four = np.ones(4, np.float32)
    out = f(four, four, four)  # another shape: compiled
    np.testing.assert_array_equal(np.asarray(out), np.full(4, 3.0, np.float32))
    assert f._cache.probe not in (None, probe)  # the new entry's
    zero = np.zeros(3, np.float32)
    np.testing.assert_array_equal(np.asarray(f(host, zero, zero)), host)
    assert f._cache.probe is None  # the calls vary: keyed from now on
    np.testing.assert_array_equal(np.asarray(f(host, host, host)), host + 2)


def test_one_or_two_leaves_are_keyed_without_a_probe() -> None:
    f = tl.jit(lambda x, y: lax.add(x, y))
    for _ in range(3):
        f(np.ones(3, np.float32), 1.0)
    assert f._cache.probe is None and len(f._fast) == 1


def test_calls_under_a_trace_keep_the_probe() -> None:
    f = tl.jit(lambda x, s, y: lax.add(lax.mul(x, s), y))
    a = tl.device_put(np.ones(3, np.float32))
    host = np.full(3, 2.0, np.float32)
    f(a, 0.5, host)
    f(a, 0.5, host)
    probe = f._cache.probe
    assert probe is not None
    traced = tl.jit(lambda x: f(x, 0.5, host))(a)
    np.testing.assert_array_equal(np.asarray(traced), np.full(3, 2.5, np.float32))
    assert f._cache.probe is probe
    np.testing.assert_array_equal(np.asarray(f(a, 0.5, host)), np.full(3, 2.5, np.float32))


def test_probed_calls_keep_the_full_paths_errors() -> None:
    f = tl.jit(lambda x, y, z: lax.add(lax.add(x, y), z))
    x = tl.device_put(np.ones(3, np.float32))
    for _ in range(3):
        f(x, x, x)
    assert f._cache.probe is not None
    x.delete()
    with pytest.raises(RuntimeError, match="deleted"):
        f(x, x, x)
    g = tl.jit(lambda x, y, z: lax.add(lax.add(x, y), z), donate_argnums=0)
    y = tl.device_put(np.ones(3, np.float32))
    g(tl.device_put(np.ones(3, np.float32)), y, y)
    g(tl.device_put(np.ones(3, np.float32)), y, y)
    assert g._cache.probe is not None
    donated = tl.device_put(np.ones(3, np.float32))
    g(donated, y, y)
    with pytest.raises(ValueError, match="donated"):
        g(donated, y, y)


def test_leaves_of_other_kinds_are_compared_by_their_keys() -> None:
    # NumPy scalars and Python scalars beside arrays: a leaf of another type,
    # dtype or shape is another call, never the probed one.
    f = tl.jit(lambda x, y, z: lax.add(lax.add(lax.convert_element_type(x, np.float32), y), z))
    a = tl.device_put(np.ones(3, np.float32))
    three, four = np.ones(3, np.float32), np.ones(4, np.float32)
    calls = [
        (np.float32(2), a, three),
        (np.float32(2), 1.0, four),
        (np.int32(2), 1.0, four),
        (np.float64(2.5), 1.0, four),
        (2, 1.0, three),
        (np.bool_(True), 1.0, three),
    ]
    for args in calls:
        for _ in range(3):
            out = f(*args)
            want = np.float32(args[0]) + np.asarray(args[1], np.float32) + args[2]
            np.testing.assert_array_equal(np.asarray(out), want)
            assert out.aval.shape == want.shape and out.dtype == np.float32
