"""jaxlib's modules, the types of the objects it hands out, its process-wide state,
and PJRT clients and plugins."""

from __future__ import annotations

import functools
import glob
import importlib
import importlib.util
import os
import threading
from collections.abc import Callable
from typing import Any, Protocol, TypeAlias

import numpy as np
from jaxlib.mlir import ir

_jax: Any = importlib.import_module("jaxlib._jax")
_mlir_ext: Any = importlib.import_module("jaxlib.mlir._mlir_libs._jax_mlir_ext")
_xla_client: Any = importlib.import_module("jaxlib.xla_client")
_jaxlib_version: Any = importlib.import_module("jaxlib.version")


Client: TypeAlias = Any
"""A PJRT client (one per platform)."""
Device: TypeAlias = Any
"""A device of a PJRT client; prints as ``CpuDevice(id=0)``."""
Buffer: TypeAlias = Any
"""jaxlib's single-device array (``ArrayImpl``): a buffer on one device."""
Executable: TypeAlias = Any
"""A compiled, loaded executable."""
ResultHandler: TypeAlias = Any
"""Turns one raw output of an executable into a :data:`Buffer`."""
DType: TypeAlias = np.dtype[Any]
"""A NumPy dtype object."""
HostArray: TypeAlias = np.ndarray[Any, Any]
"""A NumPy array on the host."""
Value: TypeAlias = ir.Value[Any]
"""An SSA value in an MLIR module."""

JAXLIB_VERSION: tuple[int, ...] = tuple(
    int(p) for p in _jaxlib_version.__version__.split(".")[:3] if p.isdigit()
)

XlaRuntimeError: type[Exception] = getattr(
    _jax, "JaxRuntimeError", getattr(_xla_client, "XlaRuntimeError", RuntimeError)
)


class AvalLike(Protocol):
    """What jaxlib reads from an abstract value: shape, dtype, weak_type, ndim."""

    @property
    def shape(self) -> tuple[int, ...]: ...
    @property
    def dtype(self) -> np.dtype[Any]: ...
    @property
    def weak_type(self) -> bool: ...
    @property
    def ndim(self) -> int: ...


class _Aval:
    """A minimal :class:`AvalLike` for buffers made inside this module."""

    __slots__ = ("dtype", "ndim", "shape", "weak_type")

    def __init__(self, shape: tuple[int, ...], dtype: np.dtype[Any]) -> None:
        self.shape = shape
        self.dtype = dtype
        self.weak_type = False
        self.ndim = len(shape)


# --------------------------------------------------------------------------
# Process-wide jaxlib state.

_x64_lock = threading.Lock()
_x64_state: list[Any] = []


def _ensure_process_state() -> None:
    # jaxlib refuses to create arrays until an x64 state object is registered.
    # Tessela tracks x64 itself; this object only satisfies jaxlib.
    if _x64_state:
        return
    with _x64_lock:
        if not _x64_state:
            state = _jax.config.Config("tessela_enable_x64", False, include_in_jit_key=True)
            _jax.jax_jit.set_enable_x64_state(state)
            # With Python tracebacks enabled (jaxlib's default), every
            # ``execute_sharded`` call keeps 60 to 90 bytes that are never
            # freed (benchmarks/bench_memory.py measures it). Tessela reads no
            # jaxlib traceback, so it turns them off.
            set_tracebacks = getattr(_jax, "set_tracebacks_enabled", None)
            if set_tracebacks is not None:
                set_tracebacks(False)
            _x64_state.append(state)


# --------------------------------------------------------------------------
# Clients and plugins.

_PLUGIN_GLOBS = ("xla_*_plugin.so", "pjrt_c_api_*_plugin.so", "pjrt_plugin_*.so", "libtpu.so")


def plugin_libraries() -> dict[str, str]:
    """PJRT plugin libraries installed beside jaxlib, by platform name.

    Looks in ``PJRT_NAMES_AND_LIBRARY_PATHS`` (``name:path,name:path``), in the
    ``jax_plugins`` namespace packages (the CUDA/ROCm plugin wheels) and in the
    ``libtpu`` package, without importing any of them.

    Returns:
      A mapping from platform name ("cuda", "rocm", "tpu", ...) to a path.
    """
    found: dict[str, str] = {}
    spec_env = os.environ.get("PJRT_NAMES_AND_LIBRARY_PATHS", "")
    for item in filter(None, spec_env.split(",")):
        name, _, path = item.partition(":")
        if name and path:
            found[name] = path
    try:
        spec = importlib.util.find_spec("jax_plugins")
    except (ImportError, ValueError):
        spec = None
    roots = list(spec.submodule_search_locations or []) if spec is not None else []
    for root in roots:
        for sub in sorted(os.listdir(root)):
            folder = os.path.join(root, sub)
            if not os.path.isdir(folder):
                continue
            for pattern in _PLUGIN_GLOBS:
                for path in glob.glob(os.path.join(folder, pattern)):
                    platform = "rocm" if "rocm" in sub else "cuda" if "cuda" in sub else sub
                    found.setdefault(platform, path)
    try:
        tpu_spec = importlib.util.find_spec("libtpu")
    except (ImportError, ValueError):
        tpu_spec = None
    if tpu_spec is not None and tpu_spec.submodule_search_locations:
        for root in tpu_spec.submodule_search_locations:
            path = os.path.join(root, "libtpu.so")
            if os.path.exists(path):
                found.setdefault("tpu", path)
    return found


def make_client(platform: str, *, num_cpu_devices: int | None = None) -> Client:
    """Create the PJRT client for ``platform`` ("cpu" or a plugin's name).

    Args:
      platform: "cpu", or a platform whose plugin :func:`plugin_libraries` finds.
      num_cpu_devices: for "cpu", how many host devices to expose; ``None``
        leaves the choice to XLA (``--xla_force_host_platform_device_count``).

    Returns:
      The client.

    Raises:
      RuntimeError: the platform has no plugin installed.
    """
    _ensure_process_state()
    if platform == "cpu":
        return _xla_client.make_cpu_client(asynchronous=True, num_devices=num_cpu_devices)
    libraries = plugin_libraries()
    if platform not in libraries:
        raise RuntimeError(
            f"Unknown backend {platform!r}: no PJRT plugin for it is installed. "
            f"Install one (e.g. `pip install tessela-lowering[cuda12]`) or choose "
            f"from the available platforms: {['cpu', *sorted(libraries)]}."
        )
    if not _xla_client.pjrt_plugin_loaded(platform):
        c_api = _xla_client.load_pjrt_plugin_dynamically(platform, libraries[platform])
        _register_gpu_ffi_handlers(platform, c_api)
    if not _xla_client.pjrt_plugin_initialized(platform):
        _xla_client.initialize_pjrt_plugin(platform)
    options: dict[str, Any] = {}
    if platform in ("cuda", "rocm"):
        make_opts = getattr(_xla_client, "generate_pjrt_gpu_plugin_options", None)
        if make_opts is not None:
            options = dict(make_opts())
    return _xla_client.make_c_api_client(platform, options, None)


_GPU_EXTENSION_PACKAGES = {
    "cuda": ("jax_cuda13_plugin", "jax_cuda12_plugin", "jaxlib.cuda"),
    "rocm": ("jax_rocm7_plugin", "jax_rocm60_plugin", "jaxlib.rocm"),
}


def _register_gpu_ffi_handlers(platform: str, c_api: Any) -> None:
    # As JAX's GPU plugins do when they load: hand XLA the plugin extension's
    # FFI handlers (``xla_ffi_python_gpu_callback`` for host callbacks among
    # them). Without the extension, GPU programs without callbacks still run.
    if platform not in _GPU_EXTENSION_PACKAGES or c_api is None:
        return
    extension = None
    for package in _GPU_EXTENSION_PACKAGES[platform]:
        try:
            extension = importlib.import_module(f"{package}.{platform}_plugin_extension")
        except ImportError:
            continue
        break
    if extension is None:
        return
    xla_platform = platform.upper()
    # jaxlib 0.11's extensions also declare FFI types (the GPU callback's
    # state among them), which must be known before the handlers that use them.
    register_type = getattr(extension, "register_custom_type", None)
    type_handler = getattr(_xla_client, "register_custom_type_handler", None)
    if register_type is not None and type_handler is not None:
        type_handler(xla_platform, functools.partial(register_type, c_api))
        for name, value in getattr(extension, "ffi_types", dict)().items():
            _xla_client.register_custom_type(name, value, platform=xla_platform)
    _xla_client.register_custom_call_handler(
        xla_platform, functools.partial(extension.register_custom_call_target, c_api)
    )
    # jaxlib 0.10 names the handlers ``ffi_registrations``, 0.11 ``ffi_handlers``.
    registrations: Callable[[], dict[str, Any]] = getattr(extension, "ffi_registrations", dict)
    if not hasattr(extension, "ffi_registrations"):
        registrations = getattr(extension, "ffi_handlers", dict)
    for name, handler in registrations().items():
        _xla_client.register_custom_call_target(name, handler, platform=xla_platform, api_version=1)


def device_platform(device: Device) -> str:
    """The platform name of ``device`` ("cpu", "gpu", "tpu")."""
    return str(device.platform)
