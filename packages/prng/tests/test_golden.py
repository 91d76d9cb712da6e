"""Every golden case from the reference implementation, under both schemes."""

from __future__ import annotations

from typing import Any

import case_codec
import numpy as np
import pytest
import tessela_prng as tr
from conftest import load_golden

GOLDEN = load_golden()
SCHEMES = {"partitionable": True, "legacy": False}
# Float results that come from the bits by exact arithmetic only.
EXACT_FLOAT = {"uniform", "key_data", "split", "fold_in", "bits"}
LINALG = {"multivariate_normal", "orthogonal"}


def run_case(case: dict[str, Any]) -> Any:
    return case_codec.run_case(tr, tr.shuffle, case)


def expected(case: dict[str, Any]) -> np.ndarray:
    res = case["result"]
    flat = np.frombuffer(bytes.fromhex(res["hex"]), dtype=res["dtype"])
    return flat.reshape(res["shape"])


def ulp_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    width = {2: np.int16, 4: np.int32, 8: np.int64}[a.dtype.itemsize]
    ia = a.view(width).astype(np.int64)
    ib = b.view(width).astype(np.int64)
    ia = np.where(ia < 0, np.iinfo(width).min - ia, ia)
    ib = np.where(ib < 0, np.iinfo(width).min - ib, ib)
    return np.abs(ia - ib)


def assert_matches(case: dict[str, Any], got: Any) -> None:
    want = expected(case)
    got = np.asarray(got)
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    if want.dtype.kind in "biu" or case["fn"] in EXACT_FLOAT:
        np.testing.assert_array_equal(got, want)
        return
    if want.dtype.kind == "c":
        got, want = got.view(want.real.dtype), want.view(want.real.dtype)
    if case["fn"] in LINALG:
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=2e-6)
        return
    same_nan = np.isnan(got) == np.isnan(want)
    assert same_nan.all()
    ok = np.isnan(want) | (ulp_distance(got, want) <= 16)
    ok |= np.isclose(got, want, rtol=0, atol=1e-6)
    assert ok.all(), (got[~ok], want[~ok])


def _ids(cases: list[dict[str, Any]]) -> list[str]:
    return [f"{i}-{c['fn']}-{c['seed']}" for i, c in enumerate(cases)]


@pytest.mark.parametrize("scheme", list(SCHEMES))
def test_golden_cases(scheme: str) -> None:
    tr.config.update("jax_threefry_partitionable", SCHEMES[scheme])
    failures = []
    for i, case in enumerate(GOLDEN["schemes"][scheme]):
        try:
            assert_matches(case, run_case(case))
        except AssertionError as err:
            failures.append(f"{i} {case['fn']} seed={case['seed']} args={case['args']}: {err}")
    assert not failures, "\n".join(failures[:20]) + f"\n({len(failures)} failures)"


@pytest.mark.parametrize("scheme", list(SCHEMES))
def test_normal_is_exact_almost_everywhere(scheme: str) -> None:
    tr.config.update("jax_threefry_partitionable", SCHEMES[scheme])
    cases = [c for c in GOLDEN["schemes"][scheme] if c["fn"] == "normal"]
    total = same = 0
    for case in cases:
        got = np.asarray(run_case(case))
        want = expected(case)
        if want.dtype.kind == "c":
            continue
        total += want.size
        same += int((got == want).sum())
        assert (ulp_distance(got, want) <= 4).all()
    assert total > 1000
    assert same / total > 0.97


@pytest.mark.parametrize("scheme", list(SCHEMES))
def test_golden_x64_cases(scheme: str) -> None:
    tr.config.update("jax_enable_x64", True)
    tr.config.update("jax_threefry_partitionable", SCHEMES[scheme])
    cases = GOLDEN["x64"][scheme]
    assert cases
    for case in cases:
        assert_matches(case, run_case(case))
