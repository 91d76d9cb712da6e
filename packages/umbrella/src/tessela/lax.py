"""``tessela.lax``: the ``jax.lax`` names, from ``tessela_tracer.lax``, with the
collectives of ``tessela_batching`` (``psum``, ``pmean``, ``pmax``, ``pmin``,
``all_gather``, ``axis_index``) that ``jax.lax`` also holds, ``broadcast_shapes``
and the primitives under their ``jax.lax`` names (``add_p``, ``sin_p``,
``mulhi_p``, ``scatter_sub_p``, ``rng_bit_generator_p``, ``sharding_constraint_p``, ...).

Example:
    >>> import tessela.lax as lax
    >>> print(lax.add(1.0, 2.0))
    3.0
    >>> from tessela import vmap
    >>> print(vmap(lambda x: x / lax.psum(x, "i"), axis_name="i")(lax.full((4,), 2.0)))
    [0.25 0.25 0.25 0.25]
"""

from tessela_batching import all_gather as all_gather
from tessela_batching import axis_index as axis_index
from tessela_batching import pmax as pmax
from tessela_batching import pmean as pmean
from tessela_batching import pmin as pmin
from tessela_batching import psum as psum
from tessela_tracer.lax import *  # noqa: F403
from tessela_tracer.lax import __all__ as _tracer_all
from tessela_tracer.primitives import after_all_p as after_all_p
from tessela_tracer.primitives import all_to_all_p as all_to_all_p
from tessela_tracer.primitives import copy_p as copy_p
from tessela_tracer.primitives import create_token_p as create_token_p
from tessela_tracer.primitives import custom_linear_solve_p as linear_solve_p  # noqa: F401
from tessela_tracer.primitives import mulhi_p as mulhi_p
from tessela_tracer.primitives import ppermute_p as ppermute_p
from tessela_tracer.primitives import reduce_window_p as reduce_window_p
from tessela_tracer.primitives import rng_bit_generator_p as rng_bit_generator_p
from tessela_tracer.primitives import rng_uniform_p as rng_uniform_p
from tessela_tracer.primitives import scatter_sub_p as scatter_sub_p
from tessela_tracer.primitives import sharding_constraint_p as sharding_constraint_p

from tessela._lax_extra import *  # noqa: F403
from tessela._lax_extra import __all__ as _extra_all

__all__ = sorted(
    [
        *_tracer_all,
        *_extra_all,
        "all_gather",
        "axis_index",
        "pmax",
        "pmean",
        "pmin",
        "psum",
        "mulhi_p",
        "rng_bit_generator_p",
        "rng_uniform_p",
        "scatter_sub_p",
        "after_all_p",
        "all_to_all_p",
        "copy_p",
        "create_token_p",
        "linear_solve_p",
        "ppermute_p",
        "reduce_window_p",
        "sharding_constraint_p",
    ],
    key=lambda name: (name[0].islower(), name),
)
