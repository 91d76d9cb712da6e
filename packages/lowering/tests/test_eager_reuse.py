"""Eager calls that reuse programs: slices at new positions, retraced control flow.

Op by op, a slice without strides runs as ``dynamic_slice`` with its starts as
operands, so a Python loop over ``x[i]`` compiles one program per result
shape. Eager control flow (``fori_loop``, ``scan``, ``cond``, ...) traces its
body again at every call; each trace lowers to the same module text, and the
executable compiled for that text serves it (``_compile.loaded``). These
tests count the programs that reach ``compile_text`` (compiled, or read from
the persistent cache), check values against NumPy, and check that a changed
closed-over value is seen (equal text is the same program; another literal
is another program).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
import tessela_lowering as tl
from hypothesis import given, settings
from hypothesis import strategies as st
from tessela_lowering import _compile, _dispatch
from tessela_tracer import lax, make_jaxpr


@pytest.fixture
def programs(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The module texts that reach ``compile_text`` (not served from memory)."""
    seen: list[str] = []
    compile_text = _compile.compile_text

    def counting(text: str, *args: Any) -> Any:
        seen.append(text)
        return compile_text(text, *args)

    monkeypatch.setattr(_compile, "compile_text", counting)
    yield seen


def test_slices_at_new_positions_reuse_one_program(programs: list[str]) -> None:
    host = np.arange(7 * 9, dtype=np.float32).reshape(7, 9) - 20.0
    x = tl.device_put(host)
    for i in range(7):
        for j in range(0, 9, 2):
            got = lax.slice(x, (i, j), (i + 1, j + 1))
            np.testing.assert_array_equal(np.asarray(got), host[i : i + 1, j : j + 1])
    first = len(programs)
    assert first <= 1  # one (1, 1) program (none when another test compiled it)
    for i in range(5):  # windows of another shape: one more program
        np.testing.assert_array_equal(
            np.asarray(lax.slice(x, (i, 1), (i + 3, 9))), host[i : i + 3, 1:9]
        )
    assert len(programs) <= first + 1


def test_slices_keep_their_checks_strides_and_traced_form() -> None:
    x = tl.device_put(np.arange(12, dtype=np.int32).reshape(3, 4))
    with pytest.raises(TypeError, match="slice indices must satisfy"):
        lax.slice(x, (2, 0), (4, 4))  # past the end: refused, never clamped
    with pytest.raises(TypeError, match="slice indices must satisfy"):
        lax.slice(x, (2, 0), (1, 4))
    np.testing.assert_array_equal(
        np.asarray(lax.slice(x, (0, 1), (3, 4), (2, 2))), np.arange(12).reshape(3, 4)[0:3:2, 1:4:2]
    )
    # Under a trace it is a static slice, as in JAX.
    text = str(make_jaxpr(lambda a: lax.slice(a, (1, 0), (2, 4)))(x))
    assert "slice[" in text and "dynamic_slice" not in text
    # A weak-typed operand stays weak; a NumPy operand is sliced too.
    weak = lax.slice(tl.device_put(np.float32(2.0) * np.ones(3, np.float32)), (1,), (2,))
    assert weak.dtype == np.float32
    np.testing.assert_array_equal(np.asarray(lax.slice(np.arange(5), (1,), (3,))), [1, 2])


@settings(max_examples=25, deadline=None, derandomize=True)
@given(
    shape=st.lists(st.integers(1, 5), min_size=1, max_size=3),
    data=st.data(),
)
def test_eager_slice_matches_numpy_and_jit(shape: list[int], data: Any) -> None:
    host = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    starts, limits = [], []
    for d in shape:
        lo = data.draw(st.integers(0, d))
        starts.append(lo)
        limits.append(data.draw(st.integers(lo, d)))
    want = host[tuple(slice(lo, hi) for lo, hi in zip(starts, limits, strict=True))]
    eager = lax.slice(tl.device_put(host), tuple(starts), tuple(limits))
    staged = tl.jit(lambda a: lax.slice(a, tuple(starts), tuple(limits)))(host)
    assert eager.shape == staged.shape == want.shape
    np.testing.assert_array_equal(np.asarray(eager), want)
    np.testing.assert_array_equal(np.asarray(staged), want)


CONTROL_FLOW = {
    "fori_loop": lambda x, k: lax.fori_loop(0, 3, lambda i, c: c * 0.5 + k, x),
    "scan": lambda x, k: lax.scan(lambda c, xi: (c + xi * k, c), 0.0, x)[0],
    "while_loop": lambda x, k: lax.while_loop(
        lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] + k), (0, x)
    )[1],
    "cond": lambda x, k: lax.cond(True, lambda a: a + k, lambda a: a - k, x),
    "switch": lambda x, k: lax.switch(1, [lambda a: a * k, lambda a: a - k], x),
}


def _expected(name: str, host: np.ndarray, k: float) -> Any:
    if name == "fori_loop":
        out = host
        for _ in range(3):
            out = out * np.float32(0.5) + np.float32(k)
        return out
    if name == "scan":
        return np.float32(host.sum() * k)
    if name == "while_loop":
        return host + np.float32(3 * k)
    return host + np.float32(k) if name == "cond" else host - np.float32(k)


@pytest.mark.parametrize("name", sorted(CONTROL_FLOW))
def test_retraced_control_flow_compiles_once(name: str, programs: list[str]) -> None:
    host = np.linspace(-1.0, 1.0, 17, dtype=np.float32)  # a length no other test uses
    x = tl.device_put(host)
    fn = CONTROL_FLOW[name]
    np.testing.assert_allclose(np.asarray(fn(x, 1.25)), _expected(name, host, 1.25), rtol=1e-6)
    first = len(programs)
    for _ in range(3):  # a new trace (new lambdas, new jaxpr) at every call
        np.testing.assert_allclose(np.asarray(fn(x, 1.25)), _expected(name, host, 1.25), rtol=1e-6)
    assert len(programs) == first
    # Another closed-over value is another program, never the old result.
    np.testing.assert_allclose(np.asarray(fn(x, -3.5)), _expected(name, host, -3.5), rtol=1e-6)


def test_scatter_add_at_new_positions_compiles_once(programs: list[str]) -> None:
    host = np.zeros((6, 5), np.float32)
    x = tl.device_put(host)
    dnums = lax.ScatterDimensionNumbers((), (0, 1), (0, 1))
    for i in range(6):
        idx = np.array([i, (2 * i) % 5], np.int32)
        got = lax.scatter_add(x, idx, np.float32(1.5), dnums)
        want = host.copy()
        want[i, (2 * i) % 5] += 1.5
        np.testing.assert_array_equal(np.asarray(got), want)
    assert len(programs) <= 1


def test_clear_caches_forgets_the_kept_executables(programs: list[str]) -> None:
    x = tl.device_put(np.ones(19, np.float32))
    fn = CONTROL_FLOW["fori_loop"]
    fn(x, 2.0)
    before = len(programs)
    fn(x, 2.0)
    assert len(programs) == before
    tl.clear_caches()
    fn(x, 2.0)
    assert len(programs) == before + 1


def test_eager_tables_stay_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    # Each retraced loop keys the eager table on a new jaxpr: the table starts
    # again at its bound instead of growing with every call.
    monkeypatch.setattr(_dispatch, "EAGER_CACHE_SIZE", 8)
    x = tl.device_put(np.ones(23, np.float32))
    for k in range(30):
        out = CONTROL_FLOW["cond"](x, 1.0)
        assert len(_dispatch._cache) <= 8 and len(_dispatch._fast) <= 8, k
    np.testing.assert_array_equal(np.asarray(out), np.full(23, 2.0, np.float32))
