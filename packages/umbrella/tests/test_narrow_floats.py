"""bfloat16 and float8 are inexact types everywhere: kept by promotion to inexact, hoisted by closure_convert."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tessela
import tessela.numpy as tnp
import tessela.scipy.cluster.vq
import tessela.scipy.interpolate
import tessela.scipy.special

_X = tnp.linspace(0.1, 1.0, 4)

# Functions that promote their operands to an inexact dtype: a narrow float
# is inexact already, so it stays (as in JAX 0.10.2, where each of these
# returns bfloat16 for bfloat16 operands).
_KEEPS_DTYPE = {
    "bessel_jn": lambda x: tessela.scipy.special.bessel_jn(x, v=1),
    "vq": lambda x: tessela.scipy.cluster.vq.vq(x.reshape(4, 1), x[:2].reshape(2, 1))[1],
    "interpolate": lambda x: tessela.scipy.interpolate.RegularGridInterpolator(
        (tnp.arange(4.0).astype(x.dtype),), x
    )(tnp.array([[0.5]], x.dtype)),
    "resize": lambda x: tessela.image.resize(x, (8,), "linear"),
    "xlogy": lambda x: tessela.scipy.special.xlogy(x, x),
}


@pytest.mark.parametrize("name", sorted(_KEEPS_DTYPE))
@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_promotion_to_inexact_keeps_narrow_floats(name: str, dtype: str) -> None:
    x = _X.astype(dtype)
    out = _KEEPS_DTYPE[name](x)
    assert out.dtype == x.dtype
    wide = _KEEPS_DTYPE[name](_X)
    np.testing.assert_allclose(np.asarray(out, np.float32), np.asarray(wide), rtol=0.1, atol=0.05)


@pytest.mark.parametrize("dtype", ["bfloat16", "float8_e4m3fn", "float32"])
def test_closure_convert_hoists_narrow_float_tracers(dtype: str) -> None:
    hoisted: list[int] = []

    def outer(w: Any) -> Any:
        def f(x: Any) -> Any:
            return tnp.sum(tnp.sin(x) * w)

        fc, consts = tessela.closure_convert(f, tnp.ones(2, dtype))
        hoisted.append(len(consts))
        return fc(tnp.ones(2, dtype), *consts).astype(tnp.float32)

    g = tessela.grad(outer)(tnp.full(2, 2.0, dtype))
    assert hoisted[-1] == 1
    np.testing.assert_allclose(np.asarray(g, np.float32), np.sin(1.0), rtol=0.1)
