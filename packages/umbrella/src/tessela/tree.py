"""``tessela.tree``: the ``jax.tree`` short names, from ``tessela_pytree.tree``.

Example:
    >>> import tessela.tree
    >>> tessela.tree.map(lambda x: x + 1, [1, (2,)])
    [2, (3,)]
"""

from tessela_pytree.tree import *  # noqa: F403
from tessela_pytree.tree import __all__ as __all__
