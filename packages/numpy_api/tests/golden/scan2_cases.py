"""Weighted quantiles, the rest of ``pad`` and out-of-range Python numbers, for ``generate_scan2.py``.

Imports only NumPy. ``CASES`` maps a case name to ``(f, args)``: ``f(m, *args)``
makes one call in a NumPy-like namespace ``m`` (``jax.numpy`` or
``tessela_numpy``); ``args`` are the arrays that ``jit`` traces when the case
runs compiled (``jit(lambda *xs: f(m, *xs))(*args)``). Each case runs both
ways; ``outcome`` (from ``scan_cases``) records the exception class or the
outputs.

Families: ``quantile``/``percentile``/``nanquantile``/``nanpercentile`` with
``method="inverted_cdf"`` and ``weights=`` (and the errors of weights with
other methods); ``pad`` with ``reflect_type="odd"``, callable modes,
per-axis ``constant_values``, ``end_values`` and ``stat_length``, and empty
axes; Python numbers out of a dtype's range.
"""

from __future__ import annotations

from typing import Any

import numpy as np

CASES: dict[str, tuple[Any, tuple[Any, ...]]] = {}


def case(name: str, f: Any, *args: Any) -> None:
    assert name not in CASES, name
    CASES[name] = (f, args)


# ---------------- quantiles with method="inverted_cdf" and weights
# Values with ties; weights are small integers or quarters, so that every
# running sum is exact and the comparisons with q * total cannot round.
A = ((np.arange(24, dtype=np.float32).reshape(2, 3, 4) * 7) % 11 - 4.5).astype(np.float32)
AN = A.copy()
AN[0, 1, 2] = np.nan
AN[1, :, 3] = np.nan
AN[1, 2, :] = np.nan
AI = (np.arange(24, dtype=np.int32).reshape(2, 3, 4) * 5) % 9 - 3
W = ((np.arange(24).reshape(2, 3, 4) * 5) % 4).astype(np.float32)  # zeros included
WQ = W * 0.25 + 0.5
W_NEG = W.copy()
W_NEG[0, 2, 1] = -1.0
W_NAN = W.copy()
W_NAN[1, 0, 0] = np.nan
QS = {
    "0.3": np.float32(0.3),
    "vec": np.array([0.0, 0.1, 0.25, 0.5, 0.6, 0.75, 1.0], np.float32),
    "out_of_range": np.array([-0.2, 1.3], np.float32),
}
PCT = {"30": np.float32(30.0), "vec": np.array([0.0, 12.5, 50.0, 90.0, 100.0], np.float32)}
AXES_W: list[tuple[Any, Any]] = [
    (None, W),
    (0, W),
    (-1, W),
    ((0, 2), W),
    (1, W[0, :, 0]),
    (-1, W[0, 0, :] + 1),
    ((0, 2), W[:, 0, :] + 1),
    ((2, 0), (W[:, 0, :] + 1).T),
    ((1, 2), WQ[0]),
]

for fn in ["quantile", "nanquantile"]:
    for qn, q in QS.items():
        for ax in [None, 0, -1, (0, 2)]:
            for kd in [False, True]:
                case(
                    f"{fn}:icdf:q={qn}:axis={ax}:kd={kd}",
                    lambda m, a, q, fn=fn, ax=ax, kd=kd: getattr(m, fn)(
                        a, q, axis=ax, method="inverted_cdf", keepdims=kd
                    ),
                    A if fn == "quantile" else AN,
                    q,
                )
        for i, (ax, w) in enumerate(AXES_W):
            case(
                f"{fn}:icdf:w{i}:q={qn}:axis={ax}",
                lambda m, a, q, w, fn=fn, ax=ax: getattr(m, fn)(
                    a, q, axis=ax, method="inverted_cdf", weights=w
                ),
                A if fn == "quantile" else AN,
                q,
                w,
            )
    for wn, w in {"neg": W_NEG, "nan": W_NAN, "quarters": WQ, "int": W.astype(np.int32),
                  "bool": W > 1, "zeros": W * 0}.items():  # fmt: skip
        for ax in [None, 1, (0, 2)]:
            case(
                f"{fn}:icdf:w={wn}:axis={ax}",
                lambda m, a, w, fn=fn, ax=ax: getattr(m, fn)(
                    a, QS["vec"], axis=ax, method="inverted_cdf", weights=w
                ),
                A if fn == "quantile" else AN,
                w,
            )
    case(
        f"{fn}:icdf:nan_data_weights",
        lambda m, a, w, fn=fn: getattr(m, fn)(
            a, QS["vec"], axis=-1, method="inverted_cdf", weights=w, keepdims=True
        ),
        AN,
        W,
    )
    case(
        f"{fn}:icdf:int",
        lambda m, a, w, fn=fn: getattr(m, fn)(
            a, QS["vec"], axis=1, method="inverted_cdf", weights=w
        ),
        AI,
        W,
    )
    case(
        f"{fn}:icdf:int_unweighted",
        lambda m, a, fn=fn: getattr(m, fn)(a, 0.5, axis=(0, 2), method="inverted_cdf"),
        AI,
    )
    case(
        f"{fn}:icdf:f16_weights_f32",
        lambda m, a, w, fn=fn: getattr(m, fn)(
            a, QS["vec"], axis=2, method="inverted_cdf", weights=w
        ),
        A.astype(np.float16),
        W,
    )
    case(
        f"{fn}:icdf:f16",
        lambda m, a, fn=fn: getattr(m, fn)(a, QS["vec"], axis=2, method="inverted_cdf"),
        A.astype(np.float16),
    )
    case(
        f"{fn}:icdf:1d_list_q",
        lambda m, a, w, fn=fn: getattr(m, fn)(a, 0.5, method="inverted_cdf", weights=w),
        np.array([1.0, 2.0, 3.0, 4.0, 5.0], np.float32),
        np.array([1.0, 1.0, 2.0, 1.0, 1.0], np.float32),
    )
    # Errors, in JAX's order of checks.
    for meth in ["linear", "lower", "higher", "midpoint", "nearest"]:
        case(
            f"{fn}:weights_with_{meth}",
            lambda m, a, w, fn=fn, meth=meth: getattr(m, fn)(a, 0.5, method=meth, weights=w),
            A,
            W,
        )
    case(
        f"{fn}:weights_complex",
        lambda m, a, w, fn=fn: getattr(m, fn)(a, 0.5, method="inverted_cdf", weights=w),
        A,
        W.astype(np.complex64),
    )
    case(
        f"{fn}:weights_complex_linear",
        lambda m, a, w, fn=fn: getattr(m, fn)(a, 0.5, weights=w),
        A,
        W.astype(np.complex64),
    )
    case(
        f"{fn}:weights_bad_method",
        lambda m, a, w, fn=fn: getattr(m, fn)(a, 0.5, method="weibull", weights=w),
        A,
        W,
    )
    case(
        f"{fn}:weights_shape_axis_none",
        lambda m, a, w, fn=fn: getattr(m, fn)(a, 0.5, method="inverted_cdf", weights=w),
        A,
        W[0],
    )
    case(
        f"{fn}:weights_shape_axis",
        lambda m, a, w, fn=fn: getattr(m, fn)(a, 0.5, axis=1, method="inverted_cdf", weights=w),
        A,
        W[0, 0],
    )
    case(
        f"{fn}:weights_shape_bcast",
        lambda m, a, w, fn=fn: getattr(m, fn)(a, 0.5, axis=2, method="inverted_cdf", weights=w),
        A,
        W[:1, :1, :],
    )
    case(
        f"{fn}:weights_list",
        lambda m, a, fn=fn: getattr(m, fn)(
            a, 0.5, axis=2, method="inverted_cdf", weights=[1.0] * 4
        ),
        A,
    )
    case(
        f"{fn}:complex_a",
        lambda m, a, fn=fn: getattr(m, fn)(a, 0.5, method="inverted_cdf"),
        A.astype(np.complex64),
    )
    case(
        f"{fn}:q_2d",
        lambda m, a, fn=fn: getattr(m, fn)(
            a, np.full((2, 2), 0.5, np.float32), method="inverted_cdf"
        ),
        A,
    )
    case(f"{fn}:out", lambda m, a, fn=fn: getattr(m, fn)(a, 0.5, out=np.zeros(())), A)
    case(f"{fn}:overwrite", lambda m, a, fn=fn: getattr(m, fn)(a, 0.5, overwrite_input=True), A)

for fn in ["percentile", "nanpercentile"]:
    for qn, q in PCT.items():
        for i, (ax, w) in enumerate(AXES_W):
            case(
                f"{fn}:icdf:w{i}:q={qn}:axis={ax}",
                lambda m, a, q, w, fn=fn, ax=ax: getattr(m, fn)(
                    a, q, axis=ax, method="inverted_cdf", weights=w
                ),
                A if fn == "percentile" else AN,
                q,
                w,
            )
        case(
            f"{fn}:icdf:q={qn}:kd",
            lambda m, a, q, fn=fn: getattr(m, fn)(
                a, q, axis=1, method="inverted_cdf", keepdims=True
            ),
            A if fn == "percentile" else AN,
            q,
        )
    case(
        f"{fn}:weights_with_linear",
        lambda m, a, w, fn=fn: getattr(m, fn)(a, 50.0, weights=w),
        A,
        W,
    )
    case(
        f"{fn}:weights_list",
        lambda m, a, fn=fn: getattr(m, fn)(
            a, 50.0, axis=2, method="inverted_cdf", weights=[1.0] * 4
        ),
        A,
    )

# ---------------- pad: odd reflections
P = np.array([[1.0, 4.0, 2.5, 7.0], [0.5, -3.0, 6.0, 2.0], [9.0, 8.0, -1.0, 3.0]], np.float32)
PAD_ARRAYS = {
    "f32": P,
    "i32": P.astype(np.int32),
    "u8": np.array([[3, 200, 7], [250, 1, 90]], np.uint8),
    "i8": np.array([[3, 100, -7], [-120, 1, 90]], np.int8),
    "f16": P.astype(np.float16),
    "c64": (P + 1j * P[::-1]).astype(np.complex64),
}
WIDTHS: list[Any] = [1, 3, (2, 5), ((0, 4), (3, 1)), ((7, 2), (0, 0)), ((1, 9), (6, 2))]
for mode in ["reflect", "symmetric"]:
    for rt in ["odd", "even"]:
        for pw in WIDTHS:
            case(
                f"pad:{mode}:{rt}:{pw!r}",
                lambda m, x, mode=mode, rt=rt, pw=pw: m.pad(x, pw, mode=mode, reflect_type=rt),
                P,
            )
        for dn, x in PAD_ARRAYS.items():
            case(
                f"pad:{mode}:{rt}:{dn}",
                lambda m, x, mode=mode, rt=rt: m.pad(
                    x, ((2, 1), (4, 3)), mode=mode, reflect_type=rt
                ),
                x,
            )
        for n in [1, 2]:
            for pw in [1, 4, (5, 2)]:
                case(
                    f"pad:{mode}:{rt}:size{n}:{pw!r}",
                    lambda m, x, mode=mode, rt=rt, pw=pw: m.pad(x, pw, mode=mode, reflect_type=rt),
                    np.array([2.0, -3.0][:n], np.float32),
                )
    case(
        f"pad:{mode}:odd:bool",
        lambda m, x, mode=mode: m.pad(x, 1, mode=mode, reflect_type="odd"),
        np.array([True, False, True]),
    )
    case(
        f"pad:{mode}:odd:3d",
        lambda m, x, mode=mode: m.pad(x, ((1, 0), (2, 3), (0, 5)), mode=mode, reflect_type="odd"),
        np.arange(24, dtype=np.float32).reshape(2, 3, 4) ** 2,
    )
    case(
        f"pad:{mode}:bad_reflect_type",
        lambda m, x, mode=mode: m.pad(x, 1, mode=mode, reflect_type="weird"),
        P,
    )
    case(f"pad:{mode}:scalar", lambda m, x, mode=mode: m.pad(x, 2, mode=mode), np.float32(3.0))

# ---------------- pad: empty axes
E = np.zeros((0, 3), np.float32)
for mode in ["constant", "edge", "wrap", "reflect", "symmetric", "linear_ramp", "empty"]:
    for pw in [1, ((0, 0), (1, 2))]:
        case(
            f"pad:empty_axis:{mode}:{pw!r}",
            lambda m, x, mode=mode, pw=pw: m.pad(x, pw, mode=mode),
            E,
        )
for mode in ["edge", "wrap"]:
    for pw in [1, 4, ((3, 0), (0, 5)), ((2, 7), (9, 1))]:
        case(f"pad:{mode}:{pw!r}", lambda m, x, mode=mode, pw=pw: m.pad(x, pw, mode=mode), P)

# ---------------- pad: constant values per axis
CV: dict[str, Any] = {
    "scalar": 9,
    "float": 1.75,
    "(1,)": (5,),
    "(2,)": (5, 6),
    "(1, 2)": ((5, 6),),
    "(2, 1)": ((5,), (6,)),
    "(2, 2)": ((1, 2), (3, 4)),
    "np(2, 2)": np.array([[1.5, 2.5], [3.5, 4.5]], np.float32),
    "np(1, 1)": np.array([[7]], np.int32),
    "list_of_np": [np.float32(1), np.float32(2)],
    "(3,)": (5, 6, 7),
    "(3, 2)": np.ones((3, 2)),
    "(2, 3)": np.ones((2, 3)),
    "(1, 2, 2)": np.ones((1, 2, 2)),
    "ragged": ((1, 2), (3,)),
    "none": None,
    "str": "a",
}
for cn, cv in CV.items():
    for dn in ["f32", "i32", "u8"]:
        case(
            f"pad:constant:{cn}:{dn}",
            lambda m, x, cv=cv: m.pad(x, ((1, 2), (3, 1)), constant_values=cv),
            PAD_ARRAYS[dn],
        )
case(
    "pad:constant:traced_pairs",
    lambda m, x, cv: m.pad(x, ((1, 2), (3, 1)), constant_values=cv),
    P,
    np.array([[1.0, 2.0], [3.0, 4.0]], np.float32),
)
case(
    "pad:constant:traced_pair",
    lambda m, x, cv: m.pad(x, 2, constant_values=cv),
    P,
    np.array([-1.0, 8.0], np.float32),
)
case(
    "pad:constant:3d_pairs",
    lambda m, x: m.pad(x, ((1, 1), (0, 2), (2, 0)), constant_values=((1, 2), (3, 4), (5, 6))),
    np.arange(24, dtype=np.int32).reshape(2, 3, 4),
)
case(
    "pad:constant:bool_pairs",
    lambda m, x: m.pad(x, 1, constant_values=((True, False), (False, True))),
    np.array([[True, False], [False, False]]),
)
case(
    "pad:constant:scalar_array", lambda m, x: m.pad(x, 2, constant_values=((1, 2),)), np.float32(3)
)

# ---------------- pad: per-axis end_values and stat_length
for kw in [
    {"end_values": ((1, 2), (3, 4))},
    {"end_values": ((1.5, -2.25),)},
    {"end_values": np.array([[1, 2], [3, 4]])},
    {"end_values": ((1,), (3,))},
]:
    for dn in ["f32", "i32"]:
        case(
            f"pad:linear_ramp:{kw!r}:{dn}",
            lambda m, x, kw=kw: m.pad(x, ((2, 3), (1, 4)), mode="linear_ramp", **kw),
            PAD_ARRAYS[dn],
        )
for mode in ["maximum", "minimum", "mean", "median"]:
    for kw in [
        {"stat_length": ((1, 2), (3, 1))},
        {"stat_length": ((2, 9),)},
        {"stat_length": np.array([[1, 3], [2, 2]])},
        {"stat_length": (2, 1)},
        {"stat_length": ((1,), (3,))},
        {"stat_length": ((0, 1), (1, 1))},
        {"stat_length": 1.5},
        {"stat_length": -1},
    ]:
        case(
            f"pad:{mode}:{kw!r}",
            lambda m, x, mode=mode, kw=kw: m.pad(x, ((2, 1), (1, 3)), mode=mode, **kw),
            PAD_ARRAYS["i32"],
        )


# ---------------- pad: callable modes
def _ends(v: Any, w: Any, i: Any, kw: Any) -> Any:
    # The JAX documentation's form: set both pads from the keyword arguments.
    before, after = w
    v = v.at[:before].set(kw.get("before", 0))
    return v.at[v.shape[0] - after :].set(kw.get("after", 0) + i)


CALLABLE: dict[str, tuple[Any, dict[str, Any]]] = {
    "identity": (lambda v, w, i, kw: v, {}),
    "affine": (lambda v, w, i, kw: v * 2 + i, {}),
    "ends": (_ends, {"before": -10, "after": 10}),
    "ends_default": (_ends, {}),
    "shorter": (lambda v, w, i, kw: v[1:], {}),
    "scalar": (lambda v, w, i, kw: v.sum(), {}),
    "none": (lambda v, w, i, kw: None, {}),
    "float_result": (lambda v, w, i, kw: v * 1.5, {}),
    "cumsum": (lambda v, w, i, kw: v.cumsum(), {}),
}
for cn, (func, kws) in CALLABLE.items():
    for dn in ["f32", "i32"]:
        case(
            f"pad:callable:{cn}:{dn}",
            lambda m, x, func=func, kws=kws: m.pad(x, ((1, 2), (2, 0)), func, **kws),
            PAD_ARRAYS[dn],
        )
case(
    "pad:callable:1d",
    lambda m, x: m.pad(x, 2, _ends, before=-1, after=1),
    np.arange(3, dtype=np.int32),
)
case(
    "pad:callable:3d",
    lambda m, x: m.pad(x, ((1, 0), (0, 2), (1, 1)), lambda v, w, i, kw: v + i),
    np.arange(24, dtype=np.float32).reshape(2, 3, 4),
)
case("pad:callable:scalar", lambda m, x: m.pad(x, 1, lambda v, w, i, kw: v), np.float32(3))
case("pad:callable:empty_axis", lambda m, x: m.pad(x, 1, lambda v, w, i, kw: v + 1), E)
case(
    "pad:callable:width_values",
    lambda m, x: m.pad(x, ((1, 2), (3, 0)), lambda v, w, i, kw: v + w[0] * 10 + w[1] * 100),
    P,
)

# ---------------- Python numbers out of a dtype's range
# Weak Python integers meeting an integer array wrap into its dtype once they
# fit the default integer (int32); explicit constructions refuse them.
X8 = np.array([1, -2, 100], np.int8)
XU8 = np.array([1, 2, 200], np.uint8)
XI16 = np.array([1, 2], np.int16)
for label, f, x in [
    ("add(i8, 300)", lambda m, x: m.add(x, 300), X8),
    ("add(i8, -200)", lambda m, x: m.add(x, -200), X8),
    ("add(u8, -1)", lambda m, x: m.add(x, -1), XU8),
    ("i8 + 300", lambda m, x: m.asarray(x) + 300, X8),
    ("300 + i8", lambda m, x: 300 + m.asarray(x), X8),
    ("i8 * 300", lambda m, x: m.asarray(x) * 300, X8),
    ("multiply(i16, 70000)", lambda m, x: m.multiply(x, 70000), XI16),
    ("add(i8, 2**31 - 1)", lambda m, x: m.add(x, 2**31 - 1), X8),
    ("add(i8, -2**31)", lambda m, x: m.add(x, -(2**31)), X8),
    ("add(i8, 2**31)", lambda m, x: m.add(x, 2**31), X8),
    ("add(i8, 2**40)", lambda m, x: m.add(x, 2**40), X8),
    ("add(i8, 2**64)", lambda m, x: m.add(x, 2**64), X8),
    ("equal(i8, 300)", lambda m, x: m.equal(x, 300), X8),
    ("less(i8, 1000)", lambda m, x: m.less(x, 1000), X8),
    ("maximum(u8, -1)", lambda m, x: m.maximum(x, -1), XU8),
    ("where(i8, 1000)", lambda m, x: m.where(x > 0, x, 1000), X8),
    ("where(i8, 2**31)", lambda m, x: m.where(x > 0, x, 2**31), X8),
    ("clip(i8, -300, 300)", lambda m, x: m.clip(x, -300, 300), X8),
    ("at_set(i8, 300)", lambda m, x: m.asarray(x).at[0].set(300), X8),
    ("at_set(i8, -129)", lambda m, x: m.asarray(x).at[0].set(-129), X8),
    ("at_add(i8, 300)", lambda m, x: m.asarray(x).at[1].add(300), X8),
    ("at_set(i8, 2**31)", lambda m, x: m.asarray(x).at[0].set(2**31), X8),
    ("full_like(i8, 300)", lambda m, x: m.full_like(x, 300), X8),
    ("full_like(i8, 2**31)", lambda m, x: m.full_like(x, 2**31), X8),
    ("full_like(u8, -1)", lambda m, x: m.full_like(x, -1), XU8),
    ("max(u8, initial=-1)", lambda m, x: m.max(x, initial=-1), XU8),
    ("max(i8, initial=1000)", lambda m, x: m.max(x, initial=1000), X8),
    ("sum(i8, initial=1000)", lambda m, x: m.sum(x, initial=1000), X8),
    ("add(f16, 70000)", lambda m, x: m.add(x, 70000), np.array([1.0], np.float16)),
    ("add(f16, 1e6)", lambda m, x: m.add(x, 1e6), np.array([1.0], np.float16)),
]:
    case(f"range:{label}", f, x)
for label, f in [
    ("array(2**40, int32)", lambda m: m.array(2**40, dtype=m.int32)),
    ("array(2**31, int32)", lambda m: m.array(2**31, dtype=m.int32)),
    ("array(-1, uint8)", lambda m: m.array(-1, dtype=m.uint8)),
    ("array(300, int8)", lambda m: m.array(300, dtype=m.int8)),
    ("array([300, 1], int8)", lambda m: m.array([300, 1], dtype=m.int8)),
    ("asarray(300, int8)", lambda m: m.asarray(300, dtype=m.int8)),
    ("array(2**40)", lambda m: m.array(2**40)),
    ("array(2**64)", lambda m: m.array(2**64)),
    ("array([-2**40, 1])", lambda m: m.array([-(2**40), 1])),
    ("array(2.5e10, int32)", lambda m: m.array(2.5e10, dtype=m.int32)),
    ("array(1e6, float16)", lambda m: m.array(1e6, dtype=m.float16)),
    ("array(1e40, float32)", lambda m: m.array(1e40, dtype=m.float32)),
    ("int8(300)", lambda m: m.int8(300)),
    ("int8(-129)", lambda m: m.int8(-129)),
    ("uint8(-1)", lambda m: m.uint8(-1)),
    ("int32(2**40)", lambda m: m.int32(2**40)),
    ("uint32(-1)", lambda m: m.uint32(-1)),
    ("int8(127)", lambda m: m.int8(127)),
    ("float16(1e6)", lambda m: m.float16(1e6)),
    ("int8(np.int64(300))", lambda m: m.int8(np.int64(300))),
    ("int8(np.array([300, 1]))", lambda m: m.int8(np.array([300, 1]))),
    ("full(3, 300, int8)", lambda m: m.full(3, 300, dtype=m.int8)),
    ("full(3, 300, uint8)", lambda m: m.full(3, 300, dtype=m.uint8)),
    ("full(3, -1, uint8)", lambda m: m.full(3, -1, dtype=m.uint8)),
    ("full(3, 2**40)", lambda m: m.full(3, 2**40)),
    ("full(2, 2**40, int8)", lambda m: m.full(2, 2**40, dtype=m.int8)),
    ("full(2, -2**63, int8)", lambda m: m.full(2, -(2**63), dtype=m.int8)),
    ("full(2, 2**64, int8)", lambda m: m.full(2, 2**64, dtype=m.int8)),
    ("full(2, 2**31, uint32)", lambda m: m.full(2, 2**31, dtype=m.uint32)),
    ("arange(250, 260, int8)", lambda m: m.arange(250, 260, dtype=m.int8)),
    ("zeros(int32) + 2**40", lambda m: m.zeros(3, m.int32) + 2**40),
]:
    case(f"range:{label}", f)
