"""One configuration for every Tessela package: ``tessela.config`` is ``tessela_tracer.config``.

The tracer's config holds every flag; packages define theirs on it (lowering
its runtime flags, the umbrella the PRNG's counter layout). ``tessela_prng``
keeps a config object of its own, because it must work alone; inside
``tessela`` it follows the tracer's (``tessela_prng.config.follow``), so each
flag is set in one place: ``tessela.config.update("jax_enable_x64", True)``
switches 64-bit mode for the tracer and the PRNG together. JAX's names
(``jax_*``) and Tessela's (``tessela_*``) are both accepted.

Example:
    >>> from tessela import config
    >>> config.jax_threefry_partitionable
    True
    >>> import tessela_tracer
    >>> config is tessela_tracer.config
    True
"""

from __future__ import annotations

import tessela_prng
import tessela_tracer

__all__ = ["config"]

config = tessela_tracer.config
config.define_bool(
    "jax_threefry_partitionable",
    tessela_prng.config.threefry_partitionable,
    aliases=("tessela_threefry_partitionable", "threefry_partitionable"),
    help="Lay Threefry counters out as JAX's partitionable scheme (one per output element).",
)
# It changes the programs that sample: jitted samplers trace again when it changes.
config.include_in_trace_key("jax_threefry_partitionable")
tessela_prng.config.follow(config)
