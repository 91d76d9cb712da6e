"""Tessela: composable transformations of NumPy-style programs, compiled by XLA.

The JAX namespace over the Tessela packages: port JAX code by swapping
imports (``import tessela as tx``, ``import tessela.numpy as tnp``).

Example:
    >>> import tessela as tx
    >>> import tessela.numpy as tnp
    >>> df = tx.jit(tx.grad(lambda x: tnp.sum(tnp.sin(x))))
    >>> print(df(tnp.zeros(3)))
    [1. 1. 1.]
"""

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
    Array,
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

from . import debug, errors, experimental, lax, nn, numpy, random, tree, tree_util
from ._api import block_until_ready, load_plugins, plugins
from ._config import config

__version__ = "0.1.0"

__all__ = [
    "Array",
    "ShapeDtypeStruct",
    "block_until_ready",
    "checkpoint",
    "checkpoint_policies",
    "config",
    "custom_jvp",
    "custom_vjp",
    "debug",
    "default_backend",
    "default_device",
    "device_count",
    "device_get",
    "device_put",
    "devices",
    "effects_barrier",
    "errors",
    "eval_shape",
    "experimental",
    "grad",
    "hessian",
    "jacfwd",
    "jacobian",
    "jacrev",
    "jit",
    "jvp",
    "lax",
    "linear_transpose",
    "linearize",
    "load_plugins",
    "local_device_count",
    "local_devices",
    "make_jaxpr",
    "nn",
    "numpy",
    "plugins",
    "pure_callback",
    "random",
    "remat",
    "tree",
    "tree_util",
    "value_and_grad",
    "vjp",
    "vmap",
]
