"""An example Tessela plugin: the ``logcosh`` primitive and its rules.

Only public APIs are used (``tessela_tracer.extend``, ``register_jvp``,
``defvectorized``, ``register_lowering``), so the primitive composes with
``jit``, ``grad`` and ``vmap`` like a built-in one.

Example:
    >>> import numpy as np
    >>> from tessela_logcosh import logcosh
    >>> print(logcosh(np.float32(0.0)))
    0.0
"""

from tessela_logcosh._primitive import logcosh, logcosh_p

__version__ = "0.1.0"

__all__ = ["logcosh", "logcosh_p"]
