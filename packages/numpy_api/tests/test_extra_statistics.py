"""NaN reductions, quantiles and weighted statistics: against NumPy and JAX golden data."""

from __future__ import annotations

import json
import pathlib
import sys
from typing import Any

import numpy as np
import pytest
import tessela_lowering  # noqa: F401  (eager execution)
import tessela_numpy as tnp
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from tessela_tracer import jit

sys.path.insert(0, str(pathlib.Path(__file__).parent / "golden"))
from generate_extra import _arg

EXTRA = json.loads((pathlib.Path(__file__).parent / "golden" / "extra.json").read_text())

values = st.floats(-50, 50, width=32, allow_subnormal=False) | st.just(np.nan)
arrays = hnp.arrays(np.float32, st.sampled_from([(5,), (3, 4)]), elements=values)


def _close(got: Any, want: Any, **kw: Any) -> None:
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_allclose(got, want, equal_nan=True, **{"rtol": 1e-5, "atol": 1e-4, **kw})


@pytest.mark.parametrize("case", EXTRA["cases"], ids=lambda c: c["fn"])
def test_statistics_match_jax_golden(case: dict[str, Any]) -> None:
    got = getattr(tnp, case["fn"])(*(_arg(a) for a in case["args"]), **case["kw"])
    want = np.array([np.nan if v is None else v for v in case["value"]]).reshape(case["shape"])
    assert str(got.dtype) == case["dtype"]
    _close(got, want)


@settings(max_examples=6)
@given(arrays, st.sampled_from([None, 0, -1]), st.booleans())
def test_nan_reductions_match_numpy(x: np.ndarray, axis: Any, keepdims: bool) -> None:
    with _nowarn():
        for name in ("nansum", "nanprod", "nanmax", "nanmin", "nanmean", "nanvar", "nanstd"):
            got = getattr(tnp, name)(x, axis=axis, keepdims=keepdims)
            want = getattr(np, name)(x, axis=axis, keepdims=keepdims)
            _close(got, want, rtol=1e-4)
        _close(tnp.nanvar(x, axis=axis, ddof=1), np.nanvar(x, axis=axis, ddof=1), rtol=1e-4)
        if axis is not None:
            _close(tnp.nancumsum(x, axis=axis), np.nancumsum(x, axis=axis))
        _close(jit(lambda a: tnp.nanmean(a, axis=axis))(x), np.nanmean(x, axis=axis))


class _nowarn:
    def __enter__(self) -> None:
        import warnings

        self._w = warnings.catch_warnings()
        self._w.__enter__()
        warnings.simplefilter("ignore")

    def __exit__(self, *exc: Any) -> None:
        self._w.__exit__(*exc)


@settings(max_examples=6)
@given(
    arrays,
    st.sampled_from(["linear", "lower", "higher", "midpoint"]),
    st.sampled_from([None, 0, (0, -1)]),
)
def test_quantiles_match_numpy(x: np.ndarray, method: str, axis: Any) -> None:
    q = np.array([0.0, 0.3, 0.5, 1.0], np.float32)
    if isinstance(axis, tuple) and x.ndim == 1:
        axis = 0
    with _nowarn():
        _close(
            tnp.nanquantile(x, q, axis=axis, method=method),
            np.nanquantile(x, q, axis=axis, method=method),
        )
        clean = np.nan_to_num(x)
        _close(
            tnp.quantile(clean, q, axis=axis, method=method, keepdims=True),
            np.quantile(clean, q, axis=axis, method=method, keepdims=True),
        )
        _close(
            tnp.percentile(clean, 30.0, axis=axis, method=method),
            np.percentile(clean, 30.0, axis=axis, method=method),
        )
        _close(tnp.median(x, axis=axis), np.median(x, axis=axis))
        _close(tnp.nanmedian(x, axis=axis), np.nanmedian(x, axis=axis))


def test_quantile_errors() -> None:
    x = np.arange(4.0)
    with pytest.raises(ValueError, match="method can only be"):
        tnp.quantile(x, 0.5, method="foo")
    with pytest.raises(NotImplementedError, match="weights"):
        tnp.quantile(x, 0.5, weights=np.ones(4))
    with pytest.raises(ValueError, match="Axis must be specified"):
        tnp.average(np.ones((2, 3)), weights=np.arange(3.0))


def test_weighted_statistics_match_numpy() -> None:
    rng = np.random.default_rng(1)
    x = rng.normal(size=(3, 6)).astype(np.float32)
    w = rng.uniform(1, 2, size=6).astype(np.float32)
    fw = np.array([1, 2, 1, 3, 1, 1])
    got, wsum = tnp.average(x, axis=1, weights=w, returned=True)
    want, wwant = np.average(x, axis=1, weights=w, returned=True)
    _close(got, want)
    _close(wsum, wwant)
    _close(tnp.average(x, axis=(0, 1), keepdims=True), np.average(x, axis=(0, 1), keepdims=True))
    _close(tnp.cov(x), np.cov(x))
    _close(tnp.cov(x, rowvar=False, bias=True), np.cov(x, rowvar=False, bias=True))
    _close(tnp.cov(x, x[::-1], ddof=2), np.cov(x, x[::-1], ddof=2))
    _close(tnp.cov(x, fweights=fw, aweights=w), np.cov(x, fweights=fw, aweights=w))
    _close(tnp.corrcoef(x), np.corrcoef(x))
    _close(tnp.corrcoef(x[0], x[1]), np.corrcoef(x[0], x[1]))
    _close(jit(tnp.cov)(x), np.cov(x))
