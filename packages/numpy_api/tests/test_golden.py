"""Every case of ``golden/cases.py`` against JAX 0.10.2's recorded answers and NumPy's shapes."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from cases import CASES, ERRORS, Case, parse_input
from tessela_tracer import ShapeDtypeStruct, eval_shape, make_jaxpr

import tessela_numpy as tnp


def _structs(c: Case) -> list[ShapeDtypeStruct]:
    out = []
    for spec in c.inputs:
        shape, dtype = parse_input(spec)
        out.append(ShapeDtypeStruct(shape, tnp.dtype(dtype) if dtype != "bfloat16" else tnp.bfloat16))
    return out


def _flat(tree: Any) -> list[Any]:
    if isinstance(tree, list | tuple):
        return [leaf for t in tree for leaf in _flat(t)]
    return [tree]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_eval_shape_matches_jax(case: Case, golden: dict[str, Any]) -> None:
    expected = golden["cases"][case.name]["outputs"]
    got = _flat(eval_shape(case.build(tnp), *_structs(case)))
    assert [
        {"shape": list(g.shape), "dtype": str(np.dtype(g.dtype)), "weak_type": bool(g.weak_type)}
        for g in got
    ] == expected


NUMPY_CASES = [c for c in CASES if c.numpy]


@pytest.mark.parametrize("case", NUMPY_CASES, ids=[c.name for c in NUMPY_CASES])
def test_shapes_match_numpy(case: Case, golden: dict[str, Any]) -> None:
    arrays = []
    for spec in case.inputs:
        shape, dtype = parse_input(spec)
        arrays.append(np.ones(shape, "float32" if dtype == "bfloat16" else dtype))
    with np.errstate(all="ignore"):
        expected = [np.shape(x) for x in _flat(case.build(np)(*arrays))]
    got = [tuple(g.shape) for g in _flat(eval_shape(case.build(tnp), *_structs(case)))]
    assert got == expected
    assert [tuple(o["shape"]) for o in golden["cases"][case.name]["outputs"]] == expected


JAXPR_CASES = [c for c in CASES if c.jaxpr]


@pytest.mark.parametrize("case", JAXPR_CASES, ids=[c.name for c in JAXPR_CASES])
def test_jaxpr_text_matches_jax(case: Case, golden: dict[str, Any]) -> None:
    assert str(make_jaxpr(case.build(tnp))(*_structs(case))) == golden["cases"][case.name]["jaxpr"]


@pytest.mark.parametrize("case", ERRORS, ids=[c.name for c in ERRORS])
def test_error_class_matches_jax(case: Case, golden: dict[str, Any]) -> None:
    expected = golden["errors"][case.name]
    with pytest.raises(Exception) as info:
        make_jaxpr(case.build(tnp))(*_structs(case))
    assert expected["type"] in [k.__name__ for k in type(info.value).__mro__]
