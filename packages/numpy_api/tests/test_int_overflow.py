"""Python integers out of the default integer type's range meet arrays, against JAX.

``golden/int_overflow.json`` (made by ``golden/generate_int_overflow.py``
under JAX 0.10.2) records, for each case of ``golden/int_overflow_cases.py``
(an operation, an array dtype, a Python int; eagerly and under ``jit``,
``vmap`` and ``grad``; x64 off and on), JAX's ``OverflowError`` or the
result's dtype and value. A Python int operand is a weak value of the default
integer type: without x64, ``x_uint32 + 2**31`` and ``x_float16 + 2**40``
raise, as JAX's (they gave values under ``jit``); inside that range it wraps
into an integer dtype or rounds into a float one.
"""

from __future__ import annotations

import json
import pathlib
import sys
from collections.abc import Iterator

import pytest
import tessela_numpy as tnp
from tessela_autodiff import grad
from tessela_batching import vmap
from tessela_lowering import jit
from tessela_tracer import config

GOLDEN_DIR = pathlib.Path(__file__).parent / "golden"
sys.path.insert(0, str(GOLDEN_DIR))

from int_overflow_cases import cases, key, run  # noqa: E402

GOLDEN = json.loads((GOLDEN_DIR / "int_overflow.json").read_text())
CASES = cases()


@pytest.fixture(params=["x64_off", "x64_on"])
def mode(request: pytest.FixtureRequest) -> Iterator[str]:
    before = config.jax_enable_x64
    config.update("jax_enable_x64", request.param == "x64_on")
    try:
        yield request.param
    finally:
        config.update("jax_enable_x64", before)


def test_every_case_recorded() -> None:
    for m in ("x64_off", "x64_on"):
        assert sorted(GOLDEN[m]) == sorted(key(*c) for c in CASES)


@pytest.mark.parametrize("dtype", sorted({c[1] for c in CASES}))
def test_matches_jax(dtype: str, mode: str) -> None:
    want = GOLDEN[mode]
    wrong = {}
    for case in (c for c in CASES if c[1] == dtype):
        got = run(tnp, jit, vmap, grad, *case)
        if got != want[key(*case)]:
            wrong[key(*case)] = (got, want[key(*case)])
    assert not wrong, wrong


def test_the_error_names_the_value_and_the_fix() -> None:
    x = tnp.ones(2, tnp.float16)
    with pytest.raises(OverflowError, match=r"Python int 1099511627776 too large.*Python float"):
        jit(lambda x: x + 2**40)(x)
    with pytest.raises(OverflowError, match=r"Python int 2147483648 too large to convert to int32"):
        vmap(lambda x: tnp.maximum(x, 2**31))(tnp.ones(2, tnp.uint32))


def test_explicit_dtypes_keep_taking_wide_ints() -> None:
    # Not promotion: the value is converted to the dtype asked for, as in JAX.
    assert int(tnp.asarray(2**31, dtype=tnp.uint32)) == 2**31
    assert float(tnp.full_like(tnp.ones(2, tnp.float16), 2**40)[0]) == float("inf")
    assert int(jit(lambda x: x.at[0].set(2**31))(tnp.ones(2, tnp.uint32))[0]) == 2**31
