"""``tessela.debug``: print and call back from inside transformed functions, as ``jax.debug``.

``print`` formats runtime values (``str.format`` with NumPy-style arrays) and
``callback`` calls any Python function for its side effect; both work eagerly,
under ``jit`` (every time the compiled program runs), once per element under
``vmap``, and with primal values under ``grad``. They are effects, so unused
calls are never dropped.

Example:
    >>> import tessela as tx
    >>> import tessela.numpy as tnp
    >>> @tx.jit
    ... def f(x):
    ...     tx.debug.print("x = {x}", x=x)
    ...     return x * 2
    >>> _ = f(tnp.arange(3.0))
    x = [0. 1. 2.]
"""

from tessela_tracer import debug_callback as callback
from tessela_tracer import debug_print as print

__all__ = ["callback", "print"]
