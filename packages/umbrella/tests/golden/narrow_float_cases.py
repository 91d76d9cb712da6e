"""bfloat16, float16 and float8 through code that reads float limits, compared with the reference.

Shared by ``generate.py`` (run under the reference implementation) and
``test_narrow_floats.py``. :func:`run` takes a namespace holding the
implementation's ``numpy``, ``scipy`` (``optimize``, ``special``,
``ndimage``), ``nn`` and ``experimental.checkify`` and returns, per case, a
JSON-ready record: ``{"dtype": ..., "values": [...]}`` for an array (values
widened to float32 and listed), a string for a checkify message, or
``{"error": <class name>}`` when the call raised.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

NARROW = ("bfloat16", "float16", "float8_e4m3fn")


def _record(fn: Callable[[], Any]) -> Any:
    try:
        value = fn()
    except Exception as err:
        return {"error": type(err).__name__}
    if isinstance(value, str) or value is None:
        return value
    arr = np.asarray(value)
    wide = arr.astype(np.float32) if arr.dtype.kind not in "biu" else arr.astype(np.int64)
    return {"dtype": str(arr.dtype), "values": wide.ravel().tolist()}


def _raise_or(value: Any) -> Any:
    if isinstance(value, Exception):
        raise value
    return value


def _quadratic(jnp: Any) -> Callable[[Any], Any]:
    def f(x: Any) -> Any:
        return jnp.sum((x - jnp.asarray([1.0, -2.0], x.dtype)) ** 2)

    return f


def run(ns: Any) -> dict[str, Any]:
    """Every case's record, keyed ``"<family>|<case>|<dtype>[|<field>]"``."""
    jnp, out = ns.numpy, {}
    fields = ("fun", "jac", "hess_inv", "success", "status", "nfev", "njev", "nit")
    for dt in NARROW:
        x0 = jnp.asarray([0.5, 0.5], dt)
        try:
            res = ns.scipy.optimize.minimize(_quadratic(jnp), x0, method="BFGS")._asdict()
        except Exception as err:
            res = dict.fromkeys(("x", *fields), err)
        for field in ("x", *fields):
            out[f"optimize|bfgs|{dt}|{field}"] = _record(lambda v=res[field]: _raise_or(v))
    for dt in NARROW[:2]:
        a, b = jnp.asarray([0.5, 1.0, 2.0], dt), jnp.asarray([0.5, 1.5, 0.25], dt)
        c, x = jnp.asarray([1.5, 2.0, 3.0], dt), jnp.asarray([0.3, -0.7, 0.5], dt)
        out[f"special|hyp1f1|{dt}"] = _record(
            lambda a=a, c=c, x=x: ns.scipy.special.hyp1f1(a, c, x)
        )
        out[f"special|hyp2f1|{dt}"] = _record(
            lambda a=a, b=b, c=c, x=x: ns.scipy.special.hyp2f1(a, b, c, x)
        )
        out[f"special|poch|{dt}"] = _record(lambda c=c, a=a: ns.scipy.special.poch(c, a))
        out[f"ndimage|map_coordinates|{dt}"] = _record(
            lambda dt=dt: ns.scipy.ndimage.map_coordinates(
                jnp.asarray([1.0, 3.0, -2.0, 5.0], dt), [jnp.asarray([0.4, 1.6, 2.5], dt)], order=1
            )
        )
        q = jnp.asarray(np.linspace(-1.0, 1.0, 48).reshape(2, 3, 2, 4), dt)
        mask = jnp.asarray(np.tril(np.ones((3, 3), bool)))[None, None]
        out[f"nn|dot_product_attention_mask|{dt}"] = _record(
            lambda q=q, mask=mask: ns.nn.dot_product_attention(q, q, q, mask=mask)
        )
    checkify = ns.experimental.checkify
    for dt in NARROW:
        out[f"checkify|nan|{dt}"] = _record(
            lambda dt=dt: checkify.checkify(jnp.log, errors=checkify.nan_checks)(
                jnp.asarray([-1.0, 2.0], dt)
            )[0].get()
        )
    return out
