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


def test_a_tracer_is_an_array_instance() -> None:
    seen: list[bool] = []
    tx.jit(lambda x: seen.append(isinstance(x, tx.Array)) or x)(tnp.ones(2))
    assert seen == [True]


def test_full_like_accepts_a_shape_dtype_struct() -> None:
    out = tnp.full_like(tx.ShapeDtypeStruct((2, 3), np.float32), 1.5)
    assert out.shape == (2, 3) and str(out.dtype) == "float32"
    np.testing.assert_array_equal(np.asarray(out), np.full((2, 3), 1.5, np.float32))
