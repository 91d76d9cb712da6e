"""The mesh in context: what ``PartitionSpec`` arguments of sharding functions refer to.

Two context variables, as JAX 0.10.2 keeps them: the *concrete* mesh (set by
the lowering's ``set_mesh``; any object with ``abstract_mesh``, ``axis_names``
and ``shape``) and an *abstract* mesh override (:func:`use_abstract_mesh`).
:func:`get_abstract_mesh` answers with the override, else the concrete mesh's
axes, else the empty mesh. :func:`context_mesh` is the mesh a bare
``PartitionSpec`` is resolved against (:func:`resolve_spec`).

Example:
    >>> from tessela_tracer.sharding import AbstractMesh
    >>> with use_abstract_mesh(AbstractMesh((2,), ("a",))):
    ...     get_abstract_mesh()
    AbstractMesh('a': 2, axis_types=(Auto,))
    >>> get_abstract_mesh()
    AbstractMesh((), axis_types=())
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Any

from tessela_tracer._abstract_sharding import AbstractMesh, AxisType, NamedSharding, PartitionSpec
from tessela_tracer._avals import ShapedArray

__all__ = [
    "check_seed_mesh",
    "concrete_mesh_var",
    "context_mesh",
    "get_abstract_mesh",
    "resolve_spec",
    "use_abstract_mesh",
]

concrete_mesh_var: ContextVar[Any] = ContextVar("tessela_current_mesh", default=None)
"""The concrete mesh set by ``set_mesh`` (``None`` when none is set)."""

_abstract_var: ContextVar[AbstractMesh | None] = ContextVar("tessela_abstract_mesh", default=None)


def get_abstract_mesh() -> AbstractMesh:
    """The axes of the mesh in context (empty when none is set).

    Returns:
      The :func:`use_abstract_mesh` override, else the ``set_mesh`` mesh's
      abstract mesh, else ``AbstractMesh((), ())``.

    Example:
        >>> get_abstract_mesh().empty
        True
    """
    override = _abstract_var.get()
    if override is not None:
        return override
    mesh = concrete_mesh_var.get()
    if mesh is not None:
        abstract: AbstractMesh = mesh.abstract_mesh
        return abstract
    return AbstractMesh((), ())


@contextlib.contextmanager
def use_abstract_mesh(mesh: AbstractMesh, /) -> Iterator[AbstractMesh]:
    """Make ``mesh`` the abstract mesh in context inside a ``with`` block.

    The concrete mesh (``get_mesh()``) is left as it is, as in JAX.

    Args:
      mesh: an :class:`AbstractMesh`.

    Returns:
      A context manager that restores the previous abstract mesh on exit.

    Raises:
      ValueError: ``mesh`` is not an ``AbstractMesh``.

    Example:
        >>> with use_abstract_mesh(AbstractMesh((4,), ("x",))) as m:
        ...     get_abstract_mesh() is m
        True
    """
    if not isinstance(mesh, AbstractMesh):
        raise ValueError(
            f"Expected mesh of type `AbstractMesh`. Got {type(mesh)}; a concrete Mesh goes "
            "to set_mesh(mesh), or pass mesh.abstract_mesh."
        )
    token = _abstract_var.set(mesh)
    try:
        yield mesh
    finally:
        _abstract_var.reset(token)


def context_mesh() -> Any:
    """The mesh a bare ``PartitionSpec`` refers to: the abstract override, else ``set_mesh``'s.

    Returns:
      A mesh (concrete or abstract), or ``None`` when no non-empty mesh is set.

    Example:
        >>> context_mesh() is None
        True
    """
    override = _abstract_var.get()
    if override is not None and not override.empty:
        return override
    mesh = concrete_mesh_var.get()
    if mesh is not None and not mesh.empty:
        return mesh
    return None


def resolve_spec(value: Any, what: str, where: str) -> Any:
    """``value`` as a sharding: a ``PartitionSpec`` becomes a ``NamedSharding`` over the context mesh.

    Args:
      value: a ``PartitionSpec`` or a sharding (returned as it is).
      what: the function, for the error (``"jit"``, ``"with_sharding_constraint"``).
      where: the argument, for the error (``"in_shardings"``, ``"shardings"``).

    Returns:
      The sharding.

    Raises:
      RuntimeError: ``value`` is a ``PartitionSpec`` and no mesh is set (JAX's text).

    Example:
        >>> with use_abstract_mesh(AbstractMesh((2,), ("a",))):
        ...     resolve_spec(PartitionSpec("a"), "jit", "in_shardings").spec
        P('a',)
    """
    if not isinstance(value, PartitionSpec):
        return value
    mesh = context_mesh()
    if mesh is None:
        raise RuntimeError(
            f"{what} requires a non-empty mesh in context if you are passing "
            f"`PartitionSpec`s to {where}. You can define a context mesh via "
            f"`jax.set_mesh(mesh)`. Alternatively, provide `Sharding`s to {where} and then "
            "the mesh context manager is not required."
        )
    return NamedSharding(mesh, value)


def check_seed_mesh(out: object, aval: ShapedArray) -> None:
    """Check that eager ``grad`` can seed the cotangent of ``out`` (JAX 0.10.2's rule).

    An output sharded over a mesh of several devices with ``Explicit`` axes
    has that mesh in its type; JAX then builds the seed ``1.0`` over the mesh
    in context, and outside ``set_mesh`` there is none: the output of a
    ``jit`` and of eager operations alike.

    Args:
      out: the function's (scalar) output; tracers and unsharded values pass.
      aval: its abstract value (for the message).

    Returns:
      None.

    Raises:
      ValueError: ``out`` is sharded over ``Explicit`` axes of a mesh of
        several devices and no mesh with those axes is set (JAX's text).

    Example:
        >>> import numpy as np
        >>> from tessela_tracer import ShapedArray
        >>> check_seed_mesh(np.float32(1), ShapedArray((), np.float32))
    """
    mesh: Any = getattr(getattr(out, "sharding", None), "mesh", None)
    if getattr(mesh, "devices", None) is None or isinstance(mesh, AbstractMesh):
        return
    names = tuple(n for n, t in zip(mesh.axis_names, mesh.axis_types, strict=True)
                  if t == AxisType.Explicit)  # fmt: skip
    if not names or mesh.size == 1:
        return
    context = concrete_mesh_var.get()
    if context is not None and (context.axis_names, context.axis_sizes) == (
        mesh.axis_names,
        mesh.axis_sizes,
    ):
        return
    raise ValueError(
        f"Length of device assignment 1 is not equal to the size of the mesh {mesh.size} of "
        f"aval {aval.str_short(True)}({{Explicit: {names!r}}}). Please enter your `jit` into a mesh "
        "context via `jax.set_mesh`: with tessela.set_mesh(mesh): grad(f)(x), or take the "
        "gradient under jit (jit(grad(f))(x))."
    )
