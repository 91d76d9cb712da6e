"""The rest of ``jax.sharding``'s names that need devices.

``make_single_device_sharding``, and :func:`auto_axes` / :func:`explicit_axes`,
which switch the types of the mesh axes in context for one function (as JAX
0.10.2's): inside, ``get_abstract_mesh()`` reports the switched axes and
sharded arguments report a mesh of those types; outside, results are
resharded to the given sharding (``auto_axes``) or re-described over the mesh
in context (``explicit_axes``). Tessela's abstract values carry no sharding,
so under tracing only the shardings given to them are applied. The
device-free names (``reshard``, ``use_abstract_mesh``, ``get_abstract_mesh``)
are the tracer's; ``tessela_lowering.sharding`` names them all.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Hashable
from typing import Any

from tessela_pytree import tree_leaves, tree_map
from tessela_tracer import Tracer
from tessela_tracer.sharding import get_abstract_mesh, reshard, use_abstract_mesh

from tessela_lowering._array import SingleDeviceSharding
from tessela_lowering._mesh import (
    AbstractMesh,
    AxisType,
    Mesh,
    NamedSharding,
    PartitionSpec,
    same_axes,
    typed_spec,
)
from tessela_lowering._sharded import ShardedArray, wrap_global
from tessela_lowering._xla import Device

__all__ = ["auto_axes", "explicit_axes", "make_single_device_sharding"]

_EMPTY = AbstractMesh((), ())

_MEMORY_KINDS = (None, "device", "unpinned_host")


def make_single_device_sharding(
    device: Device, *, memory_kind: str | None = None
) -> SingleDeviceSharding:
    """The sharding of an array that lives whole on ``device``.

    Args:
      device: the device.
      memory_kind: the device's memory (``None``, ``"device"``, or
        ``"unpinned_host"`` on CPU, which are one memory there).

    Returns:
      A ``SingleDeviceSharding``.

    Raises:
      ValueError: another memory kind is asked for.

    Example:
        >>> import tessela_lowering as tl
        >>> s = make_single_device_sharding(tl.devices()[0])
        >>> s.device_set == {tl.devices()[0]}
        True
    """
    if memory_kind not in _MEMORY_KINDS:
        raise ValueError(
            f"Could not find memory addressable by device {device!r}. Device {device!r} can "
            f"address the following memory kinds: device, unpinned_host. Got memory kind: "
            f"{memory_kind}"
        )
    return SingleDeviceSharding(device)


def _abstract(mesh: Mesh | AbstractMesh) -> AbstractMesh:
    return mesh if isinstance(mesh, AbstractMesh) else mesh.abstract_mesh


def _sharding_mesh(shardings: Any, name: str) -> AbstractMesh:
    found = _EMPTY
    for s in tree_leaves(shardings, is_leaf=lambda v: isinstance(v, PartitionSpec)):
        if not isinstance(s, NamedSharding) or _abstract(s.mesh).empty:
            continue
        mesh = _abstract(s.mesh)
        if not found.empty and found != mesh:
            raise ValueError(
                f"Shardings passed to {name} should have the same mesh. Got one mesh {found} "
                f"and another {s.mesh}"
            )
        found = mesh
    return found


def _new_mesh(
    axes: Hashable | tuple[Hashable, ...] | None,
    kind: AxisType,
    name: str,
    shardings: Any = None,
) -> tuple[AbstractMesh, AbstractMesh, tuple[Hashable, ...]] | None:
    """The mesh in context, the one ``name`` switches to, and the axes it switches."""
    current = get_abstract_mesh()
    given = _sharding_mesh(shardings, name)
    if given.empty and current.empty:
        return None
    if not given.empty and not current.empty and given != current:
        raise ValueError(
            f"Context mesh {current} must match the mesh passed to shardings {given}. "
            "Recommended approach is to use `jax.set_mesh` context manager."
        )
    mesh = current if not current.empty else given
    names = mesh.axis_names if axes is None else axes if isinstance(axes, tuple) else (axes,)
    types = dict(zip(mesh.axis_names, mesh.axis_types, strict=True))
    for a in names:
        if a not in types:
            raise ValueError(
                f"{name}: axis {a!r} is not an axis of the mesh {mesh}; name axes of "
                f"{mesh.axis_names!r} (or leave axes=None for all of them)."
            )
        if types[a] == AxisType.Manual:
            raise NotImplementedError(
                "Going from `Manual` AxisType to `Auto` or `Explicit` AxisType is not allowed. "
                "Please file a bug at https://github.com/jax-ml/jax/issues with your use case"
            )
    return current, mesh.update_axis_types(dict.fromkeys(names, kind)), tuple(names)


def _explicit_spec(spec: PartitionSpec, mesh: AbstractMesh) -> PartitionSpec:
    # ``spec`` keeping only the axes that are Explicit in ``mesh``.
    types = dict(zip(mesh.axis_names, mesh.axis_types, strict=True))
    entries: list[Any] = []
    for d in range(len(spec)):
        kept = tuple(a for a in spec.axes_of(d) if types.get(a) == AxisType.Explicit)
        entries.append(None if not kept else kept[0] if len(kept) == 1 else kept)
    return PartitionSpec(
        *entries,
        unreduced={a for a in spec.unreduced if types.get(a) == AxisType.Explicit},
        reduced={a for a in spec.reduced if types.get(a) == AxisType.Explicit},
    )


def _retype(x: Any, mesh: AbstractMesh) -> Any:
    """``x`` re-described over ``mesh``'s axis types, its layout kept, as JAX's reshard there.

    A sharded array over a mesh with ``mesh``'s axis names and sizes keeps its
    buffers and spec and reports the mesh with the new types; a value whose
    layout names no ``Explicit`` axis of ``mesh`` is left as it is (under
    tracing, abstract values carry no sharding to keep).
    """
    if isinstance(x, ShardedArray) and same_axes(x.sharding.mesh, mesh):
        old = x.sharding.mesh
        if old.axis_types == mesh.axis_types:
            return x
        retyped = Mesh(old.devices, old.axis_names, mesh.axis_types)
        spec = x.sharding.spec
        if all(t == AxisType.Explicit for t in mesh.axis_types):
            spec = typed_spec(spec, x.aval.ndim)  # part of the type: one entry per dimension
        return wrap_global(x._global, x.aval, NamedSharding(retyped, spec))
    if isinstance(x, Tracer) or not isinstance(x, ShardedArray):
        return x
    spec = _explicit_spec(x.sharding.spec, mesh)
    return reshard(x, spec) if any(spec.axes_of(d) for d in range(len(spec))) else x


def _is_spec_leaf(v: object) -> bool:
    return v is None or isinstance(v, (PartitionSpec, NamedSharding))


def _drop_unsharded(v: object) -> object:
    # A NamedSharding over the empty mesh is what an abstract value reports
    # (``typeof(x).sharding``: Tessela's types carry no mesh): it asks nothing.
    if isinstance(v, NamedSharding) and _abstract(v.mesh).empty:
        return None
    return v


def _sharding_arg(given: Any, kwargs: dict[str, Any], what: str) -> Any:
    if given is None:
        if what not in kwargs:
            raise TypeError(f"Missing required keyword argument: '{what}'")
        given = kwargs.pop(what)
    return tree_map(_drop_unsharded, given, is_leaf=_is_spec_leaf)


def _decorate(
    f: Callable[..., Any] | None,
    given: Any,
    what: str,
    run: Callable[[Callable[..., Any], Any, Any, dict[str, Any]], Any],
) -> Callable[..., Any]:
    # ``f`` wrapped to call ``run(f, sharding, args, kwargs)``, the sharding given
    # (or passed by each call as the keyword ``what``); a decorator when ``f`` is None.
    def _wrap(fun: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fun)
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            return run(fun, _sharding_arg(given, kwargs, what), args, kwargs)

        return wrapped

    return _wrap if f is None else _wrap(f)


def auto_axes(
    f: Callable[..., Any] | None = None,
    /,
    *,
    axes: Hashable | tuple[Hashable, ...] | None = None,
    out_sharding: Any = None,
) -> Callable[..., Any]:
    """Run ``f`` with mesh axes switched to ``Auto`` (XLA lays values out), then reshard its output.

    Inside, the abstract mesh in context (``get_abstract_mesh()``) has ``axes``
    (default: all of the mesh's) of type ``Auto``, and sharded arguments
    report that mesh; the result is moved to ``out_sharding`` over the mesh
    outside, as ``reshard`` does. With no mesh in context and no
    ``NamedSharding`` given, ``f`` runs as it is.

    Args:
      f: the function (or ``None``: ``auto_axes`` is then a decorator factory).
      axes: a mesh axis name or a tuple of them.
      out_sharding: a ``PartitionSpec``/``NamedSharding`` or a pytree prefix of
        the output of them; if ``None``, each call passes ``out_sharding=``.

    Returns:
      The wrapped function.

    Raises:
      TypeError: no ``out_sharding`` was given at all.
      ValueError: shardings over a mesh other than the one in context.

    Example:
        >>> import numpy as np
        >>> from tessela_lowering.sharding import PartitionSpec as P, make_mesh, set_mesh
        >>> with set_mesh(make_mesh((1,), ("x",))):
        ...     out = auto_axes(lambda a: a * 2, out_sharding=P("x"))(np.ones(2, np.float32))
        >>> out.sharding.spec, out.sharding.mesh.axis_types
        (P('x',), (Explicit,))
    """

    def _auto(fun: Callable[..., Any], target: Any, args: Any, kwargs: dict[str, Any]) -> Any:
        info = _new_mesh(axes, AxisType.Auto, "auto_axes", target)
        if info is None:
            return fun(*args, **kwargs)
        current, new, names = info
        if set(current.auto_axes) == set(names):
            return fun(*args, **kwargs)
        with use_abstract_mesh(new):
            args = tree_map(lambda a: _retype(a, new), args)
            out = fun(*args, **kwargs)
        outer = get_abstract_mesh()
        return tree_map(lambda o: _retype(o, outer), reshard(out, target))

    return _decorate(f, out_sharding, "out_sharding", _auto)


def explicit_axes(
    f: Callable[..., Any] | None = None,
    /,
    *,
    axes: Hashable | tuple[Hashable, ...] | None = None,
    in_sharding: Any = None,
) -> Callable[..., Any]:
    """Run ``f`` with mesh axes switched to ``Explicit``, its arguments resharded first.

    Inside, the abstract mesh in context has ``axes`` (default: all) of type
    ``Explicit`` and the arguments are moved to ``in_sharding`` (``reshard``);
    outside, the results report the mesh in context again (their layout
    kept over the axes that are ``Auto`` there).

    Args:
      f: the function (or ``None``: ``explicit_axes`` is then a decorator factory).
      axes: a mesh axis name or a tuple of them.
      in_sharding: a ``PartitionSpec``/``NamedSharding`` or a pytree prefix of
        the positional arguments; if ``None``, each call passes ``in_sharding=``.

    Returns:
      The wrapped function.

    Raises:
      TypeError: no ``in_sharding`` was given at all.
      ValueError: no mesh is in context.

    Example:
        >>> import numpy as np
        >>> from tessela_lowering.sharding import AxisType, PartitionSpec as P, make_mesh, set_mesh
        >>> with set_mesh(make_mesh((1,), ("x",), (AxisType.Auto,))):
        ...     out = explicit_axes(lambda a: a * 2, in_sharding=P("x"))(np.ones(2, np.float32))
        >>> out.sharding.mesh.axis_types
        (Auto,)
    """

    def _explicit(fun: Callable[..., Any], given: Any, args: Any, kwargs: dict[str, Any]) -> Any:
        info = _new_mesh(axes, AxisType.Explicit, "explicit_axes")
        if info is None:
            raise ValueError(
                "Context mesh cannot be empty. Please use `jax.set_mesh` API to enter into a "
                "mesh context when using `explicit_axes` API."
            )
        _, new, _ = info
        with use_abstract_mesh(new):
            args = reshard(args, given)
            out = fun(*args, **kwargs)
        outer = get_abstract_mesh()
        return tree_map(lambda o: _retype(o, outer), out)

    return _decorate(f, in_sharding, "in_sharding", _explicit)
