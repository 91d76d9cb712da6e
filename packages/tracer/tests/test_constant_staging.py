"""``lax.stage`` and the jaxpr trace's folding of ``convert_element_type``, against JAX.

``golden/constant_cast.json`` (made by ``golden/generate_constant_cast.py``
under JAX 0.10.2) records, for each case of ``golden/constant_cast_cases.py``
and with 64-bit types off and on: the jaxpr, whether the traced function saw a
tracer (and its abstract value) and the eager value. Under a trace a cast
constant is a literal tracer whose value NumPy's cast gives (``300.0`` to int8
is 44); eagerly XLA's conversion (127), computed on the host.
"""

from __future__ import annotations

import json
import pathlib
import sys
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest
from tessela_tracer import Tracer, config, lax, make_jaxpr
from tessela_tracer.extend import (
    JaxprTrace,
    JitTracer,
    Primitive,
    Trace,
    device_put_p,
    new_trace,
    set_current_trace,
    stage,
)
from tessela_tracer.primitives import convert_element_type_p

GOLDEN_DIR = pathlib.Path(__file__).parent / "golden"
sys.path.insert(0, str(GOLDEN_DIR))

from constant_cast_cases import CASTS, STAGES, outcomes  # noqa: E402

_DATA = json.loads((GOLDEN_DIR / "constant_cast.json").read_text())
MODES = ("x64_off", "x64_on")


@pytest.fixture(scope="module", params=MODES)
def ours(request: pytest.FixtureRequest) -> tuple[str, dict[str, Any]]:
    before = config.jax_enable_x64
    config.update("jax_enable_x64", request.param == "x64_on")
    try:
        return request.param, outcomes(lax, make_jaxpr, lambda v: isinstance(v, Tracer))
    finally:
        config.update("jax_enable_x64", before)


def test_every_case_recorded() -> None:
    names = set(CASTS) | set(STAGES)
    for mode in MODES:
        assert names <= set(_DATA[mode])


@pytest.mark.parametrize("name", sorted(_DATA["x64_off"]))
def test_matches_jax(name: str, ours: tuple[str, dict[str, Any]]) -> None:
    mode, got = ours
    want, have = dict(_DATA[mode][name]), dict(got[name])
    if name in STAGES:  # eagerly JAX's is an array; without a backend, the value itself
        assert have.pop("eager")["value"] == want.pop("eager")["value"]
    assert have == want


class _Forward(Trace):
    """A transformation that forwards primitives on constants, as a plugin does."""

    tracer_name = "ForwardTracer"

    def process_primitive(
        self, prim: Primitive, args: Sequence[object], params: dict[str, Any]
    ) -> Any:
        assert not any(self.owns(a) for a in args)
        assert self.parent is not None
        with set_current_trace(self.parent):
            return prim.bind(*args, **params)


def test_stage_reaches_the_jaxpr_trace_through_a_plugin_trace() -> None:
    seen: list[Any] = []

    def f() -> Any:
        with new_trace(_Forward()):
            seen.append(stage(np.arange(3, dtype=np.int32)))
            return stage(2.5), seen[0]

    closed = make_jaxpr(f)()
    assert str(closed) == "{ lambda a:i32[3]; . let  in (2.5:f32[], a) }"
    assert type(seen[0]) is JitTracer and not closed.jaxpr.eqns


def test_a_device_put_of_the_program_is_still_recorded() -> None:
    def f() -> Any:
        stage(1.0)
        return device_put_p.bind(2.0, devices=(None,), srcs=(None,), copy_semantics=(None,))

    closed = make_jaxpr(f)()
    assert [e.primitive for e in closed.jaxpr.eqns] == [device_put_p]


def test_stage_value_of_the_traces_own_tracer_and_an_outer_one() -> None:
    with new_trace(JaxprTrace()) as outer:
        x = outer.new_arg(lax.broadcast_in_dim(1.0, (2,), ()).aval)
        with new_trace(JaxprTrace()) as inner:
            y = inner.new_arg(x.aval)
            assert inner.stage_value(y) is y
            z = inner.stage_value(x)  # an enclosing trace's tracer: a constvar
            assert type(z) is JitTracer and inner.consts == [x]
        assert stage(x) is x  # a tracer comes back unchanged


def test_stage_without_a_trace_and_without_a_backend_gives_the_value() -> None:
    x = np.ones(2, np.float32)
    assert stage(x) is x
    assert stage(2.0) == 2.0


def test_the_fold_keeps_the_requested_weak_type() -> None:
    def f() -> Any:
        out = convert_element_type_p.bind(
            2.75, new_dtype=np.dtype(np.float16), weak_type=True, sharding=None
        )
        assert out.aval.weak_type
        return out

    closed = make_jaxpr(f)()
    assert str(closed) == "{ lambda ; . let  in (2.75:f16[],) }"


def test_a_traced_operand_is_not_folded() -> None:
    closed = make_jaxpr(lambda x: lax.convert_element_type(x, "int8"))(300.0)
    assert [e.primitive for e in closed.jaxpr.eqns] == [convert_element_type_p]
