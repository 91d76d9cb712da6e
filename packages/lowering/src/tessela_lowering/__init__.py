"""Tessela on XLA: StableHLO lowering, devices, placement and compiled execution.

Example:
  >>> import tessela_lowering as tl
  >>> tl.default_backend()
  'cpu'
"""

from tessela_lowering._devices import (
    default_backend,
    default_device,
    device_count,
    devices,
    get_default_device,
    local_device_count,
    local_devices,
    process_count,
    process_index,
)

__version__ = "0.1.0"

__all__ = [
    "__version__",
    "default_backend",
    "default_device",
    "device_count",
    "devices",
    "get_default_device",
    "local_device_count",
    "local_devices",
    "process_count",
    "process_index",
]
