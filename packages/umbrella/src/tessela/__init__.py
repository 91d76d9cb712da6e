"""Tessela: composable transformations of NumPy-style programs, compiled by XLA.

The JAX namespace over the Tessela packages: port JAX code by swapping
imports (``import tessela as tx``, ``import tessela.numpy as tnp``).

Example:
    >>> import tessela as tx
    >>> import tessela.numpy as tnp
    >>> df = tx.jit(tx.grad(lambda x: tnp.sum(tnp.sin(x))))
    >>> print(df(tnp.zeros(3)))
    [1. 1. 1.]

``import tessela`` loads the transformations (every primitive's rules), the
runtime and the configuration's flags. The submodules (``numpy``, ``random``,
``lax``, ``debug``, ``nn``, ``scipy``, ``tree_util``, ``sharding``, ...) and
the names defined in them (``P``, ``NamedSharding``, ``float0``,
``disable_jit``, ``shard_map``, ``custom_gradient``, ...) are imported the
first time they are used: ``tessela.scipy``, ``from tessela import nn``,
``import tessela.random`` and ``tessela.debug.print`` all work as for an
eager submodule.
"""

import importlib
from typing import TYPE_CHECKING, Any

from tessela_autodiff import (
    grad,
    hessian,
    jacfwd,
    jacobian,
    jacrev,
    jvp,
    linear_transpose,
    linearize,
    value_and_grad,
    vjp,
)
from tessela_batching import vmap
from tessela_lowering import (
    clear_caches,
    default_backend,
    default_device,
    device_count,
    device_get,
    device_put,
    devices,
    effects_barrier,
    jit,
    local_device_count,
    local_devices,
    process_count,
    process_index,
)
from tessela_tracer import (
    ShapeDtypeStruct,
    checkpoint,
    checkpoint_policies,
    custom_jvp,
    custom_vjp,
    eval_shape,
    make_jaxpr,
    pure_callback,
    remat,
)
from tessela_tracer.typing import Array

# Registers tessela_prng's keys as pytrees (tessela.random itself is lazy).
from . import _prng_keys as _prng_keys
from ._api import block_until_ready, load_plugins, plugins
from ._config import config
from ._flag_contexts import (
    check_tracer_leaks,
    checking_leaks,
    debug_infs,
    debug_nans,
    default_matmul_precision,
    default_prng_impl,
    enable_x64,
    explain_cache_misses,
    log_compiles,
    numpy_dtype_promotion,
    numpy_rank_promotion,
    process_indices,
    threefry_partitionable,
    typeof,
)
from ._flags import (
    allow_f16_reductions,
    array_garbage_collection_guard,
    debug_key_reuse,
    enable_checks,
    enable_custom_prng,
    jax2tf_associative_scan_reductions,
    legacy_prng_key,
    no_execution,
    no_tracing,
    remove_size_one_mesh_axis_from_type,
    softmax_custom_jvp,
    thread_guard,
)
from ._runtime import (
    copy_to_host_async,
    host_count,
    host_id,
    host_ids,
    live_arrays,
    transfer_guard,
    transfer_guard_device_to_device,
    transfer_guard_device_to_host,
    transfer_guard_host_to_device,
)

__version__ = "0.1.0"

if TYPE_CHECKING:
    from . import (
        ad_checkpoint,
        core,
        custom_batching,
        custom_derivatives,
        debug,
        dlpack,
        dtypes,
        errors,
        experimental,
        flatten_util,
        image,
        lax,
        monitoring,
        nn,
        numpy,
        ops,
        profiler,
        random,
        scipy,
        sharding,
        stages,
        tree,
        tree_util,
        typing,
        version,
    )
    from ._closure import closure_convert, custom_gradient, fwd_and_bwd
    from ._jax_alias import (
        JaxAliasError,
        install_jax_alias,
        jax_alias_installed,
        uninstall_jax_alias,
    )
    from ._pmap import pmap
    from ._shard_map import shard_map
    from ._toplevel import (
        disable_jit,
        ensure_compile_time_eval,
        named_call,
        named_scope,
        print_environment_info,
    )
    from .dtypes import float0
    from .sharding import (
        Device,
        NamedSharding,
        Shard,
        make_array_from_callback,
        make_array_from_process_local_data,
        make_array_from_single_device_arrays,
        make_mesh,
        reshard,
        set_mesh,
    )
    from .sharding import PartitionSpec as P

# Imported on first attribute access (PEP 562); `import tessela` stays light.
_LAZY_SUBMODULES = frozenset(
    {
        "ad_checkpoint",
        "core",
        "custom_batching",
        "custom_derivatives",
        "debug",
        "distributed",
        "dlpack",
        "dtypes",
        "errors",
        "experimental",
        "flatten_util",
        "image",
        "lax",
        "monitoring",
        "nn",
        "numpy",
        "ops",
        "profiler",
        "random",
        "scipy",
        "sharding",
        "stages",
        "tree",
        "tree_util",
        "typing",
        "version",
    }
)

# Names whose module is imported on first access: the module (relative to
# the package) and the name there, by the module.
_LAZY_BY_MODULE: dict[str, tuple[str, ...]] = {
    "_closure": ("closure_convert", "custom_gradient", "fwd_and_bwd"),
    "_jax_alias": (
        "JaxAliasError",
        "install_jax_alias",
        "jax_alias_installed",
        "uninstall_jax_alias",
    ),
    "_pmap": ("pmap",),
    "_shard_map": ("shard_map",),
    "_toplevel": (
        "disable_jit",
        "ensure_compile_time_eval",
        "named_call",
        "named_scope",
        "print_environment_info",
    ),
    "dtypes": ("float0",),
    "sharding": (
        "Device",
        "NamedSharding",
        "Shard",
        "make_array_from_callback",
        "make_array_from_process_local_data",
        "make_array_from_single_device_arrays",
        "make_mesh",
        "reshard",
        "set_mesh",
    ),
}
_LAZY_ATTRIBUTES: dict[str, tuple[str, str]] = {
    name: (module, name) for module, names in _LAZY_BY_MODULE.items() for name in names
}
_LAZY_ATTRIBUTES["P"] = ("sharding", "PartitionSpec")


def __getattr__(name: str) -> Any:
    """Imports a lazy submodule the first time it is read (``tessela.scipy``).

    Args:
      name: the attribute read on the package.

    Returns:
      The submodule ``tessela.<name>`` (importing binds it on the package, so
      later reads do not come here), or a lazy name such as
      ``install_jax_alias`` (bound on the package once read).

    Raises:
      AttributeError: if ``name`` is neither defined nor a lazy submodule.

    Example:
      >>> import tessela
      >>> tessela.scipy.special.__name__
      'tessela.scipy.special'
    """
    if name in _LAZY_SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    if name in _LAZY_ATTRIBUTES:
        module, attribute = _LAZY_ATTRIBUTES[name]
        value = getattr(importlib.import_module(f"{__name__}.{module}"), attribute)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    """The package's names, lazy submodules included.

    Returns:
      The sorted names.

    Example:
      >>> import tessela
      >>> "nn" in dir(tessela)
      True
    """
    return sorted({*globals(), *_LAZY_SUBMODULES, *_LAZY_ATTRIBUTES})


__all__ = [
    "Array",
    "Device",
    "JaxAliasError",
    "NamedSharding",
    "P",
    "ShapeDtypeStruct",
    "Shard",
    "ad_checkpoint",
    "allow_f16_reductions",
    "array_garbage_collection_guard",
    "block_until_ready",
    "check_tracer_leaks",
    "checking_leaks",
    "checkpoint",
    "checkpoint_policies",
    "clear_caches",
    "closure_convert",
    "config",
    "copy_to_host_async",
    "core",
    "custom_batching",
    "custom_derivatives",
    "custom_gradient",
    "custom_jvp",
    "custom_vjp",
    "debug",
    "debug_infs",
    "debug_key_reuse",
    "debug_nans",
    "default_backend",
    "default_device",
    "default_matmul_precision",
    "default_prng_impl",
    "device_count",
    "device_get",
    "device_put",
    "devices",
    "disable_jit",
    "distributed",
    "dlpack",
    "dtypes",
    "effects_barrier",
    "enable_checks",
    "enable_custom_prng",
    "enable_x64",
    "ensure_compile_time_eval",
    "errors",
    "eval_shape",
    "experimental",
    "explain_cache_misses",
    "flatten_util",
    "float0",
    "fwd_and_bwd",
    "grad",
    "hessian",
    "host_count",
    "host_id",
    "host_ids",
    "image",
    "install_jax_alias",
    "jacfwd",
    "jacobian",
    "jacrev",
    "jax2tf_associative_scan_reductions",
    "jax_alias_installed",
    "jit",
    "jvp",
    "lax",
    "legacy_prng_key",
    "linear_transpose",
    "linearize",
    "live_arrays",
    "load_plugins",
    "local_device_count",
    "local_devices",
    "log_compiles",
    "make_array_from_callback",
    "make_array_from_process_local_data",
    "make_array_from_single_device_arrays",
    "make_jaxpr",
    "make_mesh",
    "monitoring",
    "named_call",
    "named_scope",
    "nn",
    "no_execution",
    "no_tracing",
    "numpy",
    "numpy_dtype_promotion",
    "numpy_rank_promotion",
    "ops",
    "plugins",
    "pmap",
    "print_environment_info",
    "process_count",
    "process_index",
    "process_indices",
    "profiler",
    "pure_callback",
    "random",
    "remat",
    "remove_size_one_mesh_axis_from_type",
    "reshard",
    "scipy",
    "set_mesh",
    "shard_map",
    "sharding",
    "softmax_custom_jvp",
    "stages",
    "thread_guard",
    "threefry_partitionable",
    "transfer_guard",
    "transfer_guard_device_to_device",
    "transfer_guard_device_to_host",
    "transfer_guard_host_to_device",
    "tree",
    "tree_util",
    "typeof",
    "typing",
    "uninstall_jax_alias",
    "value_and_grad",
    "version",
    "vjp",
    "vmap",
]
