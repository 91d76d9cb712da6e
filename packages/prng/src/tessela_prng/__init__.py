"""JAX's Threefry PRNG, bit for bit, on NumPy or any array-API namespace.

The samplers (``normal``, ``uniform``, ``gamma``, ...) live in modules that
are imported the first time one of their names is read (PEP 562): ``import
tessela_prng`` loads only the keys, the configuration and the backend
namespaces, and ``tessela_prng.normal`` or ``from tessela_prng import
normal`` imports the sampler's module then.

Example:
    >>> import tessela_prng as random
    >>> key = random.key(0)
    >>> key, subkey = random.split(key)
    >>> random.normal(subkey, (2,)).shape
    (2,)
"""

import importlib
from typing import TYPE_CHECKING, Any

from ._config import Config, config
from ._keys import (
    KeyArray,
    KeyLike,
    PRNGKey,
    bits,
    clone,
    fold_in,
    key,
    key_data,
    key_impl,
    register_key_type,
    split,
    wrap_key_data,
)
from ._namespace import BackendOps, PrngArray, backend_ops, register_backend_ops

if TYPE_CHECKING:
    from ._binomial import binomial, multinomial
    from ._continuous import (
        cauchy,
        double_sided_maxwell,
        exponential,
        gumbel,
        laplace,
        logistic,
        lognormal,
        maxwell,
        normal,
        pareto,
        rayleigh,
        triangular,
        truncated_normal,
        uniform,
        wald,
        weibull_min,
    )
    from ._discrete import (
        bernoulli,
        categorical,
        choice,
        geometric,
        permutation,
        poisson,
        rademacher,
        randint,
        shuffle,
    )
    from ._gamma import (
        ball,
        beta,
        chisquare,
        dirichlet,
        f,
        gamma,
        generalized_normal,
        loggamma,
        multivariate_normal,
        orthogonal,
        t,
    )

__version__ = "0.1.0"

# The samplers, by the module that defines them; each module is imported the
# first time one of its names is read (``__getattr__`` below).
_SAMPLER_MODULES: dict[str, tuple[str, ...]] = {
    "_binomial": ("binomial", "multinomial"),
    "_continuous": (
        "cauchy",
        "double_sided_maxwell",
        "exponential",
        "gumbel",
        "laplace",
        "logistic",
        "lognormal",
        "maxwell",
        "normal",
        "pareto",
        "rayleigh",
        "triangular",
        "truncated_normal",
        "uniform",
        "wald",
        "weibull_min",
    ),
    "_discrete": (
        "bernoulli",
        "categorical",
        "choice",
        "geometric",
        "permutation",
        "poisson",
        "rademacher",
        "randint",
        "shuffle",
    ),
    "_gamma": (
        "ball",
        "beta",
        "chisquare",
        "dirichlet",
        "f",
        "gamma",
        "generalized_normal",
        "loggamma",
        "multivariate_normal",
        "orthogonal",
        "t",
    ),
}
_LAZY_ATTRIBUTES = {name: module for module, names in _SAMPLER_MODULES.items() for name in names}


def __getattr__(name: str) -> Any:
    """Imports a sampler's module the first time one of its names is read.

    Args:
      name: the attribute read on the package (``normal``, ``gamma``, ...).

    Returns:
      The sampler, which is then bound on the package, so that later reads
      do not come here.

    Raises:
      AttributeError: if ``name`` is not one of the package's names.

    Example:
      >>> import tessela_prng
      >>> tessela_prng.gamma.__module__
      'tessela_prng._gamma'
    """
    module = _LAZY_ATTRIBUTES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The package's names, the samplers not yet imported included.

    Returns:
      The sorted names.

    Example:
      >>> import tessela_prng
      >>> "normal" in dir(tessela_prng)
      True
    """
    return sorted({*globals(), *_LAZY_ATTRIBUTES})


__all__ = [
    "BackendOps",
    "Config",
    "KeyArray",
    "KeyLike",
    "PRNGKey",
    "PrngArray",
    "backend_ops",
    "ball",
    "bernoulli",
    "beta",
    "binomial",
    "bits",
    "categorical",
    "cauchy",
    "chisquare",
    "choice",
    "clone",
    "config",
    "dirichlet",
    "double_sided_maxwell",
    "exponential",
    "f",
    "fold_in",
    "gamma",
    "generalized_normal",
    "geometric",
    "gumbel",
    "key",
    "key_data",
    "key_impl",
    "laplace",
    "loggamma",
    "logistic",
    "lognormal",
    "maxwell",
    "multinomial",
    "multivariate_normal",
    "normal",
    "orthogonal",
    "pareto",
    "permutation",
    "poisson",
    "rademacher",
    "randint",
    "rayleigh",
    "register_backend_ops",
    "register_key_type",
    "shuffle",
    "split",
    "t",
    "triangular",
    "truncated_normal",
    "uniform",
    "wald",
    "weibull_min",
    "wrap_key_data",
]
