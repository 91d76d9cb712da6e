"""The plugin API: everything a third-party transformation needs, in one place.

Stability: names here follow semantic versioning of tessela-tracer; a name is
removed or changes meaning only in a new minor version before 1.0, with a
CHANGELOG entry.
"""

from tessela_tracer._avals import ShapedArray, get_aval, register_aval_handler, tangent_aval
from tessela_tracer._core import (
    EvalTrace,
    Primitive,
    Trace,
    Tracer,
    abstract_eval_rule,
    find_impl,
    get_aval_of,
    get_current_trace,
    new_trace,
    register_abstract_eval,
    register_impl,
    set_current_trace,
    set_eager_backend,
)
from tessela_tracer._jaxpr import (
    ClosedJaxpr,
    DropVar,
    Jaxpr,
    JaxprEqn,
    JaxprTypeError,
    Literal,
    Var,
    check_jaxpr,
    eval_jaxpr,
    jaxpr_as_fun,
    replace_subjaxprs,
    subjaxprs,
)
from tessela_tracer._lax_shape import reshape_axis_into, reshape_axis_out_of
from tessela_tracer._pp import JaxprPpContext, pp_eqn_default, register_pp_rule
from tessela_tracer._prims_array import ArrayCopySemantics, device_put_p, to_concrete_array
from tessela_tracer._prims_callback import (
    Effect,
    FlatCallback,
    call_host_callback,
    debug_effect,
    eqn_effects,
    format_print_callback,
    has_effects,
    io_effect,
    jaxpr_effects,
    ordered_debug_effect,
    ordered_io_effect,
    register_effects,
)
from tessela_tracer._prims_collective import axis_frame, axis_size_of, bound_axis_sizes
from tessela_tracer._prims_control import (
    NamedCallable,
    cond_p,
    hoist_consts,
    jit_p,
    scan_p,
    while_p,
)
from tessela_tracer._prims_custom import custom_jvp_call_p, custom_vjp_call_p
from tessela_tracer._prims_remat import name_p, remat_p
from tessela_tracer._prims_solves import (
    LinearSolveTuple,
    register_solve_transforms,
    split_solve_args,
)
from tessela_tracer._staging import (
    DebugInfo,
    JaxprTrace,
    JitTracer,
    debug_info_for,
    trace_pytree_fun,
    trace_to_jaxpr,
)
from tessela_tracer._trace_util import flatten_fun, join_consts, trace_with_aux

__all__ = [
    "ArrayCopySemantics",
    "ClosedJaxpr",
    "DebugInfo",
    "DropVar",
    "Effect",
    "EvalTrace",
    "FlatCallback",
    "Jaxpr",
    "JaxprEqn",
    "JaxprPpContext",
    "JaxprTrace",
    "JaxprTypeError",
    "JitTracer",
    "Literal",
    "NamedCallable",
    "Primitive",
    "ShapedArray",
    "Trace",
    "Tracer",
    "Var",
    "abstract_eval_rule",
    "axis_frame",
    "axis_size_of",
    "bound_axis_sizes",
    "call_host_callback",
    "check_jaxpr",
    "cond_p",
    "custom_jvp_call_p",
    "custom_vjp_call_p",
    "debug_effect",
    "debug_info_for",
    "device_put_p",
    "eqn_effects",
    "eval_jaxpr",
    "find_impl",
    "flatten_fun",
    "format_print_callback",
    "get_aval",
    "get_aval_of",
    "get_current_trace",
    "has_effects",
    "hoist_consts",
    "io_effect",
    "jaxpr_as_fun",
    "jaxpr_effects",
    "jit_p",
    "join_consts",
    "name_p",
    "new_trace",
    "ordered_debug_effect",
    "ordered_io_effect",
    "pp_eqn_default",
    "register_abstract_eval",
    "register_aval_handler",
    "register_effects",
    "register_impl",
    "register_pp_rule",
    "remat_p",
    "replace_subjaxprs",
    "reshape_axis_into",
    "reshape_axis_out_of",
    "scan_p",
    "set_current_trace",
    "set_eager_backend",
    "subjaxprs",
    "tangent_aval",
    "to_concrete_array",
    "trace_pytree_fun",
    "trace_to_jaxpr",
    "trace_with_aux",
    "while_p",
]  # fmt: skip
__all__ += ["LinearSolveTuple", "register_solve_transforms", "split_solve_args"]
