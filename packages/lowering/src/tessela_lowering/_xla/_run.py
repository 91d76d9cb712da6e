"""Compiling and running executables (host callbacks, LAPACK kernels, results,
analyses) and moving buffers between host and device."""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import operator
import threading
from collections.abc import Callable, Sequence
from typing import Any, TypeAlias, TypeVar, overload

import numpy as np
from jaxlib.mlir import ir

from tessela_lowering._xla._dialects import func_dialect, stablehlo
from tessela_lowering._xla._jaxlib import (
    AvalLike,
    Buffer,
    Client,
    Device,
    DType,
    Executable,
    HostArray,
    ResultHandler,
    Value,
    _Aval,
    _ensure_process_state,
    _jax,
    _xla_client,
)
from tessela_lowering._xla._mlir import (
    _BITCAST_AS,
    _SUB_BYTE_BITS,
    _needs_bitcast,
    entry_function,
    ir_element_type,
    make_ir_context,
    module_text,
)

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


# jaxlib 0.10 checks each result through a method of JAX's own Array class unless
# told to skip it (``_skip_checks``); jaxlib 0.11 has neither the check nor the flag.
_SKIP_CHECKS: tuple[bool, ...] = (
    (True,) if "_skip_checks" in (_jax.array_result_handler.__doc__ or "") else ()
)


def result_handler(aval: AvalLike, device: Device) -> ResultHandler:
    """A handler turning one raw output into a buffer of ``aval`` on ``device``.

    An aval of an extended dtype (typed PRNG keys) gets the buffer of its
    physical data: trailing ``dtype.physical_shape``, ``dtype.physical_dtype``.
    """
    trailing = getattr(aval.dtype, "physical_shape", None)
    if trailing is not None:
        physical: np.dtype[Any] = aval.dtype.physical_dtype  # type: ignore[attr-defined]
        aval = _Aval((*aval.shape, *trailing), physical)
    return _jax.array_result_handler(aval, _jax.SingleDeviceSharding(device), True, *_SKIP_CHECKS)


def execute(
    exe: Executable, args: Sequence[Buffer], handlers: Sequence[ResultHandler]
) -> list[Buffer]:
    """Run ``exe`` on buffers; returns one buffer per output (asynchronously)."""
    results = exe.execute_sharded(args)
    out: list[Buffer] = results.consume_with_handlers(handlers)
    return out


Runner: TypeAlias = Callable[[list[Buffer]], list[Buffer]]
"""Runs one executable on a list of buffers; returns its output buffers."""

MemoryStats: TypeAlias = Any
"""jaxlib's ``CompiledMemoryStats`` (argument, output, temporary sizes in bytes)."""

XlaComputation: TypeAlias = Any
"""jaxlib's ``XlaComputation``: an HLO module (``as_hlo_text()``, ...)."""


_R = TypeVar("_R")


@overload
def runner(exe: Executable, handlers: Sequence[ResultHandler], finish: None = None) -> Runner: ...
@overload
def runner(
    exe: Executable, handlers: Sequence[ResultHandler], finish: Callable[[list[Buffer]], _R]
) -> Callable[[list[Buffer]], _R]: ...
def runner(
    exe: Executable,
    handlers: Sequence[ResultHandler],
    finish: Callable[[list[Buffer]], _R] | None = None,
) -> Runner | Callable[[list[Buffer]], _R]:
    """:func:`execute` bound to one executable and its result handlers.

    The dispatch fast paths call it once per call: it is one Python frame
    around ``execute_sharded`` and ``consume_with_handlers``, with nothing
    looked up per call.

    Args:
      exe: the loaded executable (compiled without host callbacks).
      handlers: one result handler per output.
      finish: applied to the output buffers before they are returned (the
        jit fast path wraps them as arrays there).

    Returns:
      ``run(buffers)``: the output buffers, or ``finish`` of them; it runs
      asynchronously.
    """
    execute_sharded = exe.execute_sharded
    handler_list = list(handlers)

    if finish is None:

        def run(args: list[Buffer]) -> list[Buffer]:
            out: list[Buffer] = execute_sharded(args).consume_with_handlers(handler_list)
            return out

        return run

    def run_and_finish(args: list[Buffer]) -> _R:
        return finish(execute_sharded(args).consume_with_handlers(handler_list))

    return run_and_finish


def leaves_runner(
    exe: Executable,
    handlers: Sequence[ResultHandler],
    finish: Callable[[list[Buffer]], _R],
    kept: Sequence[int],
    n: int,
) -> Callable[[Sequence[Any]], _R]:
    """:func:`runner` taking a call's leaves, each holding its buffer as ``._buf``.

    A call whose leaves are all device arrays passes them as they are: the
    buffers are read in the same frame that runs the program (one or two
    leaves spelled out), so a call costs one Python frame and ``finish``.

    Args:
      exe: the loaded executable (compiled without host callbacks).
      handlers: one result handler per output.
      finish: makes the result from the output buffers.
      kept: the positions of the leaves the program takes, in order.
      n: how many leaves a call has.

    Returns:
      ``run(leaves)``: ``finish`` of the outputs; it runs asynchronously.
    """
    execute_sharded = exe.execute_sharded
    handler_list = list(handlers)
    kept = list(kept)
    if kept == [0]:

        def run_one(leaves: Sequence[Any]) -> _R:
            return finish(execute_sharded([leaves[0]._buf]).consume_with_handlers(handler_list))

        return run_one
    if kept == [0, 1] and n == 2:

        def run_two(leaves: Sequence[Any]) -> _R:
            x, y = leaves
            return finish(execute_sharded([x._buf, y._buf]).consume_with_handlers(handler_list))

        return run_two
    if kept == list(range(n)):

        def run_all(leaves: Sequence[Any]) -> _R:
            bufs = list(map(_buf_of, leaves))
            return finish(execute_sharded(bufs).consume_with_handlers(handler_list))

        return run_all

    def run_kept(leaves: Sequence[Any]) -> _R:
        bufs = [leaves[i]._buf for i in kept]
        return finish(execute_sharded(bufs).consume_with_handlers(handler_list))

    return run_kept


_buf_of = operator.attrgetter("_buf")


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


def memory_analysis(exe: Executable) -> MemoryStats:
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


def xla_computation(module_text: str) -> XlaComputation:
    """The StableHLO module text as an HLO ``XlaComputation`` (``as_hlo_text()``, ...)."""
    return _jax.mlir.mlir_module_to_xla_computation(
        module_text, use_tuple_args=False, return_tuple=False
    )


def hlo_text(exe: Executable) -> str:
    """The optimized HLO text of a compiled executable."""
    modules = exe.hlo_modules()
    return "\n".join(m.to_string() for m in modules)


# --------------------------------------------------------------------------
# Host <-> device.

_bitcast_cache: dict[tuple[Any, ...], Executable] = {}
_bitcast_lock = threading.Lock()


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
            arg = block.arguments[0]
            bits = _SUB_BYTE_BITS.get(dst)
            if bits is not None:  # keep the low bits of each byte, then reinterpret them
                low = ir.RankedTensorType.get(shape, ir.IntegerType.get_unsigned(bits))
                arg = stablehlo.ConvertOp(low, arg).result
            out = stablehlo.BitcastConvertOp(out_type, arg).result
            func_dialect.ReturnOp([out])
        text = module_text(module)
    exe = compile_module(text, [device])
    with _bitcast_lock:
        _bitcast_cache[key] = exe
    return exe


class _Placement(_jax.SingleDeviceSharding):  # type: ignore[misc]
    """jaxlib's single-device sharding plus the two members its transfer reads.

    ``batched_device_put`` asks the sharding for ``memory_kind`` and for its
    HLO sharding (JAX's own subclass provides both); one instance per device
    is made and kept.
    """

    memory_kind = None

    def _to_xla_hlo_sharding(self, num_dimensions: int) -> Any:
        del num_dimensions
        return _REPLICATED


_hlo_sharding: Any = getattr(_xla_client, "HloSharding", None)
_REPLICATED: Any = None if _hlo_sharding is None else _hlo_sharding.replicate()
_placements: dict[Device, _Placement] = {}
_batched_put: Any = getattr(_jax, "batched_device_put", None)
_COPY_DURING_CALL: Any = getattr(
    getattr(_jax, "HostBufferSemantics", None), "IMMUTABLE_ONLY_DURING_CALL", None
)
# Set when jaxlib's batched transfer is missing or refuses this sharding (a
# probe on each device's first transfer): the DLPack route (slower, see
# device_put) is used from then on.
_use_dlpack: list[bool] = [None in (_batched_put, _REPLICATED, _COPY_DURING_CALL)]


def _probe_put(sharding: Any, device: Device) -> None:
    # One scalar copied to ``sharding`` on ``device``: raises where this
    # jaxlib's batched transfer refuses that sharding.
    probe = np.zeros((), np.int8)
    _batched_put(_Aval((), probe.dtype), sharding, [probe], [device],
                 False, True, _COPY_DURING_CALL, True)  # fmt: skip


def _placement(device: Device) -> _Placement:
    placement = _placements.get(device)
    if placement is None:
        placement = _Placement(device)
        try:
            _probe_put(placement, device)
        except Exception:  # another jaxlib's interface: DLPack from now on
            _use_dlpack[0] = True
        placement = _placements.setdefault(device, placement)
    return placement


def device_put(value: HostArray | np.generic, device: Device) -> Buffer:
    """Copy a host array onto ``device``.

    The copy goes through jaxlib's ``batched_device_put`` (a few microseconds;
    it looks nothing up in Python). jaxlib's DLPack import is the fallback for
    a jaxlib without it: that route tries to ``import jax`` on every call,
    which costs about 100 us without JAX installed.

    Args:
      value: a NumPy array of any dtype Tessela supports (ml_dtypes included).
      device: the target device.

    Returns:
      A single-device :data:`Buffer` holding a copy of ``value``.

    Example:
      >>> import numpy as np
      >>> import tessela_lowering as tl
      >>> buf = device_put(np.arange(3, dtype=np.int8), tl.devices()[0])
      >>> to_numpy(buf)
      array([0, 1, 2], dtype=int8)
    """
    if not isinstance(value, np.ndarray):
        value = np.asarray(value)
    if not _use_dlpack[0]:
        placement = _placements.get(device) or _placement(device)
        if not _use_dlpack[0]:
            # enable_x64=True: jaxlib keeps the array's own dtype (the caller
            # already chose it); force_copy: later writes to ``value`` are not seen.
            return _batched_put(
                _Aval(value.shape, value.dtype), placement, [value], [device],
                False, True, _COPY_DURING_CALL, True,
            )  # fmt: skip
    return _dlpack_put(value, device)


def host_putter(
    device: Device, shape: tuple[int, ...], dtype: DType
) -> Callable[[HostArray], Buffer]:
    """:func:`device_put` bound to one device, shape and dtype (for the dispatch fast paths).

    Args:
      device: the target device.
      shape: the shape of every array it will copy.
      dtype: their dtype.

    Returns:
      ``put(value)``: copies a NumPy array of that shape and dtype to ``device``.

    Example:
      >>> import numpy as np
      >>> import tessela_lowering as tl
      >>> put = host_putter(tl.devices()[0], (2,), np.dtype(np.int32))
      >>> to_numpy(put(np.array([4, 5], np.int32)))
      array([4, 5], dtype=int32)
    """
    placement = _placement(device) if not _use_dlpack[0] else None
    if placement is None or _use_dlpack[0]:
        return lambda value: _dlpack_put(value, device)
    target = _transient_placement(device, placement)
    aval = _Aval(tuple(shape), dtype)
    devices = [device]
    batched_put = _batched_put
    semantics = _COPY_DURING_CALL

    def put(value: HostArray) -> Buffer:
        return batched_put(aval, target, [value], devices, False, True, semantics, True)

    return put


_transient: dict[Device, Any] = {}


def _transient_placement(device: Device, placement: _Placement) -> Any:
    # The sharding of ``host_putter``'s copies, which go straight into an
    # executable: jaxlib's own replicated ``GSPMDSharding``, whose device
    # list, memory kind and HLO sharding its transfer reads in C++ (it asks
    # ``_Placement``, a Python subclass, for each by name: about 7,000 more
    # instructions per copy). Buffers that become Arrays keep ``_Placement``:
    # the compiled-call object (``engine``) compares an argument's sharding
    # with the program's single-device one.
    target = _transient.get(device)
    if target is None:
        target = placement
        with contextlib.suppress(Exception):  # another jaxlib: the Python subclass serves
            candidate = _jax.GSPMDSharding([device], _REPLICATED)
            _probe_put(candidate, device)
            target = candidate
        target = _transient.setdefault(device, target)
    return target


def _dlpack_put(value: HostArray, device: Device) -> Buffer:
    _ensure_process_state()
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


def to_numpy(buf: Buffer) -> HostArray:
    """Copy a buffer to a new read-only host NumPy array (blocks until ready)."""
    out, _ = buf._single_device_array_to_np_array_did_copy()
    return np.asarray(out)


def buffer_device(buf: Buffer) -> Device:
    """The device a buffer lives on."""
    return buf._sharding._device


def copy_to_device(buf: Buffer, device: Device) -> Buffer:
    """Copy a buffer to another device (through the host)."""
    return device_put(to_numpy(buf), device)


def to_dlpack(buf: Buffer) -> object:
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
