"""``tessela.nn``: ``jax.nn`` written with ``tessela.numpy``.

Activations, the softmax family, ``one_hot``, ``standardize``,
``dot_product_attention`` and the ``initializers`` submodule.

Example:
    >>> import tessela.nn as nn
    >>> print(nn.relu(-1.0))
    0.0
"""

from .._attention import dot_product_attention
from .._nn import (
    celu,
    elu,
    gelu,
    glu,
    hard_sigmoid,
    hard_silu,
    hard_swish,
    hard_tanh,
    identity,
    leaky_relu,
    log1mexp,
    log_sigmoid,
    mish,
    relu,
    relu6,
    selu,
    sigmoid,
    silu,
    soft_sign,
    softplus,
    sparse_plus,
    sparse_sigmoid,
    squareplus,
    swish,
    tanh,
)
from .._nn_reduce import log_softmax, logmeanexp, one_hot, softmax, standardize
from .._scipy_special import logsumexp
from . import initializers

__all__ = [
    "celu",
    "dot_product_attention",
    "elu",
    "gelu",
    "glu",
    "hard_sigmoid",
    "hard_silu",
    "hard_swish",
    "hard_tanh",
    "identity",
    "initializers",
    "leaky_relu",
    "log1mexp",
    "log_sigmoid",
    "log_softmax",
    "logmeanexp",
    "logsumexp",
    "mish",
    "one_hot",
    "relu",
    "relu6",
    "selu",
    "sigmoid",
    "silu",
    "soft_sign",
    "softmax",
    "softplus",
    "sparse_plus",
    "sparse_sigmoid",
    "squareplus",
    "standardize",
    "swish",
    "tanh",
]
