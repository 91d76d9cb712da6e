"""Einsum subscript parsing and planning against NumPy's einsum shapes."""

from __future__ import annotations

import numpy as np
import pytest
from tessela_numpy._einsum_plan import parse_subscripts, plan_contractions

CASES = [
    ("ij,jk->ik", [(2, 3), (3, 4)]),
    ("ij,jk", [(2, 3), (3, 4)]),
    ("i,i", [(3,), (3,)]),
    ("ij->ji", [(2, 3)]),
    ("ii->i", [(3, 3)]),
    ("ii", [(3, 3)]),
    ("...ij,...jk->...ik", [(5, 2, 3), (3, 4)]),
    ("bij,bjk->bik", [(5, 2, 3), (5, 3, 4)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),
    ("i,j->ij", [(2,), (3,)]),
    ("...i", [(2, 3, 4)]),
]


@pytest.mark.parametrize(("subs", "shapes"), CASES)
def test_output_shape_matches_numpy(subs: str, shapes: list[tuple[int, ...]]) -> None:
    spec = parse_subscripts(subs, shapes)
    expected = np.einsum(subs, *(np.ones(s) for s in shapes)).shape
    assert tuple(spec.sizes[c] for c in spec.output) == expected
    steps = plan_contractions(spec)
    assert steps[-1].result == spec.output
    assert len(steps) == max(1, len(shapes) - 1)


@pytest.mark.parametrize(
    ("subs", "shapes", "match"),
    [
        ("ij,jk", [(2, 3)], "operands"),
        ("ij", [(2, 3, 4)], "has 3 axes"),
        ("ij,jk", [(2, 3), (4, 5)], "does not match"),
        ("ij->k", [(2, 3)], "does not appear"),
        ("i1", [(2, 3)], "invalid subscript"),
    ],
)
def test_errors(subs: str, shapes: list[tuple[int, ...]], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        parse_subscripts(subs, shapes)
