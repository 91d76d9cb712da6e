"""The shared tracing helpers of ``extend``: trace_with_aux, flatten_fun, join_consts."""

from __future__ import annotations

import numpy as np
from tessela_pytree import tree_flatten
from tessela_tracer import ShapedArray, check_jaxpr, lax
from tessela_tracer.extend import flatten_fun, join_consts, trace_with_aux

X = [ShapedArray((2,), np.dtype(np.float32))]


def test_trace_with_aux_returns_the_value_computed_while_tracing() -> None:
    c = np.arange(2, dtype=np.float32)
    jaxpr, consts, aux = trace_with_aux(lambda x: ([lax.add(x, c)], {"n": 1}), X)
    assert aux == {"n": 1}
    assert len(consts) == 1 and consts[0] is c
    check_jaxpr(jaxpr)


def test_flatten_fun_reports_the_output_tree() -> None:
    _, tree = tree_flatten(((1.0, 2.0),))
    flat = flatten_fun(lambda p: {"a": p[0], "b": (p[1],)}, tree)
    leaves, out_tree = flat(1.0, 2.0)
    assert leaves == [1.0, 2.0]
    assert out_tree == tree_flatten({"a": 0, "b": (0,)})[1]


def test_join_consts_shares_each_constant_once_across_jaxprs() -> None:
    a, b = np.ones(2, np.float32), np.full(2, 3.0, np.float32)
    j1, c1, _ = trace_with_aux(lambda x: ([lax.add(x, a)], None), X)
    j2, c2, _ = trace_with_aux(lambda x: ([lax.mul(lax.add(x, a), b)], None), X)
    (k1, k2), joined = join_consts([j1, j2], [c1, c2])
    assert [id(c) for c in joined] == [id(a), id(b)]
    for k in (k1, k2):
        check_jaxpr(k)
        assert len(k.jaxpr.invars) == len(joined) + 1
    # k1 ignores b, k2 uses both.
    assert k1.jaxpr.invars[1] not in {v for e in k1.jaxpr.eqns for v in e.invars}
    assert {k2.jaxpr.invars[0], k2.jaxpr.invars[1]} <= {v for e in k2.jaxpr.eqns for v in e.invars}


def test_join_consts_keeps_an_object_repeated_within_one_list() -> None:
    c1, c2 = np.ones(2, np.float32), np.full(2, 2.0, np.float32)
    j, consts, _ = trace_with_aux(lambda x: ([lax.mul(lax.add(x, c1), c2)], None), X)
    assert len(consts) == 2
    a = np.full(2, 3.0, np.float32)
    (k,), joined = join_consts([j], [[a, a]])
    assert [id(c) for c in joined] == [id(a), id(a)]
    check_jaxpr(k)
    used = {v for e in k.jaxpr.eqns for v in e.invars}
    assert k.jaxpr.invars[0] in used and k.jaxpr.invars[1] in used
