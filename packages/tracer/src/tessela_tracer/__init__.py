"""tessela_tracer: primitives, stackless tracing, jaxprs and lax for Tessela."""

from tessela_tracer import _no_execution as _no_execution  # defines jax_no_execution
from tessela_tracer import (
    checkpoint_policies,
    custom_derivatives,
    dtypes,
    errors,
    extend,
    lax,
    sharding,
)
from tessela_tracer._array_ops import (
    ARRAY_METHOD_NAMES,
    ArrayOps,
    register_array_methods,
    registered_array_methods,
)
from tessela_tracer._avals import ShapedArray, ShapeDtypeStruct, get_aval, register_aval_handler
from tessela_tracer._callback_api import debug_callback, debug_print, io_callback, pure_callback
from tessela_tracer._config import Config, check_rank_promotion, config
from tessela_tracer._core import (
    EvalTrace,
    Primitive,
    Trace,
    Tracer,
    get_current_trace,
    new_trace,
    register_abstract_eval,
    register_impl,
    set_current_trace,
)
from tessela_tracer._custom import custom_jvp, custom_vjp
from tessela_tracer._jaxpr import (
    ClosedJaxpr,
    Jaxpr,
    JaxprEqn,
    Literal,
    Var,
    check_jaxpr,
    eval_jaxpr,
    replace_subjaxprs,
    subjaxprs,
)
from tessela_tracer._jit import jit
from tessela_tracer._prims_array import ArrayCopySemantics, to_concrete_array
from tessela_tracer._prims_control import jit_p
from tessela_tracer._prims_remat import checkpoint, checkpoint_name, remat
from tessela_tracer._staging import eval_shape, make_jaxpr, trace_pytree_fun, trace_to_jaxpr

__version__ = "0.1.0"

__all__ = [
    "ARRAY_METHOD_NAMES", "ArrayCopySemantics", "ArrayOps", "ClosedJaxpr", "Config", "EvalTrace", "Jaxpr", "JaxprEqn",
    "Literal", "Primitive", "ShapeDtypeStruct", "ShapedArray", "Trace", "Tracer", "Var",
    "check_jaxpr", "check_rank_promotion", "checkpoint", "checkpoint_name", "checkpoint_policies", "config", "custom_derivatives", "custom_jvp", "custom_vjp", "debug_callback", "debug_print", "dtypes", "errors", "eval_jaxpr",
    "eval_shape", "extend", "get_aval", "get_current_trace", "io_callback", "jit", "jit_p", "lax",
    "make_jaxpr", "new_trace", "pure_callback", "register_abstract_eval", "register_array_methods",
    "register_aval_handler", "register_impl", "registered_array_methods", "remat", "replace_subjaxprs",
    "set_current_trace", "sharding", "subjaxprs", "to_concrete_array", "trace_pytree_fun", "trace_to_jaxpr",
]  # fmt: skip
