"""The plugin API: everything a third-party transformation needs, in one place.

Sibling packages and third-party plugins import these names (and the
primitives of :mod:`tessela_tracer.primitives`) and nothing private. The
README of tessela-tracer lists them by topic, and ``docs/architecture.md``
walks through an example plugin (``examples/plugins/interval``) built on them.

A transformation subclasses :class:`Trace` and :class:`Tracer`: tracers are
made with ``super().__init__(trace)``, :func:`trace_of` reads a tracer's trace
back and :meth:`Trace.owns` tests whether a value is one of a trace's tracers;
:attr:`Trace.tracer_name`, :meth:`Trace.describe_function` and
:meth:`Trace.describe_provenance` name the transformation in reprs and errors.

Rule authors should know that the n-ary elementwise primitives (``add_p``,
``sub_p``, ``mul_p``, ``div_p``, ``rem_p``, ``pow_p``, ``max_p``, ``min_p``,
``atan2_p``, the comparisons, the bitwise and shift operations, ...) broadcast
their operands in two ways only: an operand of rank 0 broadcasts to any shape,
and operands of equal rank broadcast dimensions of size 1 (shapes ``(3, 1)``
and ``(1, 4)`` give ``(3, 4)``). Operands of different nonzero ranks are an
error; nothing is prepended. ``select_n_p`` and ``clamp_p`` only accept a
rank-0 ``which`` (bounds) or equal shapes. A rule must accept such operands and
produce the broadcast shape (a transpose rule sums a cotangent back to its
operand's shape).

Stability: these names follow semantic versioning of tessela-tracer. The
promise covers every name in ``__all__`` with the signature, parameters and
behaviour its docstring states (the error classes, not the wording of
messages). Before 1.0, a patch release (0.1.x) only adds names or fixes bugs;
a name is removed, or changes incompatibly, only in a new minor version (0.2.0),
and only after it was deprecated for at least one release: it keeps working,
its docstring says ``Deprecated since <version>: use <replacement>``, using it
emits a ``DeprecationWarning`` naming the replacement and the version that
removes it, and the CHANGELOG lists it under that release. From 1.0 on the
same holds with major versions in place of minor ones. Every change to this
module has a CHANGELOG entry. Plugins pin ``tessela-tracer>=0.1,<0.2``.
"""

from tessela_tracer._array_ops import ARRAY_METHOD_NAMES, ArrayOps, register_array_methods
from tessela_tracer._avals import (
    AbstractToken,
    ShapedArray,
    Token,
    abstract_token,
    get_aval,
    register_aval_handler,
    tangent_aval,
)
from tessela_tracer._axis_env import axis_frame, axis_size_of, bound_axis_sizes
from tessela_tracer._config import config
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
    trace_of,
)
from tessela_tracer._dot_algorithm import (
    CPU_DOT_ALGORITHMS,
    algorithm_compute_types,
    algorithm_spec,
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
from tessela_tracer._jit import JitCache, JitWrapped, Traced, clear_jit_caches, set_jit_backend
from tessela_tracer._lax_shape import reshape_axis_into, reshape_axis_out_of
from tessela_tracer._pp import JaxprPpContext, pp_eqn_default, register_pp_rule
from tessela_tracer._prims_array import ArrayCopySemantics, device_put_p, to_concrete_array
from tessela_tracer._prims_callback import (
    DebugEffect,
    Effect,
    FlatCallback,
    OrderedDebugEffect,
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
from tessela_tracer._prims_control import (
    NamedCallable,
    cond_p,
    hoist_consts,
    jit_p,
    scan_p,
    while_p,
)
from tessela_tracer._prims_custom import custom_jvp_call_p, custom_vjp_call_p
from tessela_tracer._prims_random import physical_aval, random_unwrap, random_wrap
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
    flatten_args,
    stage,
    trace_pytree_fun,
    trace_to_jaxpr,
)
from tessela_tracer._trace_util import flatten_fun, join_consts, trace_with_aux

__all__ = [
    "ARRAY_METHOD_NAMES",
    "CPU_DOT_ALGORITHMS",
    "AbstractToken",
    "ArrayCopySemantics",
    "ArrayOps",
    "ClosedJaxpr",
    "DebugEffect",
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
    "JitCache",
    "JitTracer",
    "JitWrapped",
    "LinearSolveTuple",
    "Literal",
    "NamedCallable",
    "OrderedDebugEffect",
    "Primitive",
    "ShapedArray",
    "Token",
    "Trace",
    "Traced",
    "Tracer",
    "Var",
    "abstract_eval_rule",
    "abstract_token",
    "algorithm_compute_types",
    "algorithm_spec",
    "axis_frame",
    "axis_size_of",
    "bound_axis_sizes",
    "call_host_callback",
    "check_jaxpr",
    "clear_jit_caches",
    "cond_p",
    "config",
    "custom_jvp_call_p",
    "custom_vjp_call_p",
    "debug_effect",
    "debug_info_for",
    "device_put_p",
    "eqn_effects",
    "eval_jaxpr",
    "find_impl",
    "flatten_args",
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
    "physical_aval",
    "pp_eqn_default",
    "random_unwrap",
    "random_wrap",
    "register_abstract_eval",
    "register_array_methods",
    "register_aval_handler",
    "register_effects",
    "register_impl",
    "register_pp_rule",
    "register_solve_transforms",
    "remat_p",
    "replace_subjaxprs",
    "reshape_axis_into",
    "reshape_axis_out_of",
    "scan_p",
    "set_current_trace",
    "set_eager_backend",
    "set_jit_backend",
    "split_solve_args",
    "stage",
    "subjaxprs",
    "tangent_aval",
    "to_concrete_array",
    "trace_of",
    "trace_pytree_fun",
    "trace_to_jaxpr",
    "trace_with_aux",
    "while_p",
]
