"""Every case of ``golden/cases.py`` against JAX 0.10.2's recorded answers and NumPy's shapes."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tessela_numpy as tnp
from cases import CASES, ERRORS, Case, parse_input
from tessela_tracer import ShapeDtypeStruct, eval_shape, make_jaxpr

# Gaps that need tessela_tracer changes (see the package README, "Known gaps").
EVAL_GAPS: dict[str, str] = {}
_ALGO = "same values, a different primitive sequence than JAX's ({})"
JAXPR_GAPS = {
    "array_of_tracer": "JAX binds a copy primitive, which tessela_tracer does not define",
    **dict.fromkeys(
        ["pad_const", "pad_pairs_value"],
        "JAX prints NumPy int64 pad widths as np.int64(1); tessela_tracer prints 1",
    ),
    "u_sinc_f32": _ALGO.format("JAX wraps a Maclaurin series in custom_jvp"),
    "b_logaddexp_ff": _ALGO.format("JAX wraps it in custom_jvp"),
    "b_logaddexp2_ff": _ALGO.format("JAX wraps it in custom_jvp"),
    "b_hypot_ff": _ALGO.format("operation order of the scaled form"),
    "b_ldexp": _ALGO.format("JAX goes through frexp"),
    "b_gcd_ii": _ALGO.format("loop body layout"),
    "b_lcm_ii": _ALGO.format("loop body layout"),
    "reshape_order_f": _ALGO.format("transposes around the reshape"),
    "pad_edge": _ALGO.format("edge padding by slices and concatenation"),
    "pad_reflect": _ALGO.format("reflect padding by slices and concatenation"),
    "pad_wrap": _ALGO.format("wrap padding by slices and concatenation"),
    "repeat_list": _ALGO.format("array repeats by cumsum and gather"),
    "einsum_trace": _ALGO.format("diagonals by iota masks"),
    "einsum_diag": _ALGO.format("diagonals by iota masks"),
    "einsum_chain": _ALGO.format("left-to-right contraction order; JAX asks opt_einsum"),
}


def _gap(cases: list[Case], gaps: dict[str, str]) -> list[Any]:
    return [
        pytest.param(c, id=c.name, marks=pytest.mark.xfail(strict=True, reason=gaps[c.name]))
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
