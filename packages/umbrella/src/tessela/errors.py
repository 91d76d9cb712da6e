"""``tessela.errors``: the ``jax.errors`` classes, from ``tessela_tracer.errors``.

Example:
    >>> from tessela.errors import TracerBoolConversionError
    >>> issubclass(TracerBoolConversionError, TypeError)
    True
"""

from tessela_tracer.errors import *  # noqa: F403
from tessela_tracer.errors import __all__ as __all__
