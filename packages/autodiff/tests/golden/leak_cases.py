"""Programs differentiated under the tracer-leak checker, on both implementations.

Shared by ``generate_leaks.py`` (run under the reference, with its leak checker
on) and ``test_tracer_leaks.py``. Each program maps a float32 scalar to a
float32 scalar through one higher-order construct (cond, switch, scan,
fori_loop, while_loop, checkpoint, custom_jvp, custom_vjp, linear_call,
jit); each transformation in :data:`TRANSFORMS` runs it (the pairs of
:func:`cases`) from an ``api`` namespace (``lax``, ``jit``, ``vmap``,
``checkpoint``, ``policies``, ``custom_jvp``, ``custom_vjp``,
``linear_call``, ``grad``, ``jvp``, ``vjp``, ``linearize``) and returns a
flat list of host arrays. :func:`run` gives ``{"ok": [values]}`` or, where the
implementation refuses the program, ``{"error": class name}``: a leaked
tracer is an ``Exception`` named ``Exception`` and never expected.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

Fun = Callable[[Any], Any]

X = np.float32(0.7)
T = np.float32(1.3)
CT = np.float32(-0.6)
XS = np.array([0.3, -0.5, 0.9], np.float32)


def _f32(v: float) -> np.float32:
    return np.float32(v)


def _cond(api: Any) -> Fun:
    lax = api.lax
    return lambda x: lax.cond(
        lax.gt(x, _f32(0)), lambda y: lax.mul(lax.sin(y), y), lambda y: lax.cos(y), x
    )


def _cond_closure(api: Any) -> Fun:
    # The branches close over a value computed from x: it becomes a residual.
    lax = api.lax

    def f(x: Any) -> Any:
        s = lax.exp(x)
        return lax.cond(
            lax.lt(x, _f32(2)), lambda y: lax.mul(lax.sin(y), s), lambda y: lax.mul(y, y), x
        )

    return f


def _switch(api: Any) -> Fun:
    lax = api.lax
    branches = [lax.sin, lambda y: lax.mul(lax.cos(y), y), lambda y: lax.mul(y, y)]
    return lambda x: lax.switch(1, branches, x)


def _scan(api: Any) -> Fun:
    lax = api.lax

    def f(x: Any) -> Any:
        def body(c: Any, a: Any) -> tuple[Any, Any]:
            return lax.add(lax.mul(c, lax.sin(a)), lax.mul(a, c)), lax.mul(c, c)

        c, ys = lax.scan(body, x, np.array([0.5, 1.0, 1.5], np.float32))
        return lax.add(c, lax.reduce_sum(ys, (0,)))

    return f


def _scan_closure(api: Any) -> Fun:
    # The body closes over x: a constant operand of the scan.
    lax = api.lax

    def f(x: Any) -> Any:
        def body(c: Any, a: Any) -> tuple[Any, Any]:
            return lax.add(lax.mul(c, lax.sin(a)), lax.mul(a, x)), lax.mul(c, x)

        c, ys = lax.scan(body, lax.cos(x), np.array([0.5, 1.0, 1.5], np.float32))
        return lax.add(c, lax.reduce_sum(ys, (0,)))

    return f


def _fori(api: Any) -> Fun:
    lax = api.lax
    return lambda x: lax.fori_loop(0, 3, lambda i, c: lax.mul(c, lax.sin(c)), x)


def _cond_in_scan(api: Any) -> Fun:
    lax = api.lax

    def f(x: Any) -> Any:
        def body(c: Any, a: Any) -> tuple[Any, Any]:
            c2 = lax.cond(
                lax.gt(a, _f32(1)),
                lambda z: lax.mul(z, lax.sin(z)),
                lambda z: lax.add(z, _f32(1)),
                c,
            )
            return c2, c

        c, ys = lax.scan(body, x, np.array([0.0, 2.0, 3.0], np.float32))
        return lax.add(c, lax.reduce_sum(ys, (0,)))

    return f


def _while_known(api: Any) -> Fun:
    # The loop does not depend on x: reverse mode works around it.
    lax = api.lax

    def f(x: Any) -> Any:
        n = lax.while_loop(
            lambda c: lax.lt(c[0], 3),
            lambda c: (lax.add(c[0], 1), lax.mul(c[1], _f32(1.5))),
            (0, _f32(1)),
        )[1]
        return lax.mul(lax.sin(x), n)

    return f


def _while_carry(api: Any) -> Fun:
    # x is carried: forward mode works, reverse mode is refused with ValueError.
    lax = api.lax
    return lambda x: lax.while_loop(
        lambda c: lax.lt(c[0], 3),
        lambda c: (lax.add(c[0], 1), lax.mul(c[1], lax.sin(c[1]))),
        (0, x),
    )[1]


def _remat(api: Any) -> Fun:
    lax = api.lax
    g = api.checkpoint(lambda y: lax.mul(lax.sin(lax.sin(y)), y))
    return lambda x: lax.mul(g(x), _f32(2))


def _remat_saveable(api: Any) -> Fun:
    lax = api.lax
    g = api.checkpoint(
        lambda y: lax.mul(lax.sin(lax.sin(y)), y), policy=api.policies.everything_saveable
    )
    return lambda x: lax.mul(g(x), x)


def _remat_scan(api: Any) -> Fun:
    lax = api.lax

    def f(x: Any) -> Any:
        body = api.checkpoint(lambda c, a: (lax.mul(lax.sin(c), a), c))
        c, ys = lax.scan(body, x, np.array([1.0, 2.0, 3.0], np.float32))
        return lax.add(c, lax.reduce_sum(ys, (0,)))

    return f


def _custom_jvp(api: Any) -> Fun:
    lax = api.lax

    @api.custom_jvp
    def h(x: Any) -> Any:
        return lax.mul(lax.sin(x), _f32(2))

    @h.defjvp
    def _h_jvp(primals: Any, tangents: Any) -> Any:
        (x,), (t,) = primals, tangents
        return h(x), lax.mul(lax.mul(lax.cos(x), _f32(2)), t)

    return lambda x: lax.mul(h(x), x)


def _custom_vjp(api: Any) -> Fun:
    lax = api.lax

    @api.custom_vjp
    def h(x: Any, y: Any) -> Any:
        return lax.mul(lax.sin(x), y)

    def fwd(x: Any, y: Any) -> Any:
        return h(x, y), (lax.cos(x), lax.sin(x), y)

    def bwd(res: Any, g: Any) -> Any:
        c, s, y = res
        return lax.mul(lax.mul(c, y), g), lax.mul(s, g)

    h.defvjp(fwd, bwd)
    return lambda x: lax.add(h(x, lax.mul(x, _f32(3))), x)


def _linear_call(api: Any) -> Fun:
    # The linear function closes over a value of the enclosing trace (a
    # constant operand of the call); the transpose is deliberately not the
    # function's true transpose, so reverse mode shows it ran.
    lax = api.lax

    def f(x: Any) -> Any:
        s = lax.stop_gradient(lax.cos(x))
        y = api.linear_call(
            lambda r, t: lax.mul(lax.mul(t, r), s),
            lambda r, c: lax.mul(lax.mul(c, r), _f32(2)),
            _f32(3),
            lax.mul(x, x),
        )
        return lax.sin(y)

    return f


def _jit_inner(api: Any) -> Fun:
    lax = api.lax

    def f(x: Any) -> Any:
        s = lax.sin(x)
        return api.jit(lambda y: lax.cond(lax.gt(y, _f32(0)), lax.exp, lax.cos, lax.mul(y, s)))(x)

    return f


PROGRAMS: dict[str, Callable[[Any], Fun]] = {
    "cond": _cond, "cond_closure": _cond_closure, "switch": _switch, "scan": _scan,
    "scan_closure": _scan_closure, "fori": _fori, "cond_in_scan": _cond_in_scan, "while_known": _while_known,
    "while_carry": _while_carry, "remat": _remat, "remat_saveable": _remat_saveable,
    "remat_scan": _remat_scan, "custom_jvp": _custom_jvp, "custom_vjp": _custom_vjp,
    "linear_call": _linear_call, "jit_inner": _jit_inner,
}  # fmt: skip


def _vjp(api: Any, f: Fun, x: Any) -> Any:
    return api.vjp(f, x)[1](CT)[0]


def _linearize(api: Any, f: Fun, x: Any) -> Any:
    return api.linearize(f, x)[1](T)


TRANSFORMS: dict[str, Callable[[Any, Fun], list[Any]]] = {
    "grad": lambda api, f: [api.grad(f)(X)],
    "jvp": lambda api, f: list(api.jvp(f, (X,), (T,))),
    "vjp": lambda api, f: [_vjp(api, f, X)],
    "linearize": lambda api, f: [_linearize(api, f, X)],
    "jit_grad": lambda api, f: [api.jit(api.grad(f))(X)],
    "grad_jit": lambda api, f: [api.grad(api.jit(f))(X)],
    "jit_vjp": lambda api, f: [api.jit(lambda x: _vjp(api, f, x))(X)],
    "jit_linearize": lambda api, f: [api.jit(lambda x: _linearize(api, f, x))(X)],
    "vmap_grad": lambda api, f: [api.vmap(api.grad(f))(XS)],
    "vmap_vjp": lambda api, f: [api.vmap(lambda x: _vjp(api, f, x))(XS)],
    "grad_grad": lambda api, f: [api.grad(api.grad(f))(X)],
}


# Transformations a program is not run under: the reference has no batching
# rule for linear_call.
SKIP: dict[str, set[str]] = {"linear_call": {"vmap_grad", "vmap_vjp"}}


def cases() -> list[tuple[str, str]]:
    """Every ``(program, transform)`` pair that is run."""
    return [
        (p, t) for p in PROGRAMS for t in TRANSFORMS if t not in SKIP.get(p, set())
    ]  # fmt: skip


def run(api: Any, program: str, transform: str) -> dict[str, Any]:
    """One transformation of one program: ``{"ok": [values]}`` or ``{"error": class name}``."""
    f = PROGRAMS[program](api)
    try:
        out = TRANSFORMS[transform](api, f)
    except Exception as e:
        return {"error": type(e).__name__, "message": str(e).split("\n", 1)[0][:200]}
    return {"ok": [np.asarray(v).tolist() for v in out]}
