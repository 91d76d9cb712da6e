"""``random.poisson`` against JAX 0.10.2: raw and typed keys, eagerly and under ``jit``.

``golden/poisson_cases.py`` runs the cases through either implementation
(both of the sampler's loops, rates of several dtypes and shapes, several
sample dtypes); ``golden/generate_poisson.py`` wrote JAX's results to
``golden/poisson_golden.json``. Under ``jit`` the loops' counter is a tracer,
which the bound is compared with (it raised ``ConcretizationTypeError``).
"""

from __future__ import annotations

from typing import Any

import pytest
import tessela as tx
from _golden import cases_module, load_json

poisson_cases = cases_module("poisson_cases")
GOLDEN: dict[str, Any] = load_json("poisson_golden.json")["cases"]


@pytest.fixture(scope="module")
def results() -> dict[str, Any]:
    out: dict[str, Any] = poisson_cases.run(tx)
    return out


def test_every_case_was_recorded(results: dict[str, Any]) -> None:
    assert sorted(results) == sorted(GOLDEN)


@pytest.mark.parametrize("case", sorted(GOLDEN))
def test_case_matches_jax(results: dict[str, Any], case: str) -> None:
    assert results[case] == GOLDEN[case]


def test_jit_and_eager_agree_and_the_loop_is_staged() -> None:
    key = tx.random.key(0)
    f = lambda k: tx.random.poisson(k, 4.0, (3,))  # noqa: E731
    assert tx.jit(f)(key).tolist() == f(key).tolist()
    assert "while" in str(tx.make_jaxpr(f)(key))
