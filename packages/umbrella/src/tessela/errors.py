"""``tessela.errors``: the ``jax.errors`` classes, from ``tessela_tracer.errors``.

``JaxRuntimeError`` (not in ``__all__``, which lists the tracer's classes) is
the error of the XLA runtime (jaxlib's), raised for example by
``block_until_ready`` on a donated array.

Example:
    >>> from tessela.errors import TracerBoolConversionError
    >>> issubclass(TracerBoolConversionError, TypeError)
    True
"""

from tessela_lowering import JaxRuntimeError as JaxRuntimeError
from tessela_tracer.errors import *  # noqa: F403
from tessela_tracer.errors import __all__ as __all__
