"""``tessela.experimental.checkify`` against JAX 0.10.2 (``golden/checkify_golden.json``).

The golden cases cover each error set, ``jit``/``vmap``/``grad`` on both
sides, ``cond``/``while_loop``/``scan``/``fori_loop`` inside, the formatting
of ``check``'s arguments (typed PRNG keys among them), which error wins,
``check`` outside ``checkify``, and arguments closed over rather than
traced (Python and NumPy values concrete inside the function eagerly). The property tests check that a checkified function computes
what the function computes, and that an error appears exactly when a check
fails.
"""

from __future__ import annotations

from typing import Any

import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
import tessela as tx
import tessela.numpy as tnp
from _golden import cases_module, load_json
from hypothesis import given, settings
from hypothesis import strategies as st
from tessela.experimental import checkify

checkify_cases = cases_module("checkify_cases")
GOLDEN = load_json("checkify_golden.json")


@pytest.fixture(scope="module")
def results() -> dict[str, Any]:
    out: dict[str, Any] = checkify_cases.run(tx, tnp, checkify)
    return out


def _same(got: Any, want: Any) -> bool:
    if isinstance(want, dict) and isinstance(got, dict):
        return set(got) == set(want) and all(_same(got[k], want[k]) for k in want)
    if isinstance(want, list) and isinstance(got, list):
        return len(got) == len(want) and all(_same(g, w) for g, w in zip(got, want, strict=True))
    if isinstance(want, float) or isinstance(got, float):
        return bool(np.isclose(got, want, rtol=1e-6, atol=1e-7))
    return bool(got == want)


# Differences from JAX that are known and accepted, with the reason.
KNOWN: dict[str, str] = {
    "user_nonscalar_pred": "the tracer prints as JitTracer<bool[2]>, JAX's as JitTracer(bool[2])",
}


# Differences from JAX not yet removed, with the reason: strict xfails, so
# that the fix of either shows up here.
DIFFERS: dict[str, str] = {}


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=DIFFERS[n]))
        if n in DIFFERS
        else n
        for n in sorted(GOLDEN)
    ],
)
def test_matches_reference(results: dict[str, Any], name: str) -> None:
    got, want = results[name], GOLDEN[name]
    if name in KNOWN:
        assert got["raised"] == want["raised"], (got, want)
        return
    assert _same(got, want), (got, want)


def test_no_case_is_missing(results: dict[str, Any]) -> None:
    assert set(results) == set(GOLDEN)


def test_jax_names() -> None:
    assert sorted(checkify.__all__) == [
        "Error", "ErrorCategory", "JaxRuntimeError", "all_checks", "automatic_checks", "check",
        "check_error", "checkify", "debug_check", "div_checks", "float_checks", "index_checks",
        "init_error", "nan_checks", "user_checks",
    ]  # fmt: skip


def test_error_is_a_pytree_through_jit() -> None:
    f = checkify.checkify(lambda x: (checkify.check(x > 0, "x={}", x), x * 2)[1])
    err, out = tx.jit(f)(np.float32(-2.0))
    leaves = tx.tree_util.tree_leaves(err)
    assert len(leaves) == 3  # failed flag, code, the formatting argument
    assert err.get() == "x=-2.0 (`check` failed)" and float(out) == -4.0
    err2 = tx.jit(lambda e: e)(err)
    assert err2.get() == err.get()


def test_check_error_under_jit_needs_checkify() -> None:
    err, _ = checkify.checkify(lambda x: checkify.check(x > 0, "no"))(tnp.float32(-1.0))
    with pytest.raises(ValueError, match="not functionalized"):
        tx.jit(checkify.check_error)(err)
    inner, _ = checkify.checkify(tx.jit(checkify.check_error))(err)
    assert inner.get() == "no (`check` failed)"


def test_scalar_key_payload_is_carried_through_jit_and_cond() -> None:
    # A scalar typed key as a formatting argument: its placeholder (when the
    # check sits in a branch not taken) and its value reach the error.
    def f(x: Any, k: Any) -> Any:
        taken = lambda: (checkify.check(x > 5, "small {k}", k=k), x)[1]  # noqa: E731
        return tx.lax.cond(x > 0, taken, lambda: -x)

    key = tx.random.key(7)
    for x, failed in ((1.0, True), (-1.0, False)):
        err, _ = tx.jit(checkify.checkify(f))(np.float32(x), key)
        pred, code, payload = tx.tree_util.tree_leaves(err)
        assert bool(pred) is failed and (int(code) == -1) is not failed
        assert payload.dtype == key.dtype and payload.shape == ()
        want = tx.random.key_data(key) if failed else np.ones(2, np.uint32)
        np.testing.assert_array_equal(np.asarray(tx.random.key_data(payload)), want)
        exc = err.get_exception()
        assert (exc is not None) is failed
        if exc is not None:  # the key the message formats, as JAX hands it to str.format
            np.testing.assert_array_equal(tx.random.key_data(exc.fmt_kwargs["k"]), want)


def test_scalar_key_payload_formats_as_jax_does() -> None:
    # JAX 0.10.2: "bad Array((), dtype=key<fry>) overlaying:\n[0 0] (`check` failed)".
    err, _ = checkify.checkify(lambda k: checkify.check(False, "bad {k}", k=k))(tx.random.key(0))
    assert err.get() == "bad Array((), dtype=key<fry>) overlaying:\n[0 0] (`check` failed)"


def _poly(x: Any) -> Any:
    y = tnp.sin(x) * 2.0 + x * x
    return tnp.sum(tnp.where(y > 0, y, -y)) + tnp.cumsum(x)[-1]


# No subnormals: XLA on CPU flushes them to zero (as under JAX), NumPy does not,
# so a comparison with NumPy's answer would differ for them.
finite = st.floats(-8, 8, width=32, allow_subnormal=False)
floats = hnp.arrays(np.float32, st.integers(1, 5), elements=finite)


@settings(max_examples=20, deadline=None)
@given(x=floats)
def test_output_unchanged_when_no_check_fails(x: np.ndarray) -> None:
    for errors in (checkify.user_checks, checkify.all_checks):
        err, out = checkify.checkify(_poly, errors=errors)(x)
        assert err.get() is None
        np.testing.assert_allclose(np.asarray(out), np.asarray(_poly(x)), rtol=1e-6, atol=1e-6)
    err, out = tx.jit(checkify.checkify(tx.grad(_poly), errors=checkify.all_checks))(x)
    assert err.get() is None
    np.testing.assert_allclose(np.asarray(out), np.asarray(tx.grad(_poly)(x)), rtol=1e-5, atol=1e-5)


@settings(max_examples=20, deadline=None)
@given(x=floats, bound=finite)
def test_error_iff_check_fails(x: np.ndarray, bound: float) -> None:
    def f(v: Any) -> Any:
        checkify.check(tnp.all(v < bound), "some value is at least {}", np.float32(bound))
        return v + 1.0

    err, out = tx.jit(checkify.checkify(f))(x)
    fails = not bool(np.all(x < np.float32(bound)))
    assert (err.get() is not None) == fails
    np.testing.assert_allclose(np.asarray(out), x + 1.0)
    berr, _ = tx.vmap(checkify.checkify(f))(x)
    per = [i for i, v in enumerate(x) if not v < np.float32(bound)]
    msg = berr.get()
    assert (msg is None) == (not per)
    if per:
        assert [int(line.split(":")[0].split()[-1]) for line in msg.splitlines()] == per


@settings(max_examples=20, deadline=None)
@given(n=st.integers(1, 6), i=st.integers(-10, 10), data=st.data())
def test_index_error_iff_out_of_bounds(n: int, i: int, data: st.DataObject) -> None:
    # checkify closes over its arguments: a NumPy array stays one (x[i] out of
    # bounds is NumPy's IndexError), an array's static index is checked.
    x = np.arange(n, dtype=np.float32)
    checked = checkify.checkify(lambda a, k: a[k], errors=checkify.index_checks)
    for args in ((tnp.asarray(x), np.int32(i)), (tnp.asarray(x), tnp.int32(i))):
        err, out = checked(*args)
        assert (err.get() is not None) == (not -n <= i < n)
        if -n <= i < n:
            assert float(out) == x[i]
    if not -n <= i < n:
        with pytest.raises(IndexError):
            checked(x, np.int32(i))


def test_checkify_of_pmap_leaks_no_tracer() -> None:
    # pmap runs as a shard_map over vmap; the shard_map kept the traced
    # function's first output (the tracers themselves) to match out_specs
    # against, which checking_leaks reported as a leaked BatchTracer (under
    # checkify) or JitTracer (eagerly).
    def f(x: Any) -> Any:
        checkify.check(tnp.all(x > 0), "bad {}", x)
        return tnp.log(tx.lax.pmean(x, "i"))

    n = tx.device_count()
    x = tnp.arange(1.0, 1.0 + 6 * n).reshape(n, 3, 2)
    with tx.checking_leaks():
        err, out = checkify.checkify(tx.pmap(f, axis_name="i"))(x)
        bad, _ = checkify.checkify(tx.pmap(f, axis_name="i"))(-x)
        plain = tx.pmap(lambda x: tnp.log(x) * 2)(x)
    assert err.get() is None and out.shape == (n, 3, 2)
    assert bad.get() is not None and bad.get().startswith("bad ")
    np.testing.assert_allclose(np.asarray(plain), 2 * np.log(np.asarray(x)), rtol=1e-6)


def test_calls_reuse_a_checked_jit() -> None:
    # Each call of a checkified function traces it anew (as JAX's, which
    # closes over the arguments), but a jit inside is traced once by jit, and
    # its checked body is built once: the same jaxpr object each call, so the
    # executable compiled for it (cached by that object) serves every call.
    traces: list[int] = []

    @tx.jit
    def g(x: Any) -> Any:
        traces.append(1)
        checkify.check(tnp.all(x > 0), "bad {}", x)
        return tnp.log(x)

    checked = checkify.checkify(g, errors=checkify.all_checks)
    x = tnp.arange(1.0, 4.0)
    msgs = [checked(v)[0].get() for v in (x, -x, x * 2.0)]
    assert msgs == [None, "bad [-1. -2. -3.] (`check` failed)", None]
    assert len(traces) == 1
    bodies = [
        eqn.params["jaxpr"]
        for _ in range(2)
        for eqn in tx.make_jaxpr(checked)(x).jaxpr.eqns
        if eqn.primitive.name == "jit"
    ]
    assert len(bodies) == 2 and bodies[0] is bodies[1]
    # Under another set of checks the body is checked anew.
    err, _ = checkify.checkify(g, errors=checkify.nan_checks)(-x)
    assert err.get() == "nan generated by primitive: log." and len(traces) == 1


def test_python_values_stay_concrete_and_jit_traces_them() -> None:
    def f(x: Any, n: Any) -> Any:
        if x > 0:  # a Python bool eagerly
            checkify.check(tnp.sqrt(x) < 2.0, "big {}", tnp.sqrt(x))
        return tnp.ones(int(n)) * x

    err, out = checkify.checkify(f)(9.0, np.int32(2))
    assert err.get() == "big 3.0 (`check` failed)" and out.shape == (2,)
    err, out = tx.jit(checkify.checkify(f), static_argnums=(0, 1))(1.0, 3)
    assert err.get() is None and out.shape == (3,)
    with pytest.raises(tx.errors.TracerBoolConversionError):
        tx.jit(checkify.checkify(f), static_argnums=1)(1.0, 3)
    with pytest.raises(tx.errors.ConcretizationTypeError):
        tx.vmap(checkify.checkify(lambda n: tnp.ones(int(n))))(np.arange(3))
