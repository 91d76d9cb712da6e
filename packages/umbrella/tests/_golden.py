"""What the tests that compare with the reference's golden files share.

The files in ``golden/`` come in threes: ``<topic>_cases.py`` runs the cases
through either implementation, ``generate_<topic>.py`` wrote the reference's
side, and a test here compares. :func:`cases_module` imports a cases module,
:func:`load_npz`/:func:`load_json` read a golden file, and
:func:`golden_tests` makes the two tests every comparison has (no case is
missing; each case matches) around a ``compare`` function.
"""

from __future__ import annotations

import functools
import importlib
import json
import pathlib
import sys
from collections.abc import Callable, Mapping
from types import ModuleType
from typing import Any

import numpy as np
import pytest

GOLDEN_DIR = pathlib.Path(__file__).resolve().parent / "golden"

Compare = Callable[[str, np.ndarray, np.ndarray], None]


def cases_module(name: str) -> ModuleType:
    """``golden/<name>.py``, imported (its folder is put on ``sys.path`` once)."""
    if str(GOLDEN_DIR) not in sys.path:
        sys.path.insert(0, str(GOLDEN_DIR))
    return importlib.import_module(name)


def load_npz(filename: str) -> dict[str, np.ndarray]:
    """Every array of ``golden/<filename>``, by name."""
    with np.load(GOLDEN_DIR / filename) as data:
        return {name: data[name] for name in data.files}


def load_json(filename: str) -> Any:
    """The content of ``golden/<filename>``."""
    return json.loads((GOLDEN_DIR / filename).read_text())


def golden_tests(
    compute: Callable[[], Mapping[str, Any]], golden: Mapping[str, np.ndarray], compare: Compare
) -> tuple[Callable[[], None], Callable[[str], None]]:
    """A test that every case was recorded, and one (per case) that it matches.

    Args:
        compute: runs every case once (called at the first test, then cached).
        golden: the reference's arrays, by case name.
        compare: ``compare(name, got, want)`` asserts that one case matches.

    Returns:
        The two test functions, to be bound to ``test_*`` names of the module.
    """
    results = functools.cache(compute)

    def every_case_was_recorded() -> None:
        assert sorted(results()) == sorted(golden)

    @pytest.mark.parametrize("name", sorted(golden))
    def case_matches(name: str) -> None:
        compare(name, np.asarray(results()[name]), golden[name])

    return every_case_was_recorded, case_matches


def same_layout(name: str, got: np.ndarray, want: np.ndarray) -> bool:
    """Assert equal shapes and dtypes, and equal values for integers and booleans.

    Returns:
        Whether values are left to compare (``want`` is inexact).
    """
    assert got.shape == want.shape, (name, got.shape, want.shape)
    assert got.dtype == want.dtype, (name, got.dtype, want.dtype)
    if want.dtype.kind in "biu":
        np.testing.assert_array_equal(got, want, err_msg=name)
        return False
    return True


def allclose(rtol: float, atol: float) -> Compare:
    """A ``compare``: same layout, then floats within ``rtol`` and ``atol``."""

    def compare(name: str, got: np.ndarray, want: np.ndarray) -> None:
        if same_layout(name, got, want):
            np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg=name)

    return compare


def scaled_close(loose: Mapping[str, float], rtol: float = 4e-6) -> Compare:
    """A ``compare``: same layout, then floats within ``rtol`` (``loose[name]`` where given)
    of the value, or of the case's largest finite magnitude (at least 1) near zero."""

    def compare(name: str, got: np.ndarray, want: np.ndarray) -> None:
        if same_layout(name, got, want):
            tol = loose.get(name, rtol)
            finite = np.abs(want[np.isfinite(want)])
            scale = max(1.0, float(finite.max(initial=0.0)))
            np.testing.assert_allclose(got, want, rtol=tol, atol=tol * scale, err_msg=name)

    return compare
