"""Policies for :func:`~tessela_tracer.checkpoint`: which intermediates may be saved.

A policy is a callable ``policy(prim, *avals, **params) -> bool`` asked about
each primitive application inside a checkpointed function whose result the
backward pass needs. ``True`` means the result may be saved on the forward
pass; ``False`` means it is recomputed on the backward pass.

Example:
  >>> from tessela_tracer import checkpoint, lax
  >>> from tessela_tracer.primitives import dot_general_p, sin_p
  >>> dots_saveable(dot_general_p, dimension_numbers=(((1,), (0,)), ((), ())))
  True
  >>> dots_saveable(sin_p)
  False
  >>> f = checkpoint(lax.sin, policy=save_only_these_names("h"))
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tessela_tracer._core import Primitive
from tessela_tracer._prims_reduce import dot_general_p
from tessela_tracer._prims_remat import name_p

__all__ = [
    "DotsSaveable",
    "SaveAnyNamesButThese",
    "SaveOnlyTheseNames",
    "checkpoint_dots",
    "checkpoint_dots_with_no_batch_dims",
    "dots_saveable",
    "dots_with_no_batch_dims_saveable",
    "everything_saveable",
    "nothing_saveable",
    "save_any_names_but_these",
    "save_anything_except_these_names",
    "save_only_these_names",
]


def everything_saveable(*_: object, **__: object) -> bool:
    """Save every intermediate, as if ``checkpoint`` were not used."""
    return True


def nothing_saveable(*_: object, **__: object) -> bool:
    """Save nothing but the inputs; recompute everything (the default policy)."""
    return False


@dataclass(frozen=True)
class DotsSaveable:
    """Save the results of ``dot_general`` (only those without batch dimensions if asked)."""

    only_if_no_batch_dims: bool

    def __call__(self, prim: Primitive, *_: Any, **params: Any) -> bool:
        if prim is not dot_general_p:
            return False
        if self.only_if_no_batch_dims:
            (_c, (lhs_b, rhs_b)) = params["dimension_numbers"]
            return not lhs_b and not rhs_b
        return True


dots_saveable = checkpoint_dots = DotsSaveable(False)
dots_with_no_batch_dims_saveable = checkpoint_dots_with_no_batch_dims = DotsSaveable(True)


@dataclass(frozen=True)
class SaveOnlyTheseNames:
    """Save only values named (by ``checkpoint_name``) with one of ``saveable_names``."""

    saveable_names: frozenset[str]

    def __call__(self, prim: Primitive, *_: Any, **params: Any) -> bool:
        return prim is name_p and params["name"] in self.saveable_names


@dataclass(frozen=True)
class SaveAnyNamesButThese:
    """Save only named values, except those named with one of ``names``."""

    names: frozenset[str]

    def __call__(self, prim: Primitive, *_: Any, **params: Any) -> bool:
        return prim is name_p and params["name"] not in self.names


def save_anything_except_these_names(*names_not_to_save: str) -> Callable[..., bool]:
    """Save any value, named or not (the names given are not consulted, as in JAX)."""
    return everything_saveable


def save_any_names_but_these(*names_not_to_save: str) -> SaveAnyNamesButThese:
    """Save only named values, excluding the names given."""
    return SaveAnyNamesButThese(frozenset(names_not_to_save))


def save_only_these_names(*names_which_can_be_saved: str) -> SaveOnlyTheseNames:
    """Save only named values, and only among the names given."""
    return SaveOnlyTheseNames(frozenset(names_which_can_be_saved))
