"""The rest of ``jax.sharding``'s names that need devices: ``make_single_device_sharding``.

The device-free ones (``reshard``, ``use_abstract_mesh``,
``get_abstract_mesh``) are the tracer's; ``tessela_lowering.sharding`` names
them all.
"""

from __future__ import annotations

from tessela_lowering._array import SingleDeviceSharding
from tessela_lowering._xla import Device

__all__ = ["make_single_device_sharding"]

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
