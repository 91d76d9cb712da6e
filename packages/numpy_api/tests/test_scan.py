"""Keyword arguments, creation, shape and indexing functions against JAX 0.10.2.

``golden/scan.json`` (made by ``golden/generate_scan.py`` under JAX) records,
for each case of ``golden/scan_cases.py``, the exception class JAX raises or
each output's dtype, shape, weak type and values. Tessela must give the same,
or raise an exception of that class (or a subclass: NumPy's ``AxisError`` is
both a ``ValueError`` and an ``IndexError``). The differences left are listed
below with their reason; a case that starts agreeing with JAX must leave the
list.
"""

from __future__ import annotations

import fnmatch
import json
import re
import warnings
from typing import Any

import numpy as np
import pytest
import tessela_lowering  # noqa: F401  (eager execution)
import tessela_numpy as tnp
from conftest import GOLDEN_DIR
from scan_cases import CASES, mismatch

GOLDEN = json.loads((GOLDEN_DIR / "scan.json").read_text())["cases"]

# Cases (fnmatch patterns) where Tessela knowingly differs, with the reason.
KNOWN: dict[str, str] = {
    "*argm*:c:*": "argmax/argmin of complex operands: Tessela orders them as NumPy; JAX refuses",
    "median:empty*": "median of an empty slice: Tessela gives NumPy's NaN; JAX fails in its gather",
    "nanmedian:empty*": "nanmedian of an empty slice: Tessela gives NaN; JAX fails in its gather",
    "average:list": "a list operand: both refuse it, JAX with a tracer conversion error",
    "nanvar:f16:dtype=int32": "float16 with an integer dtype: Tessela's exact integer, JAX's rounded",
    # Python floats outside the dtype (ValueError for NaN to an integer): JAX
    # converts as XLA does, differently eagerly and under jit.
    "full:nan:int32": "NaN to an integer",
    "*:u8:initial_ax": "initial=-1.5 on unsigned integers",
    "arange(5, 1, -1.5):uint8": "a fractional negative step in an unsigned dtype",
    # Split indices: Tessela follows NumPy (negative ones count from the end,
    # those past the axis are clipped); JAX refuses them.
    "split:[-1]:2": "NumPy's split indices",
    "split:[5, 8]:2": "NumPy's split indices",
    "array_split:[-1]:2": "NumPy's split indices",
    "array_split:[5, 8]:2": "NumPy's split indices",
    "moveaxis:(0, 1):(1, 1)": "a repeated destination axis: Tessela raises NumPy's ValueError; JAX "
    "returns a transpose",
    "tile:(-1,)": "a negative count: Tessela raises ValueError; JAX fails inside XLA (MLIRError)",
}


def _known(name: str) -> bool:
    return name in KNOWN or any(fnmatch.fnmatchcase(name, p) for p in KNOWN)


def _family(name: str) -> str:
    return re.split(r"[:(]", name, maxsplit=1)[0]


FAMILIES = sorted({_family(n) for n in CASES})


def _mismatch(name: str, want: Any) -> str | None:
    return mismatch(lambda: CASES[name](tnp), name, want)


def test_golden_covers_every_case() -> None:
    assert set(GOLDEN) == set(CASES)


@pytest.mark.parametrize("family", FAMILIES)
def test_against_jax(family: str) -> None:
    failures = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in sorted(n for n in CASES if _family(n) == family):
            if _known(name):
                continue
            problem = _mismatch(name, GOLDEN[name])
            if problem:
                failures.append(problem)
    assert not failures, "\n".join(failures)


def test_median_of_an_empty_slice_is_nan() -> None:
    # JAX 0.10.2 fails here (KNOWN above); NumPy's NaN is the answer.
    empty = np.zeros((0, 3), np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for axis in (0, None):
            want = np.median(empty, axis=axis)
            np.testing.assert_array_equal(np.asarray(tnp.median(empty, axis=axis)), want)
            got = tnp.quantile(empty, np.array([0.2, 0.5]), axis=axis)
            assert np.isnan(np.asarray(got)).all()
