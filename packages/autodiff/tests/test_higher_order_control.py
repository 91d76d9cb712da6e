"""Higher-order derivatives through scan, fori_loop, cond, switch, jit and their nesting.

The reference is the first-order gradient, itself checked against central
differences in ``test_rules.py``/``test_api.py``: a Hessian-vector product
must match central differences of ``grad``, and reverse-over-reverse,
forward-over-reverse and reverse-over-forward must agree with each other.
Everything runs in float64.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import tessela_numpy  # noqa: F401  (operators on tracers: x[0], x * y)
from hypothesis import given, settings
from hypothesis import strategies as st
from tessela_autodiff import grad, hessian, jacfwd, jacrev, jvp, linear_transpose
from tessela_batching import vmap
from tessela_lowering import jit
from tessela_tracer import checkpoint, debug_callback, lax, make_jaxpr

SETTINGS = settings(max_examples=2, deadline=None, derandomize=True)
seeds = st.integers(0, 2**16)


pytestmark = pytest.mark.usefixtures("x64_module")


def _rs(x: Any) -> Any:
    return lax.reduce_sum(x, (0,))


# Each program maps a float64[3] to a scalar; branch predicates stay away from
# their thresholds for the inputs drawn below (|x| in [0.2, 0.9]).


def scan_nonlinear_carry(x: Any) -> Any:
    def body(c: Any, xi: Any) -> tuple[Any, Any]:
        c2 = c * lax.sin(xi) + xi * c * c
        return c2 * 0.5, c2 * x[0]

    c, ys = lax.scan(body, _rs(x), x)
    return c * c + _rs(lax.sin(ys))


def scan_reverse_two_carries(x: Any) -> Any:
    def body(c: Any, xi: Any) -> tuple[Any, Any]:
        a, b = c
        return (lax.tanh(a * xi + x[1]), b * 2.0 * x[0] + lax.sin(a)), a * b

    (a, b), ys = lax.scan(body, (x[0], x[2]), x, reverse=True)
    return a * b + _rs(ys * ys)


def fori_static(x: Any) -> Any:
    def body(i: Any, c: Any) -> Any:
        return lax.sin(c * x) + lax.convert_element_type(i, c.dtype) * 0.1

    return _rs(lax.fori_loop(0, 3, body, x) * x)


def cond_on_sign(x: Any) -> Any:
    y = lax.cond(_rs(x) > 0.0, lambda a: lax.sin(a) * a, lambda a: lax.exp(a) * x[1], x)
    return _rs(y * y)


def switch_three(x: Any) -> Any:
    i = lax.convert_element_type(lax.floor(lax.abs(x[0]) * 3.0), np.int32)
    branches = [
        lambda a: lax.sin(a) * a,
        lambda a: lax.exp(a) * a,
        lambda a: lax.cos(a * a),
    ]
    return _rs(lax.switch(i, branches, x) ** 2)


def jit_call(x: Any) -> Any:
    g = jit(lambda a, b: lax.sin(a) * b * b)
    return _rs(g(x, lax.exp(x)))


def scan_of_cond(x: Any) -> Any:
    def body(c: Any, xi: Any) -> tuple[Any, Any]:
        c2 = lax.cond(xi > 0.0, lambda a: lax.sin(a) * xi, lambda a: a * a * xi, c)
        return c2, c2 * c

    c, ys = lax.scan(body, x[0], x)
    return c * _rs(ys)


def cond_of_scan(x: Any) -> Any:
    def branch(a: Any) -> Any:
        def body(c: Any, ai: Any) -> tuple[Any, Any]:
            return lax.sin(c * ai), c * c

        c, ys = lax.scan(body, _rs(a), a)
        return c + _rs(ys)

    return lax.cond(x[1] > -5.0, branch, lambda a: _rs(a * a), x)


def jit_in_scan(x: Any) -> Any:
    g = jit(lambda a, b: lax.sin(a) * b)

    def body(c: Any, xi: Any) -> tuple[Any, Any]:
        return g(c, xi) + c * xi, g(xi, c)

    c, ys = lax.scan(body, x[2], x)
    return c * c + _rs(ys * ys)


def scan_of_scan(x: Any) -> Any:
    def outer(c: Any, xi: Any) -> tuple[Any, Any]:
        def inner(d: Any, xj: Any) -> tuple[Any, Any]:
            return lax.sin(d * xj + c), d

        d, ds = lax.scan(inner, xi, x)
        return c * d, _rs(ds)

    c, ys = lax.scan(outer, x[1] + 1.0, x)
    return c + _rs(ys * ys)


PROGRAMS: dict[str, Callable[[Any], Any]] = {
    f.__name__: f
    for f in (
        scan_nonlinear_carry, scan_reverse_two_carries, fori_static, cond_on_sign, switch_three,
        jit_call, scan_of_cond, cond_of_scan, jit_in_scan, scan_of_scan,
    )
}  # fmt: skip


def _point(seed: int) -> np.ndarray:
    rng = np.random.RandomState(seed)
    return rng.uniform(0.2, 0.9, 3) * rng.choice([-1.0, 1.0], 3)


def _close(a: Any, b: Any, tol: float = 1e-10) -> None:
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=tol, atol=tol)


@functools.cache
def _compiled(name: str, how: str) -> Callable[..., Any]:
    # One compiled program per derivative (eager higher-order derivatives
    # dispatch hundreds of small programs); eager is compared once below.
    f = PROGRAMS[name]

    def along(x: Any, s: Any) -> Any:
        return f(x * s)

    derivatives: dict[str, Callable[..., Any]] = {
        "grad": grad(f),
        "hessian": hessian(f),  # jacfwd(jacrev(f))
        "jacrev_jacrev": jacrev(jacrev(f)),
        "jacrev_jacfwd": jacrev(jacfwd(f)),
        "grad_along": grad(along, argnums=1),
        "grad_grad_along": grad(grad(along, argnums=1), argnums=1),
        "jvp_grad_along": lambda x, s: jvp(lambda t: grad(along, argnums=1)(x, t), (s,), (1.0,))[1],
    }
    return jit(derivatives[how])


@pytest.mark.parametrize("name", sorted(PROGRAMS))
@given(seed=seeds)
@SETTINGS
def test_hessian_matches_differences_of_grad_and_reverse_over_reverse(name: str, seed: int) -> None:
    x = _point(seed)
    d = np.random.RandomState(seed + 1).standard_normal(3)
    h = np.asarray(_compiled(name, "hessian")(x))
    assert h.shape == (3, 3)
    g = _compiled(name, "grad")
    _close(h @ d, (np.asarray(g(x + 1e-6 * d)) - np.asarray(g(x - 1e-6 * d))) / 2e-6, 1e-6)
    _close(h, h.T, 1e-9)
    _close(_compiled(name, "jacrev_jacrev")(x), h)
    _close(_compiled(name, "jacrev_jacfwd")(x), h)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
@given(seed=seeds)
@SETTINGS
def test_grad_of_grad_matches_differences(name: str, seed: int) -> None:
    x = _point(seed)
    s, eps = 1.0 + 0.1 * np.random.RandomState(seed).standard_normal(), 1e-6
    g = _compiled(name, "grad_along")
    fd = (float(g(x, s + eps)) - float(g(x, s - eps))) / (2 * eps)
    _close(_compiled(name, "grad_grad_along")(x, s), fd, 1e-6)
    _close(_compiled(name, "jvp_grad_along")(x, s), fd, 1e-6)


@pytest.mark.parametrize("name", ["scan_nonlinear_carry", "scan_of_cond", "jit_in_scan"])
def test_third_order_matches_differences(name: str) -> None:
    x = _point(7)

    def along(s: Any) -> Any:
        return PROGRAMS[name](x * s)

    gg = jit(grad(grad(along)))
    eps = 1e-5
    fd = (float(gg(1.0 + eps)) - float(gg(1.0 - eps))) / (2 * eps)
    _close(jit(grad(grad(grad(along))))(1.0), fd, 1e-5)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_eager_hessian_equals_jit_of_hessian(name: str) -> None:
    x = _point(3)
    _close(hessian(PROGRAMS[name])(x), _compiled(name, "hessian")(x))


@pytest.mark.parametrize("name", ["scan_nonlinear_carry", "cond_on_sign", "switch_three"])
def test_vmap_of_hessian_equals_loop(name: str) -> None:
    # The rows take different branches of cond_on_sign and switch_three.
    xs = np.array([[0.3, -0.7, 1.1], [-0.8, 0.2, -0.5]])
    want = np.stack([np.asarray(_compiled(name, "hessian")(x)) for x in xs])
    _close(jit(vmap(hessian(PROGRAMS[name])))(xs), want)


def test_scan_transposes_a_carry_that_starts_at_a_known_zero() -> None:
    # Linear in v; the carry's initial value is a constant, not a linear input.
    xs = np.array([1.0, 2.0, 3.0])

    def f(v: Any) -> Any:
        c, ys = lax.scan(lambda c, xi: (c * 0.5 + xi * v, c), 0.0, xs)
        return c + _rs(ys)

    # c_k = 0.5 c_{k-1} + x_k v, so c = 4.25 v and the ys (c_0, c_1, c_2) sum to 3.5 v.
    (ct,) = linear_transpose(f, 1.0)(2.0)
    _close(ct, 2.0 * 7.75)


def test_reverse_over_reverse_stays_a_scan() -> None:
    # No unrolling: the second-order program still loops (the forward scan, the
    # transposed scan and the transpose of its linearization).
    jaxpr = make_jaxpr(grad(grad(lambda s: scan_nonlinear_carry(np.ones(3) * s))))(1.0)
    assert sum(e.primitive.name == "scan" for e in jaxpr.eqns) >= 3


def test_scan_residual_that_is_a_const_stays_a_const() -> None:
    # The linear body needs w, a const of the scan: the transposed scan takes it
    # as its own const, not as a copy stacked once per iteration.
    def f(c0: Any, w: Any) -> Any:
        c, ys = lax.scan(lambda c, xi: (lax.sin(c) * w + xi, c), c0, np.arange(4.0))
        return c + _rs(ys)

    c0, w = np.float64(0.5), np.float64(1.5)  # strong types: no conversion in the body
    jaxpr = make_jaxpr(grad(f))(c0, w)
    forward, backward = [e for e in jaxpr.eqns if e.primitive.name == "scan"]
    assert backward.params["num_consts"] == 1
    assert backward.invars[0] is jaxpr.jaxpr.invars[1]
    # what the forward scan stacks: the carry's cos, once (besides the carry and ys)
    assert len(forward.outvars) == 3
    eps = 1e-6
    _close(grad(f)(c0, w), (float(f(c0 + eps, w)) - float(f(c0 - eps, w))) / (2 * eps), 1e-7)


def test_scan_residual_computed_from_consts_is_computed_once() -> None:
    # The weakly typed w is converted in the body; the linear body needs the
    # converted value, which the known scan computes once, before the loop.
    def f(w: Any, xs: Any) -> Any:
        c, ys = lax.scan(lambda c, xi: (lax.sin(c * w + xi), c), np.float64(0.0), xs)
        return c + _rs(ys)

    xs = np.linspace(0.0, 1.0, 4)
    jaxpr = make_jaxpr(grad(f))(1.5, xs)
    forward, backward = [e for e in jaxpr.eqns if e.primitive.name == "scan"]
    assert backward.params["num_consts"] == 1
    (hoisted,) = [e for e in jaxpr.eqns if e.outvars[0] is backward.invars[0]]
    assert hoisted.primitive.name == "convert_element_type"
    # carry, ys, the carry (again, a residual) and cos: nothing loop-invariant
    assert len(forward.outvars) == 4
    eps = 1e-6
    _close(grad(f)(1.5, xs), (float(f(1.5 + eps, xs)) - float(f(1.5 - eps, xs))) / (2 * eps), 1e-7)


def test_scan_residual_hoisting_keeps_effects_in_the_loop() -> None:
    seen: list[float] = []

    def f(w: Any) -> Any:
        def body(c: Any, xi: Any) -> tuple[Any, Any]:
            v = lax.exp(w)
            debug_callback(lambda a: seen.append(float(a)), v)
            return c * v + xi, c

        c, _ = lax.scan(body, w, np.arange(3.0))
        return c

    np.testing.assert_allclose(float(grad(f)(0.5)), float(jvp(f, (0.5,), (1.0,))[1]))
    assert len(seen) == 3 + 3  # grad's forward pass, then jvp's


def remat_of_scan(x: Any) -> Any:
    @checkpoint
    def g(a: Any) -> Any:
        c, ys = lax.scan(lambda c, ai: (lax.sin(c * ai), c * c), _rs(a), a)
        return c + _rs(ys)

    return g(x) * x[0]


def remat_of_cond_and_jit(x: Any) -> Any:
    h = jit(lambda a, b: lax.exp(a) * b)

    @checkpoint
    def g(a: Any) -> Any:
        y = lax.cond(a[0] < 5.0, lambda b: lax.sin(b) * b, lambda b: b, a)
        return _rs(h(y, a) * y)

    return g(x) * x[1]


@pytest.mark.parametrize("f", [remat_of_scan, remat_of_cond_and_jit], ids=lambda f: f.__name__)
def test_checkpointed_control_flow_to_third_order(f: Callable[[Any], Any]) -> None:
    # checkpoint stages its body equation by equation: a scan, cond or jit in it
    # must still be split into its known and linear halves.
    x = _point(11)

    def along(s: Any) -> Any:
        return f(x * s)

    eps, s = 1e-5, 1.1
    derivs = [jit(along)]
    for _ in range(3):
        derivs.append(jit(grad(derivs[-1])))
    for lower, higher in itertools.pairwise(derivs):
        fd = (float(lower(s + eps)) - float(lower(s - eps))) / (2 * eps)
        _close(higher(s), fd, 1e-5)


def scan_of_checkpointed_body(x: Any) -> Any:
    body = checkpoint(lambda c, xi: (lax.sin(c * xi) + c * c * 0.1, c * xi))
    c, ys = lax.scan(body, _rs(x), x)
    return c + _rs(ys * ys)


@pytest.mark.parametrize("f", [remat_of_scan, scan_of_checkpointed_body], ids=lambda f: f.__name__)
def test_checkpointed_control_flow_hessian(f: Callable[[Any], Any]) -> None:
    x, d, eps = _point(13), np.array([0.5, -1.0, 0.25]), 1e-6
    h = np.asarray(jit(hessian(f))(x))
    g = jit(grad(f))
    _close(h @ d, (np.asarray(g(x + eps * d)) - np.asarray(g(x - eps * d))) / (2 * eps), 1e-6)
    _close(jit(jacrev(jacrev(f)))(x), h)


def _while_fun(x: Any) -> Any:
    def body(c: Any) -> Any:
        i, v = c
        return i + 1, lax.sin(v * x)

    return _rs(lax.while_loop(lambda c: c[0] < 3, body, (0, x))[1])


def test_while_loop_forward_over_forward() -> None:
    x = _point(5)
    h = np.asarray(jacfwd(jacfwd(_while_fun))(x))
    d = np.random.RandomState(5).standard_normal(3)
    eps = 1e-6
    g = jacfwd(_while_fun)
    fd = (np.asarray(g(x + eps * d)) - np.asarray(g(x - eps * d))) / (2 * eps)
    _close(h @ d, fd, 1e-6)
    _close(h, hessian(fori_static_while_free)(x))


def fori_static_while_free(x: Any) -> Any:
    # _while_fun with a static trip count, written as a scan-based fori_loop.
    return _rs(lax.fori_loop(0, 3, lambda i, v: lax.sin(v * x), x))


def test_while_loop_reverse_mode_raises_like_jax() -> None:
    with pytest.raises(ValueError, match="Reverse-mode differentiation does not work"):
        jacfwd(jacrev(_while_fun))(_point(5))
