"""What JAX rejects, tessela_numpy rejects: bad inputs against JAX 0.10.2's recorded classes.

``golden/rejects.json`` (made by ``golden/generate_rejects.py`` under JAX)
records, for each case of ``golden/reject_cases.py``, whether JAX returns or
which exception class it raises. Here each case is traced with Tessela's
``make_jaxpr`` and must do the same: return when JAX returns, raise an
exception whose class (or a base class) has JAX's class name otherwise. The
grid families are sampled with hypothesis.
"""

from __future__ import annotations

import json
import pathlib
from typing import Any

import pytest
import tessela_numpy as tnp
from cases import parse_input
from hypothesis import given, settings
from hypothesis import strategies as st
from reject_cases import ABORTS, GRIDS, NAMED, key_str
from tessela_tracer import ShapeDtypeStruct, make_jaxpr

GOLDEN = json.loads((pathlib.Path(__file__).parent / "golden" / "rejects.json").read_text())

# Where Tessela deliberately answers differently from JAX: the key, the class
# Tessela raises, and why.
DIFFERENT: dict[str, tuple[str, str]] = {
    # JAX's transpose reports an axis past the rank as a ValueError from its
    # axis check; so does Tessela (AxisError is a ValueError), same class.
}


def _structs(inputs: tuple[str, ...]) -> list[ShapeDtypeStruct]:
    out = []
    for spec in inputs:
        shape, dtype = parse_input(spec)
        out.append(ShapeDtypeStruct(shape, tnp.dtype(dtype)))
    return out


def _run(build: Any, inputs: tuple[str, ...]) -> BaseException | None:
    try:
        make_jaxpr(build(tnp))(*_structs(inputs))
    except Exception as e:
        return e
    return None


def _check(key: str, expected: str, err: BaseException | None) -> None:
    if key in DIFFERENT:
        expected = DIFFERENT[key][0]
    if expected == "ok":
        assert err is None, f"{key}: JAX returns, Tessela raised {err!r}"
        return
    if expected == "abort":
        # JAX dies inside XLA; Tessela refuses the shape first.
        expected = "ValueError"
    assert err is not None, f"{key}: JAX raises {expected}, Tessela returned"
    names = [k.__name__ for k in type(err).__mro__]
    assert expected in names, f"{key}: JAX raises {expected}, Tessela raised {err!r}"
    # A message that says what went wrong, not an internal error's.
    assert type(err).__module__.split(".")[0] in ("builtins", "tessela_tracer", "tessela_numpy",
                                                  "numpy"), repr(err)  # fmt: skip


@pytest.mark.parametrize("name", sorted(NAMED))
def test_named_case_matches_jax(name: str) -> None:
    build, inputs = NAMED[name]
    _check(name, GOLDEN["named"][name], _run(build, inputs))


def test_aborts_are_recorded_and_refused_with_a_clear_message() -> None:
    for name in ABORTS:
        assert GOLDEN["named"][name] == "abort"
        err = _run(*NAMED[name])
        assert isinstance(err, ValueError) and "array is too big" in str(err), (name, err)
        assert "smaller shape" in str(err)


def test_golden_covers_every_grid_point() -> None:
    for family, (points, _) in GRIDS.items():
        assert {key_str(k) for k in points()} == set(GOLDEN["grids"][family]), family


def _grid_test(family: str) -> Any:
    points, make = GRIDS[family]
    keys = list(points())

    @settings(max_examples=min(150, len(keys)), deadline=None)
    @given(st.sampled_from(keys))
    def test(key: tuple[Any, ...]) -> None:
        build, inputs = make(key)
        ks = key_str(key)
        _check(f"{family}:{ks}", GOLDEN["grids"][family][ks], _run(build, inputs))

    test.__name__ = f"test_{family}_grid_matches_jax"
    return test


for _family in GRIDS:
    globals()[f"test_{_family}_grid_matches_jax"] = _grid_test(_family)


@pytest.mark.parametrize(
    ("build", "text"),
    [
        (lambda: tnp.array([300], dtype=tnp.uint8), "out of bounds for uint8"),
        (lambda: tnp.zeros(3, dtype=object), "dtype=<class 'object'>"),
        (lambda: tnp.zeros((-1, 2)), "must be >= 0"),
        (lambda: tnp.full((2,), tnp.ones(3)), "broadcasts to shape (2,)"),
        (lambda: tnp.arange(0, 10, 0), "pass a nonzero step"),
        (lambda: tnp.eye(-1), "N >= 0"),
    ],
)
def test_messages_name_the_argument_and_the_fix(build: Any, text: str) -> None:
    with pytest.raises(Exception, match=None) as info:
        make_jaxpr(build)()
    assert text in str(info.value)
