"""Composite functions run eagerly as one compiled program per signature, as JAX's jit.

Quantiles, medians and percentiles (plain and NaN-skipping, weighted too),
``gradient``, ``ediff1d``, ``cov``, ``corrcoef``, ``isclose``, ``allclose``,
``frexp``, ``i0`` and ``modf`` used to dispatch one program per step eagerly
(``median`` compiled 20 programs on its first call and took 1.7 ms per call).
On concrete arrays and on NumPy operands they now call one jitted program
(``_eager.run_compiled``). These tests pin what a caller sees: NumPy's values,
the traced path's shape, dtype and weak type, one program compiled per new
signature, unchanged jaxprs, the same values without ``jit``, and the same
errors for bad arguments.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest
import tessela_lowering as tl
import tessela_numpy as tnp
from hypothesis import given, settings
from hypothesis import strategies as st
from tessela_lowering import _compile
from tessela_tracer import config, jit, lax, make_jaxpr

_A = (np.arange(35, dtype=np.float32).reshape(5, 7) * 0.37) % 3.1 - 1.2
_N = _A.copy()
_N[1, 2] = _N[3, 0] = np.nan
_W = np.linspace(0.5, 2.0, 7, dtype=np.float32)
_I = (np.arange(12, dtype=np.int32).reshape(3, 4) * 7) % 5

# name -> (tessela call, NumPy call, operands)
CASES: dict[str, tuple[Callable[..., Any], Callable[..., Any], tuple[Any, ...]]] = {
    "quantile": (lambda a: tnp.quantile(a, 0.3), lambda a: np.quantile(a, 0.3), (_A,)),
    "quantile_q_axis": (
        lambda a, q: tnp.quantile(a, q, axis=1, keepdims=True),
        lambda a, q: np.quantile(a, q, axis=1, keepdims=True),
        (_A, np.array([0.1, 0.5, 0.9], np.float32)),
    ),
    "quantile_int": (
        lambda a: tnp.quantile(a, 0.5, axis=0, method="lower"),
        lambda a: np.quantile(a, 0.5, axis=0, method="lower"),
        (_I,),
    ),
    "quantile_weighted": (
        lambda a, w: tnp.quantile(a, 0.4, axis=1, method="inverted_cdf", weights=w),
        lambda a, w: np.quantile(
            a, 0.4, axis=1, method="inverted_cdf", weights=np.broadcast_to(w, a.shape)
        ),
        (_A, _W),
    ),
    "nanquantile": (
        lambda a: tnp.nanquantile(a, 0.75, axis=0),
        lambda a: np.nanquantile(a, 0.75, axis=0),
        (_N,),
    ),
    "percentile": (
        lambda a: tnp.percentile(a, 30.0, axis=(0, 1)),
        lambda a: np.percentile(a, 30.0, axis=(0, 1)),
        (_A,),
    ),
    "nanpercentile": (
        lambda a: tnp.nanpercentile(a, 90.0, axis=1),
        lambda a: np.nanpercentile(a, 90.0, axis=1),
        (_N,),
    ),
    "median": (lambda a: tnp.median(a, axis=1), lambda a: np.median(a, axis=1), (_A,)),
    "median_nan": (tnp.median, np.median, (_N,)),
    "nanmedian": (lambda a: tnp.nanmedian(a, 0), lambda a: np.nanmedian(a, 0), (_N,)),
    "gradient": (tnp.gradient, np.gradient, (_A,)),
    "gradient_axis_spacing": (
        lambda a: tnp.gradient(a, 0.5, axis=1),
        lambda a: np.gradient(a, 0.5, axis=1),
        (_A,),
    ),
    "ediff1d": (tnp.ediff1d, np.ediff1d, (_A,)),
    "ediff1d_both": (
        lambda a, e, b: tnp.ediff1d(a, e, b),
        lambda a, e, b: np.ediff1d(a, e, b),
        (_I, np.array([7, 8], np.int32), np.array([-1], np.int32)),
    ),
    "cov": (tnp.cov, np.cov, (_A,)),
    "cov_y_cols_bias": (
        lambda a, b: tnp.cov(a, b, rowvar=False, bias=True),
        lambda a, b: np.cov(a, b, rowvar=False, bias=True),
        (_A[:, :3], _A[:, 3:6]),
    ),
    "corrcoef": (tnp.corrcoef, np.corrcoef, (_A,)),
    "isclose": (
        lambda a, b: tnp.isclose(a, b, rtol=0.05),
        lambda a, b: np.isclose(a, b, rtol=0.05),
        (_A, _A * 1.03),
    ),
    "isclose_nan": (
        lambda a: tnp.isclose(a, a, equal_nan=True),
        lambda a: np.isclose(a, a, equal_nan=True),
        (_N,),
    ),
    "allclose": (lambda a, b: tnp.allclose(a, b), lambda a, b: np.allclose(a, b), (_A, _A + 1e-7)),
    "frexp": (lambda a: tnp.frexp(a)[0], lambda a: np.frexp(a)[0], (_A,)),
    "frexp_exponent": (lambda a: tnp.frexp(a)[1], lambda a: np.frexp(a)[1], (_A,)),
    "i0": (tnp.i0, np.i0, (_A,)),
    "modf": (lambda a: tnp.modf(a)[0], lambda a: np.modf(a)[0], (_A,)),
    "diff_numpy_operand": (tnp.diff, np.diff, (_A,)),
    "vdot_precision": (
        lambda a, b: tnp.vdot(a, b, precision=lax.Precision.HIGHEST),
        np.vdot,
        (_A * (1 + 0.5j), _A[::-1]),
    ),
    "dot_precision": (
        lambda a, b: tnp.dot(a, b, precision="highest"),
        np.dot,
        (_A, _A.T.copy()),
    ),
}


# The eager programs' names (``run_compiled``'s first argument).
PROGRAMS = [
    "quantile", "nanquantile", "percentile", "nanpercentile", "gradient", "ediff1d", "cov",
    "corrcoef", "isclose", "allclose", "frexp", "i0", "modf", "diff", "vdot", "dot",
]  # fmt: skip


@pytest.fixture
def programs(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The module texts compiled (or read from the persistent cache), not served from memory."""
    seen: list[str] = []
    compile_text = _compile.compile_text

    def counting(text: str, *args: Any) -> Any:
        seen.append(text)
        return compile_text(text, *args)

    monkeypatch.setattr(_compile, "compile_text", counting)
    yield seen


def _check(got: Any, want: Any, traced: list[Any]) -> None:
    # One output, or a list of them (``gradient`` of several axes).
    outs, wants = (got, want) if isinstance(got, list) else ([got], [want])
    assert len(outs) == len(wants) == len(traced)
    for out, w, aval in zip(outs, wants, traced, strict=True):
        assert (out.shape, out.dtype, out.aval.weak_type) == (
            aval.shape,
            aval.dtype,
            aval.weak_type,
        )
        np.testing.assert_allclose(
            np.asarray(out).astype(np.float64), np.asarray(w, np.float64), rtol=2e-5, atol=2e-6
        )


@pytest.mark.parametrize("case", sorted(CASES))
def test_one_program_per_signature_with_numpy_values(case: str, programs: list[str]) -> None:
    fn, np_fn, hosts = CASES[case]
    traced = make_jaxpr(fn)(*hosts)
    before = str(traced)
    with np.errstate(all="ignore"):
        want = np_fn(*hosts)
    tl.clear_caches()
    for operands in (hosts, tuple(tl.device_put(h) for h in hosts)):
        start = len(programs)
        for _ in range(2):
            _check(fn(*operands), want, traced.out_avals)
        # NumPy operands and device arrays are the same signature: one program.
        assert len(programs) - start == (1 if operands is hosts else 0), case
    after = str(make_jaxpr(fn)(*hosts))
    assert after == before  # traced, the functions inline their steps
    assert not any(f"jit[name={name} " in after for name in PROGRAMS)


def _host(out: Any) -> np.ndarray:
    return np.stack([np.asarray(o) for o in out]) if isinstance(out, list) else np.asarray(out)


@pytest.mark.parametrize("flag", ["jax_disable_jit", "jax_debug_nans"])
def test_bodies_run_step_by_step_without_jit(flag: str) -> None:
    want = {name: _host(fn(*hosts)) for name, (fn, _, hosts) in CASES.items()}
    before = config.read(flag)
    config.update(flag, True)
    try:
        for name, (fn, _, hosts) in CASES.items():
            if flag == "jax_debug_nans" and np.isnan(want[name]).any():
                continue  # a NaN result is debug_nans' error, by design
            np.testing.assert_allclose(
                _host(fn(*hosts)), want[name], rtol=1e-6, equal_nan=True, err_msg=name
            )
    finally:
        config.update(flag, before)


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda: tnp.quantile(_A, 0.5, method="bogus"), ValueError),
        (lambda: tnp.quantile(_A.astype(np.complex64), 0.5), ValueError),
        (lambda: tnp.quantile(_A, np.ones((2, 2), np.float32)), ValueError),
        (lambda: tnp.quantile(_A, 0.5, weights=_W), NotImplementedError),
        (lambda: tnp.quantile(list(_A[0]), 0.5), TypeError),
        (lambda: tnp.median(_A, out=np.zeros(7)), ValueError),
        (lambda: tnp.gradient(np.ones((1, 3), np.float32)), ValueError),
        (lambda: tnp.gradient(_A, 1.0, 2.0, 3.0), TypeError),
        (lambda: tnp.gradient(_A, edge_order=2), NotImplementedError),
        (lambda: tnp.cov(_A, ddof=1.5), TypeError),
        (lambda: tnp.frexp(_A.astype(np.complex64)), TypeError),
        (lambda: tnp.i0(_A.astype(np.complex64)), TypeError),
        (lambda: tnp.isclose([1.0], _A[0]), TypeError),
        (lambda: tnp.ediff1d([1, 2, 3]), TypeError),
    ],
)
def test_bad_arguments_raise_as_before(call: Callable[[], Any], error: type) -> None:
    with pytest.raises(error):
        call()
    with pytest.raises(error):  # and again, once a failed trace was tried
        call()


@settings(max_examples=30, deadline=None, derandomize=True)
@given(
    shape=st.lists(st.integers(1, 4), min_size=1, max_size=3),
    q=st.floats(0.0, 1.0, width=32),
    method=st.sampled_from(["linear", "lower", "higher", "midpoint", "nearest"]),
    nan=st.booleans(),
    data=st.data(),
)
def test_eager_quantiles_equal_the_jitted_function(
    shape: list[int], q: float, method: str, nan: bool, data: Any
) -> None:
    host = np.random.default_rng(len(shape)).normal(size=shape).astype(np.float32)
    if nan:
        host.flat[0] = np.nan
    axis = data.draw(st.sampled_from([None, *range(len(shape))]))
    for fn in (tnp.quantile, tnp.nanquantile):
        eager = fn(host, q, axis=axis, method=method)
        staged = jit(lambda a, fn=fn: fn(a, q, axis=axis, method=method))(host)
        assert eager.aval == staged.aval
        np.testing.assert_array_equal(np.asarray(eager), np.asarray(staged))


def test_products_with_options_give_the_bits_of_their_default_program() -> None:
    # Code that passes ``precision`` on one side of a comparison (optax's
    # ``tree_vdot``) and not on the other sees the same program's bits, on
    # NumPy operands as on device arrays (the options were the step-by-step path).
    rng = np.random.default_rng(0)
    a = rng.normal(size=20) + 1j * rng.normal(size=20)
    b = rng.normal(size=20)
    for x, y in ((a, b), (tl.device_put(a), tl.device_put(b))):
        plain = np.asarray(tnp.vdot(x, y))
        for precision in (lax.Precision.HIGHEST, "highest", lax.Precision.DEFAULT):
            np.testing.assert_array_equal(np.asarray(tnp.vdot(x, y, precision=precision)), plain)
        staged = jit(lambda p, q: tnp.vdot(p, q, precision=lax.Precision.HIGHEST))(x, y)
        np.testing.assert_array_equal(np.asarray(staged), plain)
