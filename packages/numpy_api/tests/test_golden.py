"""Every case of ``golden/cases.py`` against JAX 0.10.2's recorded answers and NumPy's shapes."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tessela_numpy as tnp
from cases import CASES, ERRORS, Case, parse_input
from tessela_tracer import ShapeDtypeStruct, eval_shape, make_jaxpr

# Gaps that need tessela_tracer changes (see the package README, "Known gaps").
_BF16 = "tessela_tracer dtypes: issubdtype on bfloat16 raises inside lax rules"
_PRIM = "needs the {} primitive in tessela_tracer.lax (JAX 0.10.2 binds it)"
EVAL_GAPS = dict.fromkeys(
    ["promote_u8_bf16", "weak_int_bf16", "weak_bool_bf16", "weak_float_bf16"], _BF16
)
JAXPR_GAPS = {
    "stack": _PRIM.format("stack"),
    "split_n": _PRIM.format("split"),
    "tile": _PRIM.format("tile"),
    "pad_const": "JAX prints NumPy int64 pad widths as np.int64(1); tessela_tracer prints 1",
}


def _gap(cases: list[Case], gaps: dict[str, str]) -> list[Any]:
    return [
        pytest.param(c, id=c.name, marks=pytest.mark.xfail(reason=gaps[c.name]))
        if c.name in gaps
        else pytest.param(c, id=c.name)
        for c in cases
    ]


def _structs(c: Case) -> list[ShapeDtypeStruct]:
    out = []
    for spec in c.inputs:
        shape, dtype = parse_input(spec)
        out.append(
            ShapeDtypeStruct(shape, tnp.dtype(dtype) if dtype != "bfloat16" else tnp.bfloat16)
        )
    return out


def _flat(tree: Any) -> list[Any]:
    if isinstance(tree, list | tuple):
        return [leaf for t in tree for leaf in _flat(t)]
    return [tree]


@pytest.mark.parametrize("case", _gap(CASES, EVAL_GAPS))
def test_eval_shape_matches_jax(case: Case, golden: dict[str, Any]) -> None:
    expected = golden["cases"][case.name]["outputs"]
    got = _flat(eval_shape(case.build(tnp), *_structs(case)))
    assert [
        {"shape": list(g.shape), "dtype": str(np.dtype(g.dtype)), "weak_type": bool(g.weak_type)}
        for g in got
    ] == expected


NUMPY_CASES = [c for c in CASES if c.numpy and c.name not in EVAL_GAPS]


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


@pytest.mark.parametrize("case", _gap(JAXPR_CASES, JAXPR_GAPS))
def test_jaxpr_text_matches_jax(case: Case, golden: dict[str, Any]) -> None:
    assert str(make_jaxpr(case.build(tnp))(*_structs(case))) == golden["cases"][case.name]["jaxpr"]


@pytest.mark.parametrize("case", ERRORS, ids=[c.name for c in ERRORS])
def test_error_class_matches_jax(case: Case, golden: dict[str, Any]) -> None:
    expected = golden["errors"][case.name]
    with pytest.raises(Exception) as info:
        make_jaxpr(case.build(tnp))(*_structs(case))
    assert expected["type"] in [k.__name__ for k in type(info.value).__mro__]


# Errors whose first message line is JAX's word for word.
SAME_MESSAGE = [
    "list_to_sum",
    "list_to_add",
    "tuple_to_reshape",
    "list_to_dot",
    "bad_axis",
    "float_index",
    "too_many_indices",
    "item_assignment",
    "bad_split",
    "traced_bool_index",
    "bad_reshape",
]


@pytest.mark.parametrize("name", SAME_MESSAGE)
def test_error_message_matches_jax(name: str, golden: dict[str, Any]) -> None:
    (case,) = [c for c in ERRORS if c.name == name]
    with pytest.raises(Exception) as info:
        make_jaxpr(case.build(tnp))(*_structs(case))
    assert str(info.value).splitlines()[0] == golden["errors"][name]["message"]
