"""``tessela.scipy.optimize``: ``minimize`` (BFGS) and ``OptimizeResults``, as ``jax.scipy.optimize``.

Example:
    >>> import tessela.numpy as tnp
    >>> from tessela.scipy.optimize import minimize
    >>> print(minimize(lambda x: tnp.sum(x**2), tnp.ones(2), method="BFGS").x)
    [0. 0.]
"""

from tessela._scipy_optimize import OptimizeResults, minimize

__all__ = ["OptimizeResults", "minimize"]
