"""tessela_batching: ``vmap``, the batching trace and its rules, and named-axis collectives.

Importing the package registers a batching rule for every primitive of
``tessela_tracer.primitives``; plugins add theirs with :func:`register_batching`.
"""

from tessela_batching import (
    _rules_array,
    _rules_callback,
    _rules_control,
    _rules_conv,
    _rules_elementwise,
    _rules_fft,
    _rules_indexing,
    _rules_linalg,
    _rules_misc,
    _rules_shape,
)
from tessela_batching._api import vmap
from tessela_batching._collectives import (
    all_gather,
    all_gather_p,
    axis_index,
    axis_index_p,
    pmax,
    pmax_p,
    pmean,
    pmin,
    pmin_p,
    psum,
    psum_p,
)
from tessela_batching._core import (
    AxisPrimitive,
    BatchTrace,
    BatchTracer,
    NotMapped,
    batch_jaxpr,
    batch_size,
    bdim_at_front,
    broadcast,
    moveaxis,
    not_mapped,
    register_batching,
)
from tessela_batching._rules_elementwise import defbroadcasting, defvectorized
from tessela_batching._rules_shape import defreducer

__version__ = "0.1.0"

__all__ = [
    "AxisPrimitive", "BatchTrace", "BatchTracer", "NotMapped", "all_gather", "all_gather_p",
    "axis_index", "axis_index_p", "batch_jaxpr", "batch_size", "bdim_at_front", "broadcast",
    "defbroadcasting", "defreducer", "defvectorized", "moveaxis", "not_mapped", "pmax",
    "pmax_p", "pmean", "pmin", "pmin_p", "psum", "psum_p", "register_batching", "vmap",
]  # fmt: skip

del (
    _rules_array,
    _rules_callback,
    _rules_control,
    _rules_conv,
    _rules_elementwise,
    _rules_fft,
    _rules_indexing,
    _rules_linalg,
    _rules_misc,
    _rules_shape,
)
