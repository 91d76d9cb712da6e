"""``jit``'s ``in_shardings`` and ``out_shardings``: checking them and spreading them over leaves.

Both options are pytree prefixes (of the positional arguments, of the
output) whose leaves are a ``Sharding``, a ``PartitionSpec`` (resolved against
the mesh in context when a call uses it) or ``None`` (unspecified, as JAX
0.10.2 treats it: the partitioner chooses). The lowering compiles a call with
them as the argument and result annotations of its module; under an
enclosing trace a jitted function with shardings stages its body with
``sharding_constraint`` on the inputs and outputs, which every transformation
handles as it handles :func:`~tessela_tracer.lax.with_sharding_constraint`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tessela_pytree import tree_broadcast, tree_flatten, tree_unflatten

from tessela_tracer._abstract_sharding import NamedSharding, PartitionSpec
from tessela_tracer._mesh_context import resolve_spec
from tessela_tracer._prims_sharding import constraint_params, note_constraint
from tessela_tracer._prims_sharding import sharding_constraint_p as _constraint_p

__all__ = ["UNSPECIFIED", "check_sharding_tree", "constrain", "sharding_leaves"]


class PytreeLeaf:
    """Stands for each output leaf when ``out_shardings`` is spread over the outputs."""

    def __repr__(self) -> str:
        return "*"


class _Unspecified:
    """The value of an ``in_shardings``/``out_shardings`` that was not given."""

    def __repr__(self) -> str:
        return "UNSPECIFIED"


UNSPECIFIED: Any = _Unspecified()
"""``jit``'s default for ``in_shardings`` and ``out_shardings``: nothing asked."""


def _is_leaf(x: Any) -> bool:
    return x is None or isinstance(x, PartitionSpec)


def _is_sharding(x: Any) -> bool:
    return hasattr(x, "device_set") or isinstance(x, NamedSharding)


def check_sharding_tree(value: object, what: str) -> None:
    """Check that every leaf of ``value`` is a ``Sharding``, a ``PartitionSpec`` or ``None``.

    Args:
      value: the option as given (``UNSPECIFIED`` passes).
      what: ``"in_shardings"`` or ``"out_shardings"``, for the error.

    Returns:
      None.

    Raises:
      TypeError: a leaf is something else (JAX's text).

    Example:
        >>> check_sharding_tree((None, PartitionSpec("x")), "in_shardings")
        >>> check_sharding_tree(3, "in_shardings")
        Traceback (most recent call last):
        ...
        TypeError: in_shardings leaf specifications are expected to be PartitionSpec instances or None, but got 3
    """
    if value is UNSPECIFIED:
        return
    for leaf in tree_flatten(value, is_leaf=_is_leaf)[0]:
        if not (_is_leaf(leaf) or _is_sharding(leaf)):
            raise TypeError(
                f"{what} leaf specifications are expected to be PartitionSpec instances or "
                f"None, but got {leaf!r}"
            )


def _broadcast(prefix: Any, full: Any, what: str) -> list[Any]:
    if isinstance(prefix, (tuple, list)) and isinstance(full, tuple) and what == "in_shardings":
        if len(prefix) != len(full):
            raise ValueError(
                "pjit in_shardings specification must be a tree prefix of the positional "
                "arguments tuple. In particular, pjit in_shardings must either be a Sharding, "
                "a PartitionSpec, or a tuple of length equal to the number of positional "
                f"arguments. But pjit in_shardings is the wrong length: got a tuple or list of "
                f"length {len(prefix)} for an args tuple of length {len(full)}."
            )
        prefix = tuple(prefix)
    if _is_leaf(prefix) or _is_sharding(prefix):
        return [prefix] * tree_flatten(full)[1].num_leaves
    if isinstance(prefix, list) and isinstance(full, tuple):
        prefix = tuple(prefix)
    try:
        tree_broadcast(prefix, full, is_leaf=lambda x: _is_leaf(x) or _is_sharding(x))
    except ValueError as err:
        text = str(err).replace("broadcast_prefix prefix_tree", f"pjit {what}")
        raise ValueError(
            f"Mismatch details (1 found):\n{text}\nGive pjit {what} the structure of the "
            f"{'positional arguments' if what == 'in_shardings' else 'outputs'}, or a prefix "
            "of it (one sharding for a whole subtree)."
        ) from None
    # ``None`` leaves of the prefix count as leaves (not as empty nodes): spread them too.
    return _flatten_spread(prefix, full)


def _flatten_spread(prefix: Any, full: Any) -> list[Any]:
    leaves, treedef = tree_flatten(prefix, is_leaf=lambda x: _is_leaf(x) or _is_sharding(x))
    subtrees = treedef.flatten_up_to(full)
    out: list[Any] = []
    for leaf, sub in zip(leaves, subtrees, strict=True):
        out.extend([leaf] * tree_flatten(sub)[1].num_leaves)
    return out


def sharding_leaves(prefix: Any, full: Any, what: str) -> list[Any]:
    """One sharding (or ``None``) per leaf of ``full``, from the prefix tree ``prefix``.

    A ``PartitionSpec`` becomes a ``NamedSharding`` over the mesh in context.

    Args:
      prefix: ``in_shardings`` or ``out_shardings`` as given to ``jit``.
      full: the positional arguments (a tuple) or the output pytree.
      what: ``"in_shardings"`` or ``"out_shardings"``, for errors.

    Returns:
      The flat list, in ``full``'s leaf order.

    Raises:
      ValueError: ``prefix`` is not a prefix of ``full``.
      RuntimeError: a ``PartitionSpec`` is given and no mesh is set.

    Example:
        >>> sharding_leaves((None, None), (1.0, [2.0, 3.0]), "in_shardings")
        [None, None, None]
    """
    spread = _broadcast(prefix, full, what)
    return [None if s is None else resolve_spec(s, "jit", what) for s in spread]


def _constrained(leaves: Sequence[Any], shardings: Sequence[Any]) -> list[Any]:
    out = []
    for leaf, s in zip(leaves, shardings, strict=True):
        if isinstance(s, NamedSharding):
            note_constraint()
            leaf = _constraint_p.bind(leaf, **constraint_params(s))
        out.append(leaf)
    return out


def constrain(
    jitted: Any, fun: Callable[..., Any], in_leaves: Sequence[Any], static: Sequence[int]
) -> Callable[..., Any]:
    """``fun`` with its traced inputs and its outputs constrained to ``jitted``'s shardings.

    Args:
      jitted: the jitted function (for its ``out_shardings``).
      fun: the function to trace (static keyword arguments already bound).
      in_leaves: per flat traced argument, its sharding or ``None``.
      static: the static positions of the positional arguments.

    Returns:
      The wrapped function.
    """
    static_set = set(static)

    def wrapped(*args: Any, **kwargs: Any) -> Any:
        dyn = [a for i, a in enumerate(args) if i not in static_set]
        leaves, tree = tree_flatten((dyn, kwargs))
        dyn, kwargs = tree_unflatten(tree, _constrained(leaves, in_leaves))
        it = iter(dyn)
        full = [a if i in static_set else next(it) for i, a in enumerate(args)]
        out = fun(*full, **kwargs)
        out_leaves, out_tree = tree_flatten(out)
        return tree_unflatten(
            out_tree, _constrained(out_leaves, jitted._out_sharding_leaves(out_tree))
        )

    return wrapped
