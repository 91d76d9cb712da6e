"""The special-function family: abstract evaluation and the lax wrappers' jaxprs."""

from __future__ import annotations

import numpy as np
import pytest
from tessela_tracer import eval_shape, lax, make_jaxpr
from tessela_tracer import primitives as P

F32 = np.float32
BINARY = [
    (lax.igamma, "igamma"),
    (lax.igammac, "igammac"),
    (lax.igamma_grad_a, "igamma_grad_a"),
    (lax.random_gamma_grad, "random_gamma_grad"),
]


@pytest.mark.parametrize(("fn", "name"), BINARY)
def test_binary_wrappers_bind_their_primitive(fn, name) -> None:
    text = str(make_jaxpr(fn)(F32(1.0), F32(2.0)))
    assert text == f"{{ lambda ; a:f32[] b:f32[]. let c:f32[] = {name} a b in (c,) }}"


@pytest.mark.parametrize(
    ("fn", "name"), [(lax.bessel_i0e, "bessel_i0e"), (lax.bessel_i1e, "bessel_i1e")]
)
def test_unary_wrappers_bind_their_primitive(fn, name) -> None:
    jaxpr = make_jaxpr(fn)(np.ones((2, 3), F32))
    assert [e.primitive.name for e in jaxpr.eqns] == [name]
    assert jaxpr.out_avals[0].shape == (2, 3)


def test_betainc_binds_regularized_incomplete_beta() -> None:
    jaxpr = make_jaxpr(lax.betainc)(F32(1), F32(2), np.full(4, 0.5, F32))
    assert [e.primitive for e in jaxpr.eqns] == [P.regularized_incomplete_beta_p]
    assert jaxpr.out_avals[0].shape == (4,)


def test_operands_broadcast_like_other_nary_ops() -> None:
    out = eval_shape(lax.igamma, np.ones((3, 1), F32), np.ones((1, 4), F32))
    assert out.shape == (3, 4) and out.dtype == np.float32


def test_weak_scalars_stay_weak() -> None:
    assert eval_shape(lax.igamma, 1.0, 2.0).weak_type
    assert not eval_shape(lax.igamma, F32(1.0), F32(2.0)).weak_type


def test_mixed_dtypes_are_rejected() -> None:
    with pytest.raises(TypeError, match="same dtypes"):
        eval_shape(lax.igamma, F32(1.0), np.float16(2.0))


@pytest.mark.parametrize(
    "fn", [lax.bessel_i0e, lambda x: lax.igamma(x, x), lambda x: lax.betainc(x, x, x)]
)
def test_integer_operands_are_rejected(fn) -> None:
    with pytest.raises(TypeError, match="does not accept dtype int32"):
        eval_shape(fn, np.int32(1))


def test_incompatible_shapes_are_rejected() -> None:
    with pytest.raises(TypeError, match="incompatible shapes"):
        eval_shape(lax.igammac, np.ones(3, F32), np.ones(4, F32))
