"""Sharding annotations inside programs: ``sharding_constraint_p``, ``with_sharding_constraint``, ``reshard``.

``sharding_constraint_p`` is the identity on values; it tells XLA's partitioner
how its operand must be laid out at that point of the program. Its
parameters are JAX 0.10.2's: ``sharding`` (a ``NamedSharding``), ``layout``
(``None``), ``context_mesh`` (the abstract mesh in context when it was bound)
and ``unconstrained_dims`` (the dimensions whose spec entry is
``PartitionSpec.UNCONSTRAINED``, left to the partitioner).

:func:`with_sharding_constraint` binds it on each leaf of a pytree, a bare
``PartitionSpec`` referring to the mesh in context (``set_mesh``).
:func:`reshard` does the same for meshes whose axes are ``Explicit``, as JAX
requires, with the spec written out to the value's rank (JAX's result
sharding). On concrete arrays the eager implementation (the lowering's) moves
the value to the sharding; under ``jit`` the lowering emits
``sdy.sharding_constraint``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from tessela_pytree import tree_flatten, tree_unflatten

from tessela_tracer._abstract_sharding import AxisType, NamedSharding, PartitionSpec
from tessela_tracer._avals import ShapedArray
from tessela_tracer._core import Primitive, get_aval_of, register_abstract_eval
from tessela_tracer._mesh_context import get_abstract_mesh, resolve_spec

__all__ = [
    "constraint_hooks",
    "constraint_params",
    "constraints_bound",
    "note_constraint",
    "reshard",
    "sharding_constraint_p",
    "with_sharding_constraint",
]

_T = TypeVar("_T")

sharding_constraint_p = Primitive("sharding_constraint")

constraints_bound: list[bool] = [False]
"""``[True]`` once a sharding constraint was made: the lowering then looks for them in programs."""

constraint_hooks: list[Callable[[], None]] = []
"""Called once, when the first sharding constraint is made (the lowering's SPMD eager path)."""


def note_constraint() -> None:
    """Record that a sharding constraint is being made; the first time, run :data:`constraint_hooks`.

    Returns:
      None.

    Example:
        >>> note_constraint()
        >>> constraints_bound
        [True]
    """
    constraints_bound[0] = True
    while constraint_hooks:
        constraint_hooks.pop()()


def _sharding_constraint_rule(
    x: ShapedArray, *, sharding: Any, layout: Any, context_mesh: Any, unconstrained_dims: Any
) -> ShapedArray:
    del layout, context_mesh, unconstrained_dims
    spec = getattr(sharding, "spec", None)
    if spec is not None and len(spec) > x.ndim:
        raise ValueError(
            f"One of with_sharding_constraint arguments is incompatible with its sharding "
            f"annotation {sharding!r}: Sharding {sharding!r} is only valid for values of rank "
            f"at least {len(spec)}, but was applied to a value of rank {x.ndim}. Give the "
            f"PartitionSpec at most {x.ndim} entries, one per dimension of the value."
        )
    return x


register_abstract_eval(sharding_constraint_p, _sharding_constraint_rule)


def constraint_params(sharding: Any) -> dict[str, Any]:
    """The parameters of ``sharding_constraint_p`` for ``sharding``.

    Args:
      sharding: a ``NamedSharding`` (or another sharding, kept as it is).

    Returns:
      ``sharding``, ``layout``, ``context_mesh`` and ``unconstrained_dims``.

    Example:
        >>> from tessela_tracer.sharding import AbstractMesh
        >>> s = NamedSharding(AbstractMesh((2,), ("x",)), PartitionSpec("x", PartitionSpec.UNCONSTRAINED))
        >>> sorted(constraint_params(s)["unconstrained_dims"])
        [1]
    """
    spec = getattr(sharding, "spec", PartitionSpec())
    dims = frozenset(i for i, e in enumerate(spec) if e is PartitionSpec.UNCONSTRAINED)
    return {
        "sharding": sharding,
        "layout": None,
        "context_mesh": get_abstract_mesh(),
        "unconstrained_dims": dims,
    }


def _leaves_and_shardings(x: Any, shardings: Any, what: str) -> tuple[list[Any], Any, list[Any]]:
    leaves, tree = tree_flatten(x)
    flat_sh, sh_tree = tree_flatten(shardings, is_leaf=lambda s: s is None)
    if sh_tree.num_leaves == 1 and len(flat_sh) == 1 and sh_tree == tree_flatten(0)[1]:
        per_leaf = flat_sh * len(leaves)
    else:
        try:
            subtrees = sh_tree.flatten_up_to(x)
        except ValueError as err:
            raise ValueError(
                f"{what} shardings must be a tree prefix of the values, with one Sharding or "
                f"PartitionSpec per leaf (or one for all): {err}"
            ) from None
        per_leaf = []
        for s, sub in zip(flat_sh, subtrees, strict=True):
            per_leaf.extend([s] * tree_flatten(sub)[1].num_leaves)
    return leaves, tree, per_leaf


def _bind(leaf: Any, sharding: Any) -> Any:
    note_constraint()
    return sharding_constraint_p.bind(leaf, **constraint_params(sharding))


def with_sharding_constraint(x: _T, shardings: Any) -> _T:
    """Require each leaf of ``x`` to be laid out as its sharding at this point of the program.

    Args:
      x: an array or a pytree of arrays.
      shardings: a ``Sharding`` or ``PartitionSpec`` (a spec refers to the mesh
        set with ``set_mesh``), or a pytree prefix of ``x`` of them; ``None``
        leaves a leaf unconstrained.

    Returns:
      ``x``, with the constraints recorded (under ``jit``) or applied (on
      concrete arrays, which move to their shardings).

    Raises:
      RuntimeError: a ``PartitionSpec`` is given and no mesh is set.
      ValueError: a spec has more entries than its value has dimensions.

    Example:
        >>> import numpy as np
        >>> from tessela_tracer import make_jaxpr
        >>> from tessela_tracer.sharding import AbstractMesh
        >>> from tessela_tracer._mesh_context import use_abstract_mesh
        >>> with use_abstract_mesh(AbstractMesh((2,), ("x",))):
        ...     jaxpr = make_jaxpr(lambda a: with_sharding_constraint(a, PartitionSpec("x")))(
        ...         np.ones(2))
        >>> jaxpr.eqns[0].primitive.name
        'sharding_constraint'
    """
    leaves, tree, per_leaf = _leaves_and_shardings(x, shardings, "with_sharding_constraint")
    outs = []
    for leaf, s in zip(leaves, per_leaf, strict=True):
        if s is None:
            outs.append(leaf)
            continue
        outs.append(_bind(leaf, resolve_spec(s, "with_sharding_constraint", "shardings")))
    out: _T = tree_unflatten(tree, outs)
    return out


def _full_rank(sharding: NamedSharding, ndim: int) -> NamedSharding:
    spec = sharding.spec
    if len(spec) >= ndim:
        return sharding
    entries = [*spec, *([None] * (ndim - len(spec)))]
    full = PartitionSpec(*entries, unreduced=spec.unreduced, reduced=spec.reduced)
    return NamedSharding(sharding.mesh, full)


def _check_explicit(sharding: Any) -> None:
    mesh = getattr(sharding, "mesh", None)
    spec = getattr(sharding, "spec", None)
    if mesh is None or spec is None:
        return
    types = dict(zip(mesh.axis_names, mesh.axis_types, strict=True))
    for d in range(len(spec)):
        for axis in spec.axes_of(d):
            kind = types.get(axis)
            if kind is not AxisType.Explicit:
                raise ValueError(
                    "PartitionSpec passed to reshard cannot contain axis names that are of "
                    f"type Auto or Manual. Got PartitionSpec: {spec!r} with axis name: {axis} "
                    f"of type: AxisType.{getattr(kind, 'name', kind)}. Make the mesh's axes Explicit "
                    "(make_mesh's default), or use with_sharding_constraint for Auto axes."
                )


def reshard(xs: _T, out_shardings: Any) -> _T:
    """Move each leaf of ``xs`` to its sharding over a mesh whose axes are ``Explicit``.

    Args:
      xs: an array or a pytree of arrays.
      out_shardings: a ``NamedSharding`` or ``PartitionSpec`` (over the mesh in
        context), or a pytree prefix of ``xs`` of them.

    Returns:
      ``xs`` laid out as asked; each result's spec has one entry per dimension.

    Raises:
      ValueError: a spec names an axis that is not ``Explicit``.
      RuntimeError: a ``PartitionSpec`` is given and no mesh is set.

    Example:
        >>> import numpy as np
        >>> from tessela_tracer import make_jaxpr
        >>> from tessela_tracer.sharding import AbstractMesh, AxisType
        >>> from tessela_tracer._mesh_context import use_abstract_mesh
        >>> mesh = AbstractMesh((2,), ("x",), (AxisType.Explicit,))
        >>> with use_abstract_mesh(mesh):
        ...     jaxpr = make_jaxpr(lambda a: reshard(a, PartitionSpec("x")))(np.ones((2, 1)))
        >>> jaxpr.eqns[0].params["sharding"].spec
        P('x', None)
    """
    leaves, tree, per_leaf = _leaves_and_shardings(xs, out_shardings, "reshard")
    outs = []
    for leaf, s in zip(leaves, per_leaf, strict=True):
        if s is None:
            outs.append(leaf)
            continue
        sharding = resolve_spec(s, "reshard", "out_shardings")
        _check_explicit(sharding)
        ndim = get_aval_of(leaf).ndim
        if isinstance(sharding, NamedSharding):
            sharding = _full_rank(sharding, ndim)
        outs.append(_bind(leaf, sharding))
    out: _T = tree_unflatten(tree, outs)
    return out
