"""grad/jvp/vjp and nested derivatives agree with the reference within a few ulps.

Every case of ``golden/numeric_cases.py`` runs eagerly here, through the same
``evaluate`` the generator ran under the reference, and each stored array is
compared with ``|got - ref| <= k * spacing(max|ref|)`` in the array's dtype
(``k`` ulps of the array's largest magnitude): ``k = 2`` for one-primitive
families (elementwise, zero-derivative, shape and indexing), ``k = 4`` for
reductions, control flow and nested derivatives, where a rule is a short
chain of roundings. Shapes and dtypes must match exactly.
"""

from __future__ import annotations

import os
import pathlib
import sys
import types
from collections.abc import Iterator

import numpy as np
import pytest
import tessela_tracer
import tessela_tracer.primitives as P
from tessela_autodiff import grad, hessian, jacfwd, jacrev, jvp, vjp
from tessela_tracer import Jaxpr, config, lax, make_jaxpr, subjaxprs

_HERE = pathlib.Path(__file__).resolve().parent / "golden"
sys.path.insert(0, str(_HERE))
from numeric_cases import CASES, evaluate  # noqa: E402

_DIR = pathlib.Path(os.environ.get("TESSELA_GOLDEN_DIR", _HERE))
with np.load(_DIR / "grad_numeric.npz") as _npz:
    _GOLDEN: dict[str, dict[str, np.ndarray]] = {}
    for _key in _npz.files:
        _case, _what = _key.split("|", 1)
        _GOLDEN.setdefault(_case, {})[_what] = _npz[_key]

API = types.SimpleNamespace(
    lax=lax, jit=tessela_tracer.jit, checkpoint=tessela_tracer.checkpoint,
    custom_jvp=tessela_tracer.custom_jvp, custom_vjp=tessela_tracer.custom_vjp,
    grad=grad, jvp=jvp, vjp=vjp, jacfwd=jacfwd, jacrev=jacrev, hessian=hessian, zeta=lax.zeta,
)  # fmt: skip

ULPS = {
    "unary": 2, "binary": 2, "complex": 2, "zero-derivative": 2, "shape/indexing": 2,
    "reduction": 4, "control flow": 4, "nested": 4,
    # polygamma, and zeta in q, which the reference differentiates through a series expansion
    "special": 4,
    # factorisations and solves: XLA's loops and LAPACK (the reference on CPU) round differently
    "linalg": 32,
    # convolutions and windowed sums: XLA chooses the accumulation order
    "conv": 8,
    # FFTs: the transform's own rounding, then the transposes' masks and scales
    "fft": 8,
}  # fmt: skip

XFAIL: dict[str, str] = {}


# Primitives the cases need not reach: not differentiable (integer, boolean or bit-level
# results), or not part of the reference's ``lax`` (``device_put``).
NOT_COVERED = {
    "and", "bitcast_convert_type", "clz", "device_put", "iota", "name", "nextafter", "not", "or",
    "population_count", "reduce_and", "reduce_or", "reduce_xor", "shift_left",
    "shift_right_arithmetic", "shift_right_logical", "xor", "mulhi", "rng_bit_generator",
    # rng_uniform refuses differentiation, as in JAX (the umbrella's tests/test_lax_more.py)
    "rng_uniform",
    # scatter-sub: its gradients are compared with JAX 0.10.2's in the umbrella's
    # tests/test_lax_more.py golden data
    "scatter-sub",
    # host callbacks: debug ones are transparent, pure/IO ones refuse differentiation
    # (tests/test_callback.py)
    "debug_callback", "debug_print", "io_callback", "pure_callback",
    # collectives: against the same batch computed without them and central differences
    # (tests/test_rules_collective.py; JAX 0.10.2 has no pmax/pmin rule to compare with)
    "all_gather", "axis_index", "pmax", "pmin", "psum", "ppermute", "all_to_all",
    "reduce_scatter",
    # added after this golden set: custom_batching.custom_vmap and linear_call are compared
    # with JAX 0.10.2 under grad in the umbrella's tests/test_toplevel_more.py golden data
    "custom_vmap_call", "linear_call",
    # custom_lin exists only between linearization and transposition (tests/test_custom.py)
    "custom_lin",
    # typed PRNG keys are not differentiable: float0 tangents (tests/test_rules_random.py)
    "random_wrap", "random_unwrap",
    # sharding_constraint is the identity on values; its rules (linear, the same constraint on
    # tangents and cotangents) are checked in tests/test_rules_sharding.py
    "sharding_constraint",
    # tokens carry no values; composite refuses differentiation and platform_index is an
    # integer, as in JAX (the umbrella's tests/test_lax_other.py); copy is linear
    # (tests/test_rules_misc.py)
    "create_token", "after_all", "composite", "platform_index", "copy",
    # added after this golden set: eig's and tridiagonal_solve's derivatives are compared with
    # JAX 0.10.2 in the umbrella's tests/test_linalg_more_golden.py and with central differences
    # in tests/test_rules_linalg_more.py, where the others refuse differentiation, as in JAX
    "eig", "tridiagonal_solve", "schur", "hessenberg", "tridiagonal", "householder_product",
    "ormqr", "cholesky_update", "symmetric_product", "lu_pivots_to_permutation",
    # added after this golden set: the general reduce_window's forward mode is compared with
    # jax.jvp's values in tests/test_rules_conv.py (reverse mode refuses, as in JAX)
    "reduce_window",
}  # fmt: skip


def _params() -> list[object]:
    params: list[object] = []
    for name in sorted(CASES, key=lambda n: (CASES[n].dtype, n)):
        marks = [pytest.mark.xfail(strict=True, reason=XFAIL[name])] if name in XFAIL else []
        params.append(pytest.param(name, marks=marks, id=name))
    return params


@pytest.fixture
def dtype_mode(request: pytest.FixtureRequest) -> Iterator[None]:
    x64 = CASES[request.node.callspec.params["name"]].dtype == "float64"
    config.update("jax_enable_x64", x64)
    try:
        yield
    finally:
        config.update("jax_enable_x64", False)


def test_every_case_has_reference_data() -> None:
    assert sorted(_GOLDEN) == sorted(CASES)
    assert set(XFAIL) <= set(CASES)


@pytest.mark.usefixtures("dtype_mode")
@pytest.mark.parametrize("name", _params())
def test_derivatives_match_reference(name: str) -> None:
    case = CASES[name]
    ref = _GOLDEN[name]
    got = evaluate(API, name)
    assert sorted(got) == sorted(ref)
    k = ULPS[case.family]
    for key, want in ref.items():
        have = got[key]
        assert (have.shape, have.dtype) == (want.shape, want.dtype), key
        if want.size == 0:
            continue
        scale = np.spacing(np.max(np.abs(want)).astype(want.dtype))
        err = np.max(np.abs(have.astype(np.float64) - want.astype(np.float64)))
        assert err <= k * scale, f"{key}: {err / scale:.1f} ulps > {k}\n{have}\n{want}"


def _primitive_names(jaxpr: Jaxpr) -> set[str]:
    names: set[str] = set()
    for eqn in jaxpr.eqns:
        names.add(eqn.primitive.name)
        for sub in subjaxprs(eqn):
            names |= _primitive_names(sub if isinstance(sub, Jaxpr) else sub.jaxpr)
    return names


def test_cases_reach_every_differentiable_primitive() -> None:
    seen: set[str] = set()
    for name, case in CASES.items():
        if case.family != "nested" and case.dtype == "float32":
            from numeric_cases import inputs

            seen |= _primitive_names(make_jaxpr(case.build(API))(*inputs(name)).jaxpr)
    every = {getattr(P, n).name for n in P.__all__}
    assert every - NOT_COVERED - seen == set()
