"""Keyword arguments, creation, shape and indexing functions, for ``generate_scan.py`` and the tests.

Imports only NumPy. ``CASES`` maps a case name to a function of a NumPy-like
namespace ``m`` (``jax.numpy`` or ``tessela_numpy``) that makes one call:
reductions with axis tuples, negative and out-of-range axes, ``keepdims``,
``where``, ``initial``, ``dtype`` and ``ddof``; ``arange``/``linspace``/
``geomspace``/``logspace``/``eye``/``tri``/``full`` and their dtypes; reshaping,
transposing, joining, splitting, rolling, flipping, repeating, tiling and
padding; ``take``, ``take_along_axis``, NumPy-style indexing and ``.at[]``
updates with repeated and out-of-bounds indices. ``outcome`` records what a
call gives: the exception class name, or per output its dtype, shape, weak
type and values (six significant digits).
"""

from __future__ import annotations

from typing import Any

import numpy as np

A = np.arange(24, dtype=np.float32).reshape(2, 3, 4) - 7.5
AI = (np.arange(24, dtype=np.int32).reshape(2, 3, 4) % 7) - 2
AB = (np.arange(12).reshape(3, 4) % 3) == 0
AN = np.array([[1.0, np.nan, 3.0], [np.nan, np.nan, np.nan], [-2.0, 5.0, 0.5]], np.float32)
AU8 = np.array([[200, 100, 3], [255, 1, 0]], np.uint8)
AI8 = np.array([[100, 100, -3], [127, 1, 0]], np.int8)
AF16 = np.array([[60000, 10000, 3], [1.5, 2, 0]], np.float16)
W = (np.arange(24).reshape(2, 3, 4) % 3) != 1
W2 = np.array([True, False, True, True])
V = np.arange(10, dtype=np.float32)
VI = np.arange(10, dtype=np.int32)
C = np.array([[1 + 2j, 3 - 1j], [0, -2j]], np.complex64)

CASES: dict[str, Any] = {}


def case(name: str, f: Any) -> None:
    assert name not in CASES, name
    CASES[name] = f


# ---------------- reductions
RED = [
    "sum",
    "prod",
    "max",
    "min",
    "mean",
    "var",
    "std",
    "any",
    "all",
    "argmax",
    "argmin",
    "cumsum",
    "cumprod",
    "nansum",
    "nanprod",
    "nanmax",
    "nanmin",
    "nanmean",
    "nanvar",
    "nanstd",
    "nanargmax",
    "nanargmin",
    "nancumsum",
    "nancumprod",
    "median",
    "nanmedian",
    "ptp",
    "count_nonzero",
    "average",
]
ARR = {"f": A, "i": AI, "b": AB, "n": AN, "u8": AU8, "i8": AI8, "f16": AF16, "c": C}
AXES = [None, 0, -1, (0, 2), (-1, 0), (), 3, (0, 0), 1.0]
for r in RED:
    for an in ["f", "i", "b", "n", "c"]:
        a = ARR[an]
        for ax in AXES:
            case(f"{r}:{an}:axis={ax!r}", lambda m, r=r, a=a, ax=ax: getattr(m, r)(a, axis=ax))
        if r not in (
            "cumsum",
            "cumprod",
            "nancumsum",
            "nancumprod",
            "argmax",
            "argmin",
            "nanargmax",
            "nanargmin",
            "average",
            "count_nonzero",
        ):
            case(
                f"{r}:{an}:keepdims:(0,-1)",
                lambda m, r=r, a=a: getattr(m, r)(a, axis=(0, -1), keepdims=True),
            )
            case(f"{r}:{an}:keepdims:None", lambda m, r=r, a=a: getattr(m, r)(a, keepdims=True))
        else:
            case(
                f"{r}:{an}:keepdims:1", lambda m, r=r, a=a: getattr(m, r)(a, axis=1, keepdims=True)
            )
    case(f"{r}:list", lambda m, r=r: getattr(m, r)([1, 2, 3]))
    case(f"{r}:scalar", lambda m, r=r: getattr(m, r)(3.5))
    case(f"{r}:empty", lambda m, r=r: getattr(m, r)(np.zeros((0, 3), np.float32), axis=0))
    case(f"{r}:empty_all", lambda m, r=r: getattr(m, r)(np.zeros((0, 3), np.float32)))
WHERE_RED = [
    "sum",
    "prod",
    "max",
    "min",
    "mean",
    "var",
    "std",
    "any",
    "all",
    "nansum",
    "nanprod",
    "nanmax",
    "nanmin",
    "nanmean",
    "nanvar",
    "nanstd",
    "count_nonzero",
]
for r in WHERE_RED:
    for an in ["f", "i", "n", "b"]:
        a = ARR[an] if an != "b" else AB.reshape(3, 4)
        w = W if a.shape == (2, 3, 4) else (np.arange(a.size).reshape(a.shape) % 2 == 0)
        case(f"{r}:{an}:where", lambda m, r=r, a=a, w=w: getattr(m, r)(a, where=w))
        case(f"{r}:{an}:where_ax1", lambda m, r=r, a=a, w=w: getattr(m, r)(a, axis=1, where=w))
        case(
            f"{r}:{an}:where_bcast",
            lambda m, r=r, a=a: getattr(m, r)(
                a,
                axis=-1,
                where=np.array(
                    [True, False, True, False][: a.shape[-1]] + [True] * (a.shape[-1] - 4)
                ),
            ),
        )
for r in ["sum", "prod", "max", "min", "nansum", "nanprod", "nanmax", "nanmin"]:
    for an in ["f", "i", "n", "u8"]:
        a = ARR[an]
        case(f"{r}:{an}:initial", lambda m, r=r, a=a: getattr(m, r)(a, initial=5))
        case(f"{r}:{an}:initial_ax", lambda m, r=r, a=a: getattr(m, r)(a, axis=0, initial=-1.5))
        case(
            f"{r}:{an}:initial_where",
            lambda m, r=r, a=a: getattr(m, r)(
                a, axis=-1, initial=2, where=np.ones(a.shape, bool) & (np.arange(a.shape[-1]) > 0)
            ),
        )
    case(
        f"{r}:empty_initial",
        lambda m, r=r: getattr(m, r)(np.zeros((0, 3), np.float32), axis=0, initial=1.0),
    )
    case(
        f"{r}:empty_where_initial",
        lambda m, r=r: getattr(m, r)(A, axis=0, initial=0.0, where=np.zeros(A.shape, bool)),
    )
DT_RED = [
    "sum",
    "prod",
    "mean",
    "var",
    "std",
    "cumsum",
    "cumprod",
    "nansum",
    "nanprod",
    "nanmean",
    "nanvar",
    "nanstd",
    "nancumsum",
    "nancumprod",
]
for r in DT_RED:
    for an in ["f", "i", "b", "u8", "f16"]:
        for dt in ["int32", "float32", "uint8", "float16", "complex64", "bool"]:
            case(
                f"{r}:{an}:dtype={dt}",
                lambda m, r=r, a=ARR[an], dt=dt: getattr(m, r)(a, axis=0, dtype=dt),
            )
        case(f"{r}:{an}:dtype=None", lambda m, r=r, a=ARR[an]: getattr(m, r)(a, dtype=None))
for r in ["var", "std", "nanvar", "nanstd"]:
    for ddof in [0, 1, 2, 5, -1]:
        case(f"{r}:ddof={ddof}", lambda m, r=r, ddof=ddof: getattr(m, r)(A, axis=1, ddof=ddof))
        case(f"{r}:n:ddof={ddof}", lambda m, r=r, ddof=ddof: getattr(m, r)(AN, axis=1, ddof=ddof))
    case(f"{r}:c", lambda m, r=r: getattr(m, r)(C, axis=0))
for r in ["argmax", "argmin", "nanargmax", "nanargmin"]:
    case(f"{r}:nan", lambda m, r=r: getattr(m, r)(AN, axis=1))
    case(f"{r}:nan_none", lambda m, r=r: getattr(m, r)(AN))
    case(f"{r}:ties", lambda m, r=r: getattr(m, r)(np.array([3, 1, 3, 1], np.int32)))
    case(f"{r}:bool", lambda m, r=r: getattr(m, r)(AB, axis=0))
for r in ["cumsum", "cumprod", "nancumsum", "nancumprod"]:
    case(f"{r}:bool_none", lambda m, r=r: getattr(m, r)(AB))
    case(f"{r}:nan_ax0", lambda m, r=r: getattr(m, r)(AN, axis=0))
case(
    "average:weights", lambda m: m.average(A, axis=1, weights=np.array([1.0, 2.0, 3.0], np.float32))
)
case(
    "average:weights_ret",
    lambda m: m.average(A, axis=1, weights=np.array([1.0, 2.0, 3.0], np.float32), returned=True),
)
case(
    "average:weights_i", lambda m: m.average(AI, axis=-1, weights=np.array([1, 2, 3, 4], np.int32))
)
case("average:weights_zero", lambda m: m.average(A, axis=1, weights=np.zeros(3, np.float32)))
case("average:keepdims", lambda m: m.average(A, axis=(0, 2), keepdims=True))
case("median:keepdims", lambda m: m.median(A, axis=(0, 2), keepdims=True))
case("quantile:axis", lambda m: m.quantile(A, 0.3, axis=(0, 2)))
case("quantile:method", lambda m: m.quantile(A, np.array([0.1, 0.9]), axis=1, method="nearest"))
case("percentile:keep", lambda m: m.percentile(AI, 40, axis=-1, keepdims=True))
case("nanpercentile", lambda m: m.nanpercentile(AN, 50, axis=1))
case("sum:out", lambda m: m.sum(A, out=None))
case("mean:where_allfalse", lambda m: m.mean(A, axis=0, where=np.zeros(A.shape, bool)))
case("max:empty_noinitial", lambda m: m.max(np.zeros((0,), np.float32)))
case("argmax:empty1d", lambda m: m.argmax(np.zeros((0,), np.float32)))
case("argmax:keepdims_none", lambda m: m.argmax(A, keepdims=True))
case("ptp:i8", lambda m: m.ptp(AI8, axis=1))
case("ptp:u8", lambda m: m.ptp(AU8, axis=1))
case("mean:u8", lambda m: m.mean(AU8, axis=1))
case("mean:i8_dtype_i8", lambda m: m.mean(AI8, axis=1, dtype="int8"))
case("sum:u8_big", lambda m: m.sum(AU8, axis=1))
case("sum:i8_big", lambda m: m.sum(AI8))
case("cumsum:u8", lambda m: m.cumsum(AU8, axis=1))
case("prod:b", lambda m: m.prod(AB, axis=0))

# ---------------- creation
for args in [
    (5,),
    (1, 2, 0.3),
    (0.5, 3),
    (5, 1, -1),
    (5, 1, -1.5),
    (1.0, 0.0, 0.1),
    (0, 1, 0.1),
    (3, 3),
    (3, 1),
    (2.0,),
    (-3,),
    (0, 10, 3),
    (10, 0, -3),
    (0.1, 0.35, 0.05),
    (1, 2, 0),
    (True,),
    (1 + 1j,),
    (0, 5.5),
]:
    case(f"arange{args!r}", lambda m, args=args: m.arange(*args))
    for dt in ["int32", "float32", "uint8", "float16", "bool", "int8", "complex64"]:
        case(f"arange{args!r}:{dt}", lambda m, args=args, dt=dt: m.arange(*args, dtype=dt))
case("arange:stop_kw", lambda m: m.arange(2, stop=7))
case("arange:step_kw", lambda m: m.arange(0, 10, step=4))
case("arange:npint", lambda m: m.arange(np.int8(5)))
case("arange:npf32", lambda m: m.arange(np.float32(2.5)))
case("arange:none", lambda m: m.arange(None))
for args, kw in [
    ((0, 1, 5), {}),
    ((0, 1, 5), {"endpoint": False}),
    ((0, 1, 0), {}),
    ((0, 1, 1), {}),
    ((0, 1, 1), {"endpoint": False}),
    ((2, -3, 4), {"dtype": "int32"}),
    ((0, 10, 4), {"dtype": "int8"}),
    ((0, 1, 5), {"retstep": True}),
    ((0, 1, 1), {"retstep": True}),
    ((0, 1, 0), {"retstep": True}),
    ((0, 1, 5), {"endpoint": False, "retstep": True}),
    (([0, 1], [2, 5], 3), {}),
    (([0, 1], [2, 5], 3), {"axis": 1}),
    (([0, 1], [2, 5], 3), {"axis": -1}),
    ((np.float16(0), 1, 4), {}),
    ((0, 1, 4), {"dtype": "float16"}),
    ((0, 1, -1), {}),
    ((0, 1, 2.5), {}),
    ((1, 1, 3), {"retstep": True}),
    ((0, 100, 7), {"dtype": "uint8"}),
    ((0j, 1 + 1j, 3), {}),
    ((5, 0, 6), {"dtype": "int32"}),
    ((-5, 5, 5), {"dtype": "int32", "endpoint": False}),
]:
    case(f"linspace{args!r}{kw!r}", lambda m, args=args, kw=kw: m.linspace(*args, **kw))
for fn in ["geomspace", "logspace"]:
    for args, kw in [
        ((1, 1000, 4), {}),
        ((1, 1000, 4), {"endpoint": False}),
        ((1, 2, 1), {}),
        ((1, 2, 0), {}),
        ((-1, -100, 3), {}),
        ((2, 3, 4), {"base": 2.0}),
        ((1, 16, 5), {"dtype": "int32"}),
        (([1, 2], [10, 20], 3), {"axis": 1}),
        ((0, 3, 4), {"base": 10, "dtype": "float16"}),
        ((1, 0, 3), {}),
        ((1, -8, 4), {}),
        ((1j, 10j, 3), {}),
    ]:
        if fn == "geomspace":
            kw = {k: v for k, v in kw.items() if k != "base"}
        case(f"{fn}{args!r}{kw!r}", lambda m, fn=fn, args=args, kw=kw: getattr(m, fn)(*args, **kw))
for args, kw in [
    ((3,), {}),
    ((3, 4), {}),
    ((3, 4), {"k": 1}),
    ((3, 4), {"k": -2}),
    ((3,), {"k": 5}),
    ((3, 2), {"k": -1, "dtype": "int32"}),
    ((0,), {}),
    ((3, 0), {}),
    ((2,), {"dtype": "bool"}),
    ((2, None, 1), {}),
    ((3,), {"M": 5, "k": 2}),
    ((-1,), {}),
    ((2.0,), {}),
]:
    case(f"eye{args!r}{kw!r}", lambda m, args=args, kw=kw: m.eye(*args, **kw))
for args, kw in [
    ((3,), {}),
    ((3, 4), {}),
    ((3, 4, 1), {}),
    ((3, 4, -1), {}),
    ((3,), {"k": 2, "dtype": "int32"}),
    ((0,), {}),
    ((3, 2), {"dtype": "bool"}),
]:
    case(f"tri{args!r}{kw!r}", lambda m, args=args, kw=kw: m.tri(*args, **kw))
for fn in ["tril", "triu"]:
    for k in [0, 1, -1, 5, -5]:
        case(f"{fn}:k={k}", lambda m, fn=fn, k=k: getattr(m, fn)(A, k=k))
        case(f"{fn}:2d:k={k}", lambda m, fn=fn, k=k: getattr(m, fn)(AI[0], k))
    case(f"{fn}:1d", lambda m, fn=fn: getattr(m, fn)(V[:4]))
    case(f"{fn}:bool", lambda m, fn=fn: getattr(m, fn)(AB))
for fn in ["zeros", "ones", "empty"]:
    for dt in [
        "int32",
        "float32",
        "bool",
        "uint8",
        "complex64",
        "float16",
        "i4",
        "f8",
        "float64",
        "int64",
        "<f4",
        "bfloat16",
        "int",
        "float",
        "complex",
        None,
    ]:
        case(
            f"{fn}:{dt}",
            lambda m, fn=fn, dt=dt: (
                getattr(m, fn)((2, 3), dtype=dt)
                if fn != "empty"
                else getattr(m, fn)((2, 3), dtype=dt).dtype
            ),
        )
    case(f"{fn}:int_shape", lambda m, fn=fn: getattr(m, fn)(3).shape)
    case(f"{fn}:np_shape", lambda m, fn=fn: getattr(m, fn)(np.int64(3)).shape)
    case(f"{fn}:neg", lambda m, fn=fn: getattr(m, fn)((2, -1)))
    case(f"{fn}:float_shape", lambda m, fn=fn: getattr(m, fn)(2.0))
    case(f"{fn}:array_shape", lambda m, fn=fn: getattr(m, fn)(np.array([2, 3])).shape)
for fv, dt in [
    (7, None),
    (7, "float32"),
    (1.5, "int32"),
    (True, None),
    (1 + 2j, None),
    (300, "uint8"),
    (-1, "uint8"),
    (2.5, "bool"),
    (np.float16(3), None),
    (np.array([1, 2, 3]), None),
    (np.array([1.5, 2.5, 3.5]), "int32"),
    (np.nan, "int32"),
    (7, "i2"),
    (0.1, "float16"),
    (2**40, None),
    (np.int8(3), None),
]:
    case(f"full:{fv!r}:{dt}", lambda m, fv=fv, dt=dt: m.full((2, 3), fv, dtype=dt))
case("full:bad_shape_bcast", lambda m: m.full((2, 2), np.array([1, 2, 3])))
for n, dt in [(3, None), (0, None), (2, "int32"), (2, "bool"), (-1, None), (2.0, None)]:
    case(f"identity:{n}:{dt}", lambda m, n=n, dt=dt: m.identity(n, dtype=dt))

# ---------------- shape ops
for shp, order in [
    ((6, 4), "C"),
    ((-1, 2), "C"),
    ((4, -1), "F"),
    ((2, -1, 3), "F"),
    ((-1,), "C"),
    (-1, "C"),
    ((-1, -1), "C"),
    ((5, -1), "C"),
    ((24,), "A"),
    ((3, 8), "K"),
    ((3, 8), "X"),
    ((0, -1), "C"),
    ((2, 3, 4), "F"),
]:
    case(
        f"reshape:{shp}:{order}",
        lambda m, shp=shp, order=order: m.reshape(m.asarray(A), shp, order=order),
    )
case("reshape:method_varargs", lambda m: m.asarray(A).reshape(4, 6))
case("reshape:method_F", lambda m: m.asarray(A).reshape(4, -1, order="F"))
case("reshape:shape_kw", lambda m: m.reshape(m.asarray(A), shape=(4, 6)))
for ax in [None, (2, 0, 1), (-1, 0, -2), (0, 1), (0, 0, 1), (0, 1, 3), (1, -4, 0)]:
    case(f"transpose:{ax}", lambda m, ax=ax: m.transpose(A, ax))
case("transpose:method_varargs", lambda m: m.asarray(A).transpose(2, 0, 1))
case("transpose:method_neg", lambda m: m.asarray(A).transpose(-1, -3, -2))
case("permute_dims", lambda m: m.permute_dims(A, (1, 0, 2)))
case("matrix_transpose", lambda m: m.matrix_transpose(A))
case("swapaxes:neg", lambda m: m.swapaxes(A, -1, 0))
case("swapaxes:oob", lambda m: m.swapaxes(A, 3, 0))
for s, d in [
    (0, -1),
    (-1, 0),
    ((0, 1), (-1, -2)),
    ((0, 1), (2, 0)),
    (0, 3),
    ((0, 0), (1, 2)),
    ((0, 1), (1,)),
    (1, 1),
    ([0], [2]),
]:
    case(f"moveaxis:{s}:{d}", lambda m, s=s, d=d: m.moveaxis(A, s, d))
case("rollaxis", lambda m: m.rollaxis(A, 2, 0))
case("rollaxis:start", lambda m: m.rollaxis(A, 0, 3))
S1 = np.arange(6, dtype=np.float32).reshape(1, 2, 1, 3, 1)
for ax in [None, 0, -1, (0, 2), (0, -1, 2), 1, (0, 0), 5, ()]:
    case(f"squeeze:{ax}", lambda m, ax=ax: m.squeeze(S1, axis=ax))
case("squeeze:method", lambda m: m.asarray(S1).squeeze(0))
for ax in [0, -1, (0, 1), (0, -1), (-1, -2), (1, 3), (0, 4), (5,), (0, 0), (), -5, [0, 2]]:
    case(f"expand_dims:{ax}", lambda m, ax=ax: m.expand_dims(A[0], ax))
B2 = np.arange(6, dtype=np.int32).reshape(2, 3)
for ax in [0, 1, -1, -2, None, 2, -3]:
    case(f"concatenate:{ax}", lambda m, ax=ax: m.concatenate([A[0], A[1]], axis=ax))
    case(
        f"concatenate_mixed:{ax}",
        lambda m, ax=ax: (
            m.concatenate([A[0], B2[:, :, None][:, :, [0, 0, 0, 0]][:, :3]], axis=ax)
            if ax is None or ax in (0, -2)
            else m.concatenate([A[0], B2[:, :2].repeat(2, 0)[:3, :]], axis=ax)
        ),
    )
    case(f"stack:{ax}", lambda m, ax=ax: m.stack([B2, B2 + 1], axis=ax))
case("concatenate:dtype", lambda m: m.concatenate([B2, B2], axis=0, dtype="float16"))
case("concatenate:tuple_of_lists", lambda m: m.concatenate(([1, 2], [3.5])))
case("concatenate:scalar", lambda m: m.concatenate([np.float32(1), np.float32(2)]))
case("concatenate:empty", lambda m: m.concatenate([]))
case("concatenate:weak", lambda m: m.concatenate([np.array([1], np.int8), m.asarray(3)[None]]))
case("concatenate:bool_int", lambda m: m.concatenate([np.array([True]), np.array([3], np.uint8)]))
case("stack:dtype", lambda m: m.stack([B2, B2], dtype="float32"))
case("stack:empty", lambda m: m.stack([]))
case("stack:mismatch", lambda m: m.stack([B2, B2[:1]]))
case("stack:scalars", lambda m: m.stack([1, 2.5]))
for fn in ["hstack", "vstack", "dstack", "column_stack", "row_stack"]:
    if fn == "row_stack":
        continue
    case(f"{fn}:1d", lambda m, fn=fn: getattr(m, fn)([V[:3], V[3:6]]))
    case(f"{fn}:2d", lambda m, fn=fn: getattr(m, fn)([B2, B2]))
    case(f"{fn}:scalar", lambda m, fn=fn: getattr(m, fn)([1, 2]))
for fn in ["split", "array_split"]:
    for sec, ax in [
        (2, 0),
        (3, 1),
        (4, -1),
        (2, -1),
        ([1, 2], 2),
        ([0, 3], -1),
        ([2, 1], 2),
        ([-1], 2),
        ([5, 8], 2),
        ([], 1),
        (np.array([1, 3]), 2),
        (3, 2),
        (5, 2),
        (0, 0),
        (1, 3),
    ]:
        case(f"{fn}:{sec!r}:{ax}", lambda m, fn=fn, sec=sec, ax=ax: getattr(m, fn)(A, sec, axis=ax))
    case(f"{fn}:1d_5", lambda m, fn=fn: getattr(m, fn)(V, 5))
    case(f"{fn}:1d_4", lambda m, fn=fn: getattr(m, fn)(V, 4))
for fn in ["hsplit", "vsplit", "dsplit"]:
    case(f"{fn}:2", lambda m, fn=fn: getattr(m, fn)(A, 2))
    case(f"{fn}:idx", lambda m, fn=fn: getattr(m, fn)(A, [1]))
case("hsplit:1d", lambda m: m.hsplit(V, 2))
for sh, ax in [
    (1, None),
    (-1, None),
    (25, None),
    (2, 0),
    (-1, -1),
    ((1, 2), (0, 2)),
    ((1, 1), (1, 1)),
    (3, (0, 1)),
    ((1, 2), 0),
    (1, 3),
    (0, None),
    (np.int32(2), 1),
]:
    case(f"roll:{sh!r}:{ax!r}", lambda m, sh=sh, ax=ax: m.roll(A, sh, axis=ax))
case("roll:empty", lambda m: m.roll(np.zeros((0, 3), np.float32), 1))
for ax in [None, 0, -1, (0, 2), (), (0, 0), 3, [1, 2]]:
    case(f"flip:{ax!r}", lambda m, ax=ax: m.flip(A, axis=ax))
case("fliplr", lambda m: m.fliplr(A))
case("flipud", lambda m: m.flipud(A))
case("fliplr:1d", lambda m: m.fliplr(V))
for k, axes in [
    (1, (0, 1)),
    (2, (0, 1)),
    (3, (0, 1)),
    (-1, (0, 1)),
    (4, (0, 1)),
    (5, (1, 2)),
    (1, (2, 0)),
    (1, (-1, -2)),
    (1, (0, 0)),
    (1, (0, 3)),
    (1, (0,)),
    (-3, (1, -1)),
]:
    case(f"rot90:{k}:{axes}", lambda m, k=k, axes=axes: m.rot90(A, k, axes))
case("rot90:1d", lambda m: m.rot90(V))
for rep, ax in [
    (2, None),
    (2, 0),
    (np.array([1, 0, 2]), 1),
    (np.array([1, 0, 2, 1]), -1),
    ([2], 1),
    (np.array([3]), None),
    (0, 1),
    (-1, 0),
    (np.array([1, 2]), 1),
    (np.array([-1, 1, 1]), 1),
    (3, -3),
    (2, 3),
    (np.array([[1, 2, 3]]), 1),
    (np.array([1.0, 2.0, 1.0]), 1),
    (2.0, 0),
]:
    case(f"repeat:{rep!r}:{ax}", lambda m, rep=rep, ax=ax: m.repeat(A, rep, axis=ax))
case("repeat:total", lambda m: m.repeat(A, np.array([1, 0, 2]), axis=1, total_repeat_length=3))
case("repeat:total_more", lambda m: m.repeat(A, np.array([1, 0, 2]), axis=1, total_repeat_length=5))
case("repeat:scalar", lambda m: m.repeat(3, 4))
case("repeat:method", lambda m: m.asarray(B2).repeat(2, axis=1))
for reps in [2, (2,), (2, 1), (1, 2, 1, 1), (0, 2), (), (3, 1, 1), np.array([2, 2]), (-1,)]:
    case(f"tile:{reps!r}", lambda m, reps=reps: m.tile(B2, reps))
case("tile:scalar", lambda m: m.tile(3, (2, 2)))
P = np.arange(12, dtype=np.float32).reshape(3, 4) + 1
PI = np.arange(12, dtype=np.int32).reshape(3, 4) + 1
for pw in [
    1,
    (1, 2),
    ((1, 2), (0, 3)),
    ((2,), (1,)),
    0,
    ((0, 0), (5, 5)),
    ((1, 2),),
    -1,
    ((1, 2, 3),),
]:
    for mode in [
        "constant",
        "edge",
        "reflect",
        "symmetric",
        "wrap",
        "linear_ramp",
        "maximum",
        "mean",
        "median",
        "minimum",
        "empty",
    ]:
        case(
            f"pad:{pw!r}:{mode}",
            lambda m, pw=pw, mode=mode: (
                m.pad(P, pw, mode=mode) if mode != "empty" else m.pad(P, pw, mode=mode).shape
            ),
        )
    case(f"pad:{pw!r}:int_mean", lambda m, pw=pw: m.pad(PI, pw, mode="mean"))
for mode, kw in [
    ("constant", {"constant_values": 9}),
    ("constant", {"constant_values": ((1, 2), (3, 4))}),
    ("constant", {"constant_values": 1.7}),
    ("linear_ramp", {"end_values": (5, -5)}),
    ("linear_ramp", {"end_values": ((1, 2), (3, 4))}),
    ("reflect", {"reflect_type": "odd"}),
    ("symmetric", {"reflect_type": "odd"}),
    ("maximum", {"stat_length": 2}),
    ("mean", {"stat_length": ((1, 2), (3, 1))}),
    ("minimum", {"stat_length": 0}),
    ("median", {"stat_length": 1}),
    ("constant", {"bogus": 1}),
    ("nosuch", {}),
]:
    case(f"pad:{mode}:{kw!r}", lambda m, mode=mode, kw=kw: m.pad(P, 2, mode=mode, **kw))
    case(
        f"pad:int:{mode}:{kw!r}",
        lambda m, mode=mode, kw=kw: m.pad(PI, ((1, 3), (2, 0)), mode=mode, **kw),
    )
for pw in [3, 5, 7, 9]:
    for mode in ["reflect", "symmetric", "wrap"]:
        case(
            f"pad:large{pw}:{mode}",
            lambda m, pw=pw, mode=mode: m.pad(np.arange(3, dtype=np.float32), pw, mode=mode),
        )
        case(
            f"pad:large{pw}:{mode}:odd",
            lambda m, pw=pw, mode=mode: m.pad(
                np.arange(3, dtype=np.float32) ** 2,
                (pw, 1),
                mode=mode,
                **({"reflect_type": "odd"} if mode != "wrap" else {}),
            ),
        )
case("pad:1elem_reflect", lambda m: m.pad(np.array([2.0], np.float32), 3, mode="reflect"))
case("pad:1elem_symmetric", lambda m: m.pad(np.array([2.0], np.float32), 3, mode="symmetric"))
case("pad:bool", lambda m: m.pad(AB, 1, constant_values=True))
case("pad:u8_ramp", lambda m: m.pad(AU8, 2, mode="linear_ramp", end_values=0))
case("pad:callable", lambda m: m.pad(P, 1, mode=lambda v, w, i, kw: v))

# ---------------- indexing
T = np.arange(12, dtype=np.float32).reshape(3, 4) * 1.5
for idx, ax, mode in [
    (np.array([0, 2, -1]), None, None),
    (np.array([0, 2, -1]), 1, None),
    (np.array([0, 5, -7]), 1, "clip"),
    (np.array([0, 5, -7]), 1, "wrap"),
    (np.array([0, 5, -5]), 1, "fill"),
    (np.array([0, 5, -5]), 1, None),
    (np.array([0, 12, -13]), None, None),
    (np.array([0, 12, -13]), None, "clip"),
    (np.array([[0, 1], [2, -1]]), 0, None),
    (np.array([[0, 1], [2, -1]]), -1, "wrap"),
    (2, 1, None),
    (-1, 0, None),
    (np.array([1, 3]), -2, None),
    (np.array([1, 3]), 2, None),
    (np.array([1.0]), 0, None),
    (np.array([], np.int32), 1, None),
    ([0, 1], 0, None),
    (np.array([0, 1], np.uint8), 0, None),
    (np.array([0, 1]), 0, "raise"),
    (np.array([0, 4]), 0, "bogus"),
    (np.array([True, False, True]), 0, None),
    (np.int8(-1), 0, None),
]:
    case(
        f"take:{idx!r}:{ax}:{mode}",
        lambda m, idx=idx, ax=ax, mode=mode: m.take(T, idx, axis=ax, mode=mode),
    )
case("take:fill_value", lambda m: m.take(T, np.array([0, 9]), axis=1, mode="fill", fill_value=-1.0))
case("take:int_fill", lambda m: m.take(VI, np.array([0, 12, -12])))
case("take:bool_fill", lambda m: m.take(np.array([True, False]), np.array([0, 5])))
case("take:unsigned_fill", lambda m: m.take(AU8, np.array([0, 5]), axis=1))
case("take:method", lambda m: m.asarray(T).take(np.array([1, -1]), axis=0))
for idx, ax in [
    (np.array([[0, 2, 1, 3]]), 1),
    (np.array([[0], [2], [1]]), 1),
    (np.array([[-1, 0, 1, -4]]), 1),
    (np.array([[0, 1, 2, 0]]), 0),
    (np.array([[0], [1]]), -1),
    (np.array([0, 3, 1]), None),
    (np.array([[5, 0, 1, 2]]), 1),
    (np.array([[0, 1]]), 2),
    (np.array([0, 1, 2]), 1),
    (np.array([[1.0, 2.0]]), 1),
    (np.array([[0, -5, 4]]), 1),
    (np.array([[[0]]]), 1),
]:
    case(
        f"take_along_axis:{idx.tolist()}:{ax}",
        lambda m, idx=idx, ax=ax: m.take_along_axis(T, idx, axis=ax),
    )
case("take_along_axis:argsort", lambda m: m.take_along_axis(A, m.argsort(A, axis=1), axis=1))
case(
    "take_along_axis:mode_clip",
    lambda m: m.take_along_axis(T, np.array([[5, 0, -9, 2]]), axis=1, mode="clip"),
)
case(
    "take_along_axis:mode_fill",
    lambda m: m.take_along_axis(T, np.array([[5, 0, -9, 2]]), axis=1, mode="fill", fill_value=7),
)
I1, I2 = np.array([0, 1]), np.array([2, 0])
IDX = {
    "int": (1,),
    "neg": (-1,),
    "slice_step": (slice(None, None, -2),),
    "none": (None,),
    "ell": (Ellipsis,),
    "ell_int": (Ellipsis, 1),
    "none_ell_none": (None, Ellipsis, None),
    "arr": (I1,),
    "arr_arr": (I1, I2),
    "arr_slice_arr": (I1, slice(None), I2 % 4 if False else np.array([3, 1])),
    "slice_arr_arr": (slice(None), np.array([0, 2]), np.array([1, 3])),
    "arr_none_arr": (I1, None, I2),
    "ell_arr": (Ellipsis, np.array([0, 3, -1])),
    "none_arr": (None, I1),
    "bool_full": (W,),
    "bool_2d": (W[0],),
    "bool_1d": (np.array([True, False]),),
    "bool_mid": (slice(None), np.array([True, False, True])),
    "bool_last": (Ellipsis, np.array([True, False, False, True])),
    "bool_arr": (np.array([False, True]), I2),
    "bool_scalar": (True,),
    "bool_scalar_f": (False,),
    "arr2d": (np.array([[0, 1], [1, 0]]),),
    "arr_bcast": (np.array([[0], [1]]), np.array([0, 2, 1])),
    "int_arr_int": (0, np.array([2, 0]), 3),
    "slice_int_arr": (slice(1, None), 0, np.array([3, 2])),
    "neg_arr": (np.array([-1, -2]),),
    "oob_int": (5,),
    "oob_arr": (np.array([0, 5]),),
    "too_many": (0, 0, 0, 0),
    "two_ell": (Ellipsis, Ellipsis),
    "float_idx": (1.0,),
    "float_arr": (np.array([1.0]),),
    "list_idx": ([0, 1],),
    "list_of_lists": ([[0, 1], [1, 0]],),
    "tuple_in_list": ([0, 1], [2, 0]),
    "empty_arr": (np.array([], np.int32),),
    "arr_none_slice_arr": (I1, None, slice(None), I2),
    "slice_neg": (slice(-1, -3, -1), slice(None, None, 2)),
    "slice_big": (slice(-100, 100),),
    "uint_arr": (np.array([1, 0], np.uint8),),
    "scalar_arr": (np.array(1),),
    "none_bool": (None, np.array([True, False])),
    "mixed_sep": (I1, slice(0, 2), None, np.array([1, 2])),
}
for n, idx in IDX.items():
    case(f"getitem:{n}", lambda m, idx=idx: m.asarray(A)[idx])
for n in [
    "int",
    "arr",
    "arr_arr",
    "slice_arr_arr",
    "arr_none_arr",
    "bool_full",
    "bool_mid",
    "ell_arr",
    "neg_arr",
    "oob_arr",
    "arr_bcast",
    "mixed_sep",
    "oob_int",
    "slice_step",
]:
    idx = IDX[n]
    case(f"at_set:{n}", lambda m, idx=idx: m.asarray(A).at[idx].set(100.0))
    case(f"at_add:{n}", lambda m, idx=idx: m.asarray(A).at[idx].add(1.0))
    case(f"at_get:{n}", lambda m, idx=idx: m.asarray(A).at[idx].get())
DUP = np.array([0, 1, 0, 0, -2])
for op in ["set", "add", "multiply", "min", "max", "subtract", "divide", "power"]:
    case(
        f"at_{op}:dup",
        lambda m, op=op: getattr(m.asarray(V).at[DUP], op)(np.array([1.5, 2, 3, 4, 5], np.float32)),
    )
    case(
        f"at_{op}:dup_int",
        lambda m, op=op: getattr(m.asarray(VI).at[DUP], op)(np.array([2, 2, 3, 4, 5], np.int32)),
    )
    case(f"at_{op}:oob", lambda m, op=op: getattr(m.asarray(V).at[np.array([11, -11, 3])], op)(2.0))
    case(
        f"at_{op}:oob_drop",
        lambda m, op=op: getattr(m.asarray(V).at[np.array([11, -11, 3])], op)(2.0, mode="drop"),
    )
    case(
        f"at_{op}:oob_clip",
        lambda m, op=op: getattr(m.asarray(V).at[np.array([11, -11, 3])], op)(2.0, mode="clip"),
    )
case(
    "at_set:dup_last",
    lambda m: m.asarray(V).at[np.array([1, 1, 1])].set(np.array([7.0, 8.0, 9.0], np.float32)),
)
case("at_add:int_float", lambda m: m.asarray(VI).at[DUP].add(1.7))
case("at_set:int_float", lambda m: m.asarray(VI).at[1].set(2.9))
case("at_set:u8_neg", lambda m: m.asarray(AU8).at[0, 0].set(-1))
case("at_add:bool", lambda m: m.asarray(AB).at[0].add(True))
case("at_set:bcast", lambda m: m.asarray(A).at[:, 1].set(np.array([1, 2, 3, 4], np.float32)))
case("at_set:bad_shape", lambda m: m.asarray(A).at[:, 1].set(np.array([1, 2, 3], np.float32)))
case("at_get:fill", lambda m: m.asarray(V).at[np.array([1, 20])].get(mode="fill", fill_value=-1))
case(
    "at_set:2d_dup",
    lambda m: (
        m.asarray(T).at[np.array([0, 0]), np.array([1, 1])].add(np.array([1.0, 2.0], np.float32))
    ),
)
case("at_apply", lambda m: m.asarray(V).at[DUP].apply(lambda x: x * 2))
case("at_set:weak", lambda m: m.asarray(V).at[0].set(m.asarray(3)))
case("at_mul:dup_int", lambda m: m.asarray(VI).at[np.array([2, 2])].multiply(3))
case("at_set:complex_to_float", lambda m: m.asarray(V).at[0].set(1j))
case("at_set:ellipsis", lambda m: m.asarray(A).at[..., 0].set(0.0))
case("at_set:none", lambda m: m.asarray(A).at[None, 0].set(0.0))
case("at_set:bool_mask_vals", lambda m: m.asarray(V).at[V > 5].set(0.0))
case("at_add:bool_mask", lambda m: m.asarray(A).at[W].add(1.0))
case("at_set:neg_slice", lambda m: m.asarray(V).at[::-3].set(np.array([1, 2, 3, 4], np.float32)))


def _number(v: float) -> Any:
    return float(f"{v:.6g}") if np.isfinite(v) else str(v)


def outcome(call: Any) -> Any:
    """``{"exc": name}`` for an exception, else ``[[dtype, shape, weak, values], ...]``.

    A dtype (``empty``'s cases record ``.dtype``) is ``[dtype]``.
    """
    try:
        result = call()
    except Exception as e:  # the class is the data
        return {"exc": type(e).__name__}
    outs = list(result) if isinstance(result, tuple | list) else [result]
    entry: list[Any] = []
    for out in outs:
        if isinstance(out, np.dtype):
            entry.append([str(out)])
            continue
        a = np.asarray(out)
        if a.dtype.kind == "c":
            values: Any = [[_number(z.real), _number(z.imag)] for z in a.ravel().tolist()]
        elif a.dtype.kind in "biu":
            values = a.astype(np.int64).ravel().tolist()
        else:
            values = [_number(v) for v in a.astype(np.float64).ravel().tolist()]
        entry.append([str(a.dtype), list(a.shape), bool(getattr(out, "weak_type", False)), values])
    return entry


def same_values(got: list[Any], want: list[Any]) -> bool:
    """Whether two outcomes' value lists agree (nested lists, strings, numbers within 1e-4)."""
    if len(got) != len(want):
        return False
    for g, w in zip(got, want, strict=True):
        if isinstance(w, list) or isinstance(g, list):
            if not (isinstance(w, list) and isinstance(g, list) and same_values(g, w)):
                return False
        elif isinstance(w, str) or isinstance(g, str):
            if g != w:
                return False
        elif not np.isclose(g, w, rtol=1e-4, atol=1e-6):
            return False
    return True


def mismatch(call: Any, label: str, want: Any) -> str | None:
    """How ``call()``'s outcome differs from JAX's recorded ``want`` (``None``: it agrees).

    An exception agrees when JAX raised the same class or one of its bases.
    """
    if isinstance(want, dict):
        try:
            call()
        except Exception as e:  # the class is the data
            if want["exc"] in {c.__name__ for c in type(e).__mro__}:
                return None
            return f"{label}: {type(e).__name__}: {e} (JAX: {want['exc']})"
        return f"{label}: a value (JAX: {want['exc']})"
    got = outcome(call)
    if isinstance(got, dict):
        return f"{label}: {got['exc']} (JAX: a value)"
    if len(got) != len(want):
        return f"{label}: {len(got)} outputs (JAX: {len(want)})"
    for g, w in zip(got, want, strict=True):
        if g[:-1] != w[:-1]:
            return f"{label}: {g[:-1]} (JAX: {w[:-1]})"
        if len(w) > 1 and not same_values(g[-1], w[-1]):
            return f"{label}: values {g[-1]} (JAX: {w[-1]})"
    return None


# ---------------- masks that broadcast, more keywords and index forms
AM = A * 0.7 - 1.0
AM[0, 1, :] = np.nan
AM[1, :, 2] = np.nan
WB = np.array([True, False, True, True])
for r in ["mean", "var", "std", "nanmean", "nanvar", "nanstd", "nanmax", "nanmin", "max", "sum"]:
    kw: dict[str, Any] = {"initial": -100.0} if r in ("max", "nanmax", "nanmin") else {}
    for ax in [None, 1, (0, 2), -1]:
        case(
            f"{r}:where_bcast_keep:{ax}",
            lambda m, r=r, ax=ax, kw=kw: getattr(m, r)(AM, axis=ax, keepdims=True, where=WB, **kw),
        )
for r in ["var", "std", "nanvar", "nanstd"]:
    for ddof in [1, 3]:
        case(
            f"{r}:where_ddof={ddof}",
            lambda m, r=r, ddof=ddof: getattr(m, r)(AM, axis=-1, ddof=ddof, where=W),
        )
    case(f"{r}:correction", lambda m, r=r: getattr(m, r)(A, axis=1, correction=1))
    case(
        f"{r}:mean_kw",
        lambda m, r=r: getattr(m, r)(
            A, axis=1, keepdims=True, mean=m.mean(A, axis=1, keepdims=True)
        ),
    )
for meth in ["linear", "lower", "higher", "midpoint", "nearest"]:
    case(
        f"quantile:{meth}",
        lambda m, meth=meth: m.quantile(
            A, np.array([0.0, 0.13, 0.5, 0.77, 1.0]), axis=1, method=meth
        ),
    )
    case(
        f"nanquantile:{meth}",
        lambda m, meth=meth: m.nanquantile(AM, np.array([0.13, 0.5]), axis=(0, 2), method=meth),
    )
    case(
        f"percentile:{meth}:keepdims",
        lambda m, meth=meth: m.percentile(AI, 37.5, axis=(0, 2), method=meth, keepdims=True),
    )
case("moveaxis:(0, 1):(1, 1)", lambda m: m.moveaxis(A, (0, 1), (1, 1)))
case("moveaxis:(-1, -3):(0, -1)", lambda m: m.moveaxis(A, (-1, -3), (0, -1)))
case("ravel:F", lambda m: m.ravel(A, order="F"))
case("ravel:K", lambda m: m.ravel(A, order="K"))
IDX2 = {
    "neg_step_none": (slice(None, None, -1), None, Ellipsis, slice(1, None, -1)),
    "bool0d": (np.array(True), 0),
    "bool0d_false": (np.array(False),),
    "arr_ell_arr": (np.array([0, 1]), Ellipsis, np.array([1, 3])),
    "none_arr_none_arr": (None, np.array([0, 1]), None, np.array([0, 2])),
    "int_none_arr": (1, None, np.array([2, 0, 1])),
    "slice_none_arr_slice": (slice(None), None, np.array([[0, 1]]), slice(1, 3)),
    "mask2_arr": (np.array([[True, False, True], [False, True, False]]), np.array([0, 3, 1])),
    "neg_arr_neg": (-1, np.array([-1, -3]), -2),
    "empty_bool": (np.zeros((2, 3, 4), bool),),
    "step_big": (slice(None, None, 5), slice(None, None, 3)),
    "np_int": (np.int8(1), np.int64(-1)),
}
for n, idx in IDX2.items():
    case(f"getitem:{n}", lambda m, idx=idx: m.asarray(A)[idx])
    case(f"at_add:{n}", lambda m, idx=idx: m.asarray(A).at[idx].add(1.0))
    case(f"at_min:{n}", lambda m, idx=idx: m.asarray(A).at[idx].min(0.0))
case(
    "at_add:arr_bcast_vals",
    lambda m: m.asarray(A).at[np.array([[0], [1]]), np.array([0, 2, 0])].add(np.arange(3.0)),
)
case("at_get:clip", lambda m: m.asarray(A).at[np.array([-3, 2, 5])].get(mode="clip"))
case("take_along_axis:bcast", lambda m: m.take_along_axis(A, np.array([[[0], [3], [-1]]]), axis=-1))
case("take:neg_axis_wrap", lambda m: m.take(A, np.array([-4, 5]), axis=-1, mode="wrap"))
case("take:int_fill_neg", lambda m: m.take(AI, np.array([-1, -25, 23])))
for _w, _ax in [
    ((2, 4), (0, 2)),
    ((4, 2), (2, 0)),
    ((3,), (0, 2)),
    ((2, 4), (2, 0)),
    ((3, 4), (-2, -1)),
    ((5,), 1),
]:
    case(
        f"average:weights{_w}:axis={_ax}",
        lambda m, _w=_w, _ax=_ax: m.average(
            A, axis=_ax, weights=np.arange(np.prod(_w), dtype=np.float32).reshape(_w) + 1
        ),
    )
