"""Backends, devices and the default device.

Backends are created lazily, once per process, in the priority order named by
``TESSELA_PLATFORMS`` (or ``JAX_PLATFORMS``), e.g. ``"cuda,cpu"``. Without
either variable every platform whose plugin is installed is tried, accelerators
first, and CPU is always last. The CPU backend exposes
``TESSELA_NUM_CPU_DEVICES`` (or ``JAX_NUM_CPU_DEVICES``) devices when set, else
the ``jax_num_cpu_devices`` flag's value when it was set (``config.update``
before the first use of a device), else what XLA's
``--xla_force_host_platform_device_count`` flag in ``XLA_FLAGS`` asks for,
else one.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import threading
from collections.abc import Callable, Iterator

from tessela_tracer import config

from tessela_lowering import _xla
from tessela_lowering._xla import Client, Device

__all__ = [
    "backends_are_initialized",
    "default_backend",
    "default_device",
    "device_count",
    "devices",
    "get_default_device",
    "local_device_count",
    "local_devices",
    "process_count",
    "process_index",
    "set_cpu_client_factory",
]

_ACCELERATORS = ("cuda", "rocm", "tpu")
_ALIASES = {"gpu": ("cuda", "rocm")}

_lock = threading.RLock()
_clients: dict[str, Client] = {}
_errors: dict[str, str] = {}
_initialized: list[bool] = []
_cpu_factory: list[Callable[[int | None], Client]] = []

_default_device: contextvars.ContextVar[Device | str | None] = contextvars.ContextVar(
    "tessela_default_device", default=None
)


def _requested_platforms() -> list[str] | None:
    raw = os.environ.get("TESSELA_PLATFORMS") or os.environ.get("JAX_PLATFORMS") or ""
    names = [p.strip().lower() for p in raw.split(",") if p.strip()]
    if not names:
        return None
    out: list[str] = []
    for name in names:
        out.extend(_ALIASES.get(name, (name,)))
    return out


def _num_cpu_devices() -> int | None:
    raw = os.environ.get("TESSELA_NUM_CPU_DEVICES") or os.environ.get("JAX_NUM_CPU_DEVICES")
    if not raw:
        flag = config.read("jax_num_cpu_devices")
        return flag if flag is not None and flag >= 1 else None
    try:
        count = int(raw)
    except ValueError:
        raise ValueError(
            f"TESSELA_NUM_CPU_DEVICES must be a positive integer, got {raw!r}; "
            f"set it to e.g. 4 before the first use of a device."
        ) from None
    if count < 1:
        raise ValueError(f"TESSELA_NUM_CPU_DEVICES must be at least 1, got {count}.")
    return count


def _initialize() -> dict[str, Client]:
    if _initialized:
        return _clients
    with _lock:
        if _initialized:
            return _clients
        requested = _requested_platforms()
        if requested is None:
            available = _xla.plugin_libraries()
            order = [p for p in _ACCELERATORS if p in available] + ["cpu"]
            explicit = False
        else:
            order = requested
            explicit = True
        for platform in order:
            if platform == "cpu":
                count = _num_cpu_devices()
                if _cpu_factory:
                    _clients["cpu"] = _cpu_factory[0](count)
                else:
                    _clients["cpu"] = _xla.make_client("cpu", num_cpu_devices=count)
                continue
            try:
                client = _xla.make_client(platform)
            except Exception as err:  # a plugin that fails to start is skipped
                _errors[platform] = f"{type(err).__name__}: {err}"
                if explicit:
                    raise RuntimeError(
                        f"Unable to initialize backend {platform!r} named in "
                        f"TESSELA_PLATFORMS/JAX_PLATFORMS: {err}. Remove it from "
                        f"the variable or install its plugin."
                    ) from err
                continue
            _clients[platform] = client
        if not _clients:
            raise RuntimeError(
                f"No backend could be initialized from TESSELA_PLATFORMS/JAX_PLATFORMS="
                f"{','.join(order)!r}; add 'cpu' to the list."
            )
        _initialized.append(True)
    return _clients


def backends_are_initialized() -> bool:
    """Whether this process's backends (and so its devices) exist already.

    Returns:
      True once a device, a computation or a transfer has needed a backend.

    Example:
      >>> import tessela_lowering as tl
      >>> _ = tl.devices()
      >>> backends_are_initialized()
      True
    """
    return bool(_initialized)


def set_cpu_client_factory(factory: Callable[[int | None], Client] | None, /) -> None:
    """Make the CPU backend, when it is created, with ``factory`` (``None``: the usual way).

    ``tessela_lowering.distributed.initialize`` installs a factory that makes a
    CPU client spanning every process of a distributed computation.

    Args:
      factory: called once with the number of CPU devices asked for (``None``
        when unset); returns the PJRT client.

    Raises:
      RuntimeError: the backends already exist.

    Example:
      >>> import tessela_lowering as tl
      >>> _ = tl.devices()
      >>> set_cpu_client_factory(None)
      Traceback (most recent call last):
      ...
      RuntimeError: The CPU client cannot be replaced: the backends were created already.
    """
    with _lock:
        if _initialized:
            raise RuntimeError(
                "The CPU client cannot be replaced: the backends were created already."
            )
        _cpu_factory.clear()
        if factory is not None:
            _cpu_factory.append(factory)


def _backend_name(platform: str) -> str:
    return "gpu" if platform in ("cuda", "rocm") else platform


def _client(backend: str | None) -> Client:
    clients = _initialize()
    if backend is None:
        return next(iter(clients.values()))
    name = backend.lower()
    for platform in _ALIASES.get(name, (name,)):
        if platform in clients:
            return clients[platform]
    known = sorted({_backend_name(p) for p in clients})
    raise RuntimeError(
        f"Unknown backend {backend!r}; the available backends are {known}. "
        f"Pass one of those, or install the plugin for {backend!r}."
        + (f" (it failed with {_errors[name]})" if name in _errors else "")
    )


def default_backend() -> str:
    """The name of the default backend: ``"cpu"``, ``"gpu"`` or ``"tpu"``.

    Returns:
      The platform name of the first backend in priority order.

    Example:
      >>> import tessela_lowering as tl
      >>> tl.default_backend() in ("cpu", "gpu", "tpu")
      True
    """
    return _backend_name(next(iter(_initialize())))


_single: list[bool] = []


def single_device() -> bool:
    """Whether the process sees exactly one device in all (enables dispatch fast paths)."""
    if not _single:
        clients = _initialize()
        _single.append(sum(len(c.devices()) for c in clients.values()) == 1)
    return _single[0]


def devices(backend: str | None = None, /) -> list[Device]:
    """All devices of a backend (the default backend when ``None``).

    Args:
      backend: "cpu", "gpu", "tpu", or ``None`` for the default backend.

    Returns:
      The devices, ordered by id.

    Example:
      >>> import tessela_lowering as tl
      >>> tl.devices("cpu")[0]
      CpuDevice(id=0)
    """
    return list(_client(backend).devices())


def local_devices(process_index: int | None = None, backend: str | None = None) -> list[Device]:
    """The devices of one process (this one when ``process_index`` is ``None``).

    Args:
      process_index: the process whose devices to list; ``None`` for this one.
      backend: as for :func:`devices`.

    Returns:
      The devices attached to that process.

    Example:
      >>> import tessela_lowering as tl
      >>> tl.local_devices(backend="cpu") == tl.devices("cpu")
      True
    """
    client = _client(backend)
    index = client.process_index() if process_index is None else process_index
    return [d for d in client.devices() if d.process_index == index]


def device_count(backend: str | None = None, /) -> int:
    """How many devices a backend has (all processes).

    Example:
      >>> import tessela_lowering as tl
      >>> tl.device_count("cpu") >= 1
      True
    """
    return int(_client(backend).device_count())


def local_device_count(backend: str | None = None, /) -> int:
    """How many devices of a backend this process drives.

    Example:
      >>> import tessela_lowering as tl
      >>> tl.local_device_count("cpu") == tl.device_count("cpu")
      True
    """
    return int(_client(backend).local_device_count())


def process_index(backend: str | None = None, /) -> int:
    """This process's index (0 on a single host).

    Example:
      >>> import tessela_lowering as tl
      >>> tl.process_index()
      0
    """
    return int(_client(backend).process_index())


def process_count(backend: str | None = None, /) -> int:
    """How many processes share the backend (1 on a single host).

    Example:
      >>> import tessela_lowering as tl
      >>> tl.process_count()
      1
    """
    return 1 + max(int(d.process_index) for d in _client(backend).devices())


@contextlib.contextmanager
def default_device(device: Device | str | None, /) -> Iterator[None]:
    """Within the block, put uncommitted data and computations on ``device``.

    Args:
      device: a device, a backend name ("cpu", "gpu", "tpu"; its first device),
        or ``None`` to restore the usual default.

    Returns:
      A context manager.

    Example:
      >>> import tessela_lowering as tl
      >>> with tl.default_device(tl.devices("cpu")[-1]):
      ...     tl.get_default_device() == tl.devices("cpu")[-1]
      True
    """
    if device is not None and not isinstance(device, str) and not hasattr(device, "client"):
        raise TypeError(
            f"default_device(device): expected a Device, a backend name or None, got "
            f"{type(device).__name__}; pass e.g. tessela.devices('cpu')[0]."
        )
    token = _default_device.set(device)
    try:
        yield
    finally:
        _default_device.reset(token)


def get_default_device() -> Device:
    """The device uncommitted values go to right now.

    Returns:
      The device set by the innermost :func:`default_device`, else the first
      device of the default backend that this process drives.

    Example:
      >>> import tessela_lowering as tl
      >>> tl.get_default_device() == tl.devices()[0]
      True
    """
    chosen = _default_device.get()
    if chosen is None:
        return _client(None).local_devices()[0]
    if isinstance(chosen, str):
        return _client(chosen).local_devices()[0]
    return chosen
