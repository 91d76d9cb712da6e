"""Every primitive compiled and run by Tessela, against JAX's results (golden data).

The calls are the ones in ``golden/cases.py``; ``golden/generate.py`` ran them
under ``jax.jit`` on CPU and stored the outputs. Here each call runs through
``tessela_lowering.jit`` and eagerly (one cached executable per primitive) and
must give the same outputs: bit for bit for integer and bool outputs and for
the operations XLA computes exactly, within the case's ulp bound otherwise,
with NaN (and, under a bound, infinity) positions equal.
"""

from __future__ import annotations

import functools
import json
import os
import pathlib
from types import SimpleNamespace
from typing import Any

import _golden_scripts
import numpy as np
import pytest
import tessela_lowering as tl
import tessela_tracer as tt
from tessela_pytree import tree_leaves
from tessela_tracer import lax
from tessela_tracer import primitives as P

cases = _golden_scripts.load("cases.py", "tessela_lowering_golden_cases")

GOLDEN_DIR = pathlib.Path(os.environ.get("TESSELA_GOLDEN_DIR") or _golden_scripts.GOLDEN)
GOLDEN = json.loads((GOLDEN_DIR / "primitives.json").read_text())["cases"]
CASES = {c.name: c for c in cases.CASES}


def _device_put(x: Any) -> Any:
    (out,) = P.device_put_p.bind(
        x, devices=(None,), srcs=(None,), copy_semantics=(tt.ArrayCopySemantics.REUSE_INPUT,)
    )
    return out


NS = SimpleNamespace(
    lax=lax,
    jit=tl.jit,
    custom_jvp=tt.custom_jvp,
    custom_vjp=tt.custom_vjp,
    checkpoint=tt.checkpoint,
    device_put=_device_put,
    device_put_function=tl.device_put,
    reduce_xor=lambda x, axes: P.reduce_xor_p.bind(x, axes=tuple(axes)),
)

# Cases whose Tessela result differs from JAX's (under jit and eagerly alike).
XFAIL: dict[str, str] = {}

# Cases that fail to trace (so under jit, not eagerly): the reason says how.
XFAIL_TRACED: dict[str, str] = {}

# The jit comparison compiles the cases CHUNK at a time, as one program each
# returning every case's outputs (one XLA compilation per chunk, not per case).
CHUNK = 48


def _params(*xfails: dict[str, str]) -> list[Any]:
    reasons = {k: v for x in xfails for k, v in x.items()}
    return [
        pytest.param(
            name,
            marks=pytest.mark.xfail(strict=True, reason=reasons[name]) if name in reasons else (),
        )
        for name in CASES
    ]


def _chunk_program(names: list[str]) -> tuple[Any, list[np.ndarray]]:
    fns = [CASES[n].build(NS) for n in names]
    args = [cases.inputs(CASES[n]) for n in names]

    def program(*flat: Any) -> list[Any]:
        outs, k = [], 0
        for fn, a in zip(fns, args, strict=True):
            outs.append(fn(*flat[k : k + len(a)]))
            k += len(a)
        return outs

    return program, [x for a in args for x in a]


@functools.cache
def _jit_results() -> dict[str, Any]:
    """Every case's outputs under ``tl.jit`` (or the exception it raised)."""
    names = [n for n in CASES if n not in XFAIL_TRACED]
    results: dict[str, Any] = {}
    for i in range(0, len(names), CHUNK):
        chunk = names[i : i + CHUNK]
        try:
            program, flat = _chunk_program(chunk)
            results.update(zip(chunk, tl.jit(program)(*flat), strict=True))
        except Exception:  # one case breaks the chunk: compile its cases one by one
            for n in chunk:
                try:
                    results[n] = tl.jit(CASES[n].build(NS))(*cases.inputs(CASES[n]))
                except Exception as e:
                    results[n] = e
    for n in XFAIL_TRACED:
        try:
            results[n] = tl.jit(CASES[n].build(NS))(*cases.inputs(CASES[n]))
        except Exception as e:
            results[n] = e
    return results


# ---------------------------------------------------------------- helpers
def _expected(rec: dict[str, Any]) -> np.ndarray:
    dtype = cases.dtype_from_name(rec["dtype"])
    raw = np.frombuffer(bytes.fromhex(rec["hex"]), dtype=dtype.newbyteorder("<"))
    return raw.astype(dtype).reshape(rec["shape"])


def _ordered(a: np.ndarray) -> np.ndarray:
    """Floats as integers whose difference counts the representable values between."""
    bits = a.view(np.dtype(f"u{a.dtype.itemsize}")).astype(np.int64)
    sign = np.int64(1) << (8 * a.dtype.itemsize - 1)
    mag = bits & (sign - 1)
    return np.where(bits & sign, -mag, mag)


def _compare_float(got: np.ndarray, want: np.ndarray, ulps: int, where: str) -> None:
    gn, wn = np.isnan(got), np.isnan(want)
    assert np.array_equal(gn, wn), f"{where}: NaN at {np.argwhere(gn != wn).tolist()}"
    ok = ~wn
    if ulps == 0:
        gb = got.view(np.dtype(f"u{got.dtype.itemsize}"))
        wb = want.view(np.dtype(f"u{want.dtype.itemsize}"))
        bad = ok & (gb != wb)
        assert not bad.any(), (
            f"{where}: not bit-exact at {np.argwhere(bad).tolist()}: "
            f"got {got[bad].tolist()}, JAX {want[bad].tolist()}"
        )
        return
    gi, wi = np.isinf(got), np.isinf(want)
    inf_bad = ok & (gi | wi) & (got != want)
    assert not inf_bad.any(), f"{where}: infinities differ at {np.argwhere(inf_bad).tolist()}"
    dist = np.where(ok & ~wi, np.abs(_ordered(got) - _ordered(want)), 0)
    assert dist.max(initial=0) <= ulps, (
        f"{where}: {int(dist.max())} ulps apart (bound {ulps}) at "
        f"{np.argwhere(dist > ulps).tolist()}: got {got[dist > ulps].tolist()}, "
        f"JAX {want[dist > ulps].tolist()}"
    )


def _compare(name: str, outs: Any) -> None:
    c = CASES[name]
    got_leaves = [np.asarray(x) for x in tree_leaves(outs)]
    recs = GOLDEN[name]["outputs"]
    assert len(got_leaves) == len(recs), f"{len(got_leaves)} outputs, JAX has {len(recs)}"
    for k, (got, rec) in enumerate(zip(got_leaves, recs, strict=True)):
        want = _expected(rec)
        where = f"{name} output {k}"
        assert (got.dtype, got.shape) == (want.dtype, want.shape), (
            f"{where}: {got.dtype}{list(got.shape)}, JAX {want.dtype}{list(want.shape)}"
        )
        if want.dtype.kind == "c":
            _compare_float(got.real.copy(), want.real.copy(), c.ulps, where + " (real)")
            _compare_float(got.imag.copy(), want.imag.copy(), c.ulps, where + " (imag)")
        elif want.dtype.kind == "f" or want.dtype == cases.BF16:
            _compare_float(got, want, c.ulps, where)
        else:
            assert np.array_equal(got, want), f"{where}: got {got.tolist()}, JAX {want.tolist()}"


def _prim_names(jaxpr: Any) -> set[str]:
    names: set[str] = set()
    for eqn in jaxpr.eqns:
        names.add(eqn.primitive.name)
        for sub in tt.subjaxprs(eqn):
            names |= _prim_names(getattr(sub, "jaxpr", sub))
    return names


# ------------------------------------------------------------------ tests
def test_every_primitive_is_compared_or_listed() -> None:
    names = {getattr(P, n).name for n in P.__all__}
    covered = {p for c in cases.CASES for p in c.prims}
    assert names - covered - set(cases.NOT_COMPARED) == set()
    assert set(cases.NOT_COMPARED) <= names


def test_golden_data_matches_the_cases() -> None:
    assert set(GOLDEN) == set(CASES), "regenerate: nox -s \"golden(package='lowering')\""
    stale = [n for n, c in CASES.items() if GOLDEN[n]["inputs"] != cases.digest(cases.inputs(c))]
    assert not stale, f"inputs changed since the golden data was made: {stale}"


@pytest.mark.parametrize("name", _params(XFAIL_TRACED))
def test_case_binds_its_primitives(name: str) -> None:
    c = CASES[name]
    bound = _prim_names(tt.make_jaxpr(c.build(NS))(*cases.inputs(c)).jaxpr)
    assert set(c.prims) <= bound, f"binds {sorted(bound)}"


@pytest.mark.parametrize("name", _params(XFAIL, XFAIL_TRACED))
def test_jit_matches_jax(name: str) -> None:
    out = _jit_results()[name]
    if isinstance(out, Exception):
        raise out
    _compare(name, out)


@pytest.mark.parametrize("name", _params(XFAIL))
def test_eager_matches_jax(name: str) -> None:
    c = CASES[name]
    _compare(name, c.build(NS)(*(tl.device_put(x) for x in cases.inputs(c))))
