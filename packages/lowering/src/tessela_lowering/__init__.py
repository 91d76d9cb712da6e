"""Tessela on XLA: StableHLO lowering, devices, placement and compiled execution.

Importing this package registers eager implementations for every primitive it
can lower, so operations on concrete arrays run as compiled XLA executables.

Example:
  >>> import tessela_lowering as tl
  >>> tl.default_backend()
  'cpu'
"""

from tessela_lowering import _flags  # noqa: F401  (defines the runtime's config flags)
from tessela_lowering._aot import Compiled, Lowered, Traced
from tessela_lowering._array import Array, SingleDeviceSharding, device_get, device_put
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
from tessela_lowering._dispatch import apply_primitive
from tessela_lowering._dispatch import cache_size as eager_cache_size
from tessela_lowering._jit import JitWrapped, clear_caches, jit
from tessela_lowering._lowering import (
    LoweringRule,
    LoweringRuleContext,
    ModuleContext,
    jaxpr_to_module,
    lower_fun,
    lower_jaxpr,
    register_lowering,
)
from tessela_lowering._rules_callback import effects_barrier, register_callback_lowerings
from tessela_lowering._rules_control import register_standard_lowerings

__version__ = "0.1.0"

register_standard_lowerings()
register_callback_lowerings()

__all__ = [
    "Array",
    "Compiled",
    "JitWrapped",
    "Lowered",
    "LoweringRule",
    "LoweringRuleContext",
    "ModuleContext",
    "SingleDeviceSharding",
    "Traced",
    "__version__",
    "apply_primitive",
    "clear_caches",
    "default_backend",
    "default_device",
    "device_count",
    "device_get",
    "device_put",
    "devices",
    "eager_cache_size",
    "effects_barrier",
    "get_default_device",
    "jaxpr_to_module",
    "jit",
    "local_device_count",
    "local_devices",
    "lower_fun",
    "lower_jaxpr",
    "process_count",
    "process_index",
    "register_lowering",
]
