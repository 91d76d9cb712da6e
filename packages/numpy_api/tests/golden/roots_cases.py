"""Polynomials for ``roots``: name -> (coefficients, dtype, strip_zeros).

``generate_roots.py`` records JAX 0.10.2's roots of each (sorted, since the
eigenvalue order is not part of the result); ``tests/test_roots.py`` compares.
"""

from __future__ import annotations

CASES: dict[str, tuple[list[float], str, bool]] = {
    "quadratic": ([1.0, -3.0, 2.0], "float32", True),
    "cubic_complex_pair": ([2.0, 0.0, -1.0, 5.0], "float32", True),
    "leading_zeros": ([0.0, 0.0, 1.0, -1.0], "float32", True),
    "leading_zeros_kept": ([0.0, 0.0, 1.0, -1.0], "float32", False),
    "trailing_zeros": ([1.0, -2.0, 0.0, 0.0], "float32", True),
    "constant": ([3.0], "float32", True),
    "imaginary": ([1.0, 0.0, 1.0], "float32", False),
    "integers": ([1, -6, 11, -6], "int32", True),
    "quartic": ([1.0, 0.5, -2.0, 0.25, 1.0], "float32", True),
}
