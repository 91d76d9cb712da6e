"""bfloat16 and float8 are inexact types everywhere: kept by promotion to inexact, hoisted by closure_convert."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tessela
import tessela.numpy as tnp
import tessela.scipy.cluster.vq
import tessela.scipy.interpolate
import tessela.scipy.special
from _golden import cases_module, load_json

narrow_float_cases = cases_module("narrow_float_cases")
GOLDEN = load_json("narrow_float_golden.json")
_X = tnp.linspace(0.1, 1.0, 4)

# Functions that promote their operands to an inexact dtype: a narrow float
# is inexact already, so it stays (as in JAX 0.10.2, where each of these
# returns bfloat16 for bfloat16 operands).
_KEEPS_DTYPE = {
    "bessel_jn": lambda x: tessela.scipy.special.bessel_jn(x, v=1),
    "vq": lambda x: tessela.scipy.cluster.vq.vq(x.reshape(4, 1), x[:2].reshape(2, 1))[1],
    "interpolate": lambda x: tessela.scipy.interpolate.RegularGridInterpolator(
        (tnp.arange(4.0).astype(x.dtype),), x
    )(tnp.array([[0.5]], x.dtype)),
    "resize": lambda x: tessela.image.resize(x, (8,), "linear"),
    "xlogy": lambda x: tessela.scipy.special.xlogy(x, x),
}


@pytest.mark.parametrize("name", sorted(_KEEPS_DTYPE))
@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_promotion_to_inexact_keeps_narrow_floats(name: str, dtype: str) -> None:
    x = _X.astype(dtype)
    out = _KEEPS_DTYPE[name](x)
    assert out.dtype == x.dtype
    wide = _KEEPS_DTYPE[name](_X)
    np.testing.assert_allclose(np.asarray(out, np.float32), np.asarray(wide), rtol=0.1, atol=0.05)


@pytest.mark.parametrize("dtype", ["bfloat16", "float8_e4m3fn", "float32"])
def test_closure_convert_hoists_narrow_float_tracers(dtype: str) -> None:
    hoisted: list[int] = []

    def outer(w: Any) -> Any:
        def f(x: Any) -> Any:
            return tnp.sum(tnp.sin(x) * w)

        fc, consts = tessela.closure_convert(f, tnp.ones(2, dtype))
        hoisted.append(len(consts))
        return fc(tnp.ones(2, dtype), *consts).astype(tnp.float32)

    g = tessela.grad(outer)(tnp.full(2, 2.0, dtype))
    assert hoisted[-1] == 1
    np.testing.assert_allclose(np.asarray(g, np.float32), np.sin(1.0), rtol=0.1)


_TAKES_NARROW = {
    "isclose": lambda x: tnp.isclose(x, x * 1.01),
    "allclose": lambda x: tnp.allclose(x, x),
    "histogram": lambda x: tnp.histogram(x, bins=2)[0],
    "linspace": lambda x: tnp.linspace(x[0], x[-1], 5, dtype=x.dtype),
    "erfcx": lambda x: tessela.scipy.special.erfcx(x),
    "i1e": lambda x: tessela.scipy.special.i1e(x),
    "gammainc": lambda x: tessela.scipy.special.gammainc(x, x),
    "betainc": lambda x: tessela.scipy.special.betainc(x, x, x * 0.5),
}


@pytest.mark.parametrize("name", sorted(_TAKES_NARROW))
@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_functions_reading_float_limits_take_narrow_floats(name: str, dtype: str) -> None:
    # They read finfo of the operand's dtype: NumPy's finfo does not know
    # bfloat16 ("not inexact"); the tracer's does.
    fn = _TAKES_NARROW[name]
    for run in (fn, tessela.jit(fn)):
        got = np.asarray(run(_X.astype(dtype)), np.float32)
        want = np.asarray(fn(_X), np.float32)
        np.testing.assert_allclose(got, want, rtol=0.05, atol=0.02)


def test_narrow_float_predicates_and_fills_treat_them_as_floats() -> None:
    for dtype in ("bfloat16", "float16", "float8_e5m2"):
        x = tnp.asarray([1.0, np.inf, -np.inf, np.nan], dtype)
        # isposinf of a bfloat16 infinity was False (NumPy's issubdtype says
        # bfloat16 is not floating).
        np.testing.assert_array_equal(np.asarray(tnp.isposinf(x)), [False, True, False, False])
        np.testing.assert_array_equal(np.asarray(tnp.isneginf(x)), [False, False, True, False])
        assert np.isnan(float(x.at[7].get(mode="fill")))
    p = tnp.asarray([1.0, 2.0], "bfloat16")
    out = tnp.polyval(p, tnp.asarray(3.0, "bfloat16"))
    assert out.dtype == p.dtype and float(out) == 5.0


def test_quantiles_of_narrow_integers_compute_in_float32() -> None:
    # int4 has no implicit promotion with a Python float: ``a`` is made
    # inexact first, as JAX's quantile does.
    x = tnp.asarray([1, -2, 3, 5], "int4")
    wide = np.asarray([1, -2, 3, 5], np.float32)
    assert float(tnp.median(x)) == float(np.median(wide))
    assert float(tnp.percentile(x, 25)) == float(np.percentile(wide, 25))
    assert tnp.quantile(x, 0.5).dtype == np.float32


@pytest.fixture(scope="module")
def golden_results() -> dict[str, Any]:
    return dict(narrow_float_cases.run(tessela))


def test_every_narrow_float_case_was_recorded(golden_results: dict[str, Any]) -> None:
    assert sorted(golden_results) == sorted(GOLDEN)


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_narrow_float_case_matches_reference(golden_results: dict[str, Any], name: str) -> None:
    # BFGS, hyp1f1/hyp2f1, attention masks and checkify's NaN check read the
    # limits or the kind of a bfloat16/float8 dtype (NumPy's finfo refuses
    # them, its issubdtype says they are not floating). Values agree to a few
    # ulps of the narrow type; counts, flags and messages exactly.
    got, want = golden_results[name], GOLDEN[name]
    if not isinstance(want, dict) or "error" in want:
        assert got == want
        return
    assert got["dtype"] == want["dtype"], name
    if want["dtype"] in ("bool", "int32", "int64"):
        assert got["values"] == want["values"], name
        return
    eps = float(tessela.dtypes.finfo(want["dtype"]).eps)
    np.testing.assert_allclose(
        got["values"], want["values"], rtol=2 * eps, atol=2 * eps, err_msg=name
    )


def test_array_api_view_classifies_narrow_types_as_jnp_isdtype_does() -> None:
    # JAX 0.10.2's jnp.isdtype: every ml_dtypes float is "real floating" and
    # "numeric", int4 a "signed integer", uint4 an "unsigned integer".
    isdtype = tessela._xp.namespace.isdtype
    for dtype in ("bfloat16", "float8_e4m3fn", "float8_e5m2", "float16"):
        assert isdtype(dtype, "real floating") and isdtype(dtype, "numeric")
        assert not isdtype(dtype, "integral")
    assert isdtype("int4", "signed integer") and isdtype("int4", ("bool", "integral"))
    assert isdtype("uint4", "unsigned integer") and not isdtype("uint4", "signed integer")
    assert not isdtype("bool", "numeric") and isdtype("bool", "bool")
