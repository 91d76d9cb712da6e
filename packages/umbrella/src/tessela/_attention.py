"""``tessela.nn.dot_product_attention``: scaled dot-product attention, as in ``jax.nn``.

The computation is JAX's XLA path: logits ``q . k * scale`` (accumulated in at
least float32), plus an optional bias, with masked entries replaced by a large
negative number, a float32 softmax over the keys, and the weighted sum of the
values. Grouped-query attention (fewer key/value heads than query heads) is
computed on a ``(K, G)`` split of the query heads, without repeating the keys.
Everything is ``tessela.numpy``, so it traces, batches and differentiates.
"""

from __future__ import annotations

import math
from typing import Any, Literal, overload

import numpy as np
import tessela_numpy as tnp
from tessela_tracer import dtypes, lax
from tessela_tracer.typing import Array, ArrayLike

from ._nn_reduce import logsumexp, softmax

__all__ = ["dot_product_attention"]


def _as_4d(x: ArrayLike) -> Array:
    arr = tnp.asarray(x)
    missing = 4 - arr.ndim
    return tnp.reshape(arr, (1,) * missing + arr.shape) if missing > 0 else arr


def _check(x: Any, name: str, shape: tuple[int, ...], dtype: Any, fix: str) -> None:
    """Raise ValueError unless ``x`` has ``shape`` (-1: any size) and ``dtype``."""
    if x.ndim != len(shape):
        raise ValueError(
            f"dot_product_attention: {name} must have {len(shape)} dimensions, got shape "
            f"{x.shape}; {fix}"
        )
    if dtype is not None and np.dtype(x.dtype) != np.dtype(dtype):
        raise ValueError(
            f"dot_product_attention: {name} must have dtype {np.dtype(dtype)}, got {x.dtype}; {fix}"
        )
    if any(want not in (-1, got) for want, got in zip(shape, x.shape, strict=True)):
        wanted = tuple("*" if d == -1 else d for d in shape)
        raise ValueError(
            f"dot_product_attention: {name} must have shape {wanted}, got {x.shape}; {fix}"
        )


def _grouped(x: Any, name: str, n_heads: int, kv_heads: int) -> Any:
    """Split the head axis of a (B, N|1, T, S) bias or mask into (K, G)."""
    if x is None:
        return None
    b, n, t, s = x.shape
    if n == 1:
        return tnp.reshape(x, (b, 1, 1, t, s))
    if n != n_heads:
        raise ValueError(
            f"dot_product_attention: {name} has {n} heads on axis 1 but the query has "
            f"{n_heads}; give it {n_heads} heads or 1 (broadcast over heads)."
        )
    return tnp.reshape(x, (b, kv_heads, n_heads // kv_heads, t, s))


def _large_negative(dtype: Any) -> Any:
    # Capped at float32's range: the softmax runs in float32 and must stay finite.
    biggest = min(float(dtypes.finfo(dtype).max), float(dtypes.finfo(np.float32).max))
    return tnp.asarray(-0.7 * biggest, dtype=dtype)


def _combined_mask(
    t: int,
    s: int,
    mask: Any,
    is_causal: bool,
    q_lengths: Any,
    kv_lengths: Any,
    window: tuple[int, int] | None,
) -> Any:
    """The (B|1, K|1, G|1, T, S) boolean of logits kept, or None when all are kept."""
    parts = [] if mask is None else [mask]
    q_pos = tnp.arange(t)[:, None]
    k_pos = tnp.arange(s)[None, :]
    if is_causal:
        parts.append(k_pos <= q_pos)
    if window is not None:
        left, right = window
        parts.append((q_pos <= k_pos + left) & (q_pos >= k_pos - right))
    if q_lengths is not None:
        parts.append((tnp.arange(t) < q_lengths[:, None])[:, None, None, :, None])
    if kv_lengths is not None:
        parts.append((tnp.arange(s) < kv_lengths[:, None])[:, None, None, None, :])
    if not parts:
        return None
    keep = parts[0]
    for part in parts[1:]:
        keep = tnp.logical_and(keep, part)
    return keep


@overload
def dot_product_attention(
    query: ArrayLike,
    key: ArrayLike,
    value: ArrayLike,
    bias: ArrayLike | None = None,
    mask: ArrayLike | None = None,
    *,
    scale: float | None = None,
    is_causal: bool = False,
    query_seq_lengths: ArrayLike | None = None,
    key_value_seq_lengths: ArrayLike | None = None,
    local_window_size: int | tuple[int, int] | None = None,
    implementation: Literal["xla", "cudnn"] | None = None,
    return_residual: Literal[False] = False,
) -> Array: ...


@overload
def dot_product_attention(
    query: ArrayLike,
    key: ArrayLike,
    value: ArrayLike,
    bias: ArrayLike | None = None,
    mask: ArrayLike | None = None,
    *,
    scale: float | None = None,
    is_causal: bool = False,
    query_seq_lengths: ArrayLike | None = None,
    key_value_seq_lengths: ArrayLike | None = None,
    local_window_size: int | tuple[int, int] | None = None,
    implementation: Literal["xla", "cudnn"] | None = None,
    return_residual: Literal[True],
) -> tuple[Array, Array]: ...


def dot_product_attention(
    query: ArrayLike,
    key: ArrayLike,
    value: ArrayLike,
    bias: ArrayLike | None = None,
    mask: ArrayLike | None = None,
    *,
    scale: float | None = None,
    is_causal: bool = False,
    query_seq_lengths: ArrayLike | None = None,
    key_value_seq_lengths: ArrayLike | None = None,
    local_window_size: int | tuple[int, int] | None = None,
    implementation: Literal["xla", "cudnn"] | None = None,
    return_residual: bool = False,
) -> Array | tuple[Array, Array]:
    """Scaled dot-product attention, ``softmax(q k^T * scale + bias) v`` per head.

    Shapes use B batch, T query length, S key length, N query heads, K
    key/value heads (N a multiple of K) and H head size; the batch axis (and
    the head axis) may be left out of all three of ``query``, ``key``, ``value``.

    Args:
        query: ``(B, T, N, H)``.
        key: ``(B, S, K, H)``, the dtype of ``query``.
        value: ``(B, S, K, H)``, like ``key``.
        bias: added to the logits; broadcastable ``(B, N, T, S)`` with 1 or N heads.
        mask: boolean, broadcastable ``(B, N, T, S)``; False drops a logit.
        scale: multiplies the logits; ``1 / sqrt(H)`` when None.
        is_causal: query ``i`` attends only to keys ``j <= i``.
        query_seq_lengths: int32 ``(B,)``; queries past it give zero outputs.
        key_value_seq_lengths: int32 ``(B,)``; keys past it are masked.
        local_window_size: ``(left, right)`` (or one int for both): query ``i``
            attends keys ``i - left .. i + right``.
        implementation: None or ``"xla"``; ``"cudnn"`` is not available.
        return_residual: also return the logsumexp of the logits, ``(B, T, N)``.

    Returns:
        The attention output, shaped like ``query``; with ``return_residual``,
        a pair of it and the residual. A query row whose logits are all
        masked attends uniformly to every key.

    Example:
        >>> import tessela.numpy as tnp
        >>> q = tnp.ones((1, 2, 1, 4))
        >>> v = tnp.arange(12.0).reshape(1, 3, 1, 4)
        >>> dot_product_attention(q, tnp.ones((1, 3, 1, 4)), v).shape
        (1, 2, 1, 4)
        >>> print(dot_product_attention(q, tnp.ones((1, 3, 1, 4)), v, is_causal=True)[0, :, 0, 0])
        [0. 2.]
    """
    if implementation == "cudnn":
        raise NotImplementedError(
            "dot_product_attention: implementation='cudnn' is not available in Tessela; "
            "pass implementation=None or 'xla' (the same result)."
        )
    if implementation not in (None, "xla"):
        raise ValueError(
            f"dot_product_attention: unsupported implementation {implementation!r}; "
            "pass None or 'xla'."
        )
    out_shape = tnp.asarray(query).shape
    q, k, v = _as_4d(query), _as_4d(key), _as_4d(value)
    bias = None if bias is None else _as_4d(bias)
    mask = None if mask is None else _as_4d(mask)
    b, s, kv_heads, h = k.shape
    same = "query, key and value must share their batch, head size and dtype."
    _check(v, "value", (b, s, kv_heads, h), k.dtype, "value must have key's shape and dtype.")
    _check(q, "query", (b, -1, -1, h), k.dtype, same)
    if mask is not None:
        _check(mask, "mask", (-1,) * 4, np.bool_, "pass a boolean mask (True keeps a logit).")
    if bias is not None:
        _check(bias, "bias", (-1,) * 4, None, "pass a (B, N, T, S)-broadcastable bias.")
    given = {
        "query_seq_lengths": query_seq_lengths,
        "key_value_seq_lengths": key_value_seq_lengths,
    }
    lengths: dict[str, Array | None] = {}
    for name, value_ in given.items():
        lengths[name] = None
        if value_ is not None:
            lengths[name] = arr = tnp.asarray(value_)
            _check(arr, name, (b,), np.int32, f"pass an int32 array of {b} lengths, one per batch.")
    n_heads = q.shape[2]
    if n_heads % kv_heads:
        raise ValueError(
            f"dot_product_attention: the number of query heads ({n_heads}) must be a multiple "
            f"of the number of key/value heads ({kv_heads}); repeat or regroup the heads."
        )
    window = (
        (local_window_size, local_window_size)
        if isinstance(local_window_size, int)
        else local_window_size
    )
    groups = n_heads // kv_heads
    t = q.shape[1]
    logits_dtype = tnp.promote_types(q.dtype, np.float32)
    qg = tnp.reshape(q, (b, t, kv_heads, groups, h))
    logits = tnp.einsum("btkgh,bskh->bkgts", qg, k, preferred_element_type=logits_dtype)
    logits = logits * tnp.asarray(1.0 / math.sqrt(h) if scale is None else scale, logits_dtype)
    if bias is not None:
        logits = (logits + _grouped(bias, "bias", n_heads, kv_heads)).astype(logits_dtype)
    keep = _combined_mask(
        t,
        s,
        _grouped(mask, "mask", n_heads, kv_heads),
        is_causal,
        lengths["query_seq_lengths"],
        lengths["key_value_seq_lengths"],
        window,
    )
    if keep is not None:
        logits = tnp.where(keep, logits, _large_negative(logits_dtype))
    logits = logits.astype(np.float32)
    probs = softmax(logits, axis=-1).astype(k.dtype)
    out = tnp.einsum("bkgts,bskh->btkgh", probs, v)
    if lengths["query_seq_lengths"] is not None:
        valid = tnp.arange(t) < lengths["query_seq_lengths"][:, None]
        out = out * valid[:, :, None, None, None].astype(out.dtype)
    out = tnp.reshape(out, out_shape)
    if not return_residual:
        return out
    residual = logsumexp(logits, axis=-1).astype(k.dtype)  # (B, K, G, T)
    residual = tnp.moveaxis(tnp.reshape(residual, (b, n_heads, t)), 1, 2)
    return out, tnp.reshape(lax.stop_gradient(residual), out_shape[:-1])
