"""JAX's top-level flag objects, ``Shard`` and the debug effects against ``golden/flags_golden.json``.

``golden/flags_cases.py`` runs the same cases through either implementation
(``golden/generate.py`` wrote the reference's results). Strings and booleans
are compared exactly, numbers to float32 rounding. The flags Tessela cannot
honour for every value are checked here too: they accept their default and
raise ``NotImplementedError`` (saying why) for the rest.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tessela as tx
import tessela.numpy as tnp
import tessela_tracer._staging as staging
from _golden import cases_module, load_json
from tessela_tracer.extend import debug_effect, jaxpr_effects, ordered_debug_effect

flags_cases = cases_module("flags_cases")
GOLDEN = load_json("flags_golden.json")


@pytest.fixture(scope="module")
def results() -> dict[str, Any]:
    return flags_cases.run(tx)


def _same(got: Any, want: Any) -> bool:
    if isinstance(want, (str, bool)) or want is None:
        return bool(got == want)
    if isinstance(want, list) and any(isinstance(w, str) for w in want):
        return bool(got == want)
    return bool(np.allclose(np.asarray(got, float), np.asarray(want, float), rtol=1e-6, atol=1e-7))


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_matches_reference(results: dict[str, Any], name: str) -> None:
    assert _same(results[name], GOLDEN[name]), (results[name], GOLDEN[name])


def test_no_case_is_missing(results: dict[str, Any]) -> None:
    assert set(results) == set(GOLDEN)


def test_flags_restore_and_read_through_config() -> None:
    for name in flags_cases.NAMES:
        flag = getattr(tx, name)
        key = name if name.startswith("jax2tf") else f"jax_{name}"
        assert flag.value == tx.config.read(key) == getattr(tx.config, key)
    with tx.no_execution():
        assert tx.config.jax_no_execution
    assert not tx.config.jax_no_execution
    assert float(tx.jit(lambda x: x + 1)(1.0)) == 2.0


@pytest.mark.parametrize(
    ("name", "value", "reason"),
    [
        ("jax_debug_key_reuse", True, "no checker of PRNG key reuse"),
        ("jax_enable_custom_prng", True, "threefry2x32"),
        ("jax_remove_size_one_mesh_axis_from_type", True, "size one"),
        ("jax_array_garbage_collection_guard", "log", "cycle collector"),
        ("jax_array_garbage_collection_guard", "fatal", "cycle collector"),
    ],
)
def test_unsupported_values_raise(name: str, value: Any, reason: str) -> None:
    before = tx.config.read(name)
    with pytest.raises(NotImplementedError, match=reason):
        tx.config.update(name, value)
    assert tx.config.read(name) == before
    short = name.removeprefix("jax_")
    with pytest.raises(NotImplementedError):
        getattr(tx, short)(value).__enter__()
    tx.config.update(name, before)  # the default is accepted


def test_thread_guard_single_process_accepted() -> None:
    with tx.thread_guard(True):
        assert tx.thread_guard.value is True
        assert float(tx.jit(lambda x: x * 2)(2.0)) == 4.0
    assert tx.thread_guard.value is False


def test_enable_checks_type_checks_traced_jaxprs(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[Any] = []
    monkeypatch.setattr(staging, "check_jaxpr", seen.append)
    tx.make_jaxpr(tnp.sin)(1.0)
    assert seen == []
    with tx.enable_checks():
        tx.make_jaxpr(tnp.sin)(1.0)
    assert len(seen) == 1


def test_no_execution_allows_staging_inside_outer_jit() -> None:
    inner = tx.jit(lambda x: x * 2)
    with tx.no_execution():
        text = str(tx.make_jaxpr(lambda x: inner(tnp.sin(x)))(1.0))
        with pytest.raises(RuntimeError, match=r"jit\(<lambda>\)"):
            inner(1.0)
    assert "sin" in text
    assert float(inner(1.0)) == 2.0


def test_debug_effects_are_the_callback_effects() -> None:
    jaxpr = tx.make_jaxpr(lambda x: tx.debug.print("{}", x) or x)(1.0)
    (effect,) = jaxpr_effects(jaxpr)
    assert isinstance(effect, tx.debug.DebugEffect)
    assert effect is debug_effect
    assert isinstance(ordered_debug_effect, tx.debug.OrderedDebugEffect)
    assert ordered_debug_effect.ordered and not debug_effect.ordered
