"""``tessela.ops``: the ``jax.ops`` segment reductions.

Example:
    >>> import tessela.numpy as tnp
    >>> from tessela import ops
    >>> print(ops.segment_sum(tnp.ones(4), tnp.array([0, 1, 1, 3])))
    [1. 2. 0. 1.]
"""

from tessela._ops import *  # noqa: F403
from tessela._ops import __all__ as __all__
