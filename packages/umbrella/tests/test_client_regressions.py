"""Wrong results that real clients' suites found, kept as regression tests.

Each case passes on JAX 0.10.2 and gave a different result on Tessela when
found. A case whose fix belongs to another package stays ``xfail(strict=True)``
naming the owner, so that the fix flips it to a failure here and the marker is
removed with the fix.
"""

from __future__ import annotations

import numpy as np
import pytest
import tessela as tx
import tessela.numpy as tnp


@pytest.mark.xfail(
    strict=True,
    reason="tessela-numpy: full((), x) returns x itself (a Python or NumPy scalar) eagerly; "
    "JAX returns a (weakly typed) Array. Found by array-api-tests test_full.",
)
@pytest.mark.parametrize(
    ("fill", "dtype", "want_dtype", "weak"),
    [(-29, None, "int32", True), (2.5, None, "float32", True), (-29, tnp.int8, "int8", False)],
)
def test_full_of_empty_shape_is_an_array(
    fill: float, dtype: object, want_dtype: str, weak: bool
) -> None:
    out = tnp.full((), fill, dtype=dtype)
    assert isinstance(out, tx.Array)
    assert (str(out.dtype), out.weak_type, float(out)) == (want_dtype, weak, float(fill))


def test_full_of_nonempty_shape_is_an_array() -> None:
    out = tnp.full((1,), -29)
    assert isinstance(out, tx.Array)
    assert (str(out.dtype), out.weak_type) == ("int32", True)
    np.testing.assert_array_equal(np.asarray(out), [-29])
