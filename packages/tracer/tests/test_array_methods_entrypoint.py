"""Array operators find their method table through the declared entry points.

Each scenario runs in a fresh interpreter (the entry-point group is scanned
once per process). A fake distribution on ``sys.path`` declares a method table
in the ``tessela_tracer.array_methods`` group, found by the real
``importlib.metadata`` lookup; the scripts keep only the fake distributions'
entry points, so the outcome is the same whether or not tessela-numpy is
installed next to the tracer.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from tessela_tracer import ArrayOps, ShapedArray, make_jaxpr
from tessela_tracer.errors import ConcretizationTypeError

GROUP = "tessela_tracer.array_methods"

PROVIDER = """
from tessela_tracer import get_current_trace, lax

CALLS = []


def _mul(x, y):
    return lax.mul(x, y)


def _sum(x):
    return lax.reduce_sum(x, axes=tuple(range(x.ndim)))


def method_table():
    CALLS.append(type(get_current_trace()).__name__)
    return {"__mul__": _mul, "sum": _sum}
"""

PRELUDE = """
import warnings

import numpy as np

from tessela_tracer import _array_ops as ao

_real = ao._entry_points
SCANS = []


def _fake_only():
    SCANS.append(1)
    eps = _real()
    return [ep for ep in eps if ep.dist is not None and ep.dist.name.startswith("tessela-fake")]


ao._entry_points = _fake_only
"""


def _dist(root: Path, name: str, entry_points: dict[str, str]) -> None:
    info = root / f"{name.replace('-', '_')}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n")
    lines = [f"[{GROUP}]"] + [f"{k} = {v}" for k, v in entry_points.items()]
    (info / "entry_points.txt").write_text("\n".join(lines) + "\n")


def _run(tmp_path: Path, body: str) -> str:
    script = tmp_path / "scenario.py"
    script.write_text(PRELUDE + textwrap.dedent(body))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), env.get("PYTHONPATH", "")])
    proc = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=120
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


@pytest.fixture
def provider(tmp_path: Path) -> Path:
    (tmp_path / "tessela_fake_methods.py").write_text(PROVIDER)
    _dist(tmp_path, "tessela-fake-methods", {"fake": "tessela_fake_methods:method_table"})
    return tmp_path


def test_first_missing_operator_loads_the_declared_table_once(provider: Path) -> None:
    out = _run(
        provider,
        """
        from tessela_tracer import ArrayOps, make_jaxpr
        assert ao._state == "unloaded"
        print(make_jaxpr(lambda x: x * x)(1.0))
        import tessela_fake_methods as fake
        assert fake.CALLS == ["EvalTrace"], fake.CALLS  # no trace active while loading
        assert ArrayOps.__mul__ is fake._mul  # on the class: no forwarder left
        print(make_jaxpr(lambda x: x.sum())(np.ones(3, np.float32)))
        for _ in range(3):  # a name nobody provides: an error, and no new scan
            try:
                make_jaxpr(lambda x: x - x)(1.0)
            except TypeError as e:
                msg = str(e)
        assert "install tessela-numpy" in msg and "register_array_methods" in msg, msg
        assert len(SCANS) == 1 and fake.CALLS == ["EvalTrace"]
        assert ao.load_array_method_entry_points() == ()
        assert ao.load_array_method_entry_points(reload=True) == ("fake",)
        assert len(SCANS) == 2
        print("ok")
        """,
    )
    lines = out.splitlines()
    assert lines[0] == "{ lambda ; a:f32[]. let b:f32[] = mul a a in (b,) }"
    assert "reduce_sum" in out and lines[-1] == "ok"


def test_explicit_registration_wins_over_entry_points(provider: Path) -> None:
    out = _run(
        provider,
        """
        from tessela_tracer import lax, make_jaxpr, register_array_methods

        def square(x, y):
            return lax.integer_pow(x, 2)

        register_array_methods({"__mul__": square})
        summed = str(make_jaxpr(lambda x: x.sum())(1.0))  # misses: loads the fake table
        squared = str(make_jaxpr(lambda x: x * x)(1.0))
        assert "reduce_sum" in summed, summed
        print(squared)
        """,
    )
    assert "integer_pow" in out and "mul" not in out


def test_a_broken_provider_warns_and_is_named_in_the_error(provider: Path) -> None:
    _dist(provider, "tessela-fake-broken", {"broken": "tessela_no_such_module:table"})
    out = _run(
        provider,
        """
        from tessela_tracer import make_jaxpr
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            print(make_jaxpr(lambda x: x * x)(1.0))
        assert any("tessela_no_such_module" in str(w.message) for w in caught)
        try:
            make_jaxpr(lambda x: x + x)(1.0)
        except TypeError as e:
            assert "broken = tessela_no_such_module:table" in str(e), e
            print("named")
        """,
    )
    assert "mul a a" in out and out.splitlines()[-1] == "named"


def test_without_any_provider_the_error_names_the_fix(tmp_path: Path) -> None:
    out = _run(
        tmp_path,
        """
        from tessela_tracer import make_jaxpr
        for op in (lambda x: x * x, lambda x: x.sum(), lambda x: x.T, lambda x: x[0]):
            try:
                make_jaxpr(op)(1.0)
            except TypeError as e:
                assert "install tessela-numpy" in str(e), e
                assert "tessela_tracer.array_methods" in str(e), e
                print("fix named")
        assert len(SCANS) == 1
        """,
    )
    assert out.split() == ["fix", "named"] * 4


class _Concrete(ArrayOps):
    """A concrete array that only knows its NumPy value."""

    __slots__ = ("_value", "aval")

    def __init__(self, value: np.ndarray) -> None:
        self._value = value
        self.aval = ShapedArray(value.shape, value.dtype)

    def __array__(self, dtype: object = None, copy: object = None) -> np.ndarray:
        return self._value


def test_item_and_tolist_on_a_tracer_raise_concretization_errors() -> None:
    with pytest.raises(ConcretizationTypeError, match=r"item\(\) method.*static_argnums"):
        make_jaxpr(lambda x: x.item())(1.0)
    with pytest.raises(ConcretizationTypeError, match=r"tolist\(\) method.*call \.tolist\(\)"):
        make_jaxpr(lambda x: x.tolist())(np.ones(2, np.float32))


def test_item_and_tolist_on_a_concrete_array_give_python_values() -> None:
    value = np.arange(6, dtype=np.int32).reshape(2, 3)
    x = _Concrete(value)
    assert x.tolist() == [[0, 1, 2], [3, 4, 5]]
    assert x.item(4) == 4 and type(x.item(1, 2)) is int
    one = _Concrete(np.array([2.5], np.float32))
    assert one.item() == 2.5 and type(one.item()) is float
    with pytest.raises(ValueError, match="size 1"):
        x.item()
