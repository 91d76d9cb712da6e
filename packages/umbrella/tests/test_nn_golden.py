"""tessela.nn against the reference outputs in ``golden/nn_golden.npz``.

``golden/nn_cases.py`` runs the same cases through either implementation;
``golden/generate.py`` wrote the reference side. Activations are compared to a
few ulps, initializers to float rounding (their bits are the reference's), and
attention outputs and gradients to float32 accumulation differences.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tessela as tx
import tessela.random as random
from _golden import cases_module, load_npz
from tessela import nn

nn_cases = cases_module("nn_cases")
GOLDEN = load_npz("nn_golden.npz")


def _ulps(got: np.ndarray, want: np.ndarray) -> float:
    """The largest distance between ``got`` and ``want`` in units of ``want``'s spacing."""
    got = np.asarray(got, np.float64)
    want64 = want.astype(np.float64)
    both_nan = np.isnan(got) & np.isnan(want64)
    same = (got == want64) | both_nan
    spacing = np.spacing(np.abs(want).astype(want.dtype)).astype(np.float64)
    dist = np.where(same, 0.0, np.abs(got - want64) / spacing)
    return float(dist.max(initial=0.0))


@pytest.fixture(scope="module")
def activations() -> dict[str, np.ndarray]:
    return nn_cases.activations(nn, tx.grad, tx.vmap)


@pytest.mark.parametrize(
    "name", sorted(k for k in GOLDEN if k.startswith(("act|", "lme|")) and k.endswith("value"))
)
def test_activation_values(activations: dict[str, np.ndarray], name: str) -> None:
    got, want = activations[name], GOLDEN[name]
    assert got.shape == want.shape and got.dtype == want.dtype
    # standardize's "fast" variance, E[x^2] - E[x]^2, cancels: the sums' order
    # shows in a few more last bits there.
    limit = 8 if "|standardize_" in name else 4
    assert _ulps(got, want) <= limit, (name, got, want)


@pytest.mark.parametrize("name", sorted(k for k in GOLDEN if k.endswith("|grad")))
def test_activation_derivatives(activations: dict[str, np.ndarray], name: str) -> None:
    got, want = activations[name], GOLDEN[name]
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=4e-6, atol=1e-7, err_msg=name)


# Cases sampled with tessela.random.truncated_normal, whose inverse-erf differs
# from the reference's in the last bits (a few 1e-7 absolute on unit samples).
TRUNCATED = {
    "truncated_normal", "truncated_bounds", "glorot_normal", "xavier_normal", "lecun_normal",
    "he_normal", "kaiming_normal", "vs_axes",
} | {n for n in nn_cases.INITIALIZERS if n.endswith("_truncated_normal")}  # fmt: skip


@pytest.fixture(scope="module")
def initialized() -> dict[str, np.ndarray]:
    return nn_cases.initializers(nn, random)


@pytest.mark.parametrize("name", sorted(nn_cases.INITIALIZERS))
def test_initializers_match_the_reference(initialized: dict[str, np.ndarray], name: str) -> None:
    got, want = initialized[f"init|{name}"], GOLDEN[f"init|{name}"]
    assert got.shape == want.shape and got.dtype == want.dtype, name
    if name.startswith(("orthogonal", "delta_orthogonal")):
        # QR factors agree to rounding, not bit for bit.
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    elif name in TRUNCATED:
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    elif np.issubdtype(want.dtype, np.complexfloating):
        np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-7)
    else:
        assert _ulps(got, want) <= 1, (name, got, want)


@pytest.fixture(scope="module")
def attended() -> dict[str, np.ndarray]:
    return nn_cases.attention(nn, tx.grad)


@pytest.mark.parametrize("name", sorted(k for k in GOLDEN if k.startswith(("attn|", "attn_grad|"))))
def test_attention_matches_the_reference(attended: dict[str, np.ndarray], name: str) -> None:
    got, want = attended[name], GOLDEN[name]
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-6, err_msg=name)


def test_golden_covers_every_case() -> None:
    expected: set[Any] = {f"init|{n}" for n in nn_cases.INITIALIZERS}
    expected |= {f"attn|{n}" for n in nn_cases.ATTENTION}
    assert expected <= set(GOLDEN)
