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

import importlib
import pkgutil

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

# Importing each rule family, one ``_rules_<family>`` module per family of
# tessela_tracer's primitives, registers its rules.
_rule_modules = [m.name for m in pkgutil.iter_modules(__path__) if m.name.startswith("_rules_")]
for _rules in sorted(_rule_modules):
    importlib.import_module(f"{__name__}.{_rules}")
    del globals()[_rules]
del _rules, _rule_modules

__version__ = "0.1.0"


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
