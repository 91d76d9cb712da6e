"""``tessela.scipy`` (special, linalg, stats, signal, optimize, ndimage) and the special
``lax`` primitives against ``golden/scipy_more_golden.npz``.

``golden/scipy_more_cases.py`` runs the same cases through either
implementation; ``golden/generate.py`` wrote the reference side
(eagerly; here the cases run as one jitted program). Floats are compared
relative to the value, or to the case's largest magnitude (at least 1) near
zero crossings; integers exactly; NaN and infinities by position.
"""

from __future__ import annotations

from types import SimpleNamespace

import tessela as tx
import tessela.scipy
from _golden import cases_module, golden_tests, load_npz, scaled_close
from tessela import lax

scipy_more_cases = cases_module("scipy_more_cases")
GOLDEN = load_npz("scipy_more_golden.npz")

# Iterative kernels (series and continued fractions stopped at a tolerance) and
# rational approximations evaluated with another association order.
LOOSE = {
    "special|exp1": 2e-5, "special|expn": 2e-5, "special|expi": 2e-5, "grad|expi": 2e-5,
    "grad|expn": 2e-5, "special|loggamma": 2e-5, "special|spence": 2e-5,
    "special|bernoulli": 2e-5, "lax|igamma_grad_a": 2e-5, "lax|random_gamma_grad": 2e-5,
    "lax|grad_igamma": 2e-5, "lax|grad_betainc_x": 2e-5, "grad|gammainc": 2e-5,
}  # fmt: skip

NS = SimpleNamespace(lax=lax, scipy=tessela.scipy, grad=tx.grad, vmap=tx.vmap)


test_every_case_is_in_the_golden_file, test_matches_the_reference = golden_tests(
    tx.jit(lambda: scipy_more_cases.cases(NS)), GOLDEN, scaled_close(LOOSE)
)
