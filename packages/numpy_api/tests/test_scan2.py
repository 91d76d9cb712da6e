"""Weighted quantiles, the rest of ``pad`` and out-of-range numbers against JAX 0.10.2.

``golden/scan2.json`` (made by ``golden/generate_scan2.py`` under JAX) records,
for each case of ``golden/scan2_cases.py``, run eagerly and under ``jit`` with
its arrays traced, the exception class JAX raises or each output's dtype,
shape, weak type and values. Tessela must give the same, or raise an
exception of that class (or a subclass). The differences left are listed
below with their reason; a case that starts agreeing with JAX must leave the
list.
"""

from __future__ import annotations

import fnmatch
import json
import re
import warnings
from typing import Any

import pytest
import tessela_lowering  # noqa: F401  (eager execution)
import tessela_numpy as tnp
from conftest import GOLDEN_DIR
from scan2_cases import CASES
from scan_cases import mismatch
from tessela_tracer import jit

GOLDEN = json.loads((GOLDEN_DIR / "scan2.json").read_text())["cases"]
WAYS = ("eager", "jit")

# Cases (fnmatch patterns, with the way: "eager" or "jit") where Tessela
# knowingly differs, with the reason.
KNOWN: dict[str, str] = {
    "*quantile:icdf:f16@*": "float16 without weights: JAX multiplies its float32 q by the "
    "float16 total and fails (TypeError); Tessela computes in float16",
    "pad:*:bad_reflect_type@*": "an unknown reflect_type: JAX fails an internal assert "
    "(AssertionError); Tessela raises ValueError naming the two values",
    "pad:*:{'stat_length': -1}@*": "a negative stat_length: JAX slices with it; Tessela raises "
    "NumPy's ValueError",
    "pad:*:{'*': array(*": "a NumPy array of end_values or stat_length: JAX refuses the "
    "unhashable static argument (ValueError); Tessela reads it, as NumPy",
    "pad:empty_axis:linear_ramp:((0, 0), (1, 2))@*": "linear_ramp beside an empty axis: JAX "
    "fails slicing that axis' edge (TypeError); Tessela pads the other axis, as NumPy",
}


def _known(name: str, way: str) -> bool:
    key = f"{name}@{way}"
    return any(fnmatch.fnmatchcase(key, p) for p in KNOWN)


def _family(name: str) -> str:
    return ":".join(re.split(r":", name)[:2])


FAMILIES = sorted({_family(n) for n in CASES})


def _run(name: str, way: str) -> Any:
    f, args = CASES[name]
    if way == "eager":
        return f(tnp, *args)
    return jit(lambda *xs: f(tnp, *xs))(*args)


def _mismatch(name: str, way: str) -> str | None:
    return mismatch(lambda: _run(name, way), f"{name}@{way}", GOLDEN[name][way])


def test_golden_covers_every_case() -> None:
    assert set(GOLDEN) == set(CASES)


def test_known_differences_are_still_different() -> None:
    # A pattern that no longer matches a failing case must leave KNOWN.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for pattern in KNOWN:
            hits = [(n, w) for n in CASES for w in WAYS if fnmatch.fnmatchcase(f"{n}@{w}", pattern)]
            assert hits, f"KNOWN pattern {pattern!r} matches no case"
            assert any(_mismatch(n, w) for n, w in hits), f"{pattern!r} now agrees with JAX"


@pytest.mark.parametrize("family", FAMILIES)
def test_against_jax(family: str) -> None:
    failures = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in sorted(n for n in CASES if _family(n) == family):
            for way in WAYS:
                if _known(name, way):
                    continue
                problem = _mismatch(name, way)
                if problem:
                    failures.append(problem)
    assert not failures, "\n".join(failures)
