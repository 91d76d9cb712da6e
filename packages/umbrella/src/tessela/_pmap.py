"""``tessela.pmap``: map a function over devices, one slice of the mapped axis each.

Built on :func:`tessela.shard_map` over a one-axis mesh named ``axis_name``:
each mapped argument's axis moves to the front and is split one slice per
device, the function runs on each slice (the collectives of
:mod:`tessela.lax` reduce over ``axis_name``), and the outputs are stacked
along ``out_axes``. The results are arrays split over those devices.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import operator
from collections.abc import Callable, Hashable, Sequence
from typing import Any, TypeAlias

import numpy as np
import tessela_numpy as tnp
from tessela_lowering import local_devices
from tessela_lowering.sharding import Mesh, PartitionSpec
from tessela_pytree import tree_flatten, tree_map

from tessela._shard_map import _ShardMapped, shard_map

__all__ = ["pmap"]

# The mapped axis of every argument (None: not mapped), or one entry per positional argument.
AxisSpec: TypeAlias = int | Sequence[int | None] | None

_fresh = itertools.count()
_sig_of = operator.attrgetter("_sig")  # a device array's signature (aval, placement)


def _per_arg(axes: AxisSpec, n_args: int, what: str) -> list[int | None]:
    if axes is None or isinstance(axes, int):
        return [axes] * n_args
    if isinstance(axes, list | tuple) and len(axes) == n_args:
        if all(a is None or isinstance(a, int) for a in axes):
            return list(axes)
        raise NotImplementedError(
            f"pmap: {what} entries must be an int or None per argument; nested prefixes "
            f"are not supported yet, got {axes!r}."
        )
    raise ValueError(
        f"pmap {what} must be an int, None, or a tuple of one entry per positional "
        f"argument ({n_args} here), got {axes!r}."
    )


def _mapped_size(leaves: Sequence[Any], axes: Sequence[int | None]) -> int:
    sizes = {int(np.shape(x)[a]) for x, a in zip(leaves, axes, strict=True) if a is not None}
    if not sizes:
        raise ValueError(
            "pmap requires at least one argument with a mapped axis (in_axes not None)."
        )
    if len(sizes) > 1:
        raise ValueError(
            f"pmap got inconsistent sizes for array axes to be mapped: {sorted(sizes)}; "
            "give every mapped argument the same length along its in_axes axis."
        )
    return sizes.pop()


def pmap(
    fun: Callable[..., Any],
    axis_name: Hashable | None = None,
    *,
    in_axes: AxisSpec = 0,
    out_axes: int | None = 0,
    static_broadcasted_argnums: int | Sequence[int] = (),
    devices: Sequence[Any] | None = None,
    backend: str | None = None,
    axis_size: int | None = None,
    donate_argnums: int | Sequence[int] = (),
) -> Callable[..., Any]:
    """Run ``fun`` on each device over slices of the mapped axis, as ``jax.pmap``.

    Args:
      fun: the per-device function.
      axis_name: the name collectives use for the mapped axis.
      in_axes: the mapped axis of each positional argument (an int, None for
        an argument every device sees whole, or one entry per argument).
      out_axes: where the mapped axis goes in the outputs (None: an output
        every device computed equal, returned once).
      static_broadcasted_argnums: positional arguments passed to ``fun``
        unchanged (Python values, one trace per distinct value).
      devices: the devices to use (default: the first local devices).
      backend: accepted for JAX's signature; ``devices`` selects the backend.
      axis_size: accepted for JAX's signature; the size is read from the arguments.
      donate_argnums: accepted for JAX's signature; donation is a hint and the
        arguments are not donated here.

    Returns:
      The mapped function.

    Raises:
      ValueError: the mapped axis is longer than the number of devices, or the
        mapped arguments disagree on its length.

    Example:
        >>> import tessela as tx, tessela.numpy as tnp
        >>> f = pmap(lambda x: x / tx.lax.psum(x, "i"), axis_name="i")
        >>> print(f(tnp.ones(1)))
        [1.]
    """
    del backend, axis_size, donate_argnums
    name = axis_name if axis_name is not None else f"_pmap{next(_fresh)}"
    static = (
        {static_broadcasted_argnums}
        if isinstance(static_broadcasted_argnums, int)
        else set(static_broadcasted_argnums)
    )

    # One shard_map per argument layout, static values and devices: its traced
    # body and compiled executable are reused by every later call of that kind.
    cache: dict[Hashable, _ShardMapped] = {}
    # Calls whose arguments are all arrays mapped over their leading axis (or
    # broadcast), with results stacked on axis 0: by the arguments'
    # signatures, the compiled program that ran such a call (bound to the
    # arguments' layout when they were already sharded as it takes them, else
    # the shard_map): a later call skips the checks and layout work above it.
    fast: dict[Hashable, Callable[..., Any]] = {}

    def build(
        n_args: int,
        statics: tuple[tuple[int, Any], ...],
        dyn_pos: Sequence[int],
        dyn_axes: Sequence[int | None],
        devs: Sequence[Any],
    ) -> _ShardMapped:
        mesh = Mesh(np.array(devs), (name,))

        def per_device(*blocks: Any) -> Any:
            full: list[Any] = [None] * n_args
            for pos, value in statics:
                full[pos] = value
            for pos, block, ax in zip(dyn_pos, blocks, dyn_axes, strict=True):
                full[pos] = block if ax is None else tree_map(operator.itemgetter(0), block)
            out = fun(*full)
            return tree_map(lambda o: tnp.expand_dims(tnp.asarray(o), 0), out)

        specs = tuple(PartitionSpec() if ax is None else PartitionSpec(name) for ax in dyn_axes)
        run: _ShardMapped = shard_map(
            per_device, mesh=mesh, in_specs=specs, out_specs=PartitionSpec(name)
        )
        return run

    @functools.wraps(fun)
    def mapped(*args: Any) -> Any:
        if not static:
            try:
                hit = fast.get(tuple(map(_sig_of, args)))
            except (AttributeError, TypeError):  # a host value, a pytree or a tracer
                hit = None
            if hit is not None:
                return hit(*args)
        nums = {i if i >= 0 else i + len(args) for i in static}
        dyn_pos = [i for i in range(len(args)) if i not in nums]
        axes = _per_arg(in_axes, len(args), "in_axes")
        dyn = [args[i] for i in dyn_pos]
        dyn_axes = [axes[i] for i in dyn_pos]
        leaves_axes = [
            (leaf, ax)
            for arg, ax in zip(dyn, dyn_axes, strict=True)
            for leaf in tree_flatten(arg)[0]
        ]
        n = _mapped_size([x for x, _ in leaves_axes], [a for _, a in leaves_axes])
        devs = list(devices) if devices is not None else list(local_devices())
        if n > len(devs):
            raise ValueError(
                f"compiling computation that requires {n} logical devices, but only "
                f"{len(devs)} XLA devices are available (num_replicas={n}); map an axis "
                f"of at most {len(devs)} or reshape the data to add a sequential axis."
            )
        fronted = [
            arg if not ax else tree_map(lambda x, a=ax: tnp.moveaxis(x, a, 0), arg)
            for arg, ax in zip(dyn, dyn_axes, strict=True)
        ]
        statics = tuple((i, args[i]) for i in sorted(nums) if i < len(args))
        key: Hashable | None = (len(args), statics, tuple(dyn_axes), tuple(devs[:n]))
        try:
            run = cache.get(key)
        except TypeError:  # an unhashable static value: trace for this call only
            run = None
            key = None
        if run is None:
            run = build(len(args), statics, dyn_pos, dyn_axes, devs[:n])
            if key is not None:
                cache[key] = run
        stacked = run(*fronted)
        if not statics and out_axes == 0 and all(ax in (0, None) for ax in dyn_axes):
            with contextlib.suppress(AttributeError, TypeError):
                fast[tuple(map(_sig_of, args))] = run.runner(*fronted) or run
        if out_axes is None:
            return tree_map(operator.itemgetter(0), stacked)
        if not isinstance(out_axes, int):
            raise NotImplementedError(
                f"pmap: out_axes must be an int or None for now, got {out_axes!r}."
            )
        return tree_map(lambda o: tnp.moveaxis(o, 0, out_axes), stacked) if out_axes else stacked

    return mapped
