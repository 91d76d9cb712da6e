"""``tessela.experimental``: what JAX 0.10.2 keeps under ``jax.experimental``.

``io_callback``, and the submodules ``mesh_utils`` (``create_device_mesh``),
``shard_map`` (the positional ``shard_map(f, mesh, in_specs, out_specs)``) and
``checkify`` (functionalized runtime checks; imported on first use).

Example:
    >>> import numpy as np
    >>> import tessela as tx
    >>> from tessela.experimental import io_callback
    >>> log = []
    >>> def save(x):
    ...     log.append(np.asarray(x).tolist())
    ...     return x
    >>> _ = tx.jit(lambda x: io_callback(save, tx.ShapeDtypeStruct((2,), np.float32), x))(
    ...     np.ones(2, np.float32))
    >>> log
    [[1.0, 1.0]]
"""

import importlib
from types import ModuleType

from tessela_tracer import io_callback

from . import mesh_utils, shard_map

__all__ = ["checkify", "io_callback", "mesh_utils", "shard_map"]


def __getattr__(name: str) -> ModuleType:
    if name == "checkify":
        return importlib.import_module(f"{__name__}.checkify")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
