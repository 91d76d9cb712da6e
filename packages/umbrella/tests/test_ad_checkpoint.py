"""``tessela.ad_checkpoint``: residual listings and the answers a policy may give."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tessela
import tessela.numpy as tnp
from hypothesis import given, settings
from hypothesis import strategies as st
from tessela import checkpoint_policies as cp
from tessela.ad_checkpoint import (
    Offloadable,
    Recompute,
    Saveable,
    checkpoint_name,
    print_saved_residuals,
    saved_residuals,
)


def _f(x: Any, y: Any) -> Any:
    z = checkpoint_name(tnp.sin(x), "z")
    w = checkpoint_name(tnp.cos(z) * y, "w")
    return tnp.sum(w * z) + tnp.dot(x, y)


def _sources(f: Any, *args: Any) -> list[str]:
    return [what for _, what in saved_residuals(f, *args)]


_POLICIES = {
    "none": None,
    "nothing": cp.nothing_saveable,
    "everything": cp.everything_saveable,
    "names": cp.save_only_these_names("z"),
    "offload": cp.save_and_offload_only_these_names(
        names_which_can_be_saved=["z"], names_which_can_be_offloaded=["w"],
        offload_src="device", offload_dst="pinned_host",
    ),
    "both": cp.save_from_both_policies(cp.dots_saveable, cp.save_only_these_names("w")),
    "recompute": lambda *_, **__: Recompute,
    "saveable": lambda *_, **__: Saveable,
    "offload_dots": cp.offload_dot_with_no_batch_dims("device", "pinned_host"),
}  # fmt: skip


@settings(max_examples=5, deadline=None)
@given(
    st.sampled_from(sorted(_POLICIES)),
    st.lists(st.floats(-2, 2, width=32), min_size=3, max_size=3),
    st.lists(st.floats(-2, 2, width=32), min_size=3, max_size=3),
)
def test_every_policy_answer_keeps_the_gradient(name: str, x: list[float], y: list[float]) -> None:
    xs, ys = np.array(x, np.float32), np.array(y, np.float32)
    policy = _POLICIES[name]
    f = _f if policy is None else tessela.checkpoint(_f, policy=policy)
    for got, want in zip(
        tessela.grad(f, argnums=(0, 1))(xs, ys),
        tessela.grad(_f, argnums=(0, 1))(xs, ys),
        strict=True,
    ):
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5, atol=1e-5)


def test_policies_answers_decide_what_is_saved() -> None:
    x, y = tnp.ones(3), tnp.ones(3)
    args = ["from the argument x", "from the argument y"]
    plain = _sources(_f, x, y)
    assert plain[:2] == args and "named 'z'" in plain and "named 'w'" in plain
    # Recompute is a true object, as in JAX: it must still mean "recompute".
    assert bool(Recompute)
    assert _sources(tessela.checkpoint(_f, policy=lambda *_, **__: Recompute), x, y) == args
    assert _sources(tessela.checkpoint(_f, policy=cp.nothing_saveable), x, y) == args
    saveable = _sources(tessela.checkpoint(_f, policy=lambda *_, **__: Saveable), x, y)
    assert saveable == _sources(tessela.checkpoint(_f, policy=cp.everything_saveable), x, y)
    offload = _sources(tessela.checkpoint(_f, policy=_POLICIES["offload"]), x, y)
    assert sorted(offload) == sorted([*args, "named 'z'", "named 'w'"])
    names = _sources(tessela.checkpoint(_f, policy=cp.save_only_these_names("z")), x, y)
    assert sorted(names) == sorted([*args, "named 'z'"])


def test_print_saved_residuals_names_arguments_by_their_paths(
    capsys: pytest.CaptureFixture[str],
) -> None:
    def g(d: Any, *rest: Any, k: Any) -> Any:
        return d["a"] * d["b"] * rest[0] * k

    ones = tnp.ones(2)
    print_saved_residuals(g, {"a": ones, "b": ones}, ones, k=ones)
    lines = capsys.readouterr().out.splitlines()
    assert "f32[2] from the argument d['a']" in lines
    assert "f32[2] from the argument d['b']" in lines
    assert "f32[2] from the argument rest[0]" in lines
    assert "f32[2] from the argument k" in lines


def test_a_policy_answer_of_another_type_is_refused() -> None:
    x = tnp.ones(2)
    for bad, hint in ((None, "should be a bool"), (Offloadable, "instead of an instance")):
        f = tessela.checkpoint(lambda v: tnp.sin(tnp.sin(v)), policy=lambda *_, b=bad, **__: b)
        with pytest.raises(TypeError, match=hint):
            tessela.grad(lambda v, f=f: tnp.sum(f(v)))(x)
    with pytest.raises(ValueError, match="answer with a bool"):
        both = cp.save_from_both_policies(_POLICIES["recompute"], cp.nothing_saveable)
        tessela.grad(lambda v: tnp.sum(tessela.checkpoint(tnp.sin, policy=both)(v)))(x)
    with pytest.raises(ValueError, match="must not share"):
        cp.save_and_offload_only_these_names(
            names_which_can_be_saved=["a"], names_which_can_be_offloaded=["a"],
            offload_src="device", offload_dst="pinned_host",
        )  # fmt: skip
