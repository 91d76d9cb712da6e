"""The adapter: every use of jaxlib in Tessela goes through this package.

jaxlib's runtime (``jaxlib._jax`` and ``jaxlib.xla_client``) ships without type
information, so the objects it hands out (clients, devices, buffers,
executables) are typed here under names (:data:`Client`, :data:`Device`,
:data:`Buffer`, :data:`Executable`) that the rest of the package uses. The MLIR
bindings are typed and are re-exported as modules (``ir``, ``func_dialect``,
``stablehlo``, ``chlo``).

Its modules: ``_jaxlib`` (jaxlib's modules, the types, process-wide state,
PJRT clients and plugins), ``_mlir`` (contexts, attributes, element types) and
``_run`` (compiling, running, host callbacks, LAPACK kernels, analyses, and
buffers between host and device), ``_engine`` (jaxlib's compiled-call
object, for calls with host values) and ``_dialects`` (the dialect modules,
imported when a lowering first reads them). The rest of tessela_lowering
imports only this package's names.

Written against jaxlib 0.10.2 and defensive about 0.11.x: every attribute that
moved between those releases is looked up once, at import, with a fallback.
"""

from __future__ import annotations

import os

# jaxlib logs device discovery at INFO level unless told otherwise; keep the
# console as quiet as JAX users know it. Must precede the first jaxlib import,
# which the modules below make.
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "1")

from jaxlib.mlir import ir

from tessela_lowering._xla._dialects import chlo, func_dialect, stablehlo
from tessela_lowering._xla._engine import Engine, EngineMiss, engine
from tessela_lowering._xla._jaxlib import (
    JAXLIB_VERSION,
    AvalLike,
    Buffer,
    Client,
    Device,
    DType,
    Executable,
    HostArray,
    ResultHandler,
    Value,
    XlaRuntimeError,
    device_platform,
    make_client,
    plugin_libraries,
)
from tessela_lowering._xla._mlir import (
    dense_attr,
    entry_function,
    fresh_ir_context,
    ir_element_type,
    make_ir_context,
    module_text,
)
from tessela_lowering._xla._run import (
    MemoryStats,
    Runner,
    XlaComputation,
    block_until_ready,
    buffer_device,
    compile_module,
    copy_to_device,
    cost_analysis,
    deserialize,
    device_put,
    execute,
    execute_and_wait,
    hlo_text,
    host_putter,
    leaves_runner,
    live_array_count,
    memory_analysis,
    python_callback_op,
    register_lapack_targets,
    result_handler,
    runner,
    serialize,
    to_dlpack,
    to_numpy,
    xla_computation,
)

__all__ = [
    "JAXLIB_VERSION",
    "AvalLike",
    "Buffer",
    "Client",
    "DType",
    "Device",
    "Engine",
    "EngineMiss",
    "Executable",
    "HostArray",
    "MemoryStats",
    "ResultHandler",
    "Runner",
    "Value",
    "XlaComputation",
    "XlaRuntimeError",
    "block_until_ready",
    "buffer_device",
    "chlo",
    "compile_module",
    "copy_to_device",
    "cost_analysis",
    "dense_attr",
    "deserialize",
    "device_platform",
    "device_put",
    "engine",
    "entry_function",
    "execute",
    "execute_and_wait",
    "fresh_ir_context",
    "func_dialect",
    "hlo_text",
    "host_putter",
    "ir",
    "ir_element_type",
    "leaves_runner",
    "live_array_count",
    "make_client",
    "make_ir_context",
    "memory_analysis",
    "module_text",
    "plugin_libraries",
    "python_callback_op",
    "register_lapack_targets",
    "result_handler",
    "runner",
    "serialize",
    "stablehlo",
    "to_dlpack",
    "to_numpy",
    "xla_computation",
]
