"""tessela.random samples bfloat16 bit for bit as the reference does, eagerly and under jit."""

from __future__ import annotations

import numpy as np
import tessela as tx
import tessela.numpy as tnp
from tessela import random

# jax.random.normal(jax.random.key(0), (3,), dtype=jnp.bfloat16), as uint16 bits
NORMAL_BF16_KEY0 = [16070, 15931, 49024]
# jax.random.uniform(jax.random.key(0), (3,), dtype=jnp.bfloat16), as uint16 bits
UNIFORM_BF16_KEY0 = [16166, 16146, 15904]


def bits16(x: tx.Array) -> list[int]:
    return np.asarray(x).view(np.uint16).tolist()


def test_bfloat16_normal_equals_reference() -> None:
    out = random.normal(random.key(0), (3,), dtype=tnp.bfloat16)
    assert out.dtype == tnp.bfloat16
    assert bits16(out) == NORMAL_BF16_KEY0


def test_bfloat16_samplers_under_jit_equal_eager() -> None:
    @tx.jit
    def draw(k: tx.Array) -> tuple[tx.Array, tx.Array]:
        return random.normal(k, (3,), dtype=tnp.bfloat16), random.uniform(
            k, (3,), dtype=tnp.bfloat16
        )

    normal, uniform = draw(random.key(0))
    assert normal.dtype == tnp.bfloat16
    assert bits16(normal) == NORMAL_BF16_KEY0
    assert bits16(uniform) == UNIFORM_BF16_KEY0
    assert bits16(random.uniform(random.key(0), (3,), dtype=tnp.bfloat16)) == UNIFORM_BF16_KEY0
