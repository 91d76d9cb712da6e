"""tessela.scipy.special, tessela.scipy.stats and tessela.ops against ``golden/scipy_golden.npz``.

``golden/scipy_cases.py`` runs the same cases through either implementation;
``golden/generate.py`` wrote the reference side (eagerly; here the
cases run as one jitted program). float32 values are
compared to a few ulps relative to the value, or to the case's largest
magnitude (at least 1) near zero crossings (transcendental
kernels may round differently), integers exactly, NaN and infinities by position.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np
import tessela as tx
from _golden import cases_module, golden_tests, load_npz, scaled_close
from tessela import ops
from tessela.scipy import special, stats

scipy_cases = cases_module("scipy_cases")
GOLDEN = load_npz("scipy_golden.npz")

# Cases whose float32 kernels (lgamma, digamma, polygamma, zeta, tan near
# its poles) round differently from the reference's: compared more loosely.
LOOSE = {
    "special|gamma": 2e-5, "special|factorial": 2e-5, "special|polygamma": 2e-5,
    "special|zeta": 2e-5, "special|multigammaln": 2e-5, "special|betaln": 2e-5,
    "special|digamma": 2e-5, "special|gammaln": 2e-5, "stats|cauchy.ppf": 2e-5,
    "stats|cauchy.isf": 2e-5, "stats|t.logpdf": 2e-5, "stats|t.pdf": 2e-5,
    "stats|gamma.logpdf": 2e-5, "stats|gamma.pdf": 2e-5, "stats|beta.logpdf": 2e-5,
    "stats|beta.loc_scale": 2e-5, "stats|poisson.logpmf": 2e-5, "stats|poisson.pmf": 2e-5,
    "grad|erfinv": 2e-5, "grad|ndtri": 2e-5, "stats|mvn.logpdf": 2e-5, "stats|mvn.pdf": 2e-5,
    "stats|mvn.batched_cov": 2e-5,
}  # fmt: skip


def _segment_sum(data: Any, segment_ids: Any, num_segments: Any = None, **kw: Any) -> Any:
    # The reference ran eagerly, where segment_sum reads the number of segments
    # off its (NumPy) ids; inside the one jitted program below they are traced
    # (JAX's ConcretizationTypeError), so the count is read here as eagerly.
    if num_segments is None:
        num_segments = int(np.max(segment_ids)) + 1
    return ops.segment_sum(data, segment_ids, num_segments, **kw)


JIT_OPS = SimpleNamespace(**{n: getattr(ops, n) for n in dir(ops) if not n.startswith("_")})
JIT_OPS.segment_sum = _segment_sum

# One jitted program for every case: a single compilation instead of one
# per eager primitive. Eager values are checked in test_scipy.py.
test_every_case_is_in_the_golden_file, test_matches_the_reference = golden_tests(
    tx.jit(lambda: scipy_cases.cases(special, stats, JIT_OPS, tx.grad, tx.vmap)),
    GOLDEN,
    scaled_close(LOOSE),
)
