"""Threefry-2x32 (20 rounds) on NumPy ``uint32`` arrays, in place and in blocks.

The hash is memory-bound when written as whole-array expressions: each of its
~110 elementwise steps would stream the full arrays through memory. Here the
inputs are processed in cache-sized blocks with in-place ufuncs and a single
scratch buffer, so one block stays in cache for all rounds.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeAlias

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

__all__ = [
    "parallel_blocks",
    "rounds_scalar_keys",
    "threefry2x32_iota_numpy",
    "threefry2x32_iota_pairs_numpy",
    "threefry2x32_numpy",
    "threefry_key_schedule",
]

_U32 = np.uint32
U32Array: TypeAlias = npt.NDArray[np.uint32]
_PARITY = 0x1BD11BDA
_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))
_BLOCK = 1 << 15
_PARALLEL_MIN = 1 << 18
_PAIRS_PARALLEL_MIN = 1 << 16
_WORKERS = max(1, min(8, os.cpu_count() or 1))
_POOL: ThreadPoolExecutor | None = None


def parallel_blocks(
    n: int, work: Callable[[int, int], None], /, *, min_size: int = _PARALLEL_MIN
) -> None:
    """Run ``work(start, stop)`` over ``range(n)`` in contiguous parts, in threads.

    NumPy's ufuncs release the GIL, so large arrays are processed on every
    core; below ``min_size`` elements everything runs in the calling thread.
    """
    global _POOL
    if n < min_size or _WORKERS == 1:
        work(0, n)
        return
    if _POOL is None:
        # concurrent.futures is imported with the first pool, not with the package.
        futures_module: Any = importlib.import_module("concurrent.futures")
        _POOL = futures_module.ThreadPoolExecutor(
            max_workers=_WORKERS, thread_name_prefix="tessela-prng"
        )
    step = -(-n // _WORKERS)
    step = -(-step // 1024) * 1024
    futures = [_POOL.submit(work, s, min(s + step, n)) for s in range(0, n, step)]
    for fut in futures:
        fut.result()


_LEFT = tuple(tuple(_U32(r) for r in rs) for rs in _ROTATIONS)
_RIGHT = tuple(tuple(_U32(32 - r) for r in rs) for rs in _ROTATIONS)


def _rotations(a: U32Array, b: U32Array, t: U32Array, i: int) -> None:
    """The four add-rotate-xor steps of Threefry's round group ``i``, in place."""
    add, xor, bor, shl, shr = np.add, np.bitwise_xor, np.bitwise_or, np.left_shift, np.right_shift
    left, right = _LEFT[i % 2], _RIGHT[i % 2]
    for j in range(4):
        add(a, b, out=a)
        shr(b, right[j], out=t)
        shl(b, left[j], out=b)
        bor(b, t, out=b)
        xor(b, a, out=b)


def rounds_scalar_keys(a: U32Array, b: U32Array, t: U32Array, ks: tuple[int, int, int]) -> None:
    np.add(a, _U32(ks[0]), out=a)
    np.add(b, _U32(ks[1]), out=b)
    for i in range(5):
        _rotations(a, b, t, i)
        np.add(a, _U32(ks[(i + 1) % 3]), out=a)
        np.add(b, _U32((ks[(i + 2) % 3] + i + 1) & 0xFFFFFFFF), out=b)


def threefry_key_schedule(w0: int, w1: int, /) -> tuple[int, int, int]:
    """The three key words of the schedule for scalar key words ``(w0, w1)``."""
    return (w0, w1, w0 ^ w1 ^ _PARITY)


def _rounds_array_keys(a: U32Array, b: U32Array, t: U32Array, k0: U32Array, k1: U32Array) -> None:
    k2 = k0 ^ k1 ^ _U32(_PARITY)
    ks = (k0, k1, k2)
    np.add(a, k0, out=a)
    np.add(b, k1, out=b)
    for i in range(5):
        _rotations(a, b, t, i)
        np.add(a, ks[(i + 1) % 3], out=a)
        np.add(b, ks[(i + 2) % 3], out=b)
        np.add(b, _U32(i + 1), out=b)


def threefry2x32_numpy(
    k0: npt.ArrayLike, k1: npt.ArrayLike, x0: npt.ArrayLike, x1: npt.ArrayLike
) -> tuple[U32Array, U32Array]:
    """Hash counter words ``(x0, x1)`` under key words ``(k0, k1)``; all broadcast."""
    k0 = np.asarray(k0, dtype=_U32)
    k1 = np.asarray(k1, dtype=_U32)
    x0 = np.asarray(x0, dtype=_U32)
    x1 = np.asarray(x1, dtype=_U32)
    shape = np.broadcast_shapes(k0.shape, k1.shape, x0.shape, x1.shape)
    a = np.empty(shape, dtype=_U32)
    b = np.empty(shape, dtype=_U32)
    np.copyto(a, x0)
    np.copyto(b, x1)
    fa = a.reshape(-1)
    fb = b.reshape(-1)
    n = fa.shape[0]
    if k0.size == 1 and k1.size == 1:
        w0 = int(k0.reshape(-1)[0])
        w1 = int(k1.reshape(-1)[0])
        ks = (w0, w1, w0 ^ w1 ^ _PARITY)

        def work(start: int, stop: int) -> None:
            scratch = np.empty(min(stop - start, _BLOCK), dtype=_U32)
            for s in range(start, stop, _BLOCK):
                e = min(s + _BLOCK, stop)
                rounds_scalar_keys(fa[s:e], fb[s:e], scratch[: e - s], ks)

    else:
        fk0 = np.ascontiguousarray(np.broadcast_to(k0, shape)).reshape(-1)
        fk1 = np.ascontiguousarray(np.broadcast_to(k1, shape)).reshape(-1)

        def work(start: int, stop: int) -> None:
            scratch = np.empty(min(stop - start, _BLOCK), dtype=_U32)
            for s in range(start, stop, _BLOCK):
                e = min(s + _BLOCK, stop)
                _rounds_array_keys(fa[s:e], fb[s:e], scratch[: e - s], fk0[s:e], fk1[s:e])

    parallel_blocks(n, work)
    return a, b


def threefry2x32_iota_numpy(
    k0: npt.ArrayLike, k1: npt.ArrayLike, shape: tuple[int, ...]
) -> tuple[U32Array, U32Array]:
    """Hash the counters ``(0, i)`` for the flat indices ``i`` of ``shape`` (< 2**32)."""
    n = 1
    for d in shape:
        n *= d
    a = np.empty(n, dtype=_U32)
    b = np.empty(n, dtype=_U32)
    w0 = int(np.asarray(k0).reshape(-1)[0])
    w1 = int(np.asarray(k1).reshape(-1)[0])
    ks = (w0, w1, w0 ^ w1 ^ _PARITY)

    def work(start: int, stop: int) -> None:
        scratch = np.empty(min(stop - start, _BLOCK), dtype=_U32)
        for s in range(start, stop, _BLOCK):
            e = min(s + _BLOCK, stop)
            a[s:e] = 0
            b[s:e] = np.arange(s, e, dtype=_U32)
            rounds_scalar_keys(a[s:e], b[s:e], scratch[: e - s], ks)

    parallel_blocks(n, work)
    return a.reshape(shape), b.reshape(shape)


def threefry2x32_iota_pairs_numpy(
    k0: npt.ArrayLike, k1: npt.ArrayLike, shape: tuple[int, ...]
) -> U32Array:
    """:func:`threefry2x32_iota_numpy` with the two words stacked last: ``(*shape, 2)``.

    Each block is hashed in contiguous scratch buffers and interleaved into
    the result while still in cache, so no full-size intermediate is built.
    """
    n = 1
    for d in shape:
        n *= d
    out = np.empty((n, 2), dtype=_U32)
    ks = threefry_key_schedule(
        int(np.asarray(k0).reshape(-1)[0]), int(np.asarray(k1).reshape(-1)[0])
    )

    def work(start: int, stop: int) -> None:
        size = min(stop - start, _BLOCK)
        a_buf = np.empty(size, dtype=_U32)
        b_buf = np.empty(size, dtype=_U32)
        scratch = np.empty(size, dtype=_U32)
        for s in range(start, stop, _BLOCK):
            e = min(s + _BLOCK, stop)
            a, b = a_buf[: e - s], b_buf[: e - s]
            a.fill(0)
            b[:] = np.arange(s, e, dtype=_U32)
            rounds_scalar_keys(a, b, scratch[: e - s], ks)
            out[s:e, 0] = a
            out[s:e, 1] = b

    parallel_blocks(n, work, min_size=_PAIRS_PARALLEL_MIN)
    return out.reshape((*shape, 2))
