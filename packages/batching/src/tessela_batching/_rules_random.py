"""Batching rules of the typed-key primitives ``random_wrap`` and ``random_unwrap``.

A batch of keys ``key<fry>[B, ...]`` is a batch of data ``uint32[B, ..., 2]``:
the mapped axis carries over unchanged, except that the data's trailing axis
holds the two words of each key, so a mapped axis there moves to the front
before wrapping.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tessela_tracer import primitives as P
from tessela_tracer.extend import get_aval_of
from tessela_tracer.typing import ArrayLike

from tessela_batching._core import moveaxis, register_batching

__all__: list[str] = []


def _random_wrap_rule(
    args: Sequence[ArrayLike], dims: Sequence[Any], *, impl: Any
) -> tuple[Any, int]:
    (data,), (d,) = args, dims
    ndim = len(get_aval_of(data).shape)
    if d >= ndim - len(impl.physical_shape):
        data, d = moveaxis(data, d, 0), 0
    return P.random_wrap_p.bind(data, impl=impl), d


register_batching(P.random_wrap_p, _random_wrap_rule)


def _random_unwrap_rule(args: Sequence[ArrayLike], dims: Sequence[Any]) -> tuple[Any, int]:
    (keys,), (d,) = args, dims
    return P.random_unwrap_p.bind(keys), d


register_batching(P.random_unwrap_p, _random_unwrap_rule)
