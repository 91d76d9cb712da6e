"""Einstein-summation subscripts, parsed and planned in pure Python.

:func:`parse_subscripts` turns ``"...ij,jk->...ik"`` and the operand ranks into
one name string per operand plus the output names (ellipses become private
upper-case-free names drawn from characters no user subscript may use).
:func:`plan_contractions` orders the work as a sequence of
:class:`Contraction` steps, each over one or two operands, contracting from
left to right and keeping only the names still needed later.
"""

from __future__ import annotations

import collections
import dataclasses
from collections.abc import Sequence

__all__ = ["Contraction", "EinsumSpec", "parse_subscripts", "plan_contractions"]

_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
# Ellipsis dimensions get names outside the user alphabet, in a fixed order.
_ELLIPSIS_NAMES = "".join(chr(c) for c in range(0x100, 0x140))


@dataclasses.dataclass(frozen=True, slots=True)
class EinsumSpec:
    """Parsed subscripts: one name per axis of each operand, and the output."""

    inputs: tuple[str, ...]
    output: str
    sizes: dict[str, int] = dataclasses.field(compare=False)


@dataclasses.dataclass(frozen=True, slots=True)
class Contraction:
    """Contract ``operands`` (positions in the working list) into ``result``.

    The operands are removed from the working list and the result appended.
    """

    operands: tuple[int, ...]
    contracted: frozenset[str]
    inputs: tuple[str, ...]
    result: str


def _expand(term: str, ndim: int, what: str) -> str:
    if "..." in term:
        if term.count("...") > 1 or "." in term.replace("...", "", 1):
            raise ValueError(f"einsum: invalid ellipsis in subscripts {what!r}")
        explicit = len(term) - 3
        n = ndim - explicit
        if n < 0:
            raise ValueError(
                f"einsum: subscripts {term!r} name more axes than the operand has ({ndim})"
            )
        return term.replace("...", _ELLIPSIS_NAMES[len(_ELLIPSIS_NAMES) - n :] if n else "")
    if "." in term:
        raise ValueError(f"einsum: invalid ellipsis in subscripts {what!r}")
    return term


def parse_subscripts(subscripts: str, shapes: Sequence[Sequence[int]], /) -> EinsumSpec:
    """Parse einsum subscripts against the operand shapes.

    Args:
      subscripts: e.g. ``"ij,jk->ik"``, ``"...i,...i"`` or ``"ii"``.
      shapes: the shapes of the operands, in order.

    Returns:
      The :class:`EinsumSpec`; implicit outputs (no ``->``) list the names
      used exactly once, in alphabetical order, after the ellipsis axes.

    Raises:
      ValueError: wrong number of operands, bad characters, or sizes that
        do not agree.

    >>> parse_subscripts("ij,jk", [(2, 3), (3, 4)]).output
    'ik'
    """
    text = subscripts.replace(" ", "")
    lhs, arrow, out = text.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(shapes):
        raise ValueError(
            f"einsum: subscripts {subscripts!r} name {len(terms)} operands but "
            f"{len(shapes)} were given"
        )
    for ch in text.replace("->", "").replace(",", "").replace(".", ""):
        if ch not in _LETTERS:
            raise ValueError(f"einsum: invalid subscript {ch!r} in {subscripts!r}; use letters")
    inputs = tuple(_expand(t, len(s), subscripts) for t, s in zip(terms, shapes, strict=True))
    sizes: dict[str, int] = {}
    for names, shape in zip(inputs, shapes, strict=True):
        if len(names) != len(shape):
            raise ValueError(
                f"einsum: operand of shape {tuple(shape)} has {len(shape)} axes "
                f"but its subscripts name {len(names)}"
            )
        for n, d in zip(names, shape, strict=True):
            if n in sizes and d != sizes[n] and 1 not in (d, sizes[n]):
                raise ValueError(f"einsum: size of label {n!r} does not match: {sizes[n]} vs {d}")
            sizes[n] = max(d, sizes.get(n, d)) if 1 in (d, sizes.get(n, d)) else d
    ell = "".join(c for c in _ELLIPSIS_NAMES if any(c in i for i in inputs))
    if arrow:
        output = out.replace("...", ell)
        for ch in output:
            if ch not in sizes:
                raise ValueError(f"einsum: output subscript {ch!r} does not appear in the inputs")
        if len(set(output)) != len(output):
            raise ValueError(f"einsum: output subscripts {out!r} repeat a label")
    else:
        counts = collections.Counter("".join(inputs))
        output = ell + "".join(
            sorted(c for c in counts if counts[c] == 1 and c not in _ELLIPSIS_NAMES)
        )
    return EinsumSpec(inputs, output, sizes)


def plan_contractions(spec: EinsumSpec, /) -> list[Contraction]:
    """Order the contractions of an einsum, left to right.

    Args:
      spec: the parsed subscripts.

    Returns:
      Steps over a working list that starts as the operands; after the last
      step the list holds one array whose names are ``spec.output``.

    >>> [c.inputs for c in plan_contractions(parse_subscripts("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]))]
    [('ij', 'jk'), ('kl', 'ik')]
    """
    names = list(spec.inputs)
    if len(names) == 1:
        only = names[0]
        contracted = frozenset(c for c in only if c not in spec.output)
        return [Contraction((0,), contracted, (only,), spec.output)]
    steps: list[Contraction] = []
    while len(names) > 1:
        lhs, rhs = names[0], names[1]
        rest = names[2:]
        later = set(spec.output).union(*rest) if rest else set(spec.output)
        if rest:
            keep = [c for c in dict.fromkeys(lhs + rhs) if c in later]
            result = "".join(keep)
        else:
            result = spec.output
        contracted = frozenset(c for c in lhs + rhs if c not in later)
        steps.append(Contraction((0, 1), contracted, (lhs, rhs), result))
        names = [*rest, result]
    return steps
