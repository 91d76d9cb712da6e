"""The newer ``jax.lax`` names against JAX's outputs in ``golden/lax_more_golden.npz``.

``golden/lax_more_cases.py`` runs mulhi, reduce_xor, scatter_sub (with its
gradient and batching), scatter_apply, index_take, approx_max_k/approx_min_k,
empty and axis_size through either library; ``golden/generate_lax_more.py``
wrote JAX's side.
"""

from __future__ import annotations

import pathlib
import sys

import numpy as np
import pytest
import tessela as tx
import tessela.numpy as tnp
from tessela import lax

_HERE = pathlib.Path(__file__).resolve().parent / "golden"
sys.path.insert(0, str(_HERE))

import lax_more_cases  # noqa: E402

with np.load(_HERE / "lax_more_golden.npz") as _data:
    GOLDEN = {name: _data[name] for name in _data.files}

OURS = lax_more_cases.run(tx)


def test_every_case_was_recorded() -> None:
    assert sorted(OURS) == sorted(GOLDEN)


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_matches_jax(name: str) -> None:
    got, want = OURS[name], GOLDEN[name]
    if name == "empty/shape_dtype":  # the platform's default integer
        got, want = got.astype(np.int64), want.astype(np.int64)
    assert got.dtype == want.dtype and got.shape == want.shape
    if want.dtype.kind in "biu":
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def test_primitives_under_jax_names() -> None:
    assert lax.mulhi_p.name == "mulhi" and lax.scatter_sub_p.name == "scatter-sub"
    text = str(tx.make_jaxpr(lax.mulhi)(np.uint32(3), np.uint32(5)))
    assert text == "{ lambda ; a:u32[] b:u32[]. let c:u32[] = mulhi a b in (c,) }"


def test_bad_inputs_raise_as_jax() -> None:
    with pytest.raises(NameError, match="unbound axis name: i"):
        lax.axis_size("i")
    with pytest.raises(ValueError, match="operand must be a floating type"):
        lax.approx_min_k(tnp.arange(3), 2)
    with pytest.raises(TypeError):
        lax.mulhi(tnp.ones(2), tnp.ones(2))  # JAX: mulhi takes integers only


def test_mulhi_has_a_zero_derivative() -> None:
    def f(x: tnp.ndarray) -> tnp.ndarray:
        hi = lax.mulhi(x.astype(tnp.int32), tnp.full((2,), 7, tnp.int32))
        return (x * hi.astype(x.dtype)).sum()

    np.testing.assert_array_equal(np.asarray(tx.grad(f)(tnp.array([3.0, 5.0]))), [0.0, 0.0])
