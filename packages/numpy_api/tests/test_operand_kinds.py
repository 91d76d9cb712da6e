"""Every element-wise function on every kind of operand, against JAX 0.10.2.

``golden/kinds.json`` (made by ``golden/generate_kinds.py`` under JAX)
records, for each function of ``golden/kinds_cases.py`` and each operand
(or pair): the exception class JAX raises, or each output's dtype, weak
type and values. Tessela must give the same dtype and values (and weak
type), or raise an exception of that class (or a subclass). The few
differences left are listed below with their reason; a case that starts
agreeing with JAX must leave the list.
"""

from __future__ import annotations

import json
import warnings
from typing import Any

import numpy as np
import pytest
import tessela_lowering  # noqa: F401  (eager execution)
import tessela_numpy as tnp
from conftest import GOLDEN_DIR
from kinds_cases import calls, outcome

GOLDEN = json.loads((GOLDEN_DIR / "kinds.json").read_text())["cases"]

# Where Tessela deliberately or knowingly differs: (function, kind of difference).
# "weak": JAX's result is weakly typed and Tessela's not, or the reverse;
# "refuses": Tessela raises where JAX computes; "accepts": the reverse;
# "class": another exception class.
KNOWN: dict[str, set[str]] = {}
for _names, _kind in [
    # The weak flag of boolean results (no promotion reads it: bool joins
    # every other type as that type).
    (("equal", "not_equal", "less", "greater", "less_equal", "greater_equal", "logical_and",
      "logical_or", "logical_xor", "isnan", "isfinite", "logical_not", "iscomplex", "isreal"),
     "weak"),
    # Results of Python scalars (or weak operands) whose weak flag differs.
    (("divmod", "floor_divide", "heaviside", "hypot", "logaddexp2", "gcd", "lcm", "mod",
      "remainder", "fmod", "power", "imag", "i0", "sinc", "rint", "nan_to_num"), "weak"),
    # Python complex scalars: JAX's result stays weak, Tessela's kernels
    # (complex log, inverse trigonometric, rounding) make it strong.
    (("abs", "absolute", "angle", "arccos", "arccosh", "arcsinh", "arctanh", "cosh", "around",
      "round", "expm1", "log", "log1p", "real", "sign", "sinh", "tanh"), "weak"),
    (("nan_to_num",), "dtype"),  # nan_to_num(3) is the Python int 3, not JAX's int32 array
    (("logaddexp", "logaddexp2"), "refuses"),  # complex operands: JAX computes them
    (("copysign", "hypot", "i0"), "class"),  # complex operands: another exception class
    (("fmod",), "value"),  # fmod(True, False): JAX leaves XLA's 1, Tessela gives NumPy's 0
]:  # fmt: skip
    for _name in _names:
        KNOWN.setdefault(_name, set()).add(_kind)


def _same_values(got: list[Any], want: list[Any]) -> bool:
    if len(got) != len(want):
        return False
    for g, w in zip(got, want, strict=True):
        if isinstance(w, str) or isinstance(g, str):
            if g != w:
                return False
        elif isinstance(w, list):
            if not np.allclose(g, w, rtol=1e-4, atol=1e-4, equal_nan=True):
                return False
        elif not np.isclose(g, w, rtol=1e-4, atol=1e-4, equal_nan=True):
            return False
    return True


def _difference(got: Any, want: Any) -> str | None:
    if isinstance(want, str) or isinstance(got, str):
        if isinstance(want, str) and isinstance(got, str):
            return None if got == want else "class"
        return "refuses" if isinstance(got, str) else "accepts"
    if [o[0] for o in got] != [o[0] for o in want]:
        return "dtype"
    if not all(_same_values(g[2], w[2]) for g, w in zip(got, want, strict=True)):
        return "value"
    if [o[1] for o in got] != [o[1] for o in want]:
        return "weak"
    return None


def _classes_match(got: str, want: str, call: Any) -> bool:
    # A subclass of JAX's class counts (NumPy's AxisError is a ValueError).
    try:
        call()
    except Exception as e:
        return want.split(":")[1] in [k.__name__ for k in type(e).__mro__]
    return False


CASES = calls(tnp)


@pytest.mark.parametrize("name", sorted({key.split(":")[0] for key in CASES}))
def test_function_matches_jax_on_every_operand_kind(name: str) -> None:
    unexpected = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for key, call in CASES.items():
            if key.split(":")[0] != name:
                continue
            got, want = outcome(call), GOLDEN[key]
            diff = _difference(got, want)
            if diff == "class" and _classes_match(got, want, call):
                diff = None
            if diff is not None and diff not in KNOWN.get(name, set()):
                unexpected.append(f"{key}: {diff} (JAX {str(want)[:80]}, Tessela {str(got)[:80]})")
    assert not unexpected, "\n".join(unexpected)
