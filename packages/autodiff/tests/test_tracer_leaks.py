"""No tracer outlives its trace when differentiating through higher-order primitives.

Every program of ``golden/leak_cases.py`` (cond, switch, scan, fori_loop,
while_loop, checkpoint, custom_jvp, custom_vjp, linear_call, jit) runs under
grad, jvp, vjp, linearize, and those under jit and vmap, with
``jax_check_tracer_leaks`` on, which raises ``Exception("Leaked trace ...")``
when a finished trace's tracer is still referenced. Each must give the
reference's values (with its own leak checker on), or refuse the program
with the reference's error class (reverse mode through a while_loop carry,
forward mode through a custom_vjp).

Regressions: partial evaluation once returned a staged jaxpr whose constants
were tracers of the trace that ran the known part, in the side value of that
trace, so they outlived it; the transpose of ``linear_call`` kept the
function's constants in the closure of the transposed equation's thunk. The
reference still does the latter (its entries say ``reference_leaks``): here
it must not leak, with the reference's values.
"""

from __future__ import annotations

import gc
import json
import os
import pathlib
import sys
import types
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
import tessela_tracer
from tessela_autodiff import grad, jvp, linearize, vjp
from tessela_autodiff._partial_eval import partial_eval_jaxpr
from tessela_batching import vmap
from tessela_tracer import ClosedJaxpr, checkpoint_policies, config, lax, make_jaxpr
from tessela_tracer import primitives as P
from tessela_tracer.extend import NamedCallable, get_aval, hoist_consts, trace_to_jaxpr

_HERE = pathlib.Path(__file__).resolve().parent / "golden"
sys.path.insert(0, str(_HERE))
import leak_cases  # noqa: E402

_DIR = pathlib.Path(os.environ.get("TESSELA_GOLDEN_DIR", _HERE))
_GOLDEN: dict[str, dict[str, Any]] = json.loads((_DIR / "leak_values.json").read_text())


def _linear_call(fun: Any, fun_transpose: Any, res: Any, lin: Any) -> Any:
    # linear_call on one residual and one linear array, bound as the public
    # linear_call does: the function's constants are operands, and the thunk
    # traces the transpose (which closes over nothing traced) when asked.
    avals = [get_aval(res), get_aval(lin)]
    callee, consts = hoist_consts(trace_to_jaxpr(lambda r, t: [fun(r, t)], avals))
    out_aval = callee.out_avals[0]

    def thunk() -> tuple[ClosedJaxpr, list[Any]]:
        traced = trace_to_jaxpr(lambda r, c: [fun_transpose(r, c)], [avals[0], out_aval])
        j, t_consts = hoist_consts(traced)
        return j, t_consts

    (out,) = P.linear_call_p.bind(
        *consts, res, lin, callee=callee, transpose_thunk=NamedCallable(thunk, "transpose"),
        num_callee_consts=len(consts), num_res=1,
    )  # fmt: skip
    return out


API = types.SimpleNamespace(
    lax=lax, jit=tessela_tracer.jit, vmap=vmap, checkpoint=tessela_tracer.checkpoint,
    policies=checkpoint_policies, custom_jvp=tessela_tracer.custom_jvp,
    custom_vjp=tessela_tracer.custom_vjp, linear_call=_linear_call, grad=grad, jvp=jvp,
    vjp=vjp, linearize=linearize,
)  # fmt: skip


# A closure of a function traced by a loop primitive directly under a jit trace
# (the scan body closing over the jitted function's argument) is kept by the
# tracer package's per-trace cache of traced bodies after that trace ends.


@pytest.fixture(autouse=True)
def _check_leaks() -> Iterator[None]:
    # The checker collects garbage as each trace ends; freezing what existed
    # before the test leaves it only the test's own objects to walk (a tracer
    # that nothing reachable from the transformation's frame holds is still
    # reported, wherever it is stored).
    before = config.read("jax_check_tracer_leaks")
    gc.collect()
    gc.freeze()
    config.update("jax_check_tracer_leaks", True)
    try:
        yield
    finally:
        config.update("jax_check_tracer_leaks", before)
        gc.unfreeze()


def test_golden_covers_every_case() -> None:
    assert {f"{p}|{t}" for p, t in leak_cases.cases()} == set(_GOLDEN)


def _cases() -> list[Any]:
    out = []
    for program, transform in sorted(leak_cases.cases()):
        out.append(pytest.param(program, transform, id=f"{program}-{transform}"))
    return out


@pytest.mark.parametrize(("program", "transform"), _cases())
def test_no_leak_and_reference_values(program: str, transform: str) -> None:
    got = leak_cases.run(API, program, transform)
    want = _GOLDEN[f"{program}|{transform}"]
    if "error" in want:
        assert got.get("error") == want["error"], got
        return
    assert "ok" in got, f"{program} under {transform} raised {got['error']}: {got['message']}"
    assert len(got["ok"]) == len(want["ok"])
    for g, w in zip(got["ok"], want["ok"], strict=True):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=2e-6, atol=1e-6)


def test_checker_is_on_here() -> None:
    # The fixture's checker does catch a tracer stored outside the traced function.
    kept: list[Any] = []

    def f(x: Any) -> Any:
        kept.append(x)
        return lax.sin(x)

    with pytest.raises(Exception, match="Leaked trace"):
        tessela_tracer.jit(grad(f))(leak_cases.X)


def test_partial_eval_jaxpr_returns_const_free_jaxprs() -> None:
    # The staged jaxpr takes the residuals as inputs; nothing of the trace
    # that computed them stays inside it.
    f = leak_cases.PROGRAMS["cond_closure"](API)
    closed = make_jaxpr(lambda x, t: jvp(f, (x,), (t,)))(leak_cases.X, leak_cases.T)
    known, consts, staged, out_uk, nres = partial_eval_jaxpr(closed, [False, True], False)
    assert staged.consts == () and not staged.jaxpr.constvars
    assert out_uk == [False, True]
    assert len(staged.jaxpr.invars) == nres + 1
    assert len(known.jaxpr.outvars) == 1 + nres
    assert len(known.jaxpr.invars) == len(consts) + 1
