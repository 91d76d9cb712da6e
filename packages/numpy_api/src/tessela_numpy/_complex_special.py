"""Special values of complex element-wise functions, as the array API standard lists them.

XLA's complex kernels (and so JAX's) return ``NaN + NaN j`` or a wrong sign for a
few inputs with an infinite, NaN or zero part where the standard (C99's Annex G)
names another value: ``cosh(+0 + inf j)`` is ``NaN + 0j``, ``log(inf + NaN j)``
is ``inf + NaN j``, ``sign(-0 + 0j)`` is ``0 + 0j``. Each ``*_special`` rule here
takes the input ``z`` and the kernel's result ``out`` and replaces ``out`` only
at those inputs, so every other value stays the kernel's. :func:`with_special`
applies a rule to complex inputs only: real inputs bind the kernel alone, as
before.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from tessela_tracer import jit, lax
from tessela_tracer.typing import Array, ArrayLike

from ._arrays import aval_of, convert, dtype_is, full_like, select_n

__all__ = [
    "acos_kernel", "acos_special", "acosh_kernel", "acosh_special", "asinh_kernel", "asinh_special",
    "atanh_kernel", "atanh_special", "cosh_kernel", "cosh_special", "expm1_kernel", "expm1_special",
    "log1p_kernel", "log_kernel", "log_special", "sign_kernel", "sign_special", "sinh_kernel",
    "sinh_special", "tanh_kernel", "tanh_special", "with_special",
]  # fmt: skip

Rule = Callable[[Array, Array], Array]


def _nan(x: Array) -> Array:
    return lax.ne(x, x)


def _inf(x: Array) -> Array:
    return lax.eq(lax.abs(x), convert(np.inf, aval_of(x).dtype))


def _zero(x: Array) -> Array:
    return lax.eq(x, convert(0, aval_of(x).dtype))


def _not_finite(x: Array) -> Array:
    return lax.bitwise_not(lax.is_finite(x))


def _and(*preds: Array) -> Array:
    out = preds[0]
    for p in preds[1:]:
        out = lax.bitwise_and(out, p)
    return out


def _or(*preds: Array) -> Array:
    out = preds[0]
    for p in preds[1:]:
        out = lax.bitwise_or(out, p)
    return out


def _fill(like: Array, value: float) -> Array:
    return full_like(like, value)


def _patch(out: Array, cond: Array, re: Array | float, im: Array | float, like: Array) -> Array:
    """``out`` with ``re + im j`` where ``cond`` holds (``re``/``im``: arrays like ``like``, or floats)."""
    re = _fill(like, re) if isinstance(re, float) else re
    im = _fill(like, im) if isinstance(im, float) else im
    return select_n(cond, out, lax.complex(re, im))


def _signed_zero(x: Array) -> Array:
    """A zero with the sign of ``x`` (for ``x`` zero or infinite): ``x`` itself or ``1 / x``."""
    one = convert(1, aval_of(x).dtype)
    return select_n(_zero(x), lax.div(one, x), x)


_RULE_DOC = """{summary}
{more}
    Args:
      z: {z}
      out: the kernel's {out}.

    Returns:
      ``out`` with the standard's special values{note}.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> z = ShapeDtypeStruct((2,), "complex64")
    >>> eval_shape({name}, z, z).dtype
    dtype('complex64')
    """


def _rule(
    summary: str,
    *,
    more: str = "",
    z: str = "the complex input ``a + b j``.",
    out: str = "",
    note: str = "",
) -> Callable[[Rule], Rule]:
    # Gives a ``*_special`` rule its docstring: ``summary`` (and the paragraph
    # ``more``, its lines split by newlines), the arguments and a doctest;
    # ``out`` defaults to ``name(z)``.
    paragraph = "".join(f"\n    {line}" for line in more.splitlines()) + "\n" if more else ""

    def document(rule: Rule) -> Rule:
        kernel = out or f"``{rule.__name__.removesuffix('_special')}(z)``"
        rule.__doc__ = _RULE_DOC.format(
            summary=summary, more=paragraph, z=z, out=kernel, note=note, name=rule.__name__
        )
        return rule

    return document


@_rule(
    "``cosh``: ``NaN + 0j`` at ``±0 + (inf or NaN) j``; ``inf + NaN j`` at ``±inf + (inf or NaN) j``.",
    z="the complex input.",
)
def cosh_special(z: Array, out: Array) -> Array:
    a, b = lax.real(z), lax.imag(z)
    bad_b = _not_finite(b)
    out = _patch(out, _and(_zero(a), bad_b), np.nan, 0.0, a)
    return _patch(out, _and(_inf(a), bad_b), np.inf, np.nan, a)


@_rule("``sinh``: ``a + NaN j`` where ``a`` is zero or infinite and ``b`` is infinite or NaN.")
def sinh_special(z: Array, out: Array) -> Array:
    a, b = lax.real(z), lax.imag(z)
    return _patch(out, _and(_or(_zero(a), _inf(a)), _not_finite(b)), a, np.nan, a)


@_rule(
    "``tanh``: ``±0 + NaN j`` at ``±0 + (inf or NaN) j``; ``±1 ± 0j`` at ``±inf + b j``, ``b`` finite.",
    more=(
        "The zeros take the signs of ``a`` and ``b`` (the kernel's imaginary zero at\n"
        "``inf + b j`` has the sign of ``sin(2b)``, the standard's that of ``b``)."
    ),
)
def tanh_special(z: Array, out: Array) -> Array:
    a, b = lax.real(z), lax.imag(z)
    dt = aval_of(b).dtype
    out = _patch(out, _and(_zero(a), _not_finite(b)), a, np.nan, a)
    signed_zero_b = select_n(
        _zero(b), select_n(lax.lt(b, convert(0, dt)), _fill(b, 0.0), _fill(b, -0.0)), b
    )
    return _patch(out, _and(_inf(a), lax.is_finite(b)), lax.real(out), signed_zero_b, a)


@_rule(
    "``expm1``: ``inf + NaN j`` at ``+inf + (inf or NaN) j``, ``-1 ± 0j`` at ``-inf + (inf or NaN) j``.",
    note=" (the zero takes ``b``'s sign)",
)
def expm1_special(z: Array, out: Array) -> Array:
    a, b = lax.real(z), lax.imag(z)
    dt = aval_of(a).dtype
    bad_b = _not_finite(b)
    out = _patch(out, _and(lax.eq(a, convert(np.inf, dt)), bad_b), np.inf, np.nan, a)
    zero_im = select_n(lax.lt(b, convert(0, dt)), _fill(b, 0.0), _fill(b, -0.0))
    return _patch(out, _and(lax.eq(a, convert(-np.inf, dt)), bad_b), -1.0, zero_im, a)


@_rule(
    "``log`` and ``log1p``: ``inf + NaN j`` at ``±inf + NaN j`` and at ``NaN ± inf j``.",
    out="``log(z)`` (or ``log1p(z)``)",
)
def log_special(z: Array, out: Array) -> Array:
    a, b = lax.real(z), lax.imag(z)
    cond = _or(_and(_inf(a), _nan(b)), _and(_nan(a), _inf(b)))
    return _patch(out, cond, np.inf, np.nan, a)


@_rule(
    "``atanh`` where a part is NaN: ``±0 + NaN j`` at ``(±0 or ±inf) + NaN j``, else ``NaN + NaN j``.",
    more="``NaN ± inf j`` keeps the kernel's ``±0 ± πj/2``.",
    note=" (the zero takes ``a``'s sign)",
)
def atanh_special(z: Array, out: Array) -> Array:
    a, b = lax.real(z), lax.imag(z)
    zero_or_inf = _or(_zero(a), _inf(a))
    both_nan = _or(
        _and(_nan(b), lax.bitwise_not(zero_or_inf)),
        _and(_nan(a), lax.bitwise_not(_inf(b))),
    )
    out = _patch(out, both_nan, np.nan, np.nan, a)
    return _patch(out, _and(_nan(b), zero_or_inf), _signed_zero(a), np.nan, a)


@_rule("``asinh``: ``NaN ± 0j`` (the sign of ``b``) at ``NaN ± 0j``.")
def asinh_special(z: Array, out: Array) -> Array:
    a, b = lax.real(z), lax.imag(z)
    return _patch(out, _and(_nan(a), _zero(b)), np.nan, b, a)


@_rule("``acos``: ``π/2 + NaN j`` at ``±0 + NaN j``.")
def acos_special(z: Array, out: Array) -> Array:
    a, b = lax.real(z), lax.imag(z)
    return _patch(out, _and(_zero(a), _nan(b)), np.pi / 2, np.nan, a)


@_rule("``acosh``: ``NaN + πj/2`` at ``+0 + NaN j``.")
def acosh_special(z: Array, out: Array) -> Array:
    a, b = lax.real(z), lax.imag(z)
    dt = aval_of(a).dtype
    # 1 / +0 is +inf and 1 / -0 is -inf.
    positive_zero = _and(_zero(a), lax.gt(lax.div(convert(1, dt), a), convert(0, dt)))
    return _patch(out, _and(positive_zero, _nan(b)), np.nan, np.pi / 2, a)


@_rule(
    "``sign``: ``+0 + 0j`` at every complex zero (``x / |x|`` keeps the zero's signs).",
    z="the complex input.",
)
def sign_special(z: Array, out: Array) -> Array:
    return _patch(out, lax.eq(z, convert(0, aval_of(z).dtype)), 0.0, 0.0, lax.real(z))


def with_special(
    name: str, op: Callable[[ArrayLike], Array], rule: Rule
) -> Callable[[ArrayLike], Array]:
    """``op``, followed on complex inputs by ``rule`` (staged as one call named ``name``).

    Args:
      name: the function's name (the staged call's name in a jaxpr).
      op: the kernel, one array in and one out.
      rule: a ``*_special`` rule of this module.

    Returns:
      A function of one array: ``op(x)`` for real ``x``, ``rule(x, op(x))`` for complex ``x``.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> f = with_special("sign", lax.sign, sign_special)
    >>> eval_shape(f, ShapeDtypeStruct((3,), "complex64")).shape
    (3,)
    """

    def complex_run(z: Array) -> Array:
        return rule(z, op(z))

    complex_run.__name__ = complex_run.__qualname__ = name
    staged = jit(complex_run)

    def run(x: ArrayLike) -> Array:
        if dtype_is(aval_of(x).dtype, np.complexfloating):
            out: Array = staged(x)
            return out
        result: Array = op(x)
        return result

    run.__name__ = run.__qualname__ = name
    return run


# The kernels of the NumPy functions of the same names: the standard's special
# values on complex inputs, the primitive alone on real ones.
acos_kernel = with_special("arccos", lax.acos, acos_special)
acosh_kernel = with_special("arccosh", lax.acosh, acosh_special)
asinh_kernel = with_special("arcsinh", lax.asinh, asinh_special)
atanh_kernel = with_special("arctanh", lax.atanh, atanh_special)
cosh_kernel = with_special("cosh", lax.cosh, cosh_special)
expm1_kernel = with_special("expm1", lax.expm1, expm1_special)
log_kernel = with_special("log", lax.log, log_special)
log1p_kernel = with_special("log1p", lax.log1p, log_special)
sign_kernel = with_special("sign", lax.sign, sign_special)
sinh_kernel = with_special("sinh", lax.sinh, sinh_special)
tanh_kernel = with_special("tanh", lax.tanh, tanh_special)
