"""``tessela.numpy``: the ``jax.numpy`` names, from ``tessela_numpy``, with
``vectorize`` and ``apply_along_axis``, which need ``vmap`` (see ``_vectorize``), and the
array API's ``__array_namespace_info__`` (which lists devices).

Example:
    >>> import tessela.numpy as tnp
    >>> print(tnp.arange(3.0) * 2)
    [0. 2. 4.]
"""

from tessela_numpy import *  # noqa: F403
from tessela_numpy import __all__ as _numpy_all
from tessela_tracer import register_array_methods as _register_array_methods

from tessela._array_api_info import __array_api_version__ as __array_api_version__
from tessela._array_api_info import __array_namespace_info__ as __array_namespace_info__
from tessela._array_api_info import array_namespace as _array_namespace
from tessela._vectorize import apply_along_axis as apply_along_axis
from tessela._vectorize import vectorize as vectorize

__all__ = sorted([*_numpy_all, "apply_along_axis", "vectorize"])

# With the umbrella, arrays and tracers report this module as their namespace.
_register_array_methods({"__array_namespace__": _array_namespace})
