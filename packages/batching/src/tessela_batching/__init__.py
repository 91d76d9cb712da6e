"""tessela_batching: ``vmap``, the batching trace and its rules, and named-axis collectives.

Importing the package registers a batching rule for every primitive of
``tessela_tracer.primitives``, one module per primitive family
(``_rules_<family>.py``, the tracer's ``_prims_<family>.py``); plugins add
theirs with :func:`register_batching` (:func:`register_collective_batching`
for a primitive over named axes). The collectives themselves (``psum``, ...)
are the tracer's, re-exported here.
"""

import importlib
import pkgutil

from tessela_tracer.lax import all_gather, axis_index, pmax, pmean, pmin, psum
from tessela_tracer.primitives import all_gather_p, axis_index_p, pmax_p, pmin_p, psum_p

from tessela_batching._api import vmap
from tessela_batching._core import (
    BatchAxis,
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
    register_collective_batching,
)
from tessela_batching._rule_helpers import defbroadcasting, defreducer, defvectorized

__version__ = "0.1.0"

__all__ = [
    "BatchAxis", "BatchTrace", "BatchTracer", "NotMapped", "all_gather", "all_gather_p",
    "axis_index", "axis_index_p", "batch_jaxpr", "batch_size", "bdim_at_front", "broadcast",
    "defbroadcasting", "defreducer", "defvectorized", "moveaxis", "not_mapped", "pmax",
    "pmax_p", "pmean", "pmin", "pmin_p", "psum", "psum_p", "register_batching",
    "register_collective_batching", "vmap",
]  # fmt: skip

# Importing each rule family, one ``_rules_<family>`` module per family of
# tessela_tracer's primitives, registers its batching rules.
_rule_modules = [m.name for m in pkgutil.iter_modules(__path__) if m.name.startswith("_rules_")]
for _rules in sorted(_rule_modules):
    importlib.import_module(f"{__name__}.{_rules}")
    del globals()[_rules]
del _rules, _rule_modules
