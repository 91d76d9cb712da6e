"""JAX's Threefry PRNG, bit for bit, on NumPy or any array-API namespace.

Example:
    >>> import tessela_prng as random
    >>> key = random.key(0)
    >>> key, subkey = random.split(key)
    >>> random.normal(subkey, (2,)).shape
    (2,)
"""

from ._binomial import binomial, multinomial
from ._config import Config, config
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

__version__ = "0.1.0"

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
