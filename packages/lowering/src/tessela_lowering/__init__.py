"""Tessela on XLA: StableHLO lowering, devices, placement and compiled execution.

Importing this package registers a lowering rule for every primitive of
``tessela_tracer.primitives`` and installs XLA as the tracer's eager backend,
so operations on concrete arrays run as compiled XLA executables. Lowering
rules for new primitives are written with :mod:`tessela_lowering.mlir`.

Example:
  >>> import tessela_lowering as tl
  >>> tl.default_backend()
  'cpu'
"""

import importlib
import pkgutil

from tessela_lowering import (
    _flags,  # noqa: F401  (defines the runtime's config flags)
    mlir,
)
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
from tessela_lowering._dispatch import apply_primitive, effects_barrier
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
from tessela_lowering._xla import XlaRuntimeError as JaxRuntimeError

# Importing each rule family's module (``_rules_<family>``, one per family of
# tessela_tracer's primitives) registers its lowering rules, and the eager
# implementations of device_put and the host callbacks.
_families = sorted(m.name for m in pkgutil.iter_modules(__path__) if m.name.startswith("_rules_"))
for _module in _families:
    importlib.import_module(f"{__name__}.{_module}")
del _families, _module

__version__ = "0.1.0"

__all__ = [
    "Array",
    "Compiled",
    "JaxRuntimeError",
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
    "mlir",
    "process_count",
    "process_index",
    "register_lowering",
]
