"""``tessela.tree_util``: the ``jax.tree_util`` names, from ``tessela_pytree``.

Example:
    >>> from tessela.tree_util import tree_leaves
    >>> tree_leaves({"a": 1, "b": (2, 3)})
    [1, 2, 3]
"""

from tessela_pytree import *  # noqa: F403
from tessela_pytree import __all__ as __all__
