"""The Threefry-2x32 PRNG implementation: seeding, splitting, folding, bits.

Everything here works on raw key data: ``uint32`` arrays of shape
``(*batch, 2)`` in any array namespace. Leading batch dimensions are mapped
over, which is what samplers with per-element loops (gamma, poisson, ...)
need. The counter layout follows the ``threefry_partitionable`` flag.
"""

from __future__ import annotations

import math
from typing import TypeAlias

from ._config import config
from ._namespace import Namespace, PrngArray, backend_ops, iota_pairs_numpy, namespace_of

__all__ = ["fold_in_data", "random_bits_data", "seed_data", "split_data"]

Array: TypeAlias = PrngArray
_MAX_U32 = 0xFFFFFFFF


def _words(data: Array, extra_dims: int) -> tuple[Array, Array]:
    """The two key words, each shaped ``(*batch, 1 * extra_dims)`` for broadcasting."""
    xp = namespace_of(data)
    batch = tuple(data.shape[:-1])
    target = batch + (1,) * extra_dims
    k0 = xp.reshape(data[..., 0], target)
    k1 = xp.reshape(data[..., 1], target)
    return k0, k1


def _hash(data: Array, x0: Array, x1: Array) -> tuple[Array, Array]:
    ops = backend_ops(data)
    k0, k1 = _words(data, x0.ndim)
    return ops.threefry2x32(k0, k1, x0, x1)


def _iota_2x32(xp: Namespace, shape: tuple[int, ...]) -> tuple[Array, Array]:
    """High and low words of the row-major flat index of every element."""
    size = math.prod(shape)
    if size > 2**64:
        raise NotImplementedError("random bits array of size exceeding 2 ** 64")
    if size <= 2**32:
        lo = xp.reshape(xp.arange(size, dtype=xp.uint32), shape)
        hi = xp.zeros(shape, dtype=xp.uint32)
        return hi, lo
    flat = xp.arange(size, dtype=xp.uint64)
    hi = xp.astype(flat >> 32, xp.uint32)
    lo = xp.astype(flat & _MAX_U32, xp.uint32)
    return xp.reshape(hi, shape), xp.reshape(lo, shape)


def _hash_flat(data: Array, count: Array) -> Array:
    """JAX's ``threefry_2x32``: hash a flat counter split into two halves."""
    xp = namespace_of(data)
    n = count.shape[0]
    if n % 2:
        count = xp.concat([count, xp.zeros((1,), dtype=xp.uint32)])
    half = count.shape[0] // 2
    y0, y1 = _hash(data, count[:half], count[half:])
    out = xp.concat([y0, y1], axis=-1)
    return out[..., :n]


def seed_data(seed: Array, /) -> Array:
    """Key data ``[hi, lo]`` for an integer scalar seed (already an array)."""
    xp = namespace_of(seed)
    if xp.isdtype(seed.dtype, "unsigned integer") and seed.dtype != xp.uint64:
        hi = xp.zeros((1,), dtype=xp.uint32)
    elif seed.dtype in (xp.int64, xp.uint64):
        wide = xp.astype(seed, xp.uint64)
        hi = xp.reshape(xp.astype(wide >> xp.asarray(32, dtype=xp.uint64), xp.uint32), (1,))
    else:
        hi = xp.zeros((1,), dtype=xp.uint32)
    if seed.dtype in (xp.int64, xp.uint64):
        lo64 = xp.astype(seed, xp.uint64) & xp.asarray(_MAX_U32, dtype=xp.uint64)
        lo = xp.astype(lo64, xp.uint32)
    else:
        lo = xp.astype(seed, xp.uint32)
    return xp.concat([hi, xp.reshape(lo, (1,))])


def _hash_iota(data: Array, batch: tuple[int, ...], shape: tuple[int, ...]) -> tuple[Array, Array]:
    """The two hash words of each flat index of ``shape`` under every key of ``data``."""
    if not batch and math.prod(shape) < 2**32:
        return backend_ops(data).threefry2x32_iota(data[0], data[1], shape)
    hi, lo = _iota_2x32(namespace_of(data), shape)
    return _hash(data, hi, lo)


def split_data(data: Array, shape: tuple[int, ...], /) -> Array:
    """Split every key of ``data`` (``(*batch, 2)``) into ``(*batch, *shape, 2)``."""
    xp = namespace_of(data)
    batch = tuple(data.shape[:-1])
    if config.threefry_partitionable:
        if not batch and math.prod(shape) < 2**32:
            pairs = iota_pairs_numpy(data, shape)
            if pairs is not None:
                return pairs
        y0, y1 = _hash_iota(data, batch, shape)
        y0 = xp.broadcast_to(y0, batch + shape)
        y1 = xp.broadcast_to(y1, batch + shape)
        return xp.stack([y0, y1], axis=-1)
    num = math.prod(shape)
    out = _hash_flat(data, xp.arange(2 * num, dtype=xp.uint32))
    out = xp.broadcast_to(out, (*batch, 2 * num))
    return xp.reshape(out, batch + shape + (2,))


def fold_in_data(data: Array, value: Array, /) -> Array:
    """Fold the ``uint32`` scalar ``value`` into every key of ``data``."""
    xp = namespace_of(data)
    zero = xp.zeros((1,), dtype=xp.uint32)
    y0, y1 = _hash(data, zero, xp.reshape(xp.astype(value, xp.uint32), (1,)))
    return xp.concat([y0, y1], axis=-1)


def random_bits_data(data: Array, bit_width: int, shape: tuple[int, ...], /) -> Array:
    """Uniform random unsigned integers of ``bit_width`` bits, one array per key."""
    xp = namespace_of(data)
    batch = tuple(data.shape[:-1])
    udtype = {8: xp.uint8, 16: xp.uint16, 32: xp.uint32, 64: xp.uint64}[bit_width]
    if config.threefry_partitionable:
        y0, y1 = _hash_iota(data, batch, shape)
        if bit_width == 64:
            wide = xp.bitwise_left_shift(xp.astype(y0, udtype), xp.asarray(32, dtype=udtype))
            out = wide | xp.astype(y1, udtype)
        else:
            y0 ^= y1
            out = y0
            if bit_width != 32:
                out = xp.astype(out, udtype)
        return xp.broadcast_to(out, batch + shape)
    size = math.prod(shape)
    max_count = -(-bit_width * size // 32)
    if max_count >= _MAX_U32:
        raise NotImplementedError(
            "random_bits with the legacy Threefry scheme supports fewer than 2**32 - 1 "
            "words per call; enable jax_threefry_partitionable for larger arrays."
        )
    words = _hash_flat(data, xp.arange(max_count, dtype=xp.uint32))
    if bit_width == 64:
        half = max_count // 2
        hi64 = xp.astype(words[..., :half], udtype)
        lo64 = xp.astype(words[..., half:], udtype)
        out = xp.bitwise_left_shift(hi64, xp.asarray(32, dtype=udtype)) | lo64
    elif bit_width == 32:
        out = words
    else:
        per = 32 // bit_width
        shifts = xp.asarray([bit_width * j for j in range(per)], dtype=xp.uint32)
        mask = xp.asarray((1 << bit_width) - 1, dtype=xp.uint32)
        parts = xp.bitwise_right_shift(words[..., None], shifts) & mask
        parts = xp.reshape(parts, (*words.shape[:-1], max_count * per))
        out = xp.astype(parts[..., :size], udtype)
    out = xp.broadcast_to(out, (*batch, size))
    return xp.reshape(out, batch + shape)
