"""One ``jit``: the tracer's object stages, checks its options, and runs through a backend."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from typing import Any

import numpy as np
import pytest
import tessela_tracer as tt
from tessela_pytree import tree_flatten
from tessela_tracer import lax
from tessela_tracer.extend import JitWrapped, Traced, clear_jit_caches


def _run_alone(code: str) -> str:
    # A fresh process that imports the tracer and nothing that compiles.
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True, text=True, check=False, env=dict(os.environ),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


def test_jit_alone_stages_and_evaluates_with_eager_implementations() -> None:
    out = _run_alone(
        """
        import sys
        import numpy as np
        import tessela_tracer as tt
        from tessela_tracer.extend import JitWrapped, Primitive, register_abstract_eval
        from tessela_tracer.extend import register_impl

        twice_p = Primitive("twice_alone")
        register_abstract_eval(twice_p, lambda a: a)
        register_impl(twice_p, lambda x: np.asarray(2 * x))
        calls = []

        def f(x, n):
            calls.append(1)
            return twice_p.bind(x) if n else x

        g = tt.jit(f, static_argnums=1)
        assert type(g) is JitWrapped
        print(g(np.float32(3), True), g(np.float32(4), True), len(calls))
        print(tt.make_jaxpr(g, static_argnums=1)(np.float32(1), True).eqns[0].primitive)
        try:
            g.lower(np.float32(1), True)
        except NotImplementedError:
            print("no compiler")
        print("tessela_lowering" in sys.modules)
        """
    )
    assert out.splitlines() == ["6.0 8.0 1", "jit", "no compiler", "False"]


def _two(x: Any, y: Any) -> Any:
    return lax.add(x, y)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"static_argnums": 2}, "only accepts 2 positional arguments"),
        ({"static_argnums": -3}, "only accepts 2 positional arguments"),
        ({"static_argnames": "z"}, "invalid argnames {'z'}"),
        ({"donate_argnums": 5}, "donate_argnums=(5,)"),
        ({"static_argnums": 0, "donate_argnames": "x"}, "cannot intersect"),
    ],
)
def test_options_are_checked_when_made(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        tt.jit(_two, **options)


def test_static_positions_and_names_imply_each_other() -> None:
    f = tt.jit(_two, static_argnames="y")
    assert f.static_argnums == (1,) and f.static_argnames == ("y",)
    g = tt.jit(_two, static_argnums=0)
    assert g.static_argnames == ("x",)


def test_splitters_pick_static_and_traced_positions() -> None:
    f = tt.jit(lambda a, b, c, d: a, static_argnums=(0, -1))
    static, dyn = f._splitter(4)
    assert static((1, 2, 3, 4)) == (1, 4) and dyn((1, 2, 3, 4)) == (2, 3)
    static, dyn = tt.jit(lambda a, b: a, static_argnums=1)._splitter(2)
    assert static(("a", "b")) == ("b",) and dyn(("a", "b")) == ("a",)


def test_under_a_trace_one_jit_equation_with_donation_marked() -> None:
    f = tt.jit(_two, donate_argnums=0)
    closed = tt.make_jaxpr(f)(np.float32(1), np.float32(2))
    (eqn,) = closed.eqns
    assert eqn.primitive is tt.jit_p
    assert eqn.params["donated_invars"] == (True, False)
    assert eqn.params["name"] == "_two"


def test_jit_twice_shares_staged_jaxprs_and_clear_forgets_them() -> None:
    def h(x: Any) -> Any:
        return lax.sin(x)

    tt.make_jaxpr(tt.jit(h))(1.0)
    second = tt.jit(h)
    assert len(second._cache.traced) == 1
    clear_jit_caches()
    assert len(second._cache.traced) == 0


def test_traced_stage_without_a_compiler() -> None:
    closed = tt.make_jaxpr(lax.sin)(np.float32(1))
    stage = Traced(closed, tree_flatten(0)[1])
    assert stage.jaxpr is closed
    assert (stage.out_info.shape, stage.out_info.dtype) == ((), np.float32)
    with pytest.raises(NotImplementedError, match="install tessela-lowering"):
        stage.lower()


def test_jit_is_the_one_type() -> None:
    assert isinstance(tt.jit(_two), JitWrapped)
    assert repr(tt.jit(_two)) == "<jitted function _two>"


def test_a_flag_that_changes_tracing_retraces() -> None:
    f = tt.jit(lambda a: tt.lax.dot(a, a))
    a = np.ones((2, 2), np.float32)
    before = str(tt.make_jaxpr(f)(a))
    tt.config.update("jax_default_matmul_precision", "highest")
    try:
        during = str(tt.make_jaxpr(f)(a))
    finally:
        tt.config.update("jax_default_matmul_precision", None)
    assert "HIGHEST" not in before and "HIGHEST" in during
    assert str(tt.make_jaxpr(f)(a)) == before
