"""``tessela.nn.initializers``: the ``jax.nn.initializers`` weight initializers.

Each factory returns an :class:`Initializer`, a function
``init(key, shape, dtype=None)``; the samples are those of ``tessela.random``
for the same key, so they equal JAX's.

Example:
    >>> import tessela.random as random
    >>> from tessela.nn import initializers
    >>> initializers.zeros(random.key(0), (2,)).tolist()
    [0.0, 0.0]
"""

from .._initializers import (
    Initializer,
    constant,
    delta_orthogonal,
    glorot_normal,
    glorot_uniform,
    he_normal,
    he_uniform,
    kaiming_normal,
    kaiming_uniform,
    lecun_normal,
    lecun_uniform,
    normal,
    ones,
    orthogonal,
    truncated_normal,
    uniform,
    variance_scaling,
    xavier_normal,
    xavier_uniform,
    zeros,
)

__all__ = [
    "Initializer",
    "constant",
    "delta_orthogonal",
    "glorot_normal",
    "glorot_uniform",
    "he_normal",
    "he_uniform",
    "kaiming_normal",
    "kaiming_uniform",
    "lecun_normal",
    "lecun_uniform",
    "normal",
    "ones",
    "orthogonal",
    "truncated_normal",
    "uniform",
    "variance_scaling",
    "xavier_normal",
    "xavier_uniform",
    "zeros",
]
