"""Top-level runtime helpers of the JAX namespace: devices, live arrays, host ids, transfer guards.

``live_arrays`` lists the Tessela arrays alive in the process on a platform;
``copy_to_host_async`` starts the host copy of every array leaf that can
start one (a hint: leaves without the method are left alone, as in JAX).
``host_count``/``host_id``/``host_ids`` are the old names of
``process_count``/``process_index``/the process indices.

The transfer guards (``transfer_guard`` and its three directions) are flags
of :data:`tessela.config` (``jax_transfer_guard_host_to_device``, ...) that
accept JAX's levels. Tessela's runtime does not watch transfers, so only
"allow" (the default, and what the guards mean when nothing is checked) can
be set: "log" and "disallow" (and their ``_explicit`` forms) raise
``NotImplementedError`` rather than promise a check that would not happen.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator
from typing import Any, TypeVar

import tessela_lowering
from tessela_pytree import tree_leaves
from tessela_tracer.typing import Array

from ._config import config
from ._flag_contexts import FlagContext

__all__ = [
    "copy_to_host_async", "host_count", "host_id", "host_ids", "live_arrays",
    "transfer_guard", "transfer_guard_device_to_device", "transfer_guard_device_to_host",
    "transfer_guard_host_to_device",
]  # fmt: skip

_T = TypeVar("_T")

_LEVELS = ("allow", "log", "disallow", "log_explicit", "disallow_explicit")


def copy_to_host_async(x: _T) -> _T:
    """Starts copying every array leaf of ``x`` to the host, without waiting.

    Leaves without a ``copy_to_host_async`` method (not arrays, or arrays
    that cannot start one) are left alone.

    Args:
      x: a pytree.

    Returns:
      ``x`` itself.

    Example:
      >>> import tessela as tx
      >>> import tessela.numpy as tnp
      >>> tree = {"a": tnp.ones(2), "b": 3}
      >>> tx.copy_to_host_async(tree) is tree
      True
    """
    for leaf in tree_leaves(x):
        start = getattr(leaf, "copy_to_host_async", None)
        if callable(start):
            start()
    return x


def live_arrays(platform: str | None = None) -> list[Array]:
    """The arrays alive in this process on ``platform`` (default: the default backend).

    Args:
      platform: "cpu", "gpu", ... or None.

    Returns:
      A list of ``tessela.Array``, deleted (donated) ones excluded.

    Example:
      >>> import tessela as tx
      >>> import tessela.numpy as tnp
      >>> x = tnp.arange(3.0)
      >>> any(a is x for a in tx.live_arrays())
      True
    """
    want = platform or tessela_lowering.default_backend()
    return [
        obj
        for obj in gc.get_objects()
        if type(obj) is tessela_lowering.Array
        and not obj.is_deleted()
        and _platform_of(obj) == want
    ]


def _platform_of(a: Any) -> str:
    devs = a.devices()
    return str(next(iter(devs)).platform) if devs else ""


def host_count(backend: str | None = None) -> int:
    """The number of processes (hosts), as ``process_count``.

    Args:
      backend: the backend's platform name, or None.

    Returns:
      The count.

    Example:
      >>> import tessela as tx
      >>> tx.host_count()
      1
    """
    return tessela_lowering.process_count(backend)


def host_id(backend: str | None = None) -> int:
    """This process's index, as ``process_index``.

    Args:
      backend: the backend's platform name, or None.

    Returns:
      The index.

    Example:
      >>> import tessela as tx
      >>> tx.host_id()
      0
    """
    return tessela_lowering.process_index(backend)


def host_ids(backend: str | None = None) -> list[int]:
    """The indices of all processes.

    Args:
      backend: the backend's platform name, or None.

    Returns:
      ``list(range(host_count(backend)))``.

    Example:
      >>> import tessela as tx
      >>> tx.host_ids()
      [0]
    """
    return list(range(host_count(backend)))


def _guard_level(value: Any) -> str:
    if value not in _LEVELS:
        raise ValueError(f"transfer guard level must be one of {list(_LEVELS)}, got {value!r}")
    if value != "allow":
        raise NotImplementedError(
            f"transfer guard level {value!r}: Tessela's runtime does not watch host/device "
            "transfers, so it can neither log nor refuse them; only 'allow' can be set."
        )
    return str(value)


_DIRECTIONS = ("host_to_device", "device_to_host", "device_to_device")
for _direction in _DIRECTIONS:
    config.define(
        f"jax_transfer_guard_{_direction}",
        "allow",
        aliases=(f"tessela_transfer_guard_{_direction}",),
        validator=_guard_level,
        help=f"The transfer guard level of {_direction.replace('_', '-')} transfers.",
    )

transfer_guard_host_to_device = FlagContext("jax_transfer_guard_host_to_device", None)
transfer_guard_device_to_host = FlagContext("jax_transfer_guard_device_to_host", None)
transfer_guard_device_to_device = FlagContext("jax_transfer_guard_device_to_device", None)


@contextlib.contextmanager
def transfer_guard(new_val: str) -> Iterator[None]:
    """Sets the transfer guard level of all three directions inside a ``with`` block.

    Args:
      new_val: one of JAX's levels: "allow", "log", "disallow", "log_explicit",
        "disallow_explicit"; only "allow" can be set here (see the module notes).

    Returns:
      A context manager.

    Raises:
      ValueError: for an unknown level.
      NotImplementedError: for a level that would need transfers to be watched.

    Example:
      >>> import tessela as tx
      >>> with tx.transfer_guard("allow"):
      ...     print(tx.numpy.ones(2) + 1)
      [2. 2.]
    """
    _guard_level(new_val)
    with contextlib.ExitStack() as stack:
        for guard in (
            transfer_guard_host_to_device,
            transfer_guard_device_to_host,
            transfer_guard_device_to_device,
        ):
            stack.enter_context(guard(new_val))
        yield
