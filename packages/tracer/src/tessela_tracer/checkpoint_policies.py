"""Policies for :func:`~tessela_tracer.checkpoint`: which intermediates may be saved.

A policy is a callable ``policy(prim, *avals, **params)`` asked about each
primitive application inside a checkpointed function whose result the
backward pass needs. ``True`` (or :data:`Saveable`) means the result may be
saved on the forward pass; ``False`` (or :data:`Recompute`) means it is
recomputed on the backward pass; an :class:`Offloadable` asks for it to be
saved in another memory (Tessela saves it where it is: the values are the
same). :func:`saves_residual` reads a policy's answer.

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

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, NamedTuple

from tessela_tracer._core import Primitive
from tessela_tracer._prims_reduce import dot_general_p
from tessela_tracer._prims_remat import name_p

__all__ = [
    "DotsSaveable",
    "Offloadable",
    "Recompute",
    "SaveAnyNamesButThese",
    "SaveOnlyTheseNames",
    "Saveable",
    "checkpoint_dots",
    "checkpoint_dots_with_no_batch_dims",
    "dots_saveable",
    "dots_with_no_batch_dims_saveable",
    "everything_saveable",
    "nothing_saveable",
    "offload_dot_with_no_batch_dims",
    "save_and_offload_only_these_names",
    "save_any_names_but_these",
    "save_anything_except_these_names",
    "save_from_both_policies",
    "save_only_these_names",
    "saves_residual",
]


class _Case:
    # ``Recompute`` and ``Saveable``: named singletons (true as objects, as in
    # JAX, so only :func:`saves_residual` reads them right).
    __slots__ = ("_name",)

    def __init__(self, name: str) -> None:
        self._name = name

    def __repr__(self) -> str:
        return self._name


Recompute = _Case("Recompute")
"""A policy's answer: recompute the value on the backward pass."""
Saveable = _Case("Saveable")
"""A policy's answer: save the value on the forward pass."""


class Offloadable(NamedTuple):
    """A policy's answer: save the value in memory ``dst`` (moved from ``src``)."""

    src: str
    dst: str


def saves_residual(decision: object, /) -> bool:
    """Whether a policy's answer saves the value.

    Args:
      decision: what a policy returned: a bool, :data:`Saveable`,
        :data:`Recompute` or an :class:`Offloadable`.

    Returns:
      True to save it (offloaded values are saved where they are), False to
      recompute it.

    Raises:
      TypeError: the policy returned something else.

    Example:
      >>> saves_residual(Recompute), saves_residual(Offloadable("device", "pinned_host"))
      (False, True)
    """
    if decision is True or decision is Saveable or isinstance(decision, Offloadable):
        return True
    if decision is False or decision is Recompute:
        return False
    hint = (
        " Did you return the class `Offloadable` instead of an instance, `Offloadable(src, dst)`?"
        if decision is Offloadable
        else ""
    )
    raise TypeError(
        "Value returned by a remat policy should be a bool or `ad_checkpoint.Recompute`, "
        f"`ad_checkpoint.Saveable` or `ad_checkpoint.Offloadable(...)`. Got {decision!r} "
        f"of type {type(decision)}.{hint}"
    )


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


def save_from_both_policies(
    policy_1: Callable[..., Any], policy_2: Callable[..., Any], /
) -> Callable[..., bool]:
    """Save a value when either policy saves it (both must answer with a bool).

    Args:
      policy_1: a policy.
      policy_2: another policy.

    Returns:
      The policy saving what either saves.

    Example:
      >>> from tessela_tracer.primitives import dot_general_p
      >>> both = save_from_both_policies(dots_saveable, save_only_these_names("h"))
      >>> both(dot_general_p, dimension_numbers=(((1,), (0,)), ((), ())))
      True
    """

    def policy(prim: Primitive, *avals: Any, **params: Any) -> bool:
        first = policy_1(prim, *avals, **params)
        second = policy_2(prim, *avals, **params)
        if not (isinstance(first, bool) and isinstance(second, bool)):
            raise ValueError(
                "save_from_both_policies combines policies that answer with a bool; got "
                f"{first!r} and {second!r}. Write the combined policy as a function instead."
            )
        return first or second

    return policy


def save_and_offload_only_these_names(
    *,
    names_which_can_be_saved: Iterable[str],
    names_which_can_be_offloaded: Iterable[str],
    offload_src: str,
    offload_dst: str,
) -> Callable[..., Any]:
    """Save some named values, offload others (``offload_src`` to ``offload_dst``).

    Args:
      names_which_can_be_saved: names (``checkpoint_name``) whose values are saved.
      names_which_can_be_offloaded: names whose values are offloaded.
      offload_src: the memory kind they move from (e.g. ``"device"``).
      offload_dst: the memory kind they move to (e.g. ``"pinned_host"``).

    Returns:
      The policy; everything else is recomputed.

    Raises:
      ValueError: a name is in both lists.

    Example:
      >>> from tessela_tracer.primitives import sin_p
      >>> p = save_and_offload_only_these_names(
      ...     names_which_can_be_saved=["a"], names_which_can_be_offloaded=["b"],
      ...     offload_src="device", offload_dst="pinned_host")
      >>> p(name_p, name="b"), p(sin_p)
      (Offloadable(src='device', dst='pinned_host'), Recompute)
    """
    saved = frozenset(names_which_can_be_saved)
    offloaded = frozenset(names_which_can_be_offloaded)
    if saved & offloaded:
        raise ValueError(
            "names_which_can_be_saved and names_which_can_be_offloaded must not share a "
            f"name; both hold {sorted(saved & offloaded)}. Put each name in one of them."
        )
    offload = Offloadable(offload_src, offload_dst)

    def policy(prim: Primitive, *_: Any, **params: Any) -> Any:
        if prim is name_p and params["name"] in saved:
            return Saveable
        if prim is name_p and params["name"] in offloaded:
            return offload
        return Recompute

    return policy


def offload_dot_with_no_batch_dims(offload_src: str, offload_dst: str, /) -> Callable[..., Any]:
    """Offload the results of ``dot_general`` without batch dimensions; recompute the rest.

    Args:
      offload_src: the memory kind they move from.
      offload_dst: the memory kind they move to.

    Returns:
      The policy.

    Example:
      >>> from tessela_tracer.primitives import dot_general_p
      >>> p = offload_dot_with_no_batch_dims("device", "pinned_host")
      >>> p(dot_general_p, dimension_numbers=(((1,), (0,)), ((), ())))
      Offloadable(src='device', dst='pinned_host')
    """
    offload = Offloadable(offload_src, offload_dst)

    def policy(prim: Primitive, *avals: Any, **params: Any) -> Any:
        return offload if dots_with_no_batch_dims_saveable(prim, *avals, **params) else Recompute

    return policy
