"""The public plugin API of ``tessela_tracer.extend``: what a transformation needs.

A small "record" transformation built only on public names checks tracer
construction, trace identity, naming in reprs and errors, the generic
``new_trace``, sub-jaxpr access, argument flattening, the errors of primitives
without an implementation, and that ``extend`` holds exactly what the README
lists.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import tessela_tracer as tt
from tessela_pytree import tree_unflatten
from tessela_tracer import extend, lax, primitives
from tessela_tracer.errors import TracerBoolConversionError, UnexpectedTracerError
from tessela_tracer.extend import (
    DebugInfo,
    LinearSolveTuple,
    Primitive,
    ShapedArray,
    Trace,
    Tracer,
    debug_info_for,
    eval_jaxpr,
    flatten_args,
    get_aval_of,
    new_trace,
    register_abstract_eval,
    replace_subjaxprs,
    set_current_trace,
    subjaxprs,
    trace_of,
    trace_pytree_fun,
)

README = Path(__file__).resolve().parents[1] / "README.md"
# Shared between runs: a warm cache checks the snippet in a fraction of a second.
MYPY_CACHE = Path(tempfile.gettempdir()) / "tessela-tracer-mypy-cache"

# ----------------------------------------------------------------- a plugin


class RecTracer(Tracer):
    __slots__ = ("val",)

    def __init__(self, trace: RecTrace, val: Any) -> None:
        super().__init__(trace)
        self.val = val

    @property
    def aval(self) -> ShapedArray:
        return get_aval_of(self.val)


class RecTrace(Trace):
    """Records primitive names; a value of its tracers is never concrete."""

    tracer_name = "RecTracer"

    def __init__(self, debug_info: DebugInfo) -> None:
        super().__init__()
        self.debug_info = debug_info
        self.seen: list[str] = []

    def unwrap(self, x: Any) -> Any:
        return x.val if isinstance(x, RecTracer) and self.owns(x) else x

    def process_primitive(self, prim: Any, args: Sequence[Any], params: dict[str, Any]) -> Any:
        self.seen.append(prim.name)
        vals = [self.unwrap(a) for a in args]
        assert self.parent is not None
        with set_current_trace(self.parent):
            out = prim.bind(*vals, **params)
        return [RecTracer(self, o) for o in out] if prim.multiple_results else RecTracer(self, out)

    def describe_function(self) -> str:
        return f"{self.debug_info.func_src_info} traced for {self.debug_info.traced_for}"

    def describe_provenance(self, tracer: Any) -> str:
        return f"The error occurred while tracing {self.describe_function()}."


def record(fun: Callable[..., Any]) -> Callable[..., Any]:
    def wrapped(*args: Any) -> tuple[Any, list[str]]:
        info = debug_info_for("record", fun, args, {})
        with new_trace(RecTrace(info)) as trace:
            out = fun(*[RecTracer(trace, a) for a in args])
            return trace.unwrap(out), trace.seen

    return wrapped


X = np.arange(3, dtype=np.float32)


# ----------------------------------------------------------------- tracers and traces


def test_tracer_belongs_to_the_trace_it_was_made_with() -> None:
    with new_trace(RecTrace(debug_info_for("record", abs, (1,), {}))) as trace:
        x = RecTracer(trace, X)
        other = RecTrace(trace.debug_info)
        assert trace_of(x) is trace
        assert trace.owns(x) and not other.owns(x)
        assert not trace.owns(X) and trace_of(X) is None
        assert repr(x) == "RecTracer<float32[3]>"


def test_record_composes_with_staging() -> None:
    closed = tt.make_jaxpr(lambda x: record(lambda y: lax.sin(lax.mul(y, 2.0)))(x)[0])(X)
    assert [e.primitive.name for e in closed.eqns] == ["mul", "sin"]
    seen: list[list[str]] = []

    def outer(x: Any) -> Any:
        out, names = record(tt.jit(lax.sin))(x)
        seen.append(names)
        assert not isinstance(out, RecTracer)
        return out

    closed = tt.make_jaxpr(outer)(X)
    assert seen == [["jit"]] and [e.primitive.name for e in closed.eqns] == ["jit"]


def f_branches(x: Any) -> Any:
    return lax.sin(x) if lax.gt(x, 0.0) else lax.cos(x)


def test_bool_conversion_error_names_the_transformation_and_function() -> None:
    with pytest.raises(TracerBoolConversionError) as info:
        tt.make_jaxpr(lambda x: record(f_branches)(x)[0])(1.0)
    msg = str(info.value)
    assert "traced for record" in msg
    assert "f_branches at" in msg and "test_plugin_api.py" in msg


def test_escaped_tracer_error_names_the_function() -> None:
    box: list[Any] = []

    def leak(x: Any) -> Any:
        box.append(x)
        return x

    tt.make_jaxpr(lambda x: record(leak)(x)[0])(1.0)
    with pytest.raises(UnexpectedTracerError, match=r"was leak at .* traced for record"):
        tt.make_jaxpr(lambda y: lax.add(y, box[0]))(1.0)


def test_tracer_name_defaults_to_tracer() -> None:
    class Plain(Trace):
        pass

    t = Plain()
    assert Plain.tracer_name == "Tracer"
    assert t.describe_function() == "" and t.describe_provenance(Tracer(t)) == ""


# ----------------------------------------------------------------- typing


def test_new_trace_keeps_the_trace_type_under_mypy(tmp_path: Path) -> None:
    snippet = tmp_path / "snippet.py"
    snippet.write_text(
        textwrap.dedent(
            """
            from tessela_tracer.extend import Trace, new_trace, set_current_trace


            class MyTrace(Trace):
                def only_mine(self) -> int:
                    return 1


            with new_trace(MyTrace()) as t:
                n: int = t.only_mine()
            with set_current_trace(t) as u:
                m: int = u.only_mine()
            reveal_type(t)
            """
        )
    )
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(MYPY_CACHE), str(snippet)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert 'Revealed type is "snippet.MyTrace"' in proc.stdout


# ----------------------------------------------------------------- sub-jaxprs


def test_subjaxprs_follow_parameter_order() -> None:
    closed = tt.make_jaxpr(lambda x: lax.while_loop(lambda c: lax.lt(c, 9.0), lax.exp, x))(1.0)
    eqn = closed.eqns[-1]
    subs = subjaxprs(eqn)
    assert subs == [eqn.params["cond_jaxpr"], eqn.params["body_jaxpr"]]
    assert [e.primitive.name for e in subs[0].eqns] == ["lt"]
    seen: list[Any] = []
    rebuilt = replace_subjaxprs(eqn, lambda j: seen.append(j) or j)
    assert seen == subs
    assert rebuilt.params["cond_jaxpr"] is subs[0] and rebuilt.params["body_jaxpr"] is subs[1]


def test_subjaxprs_of_switch_are_the_branches_in_index_order() -> None:
    fns = [lax.sin, lax.cos, lax.exp]
    closed = tt.make_jaxpr(lambda i, x: lax.switch(i, fns, x))(1, 1.0)
    names = [[e.primitive.name for e in j.eqns] for j in subjaxprs(closed.eqns[-1])]
    assert names == [["sin"], ["cos"], ["exp"]]


def test_subjaxprs_of_linear_solve_keep_the_named_tuple() -> None:
    a = np.array([[2.0, 0.0], [0.0, 4.0]], np.float32)

    def f(b: Any) -> Any:
        return lax.custom_linear_solve(
            lambda v: lax.dot_general(a, v, (((1,), (0,)), ((), ()))),
            b,
            lambda _, v: lax.div(v, np.diag(a)),
        )

    eqn = tt.make_jaxpr(f)(np.ones(2, np.float32)).eqns[-1]
    jaxprs = eqn.params["jaxprs"]
    assert isinstance(jaxprs, LinearSolveTuple)
    present = [j for j in jaxprs if j is not None]
    assert subjaxprs(eqn) == present and len(present) >= 2
    rebuilt = replace_subjaxprs(eqn, lambda j: j)
    assert type(rebuilt.params["jaxprs"]) is LinearSolveTuple
    assert [j is None for j in rebuilt.params["jaxprs"]] == [j is None for j in jaxprs]


def test_subjaxpr_types_are_documented_ones() -> None:
    closed = tt.make_jaxpr(tt.checkpoint(lambda x: lax.sin(x)))(1.0)
    (remat_body,) = subjaxprs(closed.eqns[0])
    assert isinstance(remat_body, tt.Jaxpr)
    closed = tt.make_jaxpr(tt.jit(lambda x: lax.sin(x)))(1.0)
    (jit_body,) = subjaxprs(closed.eqns[0])
    assert isinstance(jit_body, tt.ClosedJaxpr) and not jit_body.consts


# ----------------------------------------------------------------- flattening


def test_flatten_args_gives_the_jaxpr_inputs() -> None:
    def f(p: Any, n: int, *, scale: Any) -> Any:
        return {"y": lax.mul(p["a"], float(n)), "z": (lax.add(p["b"], scale),)}

    args = ({"b": X, "a": np.float32(2.0)}, 3)
    kwargs = {"scale": np.ones(3, np.float32)}
    closed, out_tree = trace_pytree_fun(f, args, kwargs, traced_for="t", static_argnums=-1)
    flat, in_tree = flatten_args(args, kwargs, static_argnums=-1)
    assert [get_aval_of(x) for x in flat] == [v.aval for v in closed.jaxpr.invars]
    assert len(flat) == 3 and flat[0] is args[0]["a"] and flat[2] is kwargs["scale"]
    assert tree_unflatten(in_tree, flat) == ([args[0]], kwargs)
    # Evaluating the jaxpr on the flat inputs (here under a staging trace) gives f.
    again = tt.make_jaxpr(
        lambda *xs: tree_unflatten(out_tree, eval_jaxpr(closed.jaxpr, closed.consts, *xs))
    )(*flat)
    assert str(again) == str(closed)


# ----------------------------------------------------------------- missing implementations


def _missing_impl_message(setup: str = "") -> str:
    """What binding a primitive with no implementation raises, in a fresh process after ``setup``."""
    code = f"""
        from tessela_tracer.extend import Primitive, register_abstract_eval, set_eager_backend
        {setup}
        p = Primitive("plugin_op")
        register_abstract_eval(p, lambda x: x)
        try:
            p.bind(1.0)
        except NotImplementedError as e:
            print(e)
        """
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_missing_impl_without_backend_names_the_backend() -> None:
    out = _missing_impl_message()
    assert "'plugin_op'" in out and "Install tessela-lowering" in out


def test_missing_impl_with_a_backend_names_the_register_call() -> None:
    out = _missing_impl_message(
        "set_eager_backend(lambda prim, args, params: None, lambda prim: False)"
    )
    assert "'plugin_op'" in out and "Install" not in out
    assert "register_impl(prim, rule)" in out and "register_lowering(prim, rule)" in out


def test_missing_abstract_eval_names_the_register_call() -> None:
    p = Primitive("no_rule_plugin_op")
    with pytest.raises(NotImplementedError, match="register_abstract_eval"):
        tt.make_jaxpr(lambda x: p.bind(x))(1.0)
    register_abstract_eval(p, lambda x: x)
    assert str(tt.make_jaxpr(lambda x: p.bind(x))(1.0)).count("no_rule_plugin_op") == 1


# ----------------------------------------------------------------- extend == README


def _readme_section() -> str:
    text = README.read_text()
    start = text.index("## API for sibling packages and plugins")
    return text[start : text.index("\n## ", start + 1)]


def _backticked_names(section: str) -> set[str]:
    names: set[str] = set()
    for span in re.findall(r"`([^`]+)`", section):
        names.update(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", span))
    return names


def test_every_extend_name_is_in_the_readme() -> None:
    missing = set(extend.__all__) - _backticked_names(_readme_section())
    assert not missing, f"names exported by extend but not documented: {sorted(missing)}"


# Names the section mentions that live elsewhere on purpose.
ELSEWHERE = {
    "ShapeDtypeStruct", "UnexpectedTracerError", "checkpoint_name", "extend", "jit", "primitives",
}  # fmt: skip


def test_every_readme_name_of_the_package_is_in_extend() -> None:
    public = {n for n in dir(tt) if not n.startswith("_")} | set(primitives.__all__)
    listed = {n for n in _backticked_names(_readme_section()) if n in public or n.endswith("_p")}
    stray = listed - set(extend.__all__) - ELSEWHERE
    assert not stray, f"names the README lists under extend that it lacks: {sorted(stray)}"
    assert all(hasattr(extend, n) for n in extend.__all__)


# ----------------------------------------------------------------- documented broadcasting


def test_nary_elementwise_broadcasting_is_as_documented() -> None:
    col, row = np.ones((3, 1), np.float32), np.ones((1, 4), np.float32)
    assert tt.eval_shape(lax.add, col, row).shape == (3, 4)
    assert tt.eval_shape(lax.pow, col, row).shape == (3, 4)
    assert tt.eval_shape(lax.lt, np.float32(1), row).shape == (1, 4)
    with pytest.raises(TypeError, match="same number of dimensions"):
        tt.eval_shape(lax.mul, col, np.ones(3, np.float32))
    with pytest.raises(TypeError, match="select_n"):
        tt.eval_shape(lax.select_n, np.ones((3, 1), bool), np.ones((3, 4)), np.ones((3, 4)))
