"""Results equal to JAX 0.10.2's to the last bit: golden/bits_cases.py against bits_golden.npz."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
import tessela_lowering  # noqa: F401  (eager execution)
import tessela_numpy as tnp
from bits_cases import CASES, X64_CASES, inputs
from conftest import GOLDEN_DIR
from tessela_tracer import config

GOLDEN = np.load(GOLDEN_DIR / "bits_golden.npz")
DATA = inputs()


def _check(name: str, got: object) -> None:
    want = GOLDEN[name]
    got_np = np.asarray(got)
    assert got_np.dtype == want.dtype and got_np.shape == want.shape
    # Bit for bit, except that any NaN matches any NaN (payloads are not part of the result).
    flat_got, flat_want = got_np.reshape(-1), want.reshape(-1)
    both_nan = np.isnan(flat_got) & np.isnan(flat_want)
    same_bits = flat_got.view(np.uint8).reshape(flat_got.size, -1) == flat_want.view(
        np.uint8
    ).reshape(flat_want.size, -1)
    bad = ~(same_bits.all(axis=1) | both_nan)
    assert not bad.any(), f"{name}: {flat_got[bad][:4]} != JAX's {flat_want[bad][:4]}"


@pytest.mark.parametrize("name", sorted(CASES))
def test_bits(name: str) -> None:
    fn, names = CASES[name]
    _check(name, fn(tnp, [DATA[n] for n in names]))


@pytest.fixture
def x64() -> Iterator[None]:
    before = config.read("jax_enable_x64")
    config.update("jax_enable_x64", True)
    try:
        yield
    finally:
        config.update("jax_enable_x64", before)


@pytest.mark.parametrize("name", sorted(X64_CASES))
def test_bits_x64(name: str, x64: None) -> None:
    fn, names = X64_CASES[name]
    _check(name, fn(tnp, [DATA[n] for n in names]))
