"""tessela.image against JAX's outputs in ``golden/image_golden.npz``.

``golden/image_cases.py`` runs the same resize and scale_and_translate cases
through either library; ``golden/generate.py`` wrote JAX's side.
"""

from __future__ import annotations

import numpy as np
import pytest
import tessela as tx
import tessela.numpy as tnp
from _golden import cases_module, golden_tests, load_npz
from tessela import image

image_cases = cases_module("image_cases")
GOLDEN = load_npz("image_golden.npz")


def _compare(name: str, got: np.ndarray, want: np.ndarray) -> None:
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-5 * max(1.0, np.abs(want).max()))


test_every_case_was_recorded, test_matches_jax = golden_tests(
    lambda: image_cases.run(tx), GOLDEN, _compare
)


def test_method_names_and_errors() -> None:
    assert image.ResizeMethod.from_string("trilinear") is image.ResizeMethod.LINEAR
    assert image.ResizeMethod.from_string("bicubic-pytorch") is image.ResizeMethod.CUBIC_PYTORCH
    with pytest.raises(ValueError, match='Unknown resize method "bogus"'):
        image.resize(tnp.ones((2, 2)), (3, 3), "bogus")
    with pytest.raises(ValueError, match="shape must have length equal"):
        image.resize(tnp.ones((2, 2)), (3,), "linear")
    with pytest.raises(ValueError, match="Nearest neighbor resampling is not currently supported"):
        image.scale_and_translate(tnp.ones(3), (3,), (0,), tnp.ones(1), tnp.zeros(1), "nearest")


def test_scale_and_translate_differentiates_and_jits() -> None:
    x = tnp.asarray(np.linspace(0.0, 1.0, 8, dtype=np.float32))

    def f(s: tnp.ndarray) -> tnp.ndarray:
        return tnp.sum(image.scale_and_translate(x, (8,), (0,), s, tnp.zeros(1), "linear") ** 2)

    g = tx.jit(tx.grad(f))(tnp.array([1.2]))
    eps = 1e-3
    fd = (f(tnp.array([1.2 + eps])) - f(tnp.array([1.2 - eps]))) / (2 * eps)
    np.testing.assert_allclose(np.asarray(g)[0], np.asarray(fd), rtol=2e-2)
    batched = tx.vmap(lambda im: image.resize(im, (4, 6), "cubic"))(tnp.ones((3, 2, 3)))
    np.testing.assert_allclose(np.asarray(batched), np.ones((3, 4, 6)), rtol=1e-6)
