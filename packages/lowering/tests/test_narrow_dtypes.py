"""The narrow ml_dtypes types on device, against JAX 0.10.2 (golden/narrow_dtypes.py)."""

from __future__ import annotations

import json
import pathlib
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import tessela_lowering as tl
import tessela_numpy as tnp
from tessela_lowering import _xla
from tessela_lowering._xla import _run
from tessela_tracer import dtypes

GOLDEN = json.loads((pathlib.Path(__file__).parent / "golden" / "narrow_dtypes.json").read_text())
CASES: dict[str, dict[str, Any]] = GOLDEN["cases"]
PLACED = sorted(n for n, c in CASES.items() if "refused" not in c)
REFUSED = sorted(n for n, c in CASES.items() if "refused" in c)

OPS: dict[str, Callable[[Any], Any]] = {
    "add": lambda a: a + a,
    "mul": lambda a: a * a,
    "neg": lambda a: -a,
    "maximum": lambda a: tnp.maximum(a, a[::-1]),
}


def _bytes(x: object) -> list[int]:
    out: list[int] = np.asarray(x).view(np.uint8).tolist()
    return out


def test_the_golden_covers_every_new_type() -> None:
    assert set(CASES) == {
        "float8_e4m3", "float8_e3m4", "float8_e8m0fnu", "float4_e2m1fn", "float6_e2m3fn",
        "float6_e3m2fn", "int2", "uint2", "int1", "uint1",
    }  # fmt: skip
    assert REFUSED == ["float6_e2m3fn", "float6_e3m2fn", "int1", "uint1"]


@pytest.mark.parametrize("name", PLACED)
def test_round_trip_is_bit_exact(name: str) -> None:
    dt = getattr(tnp, name)
    x = tnp.array(GOLDEN["values"][name], dt)
    assert x.dtype == np.dtype(getattr(dtypes, name))
    assert _bytes(x) == CASES[name]["bytes"]
    # A host array placed explicitly keeps its bits too.
    host = np.asarray(x)
    assert _bytes(tl.device_put(host, tl.devices()[0])) == CASES[name]["bytes"]


@pytest.mark.parametrize("name", PLACED)
def test_astype_to_and_from_float32(name: str) -> None:
    dt = getattr(tnp, name)
    x = tnp.array(GOLDEN["values"][name], dt)
    assert np.asarray(x.astype(tnp.float32)).tolist() == CASES[name]["to_f32"]
    y = tnp.array(GOLDEN["from_f32"], tnp.float32).astype(dt)
    assert y.dtype == np.dtype(dt)
    assert _bytes(y) == CASES[name]["from_f32"]


@pytest.mark.parametrize("name", PLACED)
@pytest.mark.parametrize("op", sorted(OPS))
def test_elementwise_eager_and_jit(name: str, op: str) -> None:
    x = tnp.array(GOLDEN["values"][name], getattr(tnp, name))
    f = OPS[op]
    eager, jitted = CASES[name][op]
    out = f(x)
    assert out.dtype == x.dtype
    assert _bytes(out) == eager
    assert _bytes(tl.jit(f)(x)) == jitted


@pytest.mark.parametrize("name", REFUSED)
def test_types_xla_cannot_compute_with_are_refused(name: str) -> None:
    # JAX 0.10.2 fails to place these arrays (a runtime error). jaxlib places
    # 1-bit integers for Tessela, but no computation takes them: both refuse.
    with pytest.raises(Exception, match=r"Unknown NumPy dtype|is not supported on XLA devices"):
        x = tnp.array(GOLDEN["values"][name], getattr(tnp, name))
        tl.jit(OPS["add"])(x).block_until_ready()


@pytest.mark.parametrize("name", PLACED)
def test_the_dlpack_route_keeps_the_bits(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # Without jaxlib's batched transfer, values travel as bytes and are
    # reinterpreted on the device (sub-byte types keep each byte's low bits).
    monkeypatch.setattr(_run, "_use_dlpack", [True])
    host = np.array(GOLDEN["values"][name], getattr(dtypes, name))
    out = _xla.to_numpy(_xla.device_put(host, tl.devices()[0]))
    assert out.dtype == host.dtype
    assert _bytes(out) == CASES[name]["bytes"]


_ORDERED = [
    "bfloat16", "float16", "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz",
    "float8_e4m3b11fnuz", "int4", "uint4", "int8", "uint8",
]  # fmt: skip


@pytest.mark.parametrize("name", _ORDERED)
@pytest.mark.parametrize("values", [[1, 2, 3], [-3, -2, -5], [0, 7, -1]])
def test_comparisons_and_extremes_of_narrow_types(name: str, values: list[int]) -> None:
    # A max starts from -inf, or from the lowest finite value for floats
    # without infinities (float8_e4m3fn) and the lowest integer for int4: it
    # started from -inf cast to the type (NaN, or 0 for int4). Comparisons
    # of float8_e5m2 (NumPy kind "f", not a NumPy floating type) compiled as
    # signed integer comparisons and failed in XLA's verifier.
    dt = dtypes.dtype(name)
    if not dtypes.issubdtype(dt, np.signedinteger) and not dtypes.issubdtype(dt, np.inexact):
        values = [abs(v) for v in values]
    host = np.asarray(values).astype(dt)
    x = tnp.asarray(host)
    wide = host.astype(np.float32)
    for run in (lambda f, *a: f(*a), lambda f, *a: tl.jit(f)(*a)):
        assert float(run(tnp.max, x)) == wide.max()
        assert float(run(tnp.min, x)) == wide.min()
        assert int(run(tnp.argmax, x)) == int(wide.argmax())
        np.testing.assert_array_equal(np.asarray(run(lambda v: v < v[::-1], x)), wide < wide[::-1])
        np.testing.assert_array_equal(np.asarray(run(tnp.sort, x), np.float32), np.sort(wide))
