"""An example Tessela transformation plugin: interval arithmetic.

``interval(f)`` computes bounds of ``f``'s outputs from bounds of its inputs by
running ``f`` under its own trace, whose tracers carry a lower and an upper
bound. It is written only against the public plugin API
(``tessela_tracer.extend``, ``tessela_tracer.primitives``, ``tessela_tracer.lax``)
and composes with ``jit``, ``grad`` and ``vmap`` in either order.

Example:
    >>> import tessela  # the XLA backend, to run eagerly
    >>> from tessela_tracer import lax
    >>> from tessela_interval import Interval, interval
    >>> out = interval(lambda x: lax.add(lax.integer_pow(x, 2), 1.0))(Interval(-1.0, 2.0))
    >>> print(out.lo, out.hi)
    1.0 5.0
"""

from tessela_interval._rules import IntervalError, interval_rule, register_interval_rule
from tessela_interval._trace import Interval, IntervalTrace, IntervalTracer, interval

__version__ = "0.1.0"

__all__ = [
    "Interval",
    "IntervalError",
    "IntervalTrace",
    "IntervalTracer",
    "interval",
    "interval_rule",
    "register_interval_rule",
]
