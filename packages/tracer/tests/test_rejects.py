"""What JAX rejects, ``tessela_tracer.lax`` rejects: bad inputs against JAX 0.10.2's classes.

``golden/rejects.json`` (made by ``golden/generate_rejects.py`` under JAX)
records, for each case of ``golden/reject_cases.py``, whether ``jax.lax``
returns or which exception class it raises. Here each case is traced with
Tessela's ``make_jaxpr`` and must do the same: return when JAX returns, raise
an exception whose class (or a base class) has JAX's class name otherwise.
For the families JAX also ran eagerly, a case JAX traces but fails to run
(its lowering refuses a negative axis of ``reduce_and``) must raise that
failure's class while tracing. The grid families are sampled with hypothesis.
"""

from __future__ import annotations

import json
import math
import pathlib
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reject_cases import ABORTS, EAGER_FAMILIES, GRIDS, NAMED, key_str, parse_input
from tessela_tracer import ShapeDtypeStruct, lax, make_jaxpr

GOLDEN = json.loads((pathlib.Path(__file__).parent / "golden" / "rejects.json").read_text())


def _tessela_differs(family: str, key: tuple[Any, ...]) -> str | None:
    """Tessela's class where it deliberately refuses what JAX accepts when tracing."""
    if family == "reshape":
        (sizes,) = key
        if min(sizes) >= 0 and math.prod(sizes) != 6:
            # JAX traces a size-changing lax.reshape and fails only when lowering
            # it (an MLIR verifier error); Tessela refuses it while tracing, with
            # the class of jnp.reshape's size check.
            return "TypeError"
    return None


def _expected(family: str, key: tuple[Any, ...]) -> str:
    ks = key_str(key)
    traced: str = _tessela_differs(family, key) or GOLDEN["grids"][family][ks]
    if traced == "ok" and family in EAGER_FAMILIES:
        # Tessela refuses while tracing what JAX refuses only when it runs.
        ran: str = GOLDEN["eager"][family][ks]
        return ran
    return traced


def _run(build: Any, inputs: tuple[str, ...]) -> BaseException | None:
    structs = [ShapeDtypeStruct(*parse_input(s)) for s in inputs]
    try:
        make_jaxpr(build(lax))(*structs)
    except Exception as e:
        return e
    return None


def _check(key: str, expected: str, err: BaseException | None) -> None:
    if expected == "ok":
        assert err is None, f"{key}: JAX returns, Tessela raised {err!r}"
        return
    if expected == "abort":
        # JAX dies inside XLA; Tessela refuses the shape first.
        expected = "ValueError"
    assert err is not None, f"{key}: JAX raises {expected}, Tessela returned"
    names = [k.__name__ for k in type(err).__mro__]
    assert expected in names, f"{key}: JAX raises {expected}, Tessela raised {err!r}"
    assert type(err).__module__ in ("builtins", "tessela_tracer._errors"), repr(err)


@pytest.mark.parametrize("name", sorted(NAMED))
def test_named_case_matches_jax(name: str) -> None:
    build, inputs = NAMED[name]
    _check(name, GOLDEN["named"][name], _run(build, inputs))


def test_aborts_are_recorded_and_refused_with_a_clear_message() -> None:
    for name in ABORTS:
        assert GOLDEN["named"][name] == "abort"
        err = _run(*NAMED[name])
        assert isinstance(err, ValueError), (name, err)
        assert "array is too big" in str(err) and "smaller shape" in str(err)


def test_golden_covers_every_grid_point() -> None:
    for family, (points, _) in GRIDS.items():
        assert {key_str(k) for k in points()} == set(GOLDEN["grids"][family]), family
    for family in EAGER_FAMILIES:
        points, _ = GRIDS[family]
        assert {key_str(k) for k in points()} == set(GOLDEN["eager"][family]), family


def _grid_test(family: str) -> Any:
    points, make = GRIDS[family]
    keys = list(points())

    @settings(max_examples=min(100, len(keys)), deadline=None, database=None)
    @given(st.sampled_from(keys))
    def test(key: tuple[Any, ...]) -> None:
        build, inputs = make(key)
        _check(f"{family}:{key_str(key)}", _expected(family, key), _run(build, inputs))

    test.__name__ = f"test_{family}_grid_matches_jax"
    return test


for _family in GRIDS:
    globals()[f"test_{_family}_grid_matches_jax"] = _grid_test(_family)


def test_deliberate_differences_are_what_jax_traces() -> None:
    # Each deliberate difference is a point JAX accepts when tracing.
    points, _ = GRIDS["reshape"]
    differing = [k for k in points() if _tessela_differs("reshape", k)]
    assert differing
    assert all(GOLDEN["grids"]["reshape"][key_str(k)] == "ok" for k in differing)


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("dot_same_shapes", "use lax.dot_general with dimension_numbers"),
        ("dynamic_slice_rank", "one scalar index per dimension"),
        ("iota_negative", "pass sizes >= 0"),
        ("iota_bool", "convert the result"),
    ],
)
def test_messages_name_the_argument_and_the_fix(name: str, text: str) -> None:
    err = _run(*NAMED[name])
    assert err is not None and text in str(err)


def test_every_elementwise_operation_takes_the_operand_kinds_jax_takes() -> None:
    # Each operation against each operand kind: an operation that takes a
    # kind JAX refuses can reach XLA with it (``rem`` of complex operands
    # crashed the process there).
    points, make = GRIDS["elementwise"]
    for key in points():
        _check(f"elementwise:{key_str(key)}", GOLDEN["grids"]["elementwise"][key_str(key)],
               _run(*make(key)))  # fmt: skip


def test_every_reduction_takes_the_axes_jax_takes() -> None:
    # Every point, not a sample: a negative axis counted from the end by one
    # reducer (and not by JAX's) is a single point of the grid.
    points, make = GRIDS["reduction_axes"]
    for key in points():
        _check(f"reduction_axes:{key_str(key)}", _expected("reduction_axes", key), _run(*make(key)))


def test_eager_failures_of_traced_reductions_are_lowering_refusals() -> None:
    # JAX traces these and refuses them only when lowering (a ValueError);
    # nothing JAX refuses while tracing is taken from the eager run instead.
    grid, eager = GOLDEN["grids"]["reduction_axes"], GOLDEN["eager"]["reduction_axes"]
    moved = {k: eager[k] for k, v in grid.items() if v == "ok" and eager[k] != "ok"}
    assert moved and set(moved.values()) == {"ValueError"}
    assert all(eager[k] == v for k, v in grid.items() if v != "ok")


_FIX = "write a negative axis as axis + ndim"


@pytest.mark.parametrize(
    ("reducer", "axes", "texts"),
    [
        ("reduce_sum", (-1,), ("axes (-1,) contains out-of-bounds indices for float32[2,3]", _FIX)),
        (
            "reduce_max",
            (1, 1),
            ("duplicate value in 'axes' of reduction: (1, 1)", "each axis once"),
        ),
        ("reduce_and", (-1,), ("axes (-1,) contains out-of-bounds indices for bool[2,3]", _FIX)),
        ("reduce_or", (2,), ("axis 2 of axes (2,) is out of bounds for bool[2,3]", _FIX)),
    ],
)
def test_reduction_axis_messages_give_the_fix(
    reducer: str, axes: tuple[int, ...], texts: tuple[str, str]
) -> None:
    dtype = np.bool_ if reducer in ("reduce_and", "reduce_or") else np.float32
    x = ShapeDtypeStruct((2, 3), np.dtype(dtype))
    with pytest.raises((ValueError, IndexError)) as info:
        make_jaxpr(lambda v: getattr(lax, reducer)(v, axes))(x)
    assert all(t in str(info.value) for t in texts), info.value
