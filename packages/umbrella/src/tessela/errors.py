"""``tessela.errors``: the ``jax.errors`` classes, from ``tessela_tracer.errors``.

``__all__`` lists the tracer's classes. Beside them: ``JaxRuntimeError``, the
error of the XLA runtime (jaxlib's), raised for example by
``block_until_ready`` on a donated array; ``JaxprTypeError`` is the jaxpr
type checker's (``tessela_tracer``). ``JAXIndexError``, ``KeyReuseError``
and ``InconclusiveDimensionOperation`` complete JAX's hierarchy so that code
catching them runs; Tessela has no key-reuse checker and no symbolic
dimensions, so it raises neither of the last two.

Example:
    >>> from tessela.errors import TracerBoolConversionError
    >>> issubclass(TracerBoolConversionError, TypeError)
    True
"""

from tessela_lowering import JaxRuntimeError as JaxRuntimeError
from tessela_tracer.errors import *  # noqa: F403
from tessela_tracer.errors import JAXTypeError
from tessela_tracer.errors import __all__ as __all__
from tessela_tracer.extend import JaxprTypeError as JaxprTypeError


class JAXIndexError(IndexError):
    """An ``IndexError`` specific to JAX's semantics (as ``jax.errors.JAXIndexError``).

    Example:
        >>> from tessela.errors import JAXIndexError
        >>> issubclass(JAXIndexError, IndexError)
        True
    """


class KeyReuseError(JAXTypeError):
    """A PRNG key used twice where that is unsafe (JAX checks under ``jax_debug_key_reuse``).

    Example:
        >>> from tessela.errors import KeyReuseError
        >>> issubclass(KeyReuseError, TypeError)
        True
    """


class InconclusiveDimensionOperation(Exception):
    """A computation on symbolic dimensions that cannot be decided.

    Example:
        >>> from tessela.errors import InconclusiveDimensionOperation
        >>> issubclass(InconclusiveDimensionOperation, Exception)
        True
    """
