"""Tokens: ``lax.create_token`` / ``lax.after_all`` and the ``AbstractToken`` aval.

The jaxpr texts are JAX 0.10.2's ``make_jaxpr`` output for the same programs.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from tessela_tracer import ShapedArray, lax, make_jaxpr
from tessela_tracer.extend import AbstractToken, Token, abstract_token, get_aval


def test_token_jaxprs_print_as_jax_does() -> None:
    closed = make_jaxpr(
        lambda: (
            lax.create_token(),
            lax.after_all(lax.create_token(), lax.create_token()),
            lax.after_all(),
        )
    )()
    assert str(closed) == (
        "{ lambda ; . let\n"
        "    a:Tok = create_token \n"
        "    b:Tok = create_token \n"
        "    c:Tok = create_token \n"
        "    d:Tok = after_all b c\n"
        "    e:Tok = after_all \n"
        "  in (a, d, e) }"
    )
    text = str(make_jaxpr(lambda t, x: (lax.after_all(t), x))(lax.create_token(), 1.0))
    assert text == "{ lambda ; a:Tok b:f32[]. let c:Tok = after_all a in (c, b) }"
    # The argument of create_token is ignored, as in JAX.
    text = str(make_jaxpr(lambda x: lax.create_token(x))(1.0))
    assert text == "{ lambda ; a:f32[]. let b:Tok = create_token  in (b,) }"


def test_eager_tokens_are_token_objects() -> None:
    tok = lax.create_token()
    assert isinstance(tok, Token)
    assert isinstance(lax.after_all(tok, lax.create_token()), Token)
    assert get_aval(tok) is abstract_token
    assert np.asarray(tok).shape == (0,)


def test_abstract_token_equals_only_tokens() -> None:
    assert AbstractToken() == abstract_token
    assert hash(AbstractToken()) == hash(abstract_token)
    assert abstract_token != ShapedArray((0,), np.bool_)
    assert ShapedArray((0,), np.bool_) != abstract_token
    assert repr(abstract_token) == "AbstractToken()"
    assert pickle.loads(pickle.dumps(abstract_token)) == abstract_token


@pytest.mark.parametrize("bad", [1.0, np.zeros(3, np.float32)])
def test_after_all_refuses_values_that_are_not_tokens(bad: object) -> None:
    with pytest.raises(TypeError, match="Arguments to after_all must be tokens"):
        lax.after_all(lax.create_token(), bad)
    with pytest.raises(TypeError, match="Arguments to after_all must be tokens"):
        make_jaxpr(lambda x: lax.after_all(x))(bad)
