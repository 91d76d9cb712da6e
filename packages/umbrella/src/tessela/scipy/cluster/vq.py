"""``tessela.scipy.cluster.vq``: ``vq``, the nearest code of each observation, as JAX's.

Example:
    >>> import tessela.numpy as tnp
    >>> from tessela.scipy.cluster.vq import vq
    >>> code, dist = vq(tnp.array([[0.0], [4.0]]), tnp.array([[1.0], [3.0]]))
    >>> print(code, dist)
    [0 1] [1. 1.]
"""

from __future__ import annotations

import numpy as np
import tessela_numpy as tnp
from tessela_batching import vmap
from tessela_numpy import linalg as tnp_linalg
from tessela_tracer import dtypes
from tessela_tracer.typing import Array, ArrayLike

__all__ = ["vq"]


def vq(obs: ArrayLike, code_book: ArrayLike, check_finite: bool = True) -> tuple[Array, Array]:
    """Assign each observation to its nearest code (Euclidean distance).

    Args:
        obs: observations, ``(n,)`` or ``(n, d)``.
        code_book: codes of the same rank, ``(k,)`` or ``(k, d)``.
        check_finite: ignored, as in JAX.

    Returns:
        ``(code, dist)``: the index of each observation's nearest code and its distance.

    Raises:
        ValueError: ranks that differ, or a rank other than 1 or 2.
    """
    del check_finite
    obs_arr, cb_arr = tnp.asarray(obs), tnp.asarray(code_book)
    dtype = tnp.result_type(obs_arr, cb_arr)
    if not dtypes.issubdtype(dtype, np.inexact):
        dtype = tnp.result_type(dtype, np.float32)
    obs_arr, cb_arr = obs_arr.astype(dtype), cb_arr.astype(dtype)
    if obs_arr.ndim != cb_arr.ndim:
        raise ValueError("Observation and code_book should have the same rank")
    if obs_arr.ndim == 1:
        obs_arr, cb_arr = obs_arr[..., None], cb_arr[..., None]
    if obs_arr.ndim != 2:
        raise ValueError("ndim different than 1 or 2 are not supported")
    dist = vmap(lambda ob: tnp_linalg.norm(ob[None] - cb_arr, axis=-1))(obs_arr)
    code = tnp.argmin(dist, axis=-1)
    return code, vmap(lambda d, c: d[c])(dist, code)
