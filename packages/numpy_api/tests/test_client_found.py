"""Cases optax's own suite found, with JAX 0.10.2's results for the same calls."""

from __future__ import annotations

import pytest
import tessela_numpy as tnp


@pytest.mark.parametrize(
    ("value", "shape"), [([], (0,)), ((), (0,)), ([[]], (1, 0)), ([[], []], (2, 0))]
)
def test_asarray_of_empty_sequences_is_float32(value: object, shape: tuple[int, ...]) -> None:
    out = tnp.asarray(value)
    assert (out.shape, str(out.dtype)) == (shape, "float32")


@pytest.mark.parametrize("name", ["float16", "bfloat16", "float32", "int8", "bool_"])
def test_scalar_types_compare_with_both_operators(name: str) -> None:
    t = getattr(tnp, name)
    other = tnp.float64 if t is not tnp.float64 else tnp.int8
    assert (t == t, t != t, t == other, t != other) == (True, False, False, True)
