"""bfloat16, float16 and float8 samplers against the reference's golden data."""

from __future__ import annotations

import json
from typing import Any

import ml_dtypes
import numpy as np
import pytest
import tessela_prng as tr
from case_codec import NARROW_FLOATS
from conftest import golden_path
from tessela_prng._sampling import float_info
from test_golden import expected, run_case

SCHEMES = {"partitionable": True, "legacy": False}
NARROW = json.loads((golden_path().parent / "prng_narrow_golden.json").read_text())
# Samplers whose narrow-float values equal the reference's bit for bit.
EXACT = {
    "uniform",
    "normal",
    "exponential",
    "laplace",
    "cauchy",
    "rayleigh",
    "weibull_min",
    "lognormal",
    "rademacher",
    "gumbel",
    "logistic",
    "pareto",
    # Parameters in a narrow width (a bfloat16 probability was refused).
    "bernoulli",
    "geometric",
    "poisson",
    "categorical",
    # Counts computed in the probability's width (bfloat16 and float16).
    "binomial",
}
# Every narrow width but float16 (NumPy's own), and the exponent-only float8.
ML_FLOATS = [*(name for name in NARROW_FLOATS if name != "float16"), "float8_e8m0fnu"]


def _dtype_name(case: dict[str, Any]) -> str:
    # A dtype argument, else the dtype of the first array parameter.
    return next(
        a if isinstance(a, str) else a["dtype"]
        for a in case["args"]
        if isinstance(a, str) or (isinstance(a, dict) and "array" in a)
    )


def _is_exact(case: dict[str, Any]) -> bool:
    # float16 transcendental steps round as NumPy's float16 loops do, and
    # geometric's logarithms of a float8 probability as ml_dtypes' float8 do
    # (the count can differ by one from XLA's).
    name = _dtype_name(case)
    return case["fn"] in EXACT and not (
        (name == "float16" and case["fn"] in ("gumbel", "logistic", "pareto"))
        or (name.startswith("float8") and case["fn"] == "geometric")
    )


@pytest.mark.parametrize("scheme", list(SCHEMES))
def test_narrow_float_samplers_match_reference(scheme: str) -> None:
    tr.config.update("jax_threefry_partitionable", SCHEMES[scheme])
    cases = NARROW["schemes"][scheme]
    exact = 0
    for case in cases:
        got = np.asarray(run_case(case))
        want = expected(case)
        label = (case["fn"], case["seed"], _dtype_name(case))
        assert got.dtype == want.dtype, (label, got.dtype)
        assert got.shape == want.shape, label
        if _is_exact(case):
            g, w = got.astype(np.float64), want.astype(np.float64)
            same = (g == w) | (np.isnan(g) & np.isnan(w))
            assert same.all(), (label, got[~same], want[~same])
            exact += 1
    assert exact > len(cases) // 2


@pytest.mark.parametrize("name", ML_FLOATS)
def test_float_info_from_bit_layout_equals_ml_dtypes_finfo(name: str) -> None:
    dt = np.dtype(getattr(ml_dtypes, name))
    fi = ml_dtypes.finfo(dt)
    info = float_info(dt)
    assert info == (fi.bits, fi.nmant, float(fi.tiny), float(fi.eps), float(fi.epsneg))


def test_bfloat16_normal_of_key_zero() -> None:
    out = tr.normal(tr.key(0), (3,), dtype=ml_dtypes.bfloat16)
    assert out.dtype == np.dtype(ml_dtypes.bfloat16)
    # jax.random.normal(jax.random.key(0), (3,), dtype=jnp.bfloat16)
    np.testing.assert_array_equal(out.view(np.uint16), np.array([16070, 15931, 49024], np.uint16))


@pytest.mark.parametrize("name", ["float4_e2m1fn", "int4"])
def test_sub_byte_and_integer_ml_dtypes_are_refused(name: str) -> None:
    with pytest.raises(ValueError, match="must be a float"):
        tr.uniform(tr.key(0), (2,), dtype=getattr(ml_dtypes, name))


# jax.random.binomial(jax.random.key(0), n, p, (5,)) under JAX 0.10.2 (its
# default, partitionable Threefry), p = [0.05, 0.3, 0.5, 0.7, 0.95] in the
# width: float32 counts computed in that width. float8_e5m2fnuz overflows to
# NaN, which BTRS meets in its Stirling-tail lookup (it raised IndexError).
_FLOAT8_BINOMIAL = {
    "float8_e5m2": {3.0: [0, 0, 1, 2, 3], 40.0: [2, 12, 20, 39, 40], 1000.0: [48, 320, 512, 768, 1024]},
    "float8_e5m2fnuz": {3.0: [0, 0, 1, 2, 3], 40.0: [2, 12, 20, 39, 40], 1000.0: [48, 320, 512, 768, 1024]},
    "float8_e3m4": {3.0: [1, 0, 1, 2, 2], 40.0: [np.inf] * 5, 1000.0: [np.inf] * 5},
    "float8_e4m3": {3.0: [1, 0, 1, 2, 2], 40.0: [2, 12, 20, 29, 37], 1000.0: [np.inf] * 5},
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(_FLOAT8_BINOMIAL))
def test_float8_binomial_equals_jax(name: str) -> None:
    tr.config.update("jax_threefry_partitionable", True)
    p = np.array([0.05, 0.3, 0.5, 0.7, 0.95], getattr(ml_dtypes, name))
    for trials, want in _FLOAT8_BINOMIAL[name].items():
        got = np.asarray(tr.binomial(tr.key(0), trials, p, (5,)))
        assert got.dtype == np.float32
        np.testing.assert_array_equal(got, np.array(want, np.float32), err_msg=f"{name} {trials}")
