"""What JAX rejects, tessela_autodiff rejects: bad arguments against JAX 0.10.2's classes.

``golden/rejects.json`` (made by ``golden/generate_rejects.py`` under JAX)
records, for each case of ``golden/reject_cases.py``, whether JAX returns or
which exception class it raises, and what some calls return. Here each case
runs eagerly on Tessela and must do the same: return when JAX returns, raise
an exception whose class (or a base class) has JAX's class name otherwise.
The grid families are sampled with hypothesis.
"""

from __future__ import annotations

import json
import pathlib
import sys
from typing import Any

import pytest
import tessela_autodiff as ad
from hypothesis import given, settings
from hypothesis import strategies as st
from tessela_pytree import tree_leaves
from tessela_tracer import ArrayOps, lax
from tessela_tracer.dtypes import float0

_HERE = pathlib.Path(__file__).resolve().parent / "golden"
sys.path.insert(0, str(_HERE))
from reject_cases import GRIDS, NAMED, RESULTS, describe, key_str, namespace  # noqa: E402

GOLDEN = json.loads((_HERE / "rejects.json").read_text())

AD = namespace(ad, lax, float0)


def _run(build: Any) -> BaseException | None:
    try:
        build(AD)()
    except Exception as e:
        return e
    return None


def _check(key: str, expected: str, err: BaseException | None) -> None:
    if expected == "ok":
        assert err is None, f"{key}: JAX returns, Tessela raised {err!r}"
        return
    assert err is not None, f"{key}: JAX raises {expected}, Tessela returned"
    names = [k.__name__ for k in type(err).__mro__]
    assert expected in names, f"{key}: JAX raises {expected}, Tessela raised {err!r}"


@pytest.mark.parametrize("name", sorted(NAMED))
def test_named_case_matches_jax(name: str) -> None:
    _check(name, GOLDEN["named"][name], _run(NAMED[name]))


@pytest.mark.parametrize("name", sorted(RESULTS))
def test_returned_leaves_match_jax(name: str) -> None:
    got = describe(tree_leaves(RESULTS[name](AD)()), ArrayOps)
    assert got == GOLDEN["results"][name]


def test_golden_covers_every_grid_point() -> None:
    for family, (points, _) in GRIDS.items():
        assert {key_str(k) for k in points()} == set(GOLDEN["grids"][family]), family


def _grid_test(family: str) -> Any:
    points, make = GRIDS[family]
    keys = list(points())

    @settings(max_examples=min(60, len(keys)), deadline=None, database=None)
    @given(st.sampled_from(keys))
    def test(key: tuple[Any, ...]) -> None:
        ks = key_str(key)
        _check(f"{family}:{ks}", GOLDEN["grids"][family][ks], _run(make(key)))

    test.__name__ = f"test_{family}_grid_matches_jax"
    return test


for _family in GRIDS:
    globals()[f"test_{_family}_grid_matches_jax"] = _grid_test(_family)


def test_not_callable_message_names_the_argument_and_the_fix() -> None:
    with pytest.raises(TypeError, match="Expected a callable value, got 3") as info:
        ad.grad(3)
    assert "pass the function itself" in str(info.value)
