"""tessela_autodiff: forward and reverse-mode differentiation for Tessela.

``jvp`` pushes tangents forward with one JVP rule per primitive; ``vjp`` and
``grad`` linearize (JVP on top of partial evaluation) and transpose the
linear jaxpr with one transpose rule per primitive.

Example:
  >>> from tessela_tracer import make_jaxpr, lax
  >>> from tessela_autodiff import grad
  >>> make_jaxpr(grad(lax.sin))(1.0).out_avals
  [ShapedArray(float32[], weak_type=True)]
"""

# The rule families, one module per family of tessela_tracer's primitives; importing
# a module registers its rules.
from tessela_autodiff import (
    _rules_array,
    _rules_callback,
    _rules_collective,
    _rules_control,
    _rules_conv,
    _rules_custom,
    _rules_elementwise,
    _rules_fft,
    _rules_indexing,
    _rules_linalg,
    _rules_misc,
    _rules_random,
    _rules_reduce,
    _rules_remat,
    _rules_shape,
    _rules_sharding,
    _rules_solves,
    _rules_special,
    _rules_structured,
    _rules_window,
)
from tessela_autodiff._ad_util import UndefinedPrimal, Zero
from tessela_autodiff._api import (
    grad,
    jvp,
    linear_transpose,
    linearize,
    stop_gradient,
    value_and_grad,
    vjp,
)
from tessela_autodiff._jacobian import hessian, jacfwd, jacobian, jacrev
from tessela_autodiff._jvp import register_jvp
from tessela_autodiff._rule_helpers import defjvp, defjvp_zero, deflinear, deflinear2
from tessela_autodiff._transpose import register_transpose

__version__ = "0.1.0"

del (
    _rules_array,
    _rules_callback,
    _rules_collective,
    _rules_control,
    _rules_conv,
    _rules_custom,
    _rules_elementwise,
    _rules_fft,
    _rules_indexing,
    _rules_linalg,
    _rules_misc,
    _rules_random,
    _rules_reduce,
    _rules_remat,
    _rules_shape,
    _rules_sharding,
    _rules_solves,
    _rules_special,
    _rules_structured,
    _rules_window,
)

__all__ = [
    "UndefinedPrimal",
    "Zero",
    "__version__",
    "defjvp",
    "defjvp_zero",
    "deflinear",
    "deflinear2",
    "grad",
    "hessian",
    "jacfwd",
    "jacobian",
    "jacrev",
    "jvp",
    "linear_transpose",
    "linearize",
    "register_jvp",
    "register_transpose",
    "stop_gradient",
    "value_and_grad",
    "vjp",
]
