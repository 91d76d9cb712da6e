"""``tessela.flatten_util``: ``jax.flatten_util.ravel_pytree``.

Example:
    >>> import tessela.numpy as tnp
    >>> from tessela.flatten_util import ravel_pytree
    >>> flat, unravel = ravel_pytree({"a": tnp.ones(2), "b": tnp.zeros((1, 2))})
    >>> print(flat)
    [1. 1. 0. 0.]
    >>> print(unravel(flat * 2)["b"])
    [[0. 0.]]
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import tessela_numpy as tnp
from tessela_pytree import Partial, PyTreeDef, tree_flatten, tree_unflatten
from tessela_tracer import lax
from tessela_tracer.dtypes import dtype as _dtype
from tessela_tracer.dtypes import result_type as _result_type
from tessela_tracer.typing import Array

__all__ = ["ravel_pytree"]


def _unravel_single_dtype(
    indices: tuple[int, ...], shapes: tuple[tuple[int, ...], ...], arr: Any
) -> list[Any]:
    chunks = tnp.split(arr, list(indices[:-1]))
    return [chunk.reshape(shape) for chunk, shape in zip(chunks, shapes, strict=True)]


def _unravel_mixed(
    indices: tuple[int, ...],
    shapes: tuple[tuple[int, ...], ...],
    from_dtypes: tuple[np.dtype[Any], ...],
    to_dtype: np.dtype[Any],
    arr: Any,
) -> list[Any]:
    arr_dtype = _dtype(arr)
    if arr_dtype != to_dtype:
        raise TypeError(
            f"unravel function given array of dtype {arr_dtype} but expected dtype {to_dtype}"
        )
    chunks = tnp.split(arr, list(indices[:-1]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # complex-to-real casts
        return [
            lax.convert_element_type(chunk.reshape(shape), dt)
            for chunk, shape, dt in zip(chunks, shapes, from_dtypes, strict=True)
        ]


def _empty_unravel(arr: Any) -> list[Any]:
    return []


def _ravel_list(leaves: Sequence[Any]) -> tuple[Any, Callable[[Any], list[Any]]]:
    if not leaves:
        return tnp.array([], tnp.float32), _empty_unravel
    from_dtypes = tuple(_dtype(leaf) for leaf in leaves)
    to_dtype = _result_type(*from_dtypes)
    sizes = [int(np.prod(np.shape(leaf), dtype=np.int64)) for leaf in leaves]
    shapes = tuple(tuple(np.shape(leaf)) for leaf in leaves)
    indices = tuple(int(i) for i in np.cumsum(sizes))
    if all(dt == to_dtype for dt in from_dtypes):
        raveled = tnp.concatenate([tnp.ravel(leaf) for leaf in leaves])
        return raveled, Partial(_unravel_single_dtype, indices, shapes)
    raveled = tnp.concatenate(
        [tnp.ravel(lax.convert_element_type(leaf, to_dtype)) for leaf in leaves]
    )
    return raveled, Partial(_unravel_mixed, indices, shapes, from_dtypes, to_dtype)


def _unravel_pytree(treedef: PyTreeDef, unravel_list: Callable[[Any], list[Any]], flat: Any) -> Any:
    return tree_unflatten(treedef, unravel_list(flat))


def ravel_pytree(pytree: Any) -> tuple[Array, Callable[[Array], Any]]:
    """Ravel a pytree of arrays into one flat array, and return the inverse.

    The leaves are promoted to their common dtype (``result_type``) and
    concatenated in ``tree_flatten`` order; the inverse splits, reshapes and
    casts back to each leaf's dtype. As in JAX, the inverse is a
    ``tree_util.Partial``, so it can cross ``jit`` boundaries.

    Args:
        pytree: a pytree of arrays or scalars.

    Returns:
        ``(flat, unravel)``: a 1-D array, and a function mapping a flat array of
        the same size and dtype back to a pytree like ``pytree``.

    Raises:
        TypeError: (from ``unravel``) a flat array of another dtype, when the
            leaves had mixed dtypes.

    Example:
        >>> import tessela.numpy as tnp
        >>> flat, unravel = ravel_pytree((1.0, tnp.arange(2)))
        >>> print(flat, flat.dtype)
        [1. 0. 1.] float32
        >>> print(unravel(flat)[1].dtype)
        int32
    """
    leaves, treedef = tree_flatten(pytree)
    flat, unravel_list = _ravel_list(leaves)
    return flat, Partial(_unravel_pytree, treedef, unravel_list)
