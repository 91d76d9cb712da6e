"""``tessela_lowering.mesh_utils``: device grids for :class:`~tessela_lowering.sharding.Mesh`.

As ``jax.experimental.mesh_utils``: :func:`create_device_mesh` arranges
devices in the shape of a logical mesh; on CPU and GPU the devices keep
their order (GPU devices sorted by id), as in JAX.

Example:
    >>> import tessela_lowering as tl
    >>> create_device_mesh((1,), tl.devices()[:1]).shape
    (1,)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from tessela_lowering._devices import devices as _all_devices
from tessela_lowering._xla import Device, HostArray

__all__ = ["create_device_mesh", "create_hybrid_device_mesh"]


def _axis_sizes(shape: Any) -> tuple[int, ...] | None:
    try:
        sizes = tuple(shape)
    except TypeError:
        return None
    if not all(isinstance(s, (int, np.integer)) for s in sizes):
        return None
    return tuple(int(s) for s in sizes)


def create_device_mesh(
    mesh_shape: Sequence[int],
    devices: Sequence[Device] | None = None,
    *,
    contiguous_submeshes: bool = False,
    allow_split_physical_axes: bool = False,
) -> HostArray:
    """An array of devices of shape ``mesh_shape``, for ``Mesh(devices, axis_names)``.

    Args:
      mesh_shape: the logical mesh's shape, e.g. ``(replica, data, model)``.
      devices: the devices to arrange (default: every device).
      contiguous_submeshes: accepted for JAX's signature (each process's
        devices form a contiguous block on CPU and GPU already).
      allow_split_physical_axes: accepted for JAX's signature (TPU tori only).

    Returns:
      The devices, reshaped to ``mesh_shape``.

    Raises:
      ValueError: ``mesh_shape`` is not a sequence of ints, or its product is
        not the number of devices.

    Example:
        >>> import tessela_lowering as tl
        >>> create_device_mesh((1, 1), tl.devices()[:1]).tolist()
        [[CpuDevice(id=0)]]
    """
    del contiguous_submeshes, allow_split_physical_axes
    pool = list(_all_devices() if devices is None else devices)
    shape = _axis_sizes(mesh_shape)
    if shape is None:
        raise ValueError(
            "`mesh_shape` passed to `create_device_mesh` should be a sequence of ints. "
            f"Got {mesh_shape}"
        )
    if math.prod(shape) != len(pool):
        raise ValueError(
            f"Number of devices {len(pool)} must equal the product of mesh_shape {shape}; "
            "pass a mesh_shape whose product is the device count, or pass devices=... "
            "with that many devices."
        )
    if pool and pool[-1].platform == "gpu":
        pool = sorted(pool, key=lambda d: d.id)
    grid = np.empty(len(pool), dtype=object)
    grid[:] = pool
    return grid.reshape(shape)


def create_hybrid_device_mesh(
    mesh_shape: Sequence[int],
    dcn_mesh_shape: Sequence[int],
    devices: Sequence[Device] | None = None,
    *,
    process_is_granule: bool = False,
    should_sort_granules_by_key: bool = True,
    allow_split_physical_axes: bool = False,
) -> HostArray:
    """A device mesh over several granules (processes or slices), ``mesh_shape`` within each.

    Args:
      mesh_shape: the mesh within one granule.
      dcn_mesh_shape: how the granules are arranged; the result's shape is
        the elementwise product of the two.
      devices: the devices (default: every device).
      process_is_granule: group devices by process (else by TPU slice).
      should_sort_granules_by_key: order granules by their index.
      allow_split_physical_axes: accepted for JAX's signature.

    Returns:
      The devices, in a grid of shape ``mesh_shape * dcn_mesh_shape``.

    Raises:
      ValueError: devices lack a slice index (use ``process_is_granule=True``),
        or the shapes do not match the devices.

    Example:
        >>> import tessela_lowering as tl
        >>> create_hybrid_device_mesh((1,), (1,), tl.devices()[:1], process_is_granule=True).shape
        (1,)
    """
    del allow_split_physical_axes
    pool = list(_all_devices() if devices is None else devices)
    attr = "process_index" if process_is_granule else "slice_index"
    granules: dict[int, list[Any]] = {}
    for d in pool:
        if not hasattr(d, attr):
            raise ValueError(
                f"Device {d} does not have attribute {attr}. See `process_is_granule` option."
            )
        granules.setdefault(int(getattr(d, attr)), []).append(d)
    keys = sorted(granules) if should_sort_granules_by_key else list(granules)
    if len(keys) != math.prod(dcn_mesh_shape):
        raise ValueError(
            f"Number of granules {len(keys)} must equal the product of dcn_mesh_shape "
            f"{tuple(dcn_mesh_shape)}."
        )
    blocks = [create_device_mesh(mesh_shape, granules[k]) for k in keys]
    grid = np.empty(len(blocks), dtype=object)
    grid[:] = blocks
    tiles = np.block(grid.reshape(tuple(dcn_mesh_shape)).tolist())
    return np.asarray(tiles, dtype=object)
