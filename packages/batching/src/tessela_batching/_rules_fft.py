"""Batching rule of ``fft``.

The transform acts on the operand's trailing ``len(fft_lengths)`` axes, so
the mapped axis moves to the front and the transform applies unchanged
through ``lax.fft`` (staged as a ``jit`` named ``fft``, as JAX's rule
stages it), its result batched along axis 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tessela_tracer import lax
from tessela_tracer import primitives as P
from tessela_tracer.typing import ArrayLike

from tessela_batching._core import moveaxis, register_batching

__all__: list[str] = []


def _fft_rule(
    args: Sequence[ArrayLike], dims: Sequence[Any], *, fft_type: Any, fft_lengths: tuple[int, ...]
) -> tuple[Any, int]:
    (x,), (d,) = args, dims
    return lax.fft(moveaxis(x, d, 0), fft_type, fft_lengths), 0


register_batching(P.fft_p, _fft_rule)
