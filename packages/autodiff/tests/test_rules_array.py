"""Derivatives of stack, unstack, split, tile and device_put against finite differences and JAX's values."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tessela_lowering as tl
import tessela_tracer.primitives as P
from _checks import check_grads
from tessela_autodiff import grad
from tessela_autodiff._jvp import _jvp_rules
from tessela_tracer import ArrayCopySemantics, Primitive, lax, make_jaxpr

A = np.linspace(-1.0, 1.0, 6).reshape(2, 3)
B = np.cos(np.arange(6.0)).reshape(2, 3)


@pytest.mark.usefixtures("x64")
@pytest.mark.parametrize("axis", [0, 1, 2])
def test_stack(axis: int) -> None:
    check_grads(
        lambda a, b: lax.mul(lax.stack([a, b, a], axis), lax.stack([b, a, b], axis)), [A, B]
    )


@pytest.mark.usefixtures("x64")
@pytest.mark.parametrize("axis", [0, 1])
def test_unstack_and_split_with_unused_pieces(axis: int) -> None:
    def unstacked(a: Any) -> Any:
        pieces = lax.unstack(a, axis)
        return lax.mul(pieces[0], lax.sin(pieces[-1]))

    def split(a: Any) -> Any:
        n = a.shape[axis]
        first, _, last = lax.split(a, (1, n - 2, 1), axis)
        return lax.mul(lax.exp(first), last)

    check_grads(unstacked, [A])
    check_grads(split, [A])


@pytest.mark.usefixtures("x64")
@pytest.mark.parametrize("reps", [(1, 1), (2, 3), (3, 1)])
def test_tile(reps: tuple[int, int]) -> None:
    check_grads(lambda a: lax.sin(lax.tile(a, reps)), [A])


def test_gradient_matches_jax() -> None:
    def f(a: Any) -> Any:
        total = lax.reduce_sum(lax.split(a, (1, 2), 1)[1], (0, 1))
        total = lax.mul(total, lax.reduce_sum(lax.stack([a, lax.mul(a, 2.0)]), (0, 1, 2)))
        total = lax.mul(total, lax.reduce_sum(lax.tile(a, (2, 1)), (0, 1)))
        last = lax.unstack(a, 1)[2]
        return lax.add(total, lax.reduce_sum(lax.mul(last, last), (0,)))

    x = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    # jax.grad of the same program under JAX 0.10.2.
    want = [[2160.0, 3510.0, 3514.0], [2160.0, 3510.0, 3520.0]]
    np.testing.assert_array_equal(np.asarray(grad(f)(x)), want)


def test_every_primitive_has_a_jvp_rule() -> None:
    prims = [v for k, v in vars(P).items() if k.endswith("_p") and isinstance(v, Primitive)]
    assert sorted(p.name for p in prims if p not in _jvp_rules) == []


@pytest.mark.usefixtures("x64")
def test_device_put() -> None:
    check_grads(lambda a, b: lax.mul(tl.device_put(a), lax.sin(tl.device_put(b))), [A, B])


def test_device_put_transposes_to_a_copy_back() -> None:
    jaxpr = make_jaxpr(grad(lambda x: lax.integer_pow(tl.device_put(x), 2)))(np.float32(3))
    puts = [e for e in jaxpr.eqns if e.primitive is P.device_put_p]
    assert [e.params["copy_semantics"] for e in puts] == [
        (ArrayCopySemantics.REUSE_INPUT,),
        (ArrayCopySemantics.ALWAYS_COPY,),
    ]
    assert float(grad(lambda x: lax.integer_pow(tl.device_put(x), 2))(np.float32(3))) == 6.0
