"""Differentiation of the host-callback primitives.

``debug_callback`` and ``debug_print`` are transparent to differentiation:
under ``jvp`` (and so ``grad``) they call back with the primal values and
contribute no tangent; their transpose gives no cotangent. ``pure_callback``
and ``io_callback`` are opaque Python functions: differentiating through
them raises ``ValueError`` naming the fix (``custom_jvp`` / ``custom_vjp``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NoReturn

from tessela_tracer import Primitive
from tessela_tracer import primitives as P
from tessela_tracer.typing import Array, ArrayLike

from tessela_autodiff._ad_util import Tangent
from tessela_autodiff._jvp import register_jvp
from tessela_autodiff._transpose import register_transpose

__all__: list[str] = []


def _debug_jvp(prim: Primitive) -> Any:
    def rule(
        primals: Sequence[ArrayLike], tangents: Sequence[Tangent], **params: Any
    ) -> tuple[list[Array], list[Tangent]]:
        return prim.bind(*primals, **params), []

    return rule


def _debug_transpose(cts: Any, *args: Any, **params: Any) -> list[None]:
    return [None] * len(args)


for _prim in (P.debug_callback_p, P.debug_print_p):
    register_jvp(_prim, _debug_jvp(_prim))
    register_transpose(_prim, _debug_transpose)


def _refuse(message: str) -> Any:
    def rule(*args: object, **params: object) -> NoReturn:
        raise ValueError(message)

    return rule


register_jvp(
    P.pure_callback_p,
    _refuse(
        "Pure callbacks do not support JVP. Please use `custom_jvp` (tessela.custom_jvp) "
        "to use callbacks while taking gradients."
    ),
)
register_transpose(
    P.pure_callback_p,
    _refuse(
        "Pure callbacks do not support transpose. Please use `custom_vjp` "
        "(tessela.custom_vjp) to use callbacks while taking gradients."
    ),
)
register_jvp(
    P.io_callback_p,
    _refuse(
        "IO callbacks do not support JVP. Wrap the callback in `custom_jvp` "
        "(tessela.custom_jvp) to give it a derivative."
    ),
)
register_transpose(
    P.io_callback_p,
    _refuse(
        "IO callbacks do not support transpose. Wrap the callback in `custom_vjp` "
        "(tessela.custom_vjp) to give it a derivative."
    ),
)
