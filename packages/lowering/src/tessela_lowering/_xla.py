"""The adapter: every use of jaxlib in Tessela goes through this module.

jaxlib's runtime (``jaxlib._jax`` and ``jaxlib.xla_client``) ships without type
information, so the objects it hands out (clients, devices, buffers,
executables) are typed here under names (:data:`Client`, :data:`Device`,
:data:`Buffer`, :data:`Executable`) that the rest of the package uses. The MLIR
bindings are typed and are re-exported as modules (``ir``, ``func_dialect``,
``stablehlo``, ``chlo``).

Written against jaxlib 0.10.2 and defensive about 0.11.x: every attribute that
moved between those releases is looked up once, at import, with a fallback.
"""

from __future__ import annotations

import functools
import glob
import importlib
import importlib.metadata
import importlib.util
import os
import threading
from collections.abc import Callable, Sequence
from typing import Any, Protocol, TypeAlias

import ml_dtypes
import numpy as np

# jaxlib logs device discovery at INFO level unless told otherwise; keep the
# console as quiet as JAX users know it. Must precede the first jaxlib import.
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "1")

from jaxlib.mlir import ir
from jaxlib.mlir.dialects import chlo, stablehlo
from jaxlib.mlir.dialects import func as func_dialect

_jax: Any = importlib.import_module("jaxlib._jax")
_mlir_ext: Any = importlib.import_module("jaxlib.mlir._mlir_libs._jax_mlir_ext")
_xla_client: Any = importlib.import_module("jaxlib.xla_client")
_jaxlib_version: Any = importlib.import_module("jaxlib.version")

__all__ = [
    "JAXLIB_VERSION",
    "AvalLike",
    "Buffer",
    "Client",
    "DType",
    "Device",
    "Executable",
    "HostArray",
    "ResultHandler",
    "Runner",
    "Value",
    "XlaRuntimeError",
    "chlo",
    "compile_module",
    "cost_analysis",
    "dense_attr",
    "deserialize",
    "device_put",
    "entry_function",
    "execute",
    "execute_and_wait",
    "fresh_ir_context",
    "func_dialect",
    "ir",
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
    "to_numpy",
]

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
    _xla_client.register_custom_call_handler(
        xla_platform, functools.partial(extension.register_custom_call_target, c_api)
    )
    for name, handler in extension.ffi_registrations().items():
        _xla_client.register_custom_call_target(name, handler, platform=xla_platform, api_version=1)


def device_platform(device: Device) -> str:
    """The platform name of ``device`` ("cpu", "gpu", "tpu")."""
    return str(device.platform)


# --------------------------------------------------------------------------
# Host <-> device.

_BITCAST_AS: dict[int, np.dtype[Any]] = {
    1: np.dtype(np.uint8),
    2: np.dtype(np.uint16),
    4: np.dtype(np.uint32),
    8: np.dtype(np.uint64),
}
_bitcast_cache: dict[tuple[Any, ...], Executable] = {}
_bitcast_lock = threading.Lock()


def _needs_bitcast(dtype: np.dtype[Any]) -> bool:
    # NumPy's DLPack export refuses the ml_dtypes types (bfloat16, float8, ...).
    return dtype.kind == "V" or dtype.type.__module__.startswith("ml_dtypes")


def _bitcast_executable(
    shape: tuple[int, ...], src: np.dtype[Any], dst: np.dtype[Any], device: Device
) -> Executable:
    key = (shape, src, dst, device)
    exe = _bitcast_cache.get(key)
    if exe is not None:
        return exe
    with make_ir_context(), ir.Location.unknown():
        module = ir.Module.create()
        in_type = ir.RankedTensorType.get(shape, ir_element_type(src))
        out_type = ir.RankedTensorType.get(shape, ir_element_type(dst))
        block = entry_function(module, [in_type], [out_type], [])
        with ir.InsertionPoint(block):
            out = stablehlo.BitcastConvertOp(out_type, block.arguments[0]).result
            func_dialect.ReturnOp([out])
        text = module_text(module)
    exe = compile_module(text, [device])
    with _bitcast_lock:
        _bitcast_cache[key] = exe
    return exe


def device_put(value: np.ndarray[Any, Any] | np.generic, device: Device) -> Buffer:
    """Copy a host array onto ``device``.

    Args:
      value: a NumPy array of any dtype Tessela supports (ml_dtypes included).
      device: the target device.

    Returns:
      A single-device :data:`Buffer` holding a copy of ``value``.
    """
    _ensure_process_state()
    if not isinstance(value, np.ndarray):
        value = np.asarray(value)
    dtype = value.dtype
    if not _needs_bitcast(dtype):
        arr = value if value.flags.c_contiguous else np.ascontiguousarray(value)
        if not arr.flags.writeable:  # DLPack 0.x cannot export read-only arrays
            arr = arr.copy()
        return _jax.dlpack_managed_tensor_to_buffer(arr.__dlpack__(), device, None, copy=True)
    carrier = _BITCAST_AS[dtype.itemsize]
    raw = np.ascontiguousarray(value).view(carrier)
    raw_buf = _jax.dlpack_managed_tensor_to_buffer(raw.__dlpack__(), device, None, copy=True)
    exe = _bitcast_executable(tuple(value.shape), carrier, dtype, device)
    (out,) = execute(exe, [raw_buf], [result_handler(_Aval(value.shape, dtype), device)])
    return out


def to_numpy(buf: Buffer) -> np.ndarray[Any, Any]:
    """Copy a buffer to a new read-only host NumPy array (blocks until ready)."""
    out, _ = buf._single_device_array_to_np_array_did_copy()
    return np.asarray(out)


def buffer_device(buf: Buffer) -> Device:
    """The device a buffer lives on."""
    return buf._sharding._device


def copy_to_device(buf: Buffer, device: Device) -> Buffer:
    """Copy a buffer to another device (through the host)."""
    return device_put(to_numpy(buf), device)


def to_dlpack(buf: Buffer) -> Any:
    """A DLPack capsule for ``buf`` (shares the device memory)."""
    return _jax.buffer_to_dlpack_managed_tensor(buf, stream=None)


def block_until_ready(buffers: Sequence[Buffer]) -> None:
    """Wait until every buffer in ``buffers`` is computed."""
    batched = getattr(_jax, "batched_block_until_ready", None)
    if batched is not None:
        batched(list(buffers))
    else:
        for b in buffers:
            b.block_until_ready()


# --------------------------------------------------------------------------
# MLIR contexts and element types.

_registry: list[ir.DialectRegistry] = []


_contexts = threading.local()
_CONTEXT_REUSE = 256  # modules per context before a fresh one (bounds uniqued-attribute growth)


def fresh_ir_context() -> ir.Context:
    """A new MLIR context with the func, StableHLO and CHLO dialects loaded."""
    if not _registry:
        registry = ir.DialectRegistry()
        _mlir_ext.register_dialects(registry)
        _registry.append(registry)
    ctx = ir.Context()
    ctx.append_dialect_registry(_registry[0])
    ctx.load_all_available_dialects()
    stablehlo.register_dialect(ctx)
    chlo.register_dialect(ctx)
    return ctx


def make_ir_context() -> ir.Context:
    """An MLIR context with the func, StableHLO and CHLO dialects loaded.

    Loading the dialects costs about 2 ms, so each thread reuses its context
    for a few hundred modules before starting a fresh one.
    """
    uses = getattr(_contexts, "uses", _CONTEXT_REUSE)
    if uses >= _CONTEXT_REUSE:
        _contexts.ctx = fresh_ir_context()
        uses = 0
    _contexts.uses = uses + 1
    ctx: ir.Context = _contexts.ctx
    return ctx


_IR_TYPES: dict[np.dtype[Any], Callable[[], ir.Type]] = {
    np.dtype(np.bool_): lambda: ir.IntegerType.get_signless(1),
    np.dtype(np.int8): lambda: ir.IntegerType.get_signless(8),
    np.dtype(np.int16): lambda: ir.IntegerType.get_signless(16),
    np.dtype(np.int32): lambda: ir.IntegerType.get_signless(32),
    np.dtype(np.int64): lambda: ir.IntegerType.get_signless(64),
    np.dtype(np.uint8): lambda: ir.IntegerType.get_unsigned(8),
    np.dtype(np.uint16): lambda: ir.IntegerType.get_unsigned(16),
    np.dtype(np.uint32): lambda: ir.IntegerType.get_unsigned(32),
    np.dtype(np.uint64): lambda: ir.IntegerType.get_unsigned(64),
    np.dtype(np.float16): lambda: ir.F16Type.get(),
    np.dtype(np.float32): lambda: ir.F32Type.get(),
    np.dtype(np.float64): lambda: ir.F64Type.get(),
    np.dtype(np.complex64): lambda: ir.ComplexType.get(ir.F32Type.get()),
    np.dtype(np.complex128): lambda: ir.ComplexType.get(ir.F64Type.get()),
    np.dtype(ml_dtypes.bfloat16): lambda: ir.BF16Type.get(),
    np.dtype(ml_dtypes.float8_e4m3fn): lambda: ir.Float8E4M3FNType.get(),
    np.dtype(ml_dtypes.float8_e5m2): lambda: ir.Float8E5M2Type.get(),
}


def dense_attr(array: HostArray, ty: ir.RankedTensorType) -> ir.Attribute:
    """A dense elements attribute of type ``ty`` holding ``array``'s values."""
    shape = list(array.shape)
    if _needs_bitcast(array.dtype):
        raw = np.ascontiguousarray(array).view(_BITCAST_AS[array.dtype.itemsize])
        data: Any = raw
    else:
        data = np.ascontiguousarray(array)
    attr: ir.Attribute = ir.DenseElementsAttr.get(data, type=ty.element_type, shape=shape)
    return attr


def entry_function(
    module: ir.Module,
    in_types: Sequence[ir.Type],
    out_types: Sequence[ir.Type],
    arg_attrs: Sequence[dict[str, ir.Attribute]],
) -> ir.Block:
    """Add a public ``@main`` to ``module``; returns its entry block."""
    with ir.InsertionPoint(module.body):
        fn: Any = func_dialect.FuncOp("main", ir.FunctionType.get(list(in_types), list(out_types)))
        fn.attributes["sym_visibility"] = ir.StringAttr.get("public")
        if any(arg_attrs):
            fn.arg_attrs = ir.ArrayAttr.get([ir.DictAttr.get(a) for a in arg_attrs])
        block: ir.Block = fn.add_entry_block()
    return block


def module_text(module: ir.Module) -> str:
    """The module as MLIR text in the custom (readable) form."""
    op: Any = module.operation
    return str(op.get_asm(enable_debug_info=False, print_generic_op_form=False))


def ir_element_type(dtype: np.dtype[Any]) -> ir.Type:
    """The MLIR element type of a NumPy dtype (needs an active ``ir.Context``).

    Raises:
      TypeError: the dtype has no XLA counterpart.
    """
    make = _IR_TYPES.get(np.dtype(dtype))
    if make is None:
        raise TypeError(
            f"dtype {np.dtype(dtype).name} is not supported on XLA devices; "
            f"convert the array to one of {sorted(d.name for d in _IR_TYPES)} first."
        )
    return make()


# --------------------------------------------------------------------------
# Compile and run.


def compile_module(
    module: str | bytes,
    devices: Sequence[Device],
    *,
    host_callbacks: Sequence[Callable[..., Any]] = (),
) -> Executable:
    """Compile StableHLO (text or bytecode) for ``devices`` and load it.

    Args:
      module: the module, as MLIR text or bytecode; the entry is ``@main``.
      devices: the devices it runs on (one for a single-device program).
      host_callbacks: the Python functions the module's callback custom calls
        name by index (see :func:`python_callback_op`).

    Returns:
      The loaded executable.
    """
    client = devices[0].client
    options = _xla_client.CompileOptions()
    build = options.executable_build_options
    build.num_replicas = 1
    build.num_partitions = len(devices)
    assignment = np.array([[d.id for d in devices]], dtype=np.int64)
    build.device_assignment = _xla_client.DeviceAssignment.create(assignment)
    device_list = _jax.DeviceList(tuple(devices))
    if host_callbacks:
        return _compile_with_callbacks(client, module, device_list, options, host_callbacks)
    if hasattr(client, "compile_and_load"):
        return client.compile_and_load(module, device_list, options)
    return client.compile(module, device_list, options)  # pragma: no cover


def _compile_with_callbacks(
    client: Client,
    module: str | bytes,
    device_list: Any,
    options: Any,
    host_callbacks: Sequence[Callable[..., Any]],
) -> Executable:
    # jaxlib takes host callbacks only with a parsed MLIR module object.
    parsed = ir.Module.parse(module, context=make_ir_context())
    compile_fn = getattr(client, "compile_and_load", None) or client.compile
    return compile_fn(parsed, device_list, options, host_callbacks=list(host_callbacks))


_PYTHON_CALLBACK_TARGETS = {
    "cpu": "xla_ffi_python_cpu_callback",
    "gpu": "xla_ffi_python_gpu_callback",
    "cuda": "xla_ffi_python_gpu_callback",
    "rocm": "xla_ffi_python_gpu_callback",
}


def python_callback_op(
    platform: str,
    index: int,
    operands: Sequence[Value],
    result_types: Sequence[ir.Type],
    *,
    has_side_effect: bool,
) -> list[Value]:
    """Emit a call of host callback number ``index`` (needs an insertion point).

    jaxlib's FFI handler (``xla_ffi_python_cpu_callback``, or the GPU one)
    calls ``host_callbacks[index]`` of :func:`compile_module` with the operands
    as NumPy arrays and expects a tuple of NumPy results.

    Args:
      platform: the platform compiled for ("cpu", "gpu", "cuda", "rocm").
      index: the callback's position in the module's host-callback list.
      operands: the values passed to the callback.
      result_types: the tensor types of its results.
      has_side_effect: keep the call even when its results are unused.

    Returns:
      The call's results.

    Raises:
      NotImplementedError: the platform has no Python-callback handler here.
    """
    target = _PYTHON_CALLBACK_TARGETS.get(platform)
    if target is None:
        raise NotImplementedError(
            f"host callbacks (debug.print, pure_callback, io_callback) are not supported on "
            f"{platform!r} devices; run the function on CPU or GPU."
        )
    u64 = ir.IntegerType.get_unsigned(64)
    op = stablehlo.CustomCallOp(
        list(result_types),
        list(operands),
        call_target_name=ir.StringAttr.get(target),
        has_side_effect=ir.BoolAttr.get(has_side_effect),
        api_version=ir.IntegerAttr.get(ir.IntegerType.get_signless(32), 4),
        backend_config=ir.DictAttr.get({"index": ir.IntegerAttr.get(u64, index)}),
    )
    return list(op.results)


_lapack_lock = threading.Lock()
_lapack_targets: list[str] = []


def register_lapack_targets() -> list[str]:
    """Make jaxlib's LAPACK kernels callable as CPU custom calls; idempotent, thread-safe.

    Binds the kernels to SciPy's LAPACK (``jaxlib.cpu._lapack.initialize``) and
    registers each of them with XLA under its jaxlib name (``lapack_ssyevd_ffi``,
    ``lapack_zgesdd_ffi``, ...): the ``*_ffi`` names as typed FFI handlers
    (``api_version=1``), the older ones with the legacy calling convention.

    Returns:
      The registered target names.
    """
    if _lapack_targets:
        return list(_lapack_targets)
    with _lapack_lock:
        if not _lapack_targets:
            lapack = importlib.import_module("jaxlib.cpu._lapack")
            lapack.initialize()
            names = sorted(lapack.registrations().items())
            for name, capsule in names:
                version = 1 if name.endswith("_ffi") else 0
                _xla_client.register_custom_call_target(
                    name, capsule, platform="cpu", api_version=version
                )
            _lapack_targets.extend(name for name, _ in names)
    return list(_lapack_targets)


def result_handler(aval: AvalLike, device: Device) -> ResultHandler:
    """A handler turning one raw output into a buffer of ``aval`` on ``device``."""
    return _jax.array_result_handler(aval, _jax.SingleDeviceSharding(device), True, True)


def execute(
    exe: Executable, args: Sequence[Buffer], handlers: Sequence[ResultHandler]
) -> list[Buffer]:
    """Run ``exe`` on buffers; returns one buffer per output (asynchronously)."""
    results = exe.execute_sharded(args)
    out: list[Buffer] = results.consume_with_handlers(handlers)
    return out


Runner: TypeAlias = Callable[[list[Buffer]], list[Buffer]]
"""Runs one executable on a list of buffers; returns its output buffers."""


def runner(exe: Executable, handlers: Sequence[ResultHandler]) -> Runner:
    """:func:`execute` bound to one executable and its result handlers.

    The dispatch fast paths call it once per call: it is one Python frame
    around ``execute_sharded`` and ``consume_with_handlers``, with nothing
    looked up per call.

    Args:
      exe: the loaded executable (compiled without host callbacks).
      handlers: one result handler per output.

    Returns:
      ``run(buffers) -> output buffers``; it runs asynchronously.
    """
    execute_sharded = exe.execute_sharded
    handler_list = list(handlers)

    def run(args: list[Buffer]) -> list[Buffer]:
        out: list[Buffer] = execute_sharded(args).consume_with_handlers(handler_list)
        return out

    return run


def execute_and_wait(
    exe: Executable, args: Sequence[Buffer], handlers: Sequence[ResultHandler]
) -> list[Buffer]:
    """Run ``exe`` and wait until it has finished, host callbacks included."""
    results = exe.execute_sharded(args, with_tokens=True)
    results.consume_token().block_until_ready()
    out: list[Buffer] = results.consume_with_handlers(handlers)
    return out


def cost_analysis(exe: Executable) -> dict[str, float]:
    """XLA's cost estimate for a compiled executable (flops, bytes accessed, ...)."""
    raw = exe.cost_analysis()
    if isinstance(raw, list):  # older jaxlib returned one dict per program
        raw = raw[0] if raw else {}
    return {str(k): float(v) for k, v in dict(raw).items()}


def memory_analysis(exe: Executable) -> Any:
    """XLA's memory statistics for a compiled executable."""
    return exe.get_compiled_memory_stats()


def live_array_count(device: Device) -> int:
    """How many arrays are alive on ``device``'s client (for leak checks)."""
    return len(device.client.live_arrays())


def serialize(exe: Executable) -> bytes:
    """The executable as bytes, for :func:`deserialize` in a later process."""
    data: bytes = exe.serialize()
    return data


def deserialize(data: bytes, devices: Sequence[Device]) -> Executable | None:
    """Load an executable serialized by :func:`serialize`; ``None`` if it cannot be."""
    client = devices[0].client
    try:
        return client.deserialize_executable(
            data, _jax.DeviceList(tuple(devices)), _xla_client.CompileOptions()
        )
    except Exception:  # stale or foreign cache entry: compile afresh
        return None


def hlo_text(exe: Executable) -> str:
    """The optimized HLO text of a compiled executable."""
    modules = exe.hlo_modules()
    return "\n".join(m.to_string() for m in modules)
