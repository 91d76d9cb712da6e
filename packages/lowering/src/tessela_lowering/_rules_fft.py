"""Lowering rule of ``fft``: one ``stablehlo.fft``.

The operation transforms the trailing ``len(fft_lengths)`` axes, as the
primitive does, so the rule is a single op whose result type is the
primitive's output aval. On CUDA and ROCm a multi-dimensional ``IRFFT`` is
split into an ``IFFT`` of the leading transformed axes and a one-dimensional
``IRFFT`` of the last: the GPU library assumes Hermitian symmetry along every
axis of a multi-dimensional complex-to-real transform, where NumPy (and the
CPU backend) assume it only along the last.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tessela_tracer import primitives as P

from tessela_lowering import _hlo
from tessela_lowering._lowering import LoweringRuleContext, register_lowering
from tessela_lowering._xla import Value, stablehlo

__all__: list[str] = []

_GPU_PLATFORMS = ("cuda", "rocm", "gpu")


def _fft_op(x: Value, kind: str, lengths: Sequence[int], out: Any) -> Value:
    op = stablehlo.FftOp(
        x, stablehlo.FftTypeAttr.get(kind), [int(n) for n in lengths], results=[out]
    )
    return op.result


def _transpose(x: Value, perm: Sequence[int]) -> Value:
    shape = _hlo.shape_of(x)
    return stablehlo.TransposeOp(x, [int(p) for p in perm]).result if shape else x


def _moved(shape: Sequence[int], perm: Sequence[int]) -> tuple[int, ...]:
    return tuple(shape[p] for p in perm)


def _gpu_irfft(ctx: LoweringRuleContext, x: Value, fft_lengths: Sequence[int]) -> Value:
    aval_in, aval_out = ctx.avals_in[0], ctx.avals_out[0]
    rank = aval_in.ndim
    start = rank - len(fft_lengths)
    # Bring the half-spectrum axis to the front of the transformed block,
    # transform the others (now trailing) with a complex IFFT, move it back.
    to_front = list(range(rank))
    to_front.insert(start, to_front.pop(-1))
    x = _transpose(x, to_front)
    front_shape = _moved(aval_in.shape, to_front)
    x = _fft_op(x, "IFFT", fft_lengths[:-1], _hlo.tensor_type(front_shape, aval_in.dtype))
    back = list(range(rank))
    back.append(back.pop(start))
    x = _transpose(x, back)
    return _fft_op(x, "IRFFT", fft_lengths[-1:], _hlo.tensor_type(aval_out.shape, aval_out.dtype))


def _fft_lowering(
    ctx: LoweringRuleContext,
    x: Value,
    *,
    fft_type: Any,
    fft_lengths: Sequence[int],
) -> list[Value]:
    out = ctx.avals_out[0]
    if fft_type.name == "IRFFT" and len(fft_lengths) > 1 and ctx.platform in _GPU_PLATFORMS:
        return [_gpu_irfft(ctx, x, fft_lengths)]
    return [_fft_op(x, fft_type.name, fft_lengths, _hlo.tensor_type(out.shape, out.dtype))]


register_lowering(P.fft_p, _fft_lowering)
