"""NumPy-style arrays over Tessela's tracer: the ``jax.numpy`` names.

Importing this package fills the operator and method table of tracers and
arrays (``x + 1``, ``x[i]``, ``x.at[i].set(v)``, ``x.sum()``, ...).

>>> import tessela_numpy as tnp
>>> from tessela_tracer import make_jaxpr
>>> print(make_jaxpr(lambda x: tnp.sin(x) * 2)(1.0))
{ lambda ; a:f32[]. let b:f32[] = sin a; c:f32[] = mul b 2.0:f32[] in (c,) }
"""

from __future__ import annotations

from tessela_tracer import ArrayOps as ndarray

from . import fft as fft
from . import linalg as linalg
from ._arith import (
    divmod as divmod,
)
from ._arith import (
    gcd as gcd,
)
from ._arith import (
    lcm as lcm,
)
from ._arith import (
    pow as pow,
)
from ._arith import (
    power as power,
)
from ._arith import (
    round as round,
)
from ._array_extras import *  # noqa: F403
from ._array_extras import __all__ as _array_extras_all
from ._choose import choose as choose
from ._choose import compress as compress
from ._convolve import convolve as convolve
from ._convolve import correlate as correlate
from ._creation import (
    array as array,
)
from ._creation import (
    asarray as asarray,
)
from ._creation import (
    empty as empty,
)
from ._creation import (
    empty_like as empty_like,
)
from ._creation import (
    full as full,
)
from ._creation import (
    full_like as full_like,
)
from ._creation import (
    ones as ones,
)
from ._creation import (
    ones_like as ones_like,
)
from ._creation import (
    zeros as zeros,
)
from ._creation import (
    zeros_like as zeros_like,
)
from ._grids_io import *  # noqa: F403
from ._grids_io import __all__ as _grids_io_all
from ._histograms import digitize as digitize
from ._histograms import histogram as histogram
from ._histograms import histogram_bin_edges as histogram_bin_edges
from ._histograms import interp as interp
from ._histograms import polyval as polyval
from ._matrix_ops import cross as cross
from ._matrix_ops import diag as diag
from ._matrix_ops import diagflat as diagflat
from ._matrix_ops import diagonal as diagonal
from ._matrix_ops import eye as eye
from ._matrix_ops import fliplr as fliplr
from ._matrix_ops import flipud as flipud
from ._matrix_ops import identity as identity
from ._matrix_ops import kron as kron
from ._matrix_ops import rot90 as rot90
from ._matrix_ops import trace as trace
from ._matrix_ops import tri as tri
from ._matrix_ops import tril as tril
from ._matrix_ops import triu as triu
from ._methods import astype as astype
from ._methods import install as _install
from ._misc_math import allclose as allclose
from ._misc_math import around as around
from ._misc_math import array_equal as array_equal
from ._misc_math import array_equiv as array_equiv
from ._misc_math import count_nonzero as count_nonzero
from ._misc_math import frexp as frexp
from ._misc_math import i0 as i0
from ._misc_math import isclose as isclose
from ._misc_math import ldexp as ldexp
from ._misc_math import modf as modf
from ._misc_math import nan_to_num as nan_to_num
from ._misc_math import piecewise as piecewise
from ._misc_math import select as select
from ._moments import (
    mean as mean,
)
from ._moments import (
    std as std,
)
from ._moments import (
    var as var,
)
from ._nan_reductions import nancumprod as nancumprod
from ._nan_reductions import nancumsum as nancumsum
from ._nan_reductions import nanmax as nanmax
from ._nan_reductions import nanmean as nanmean
from ._nan_reductions import nanmin as nanmin
from ._nan_reductions import nanprod as nanprod
from ._nan_reductions import nanstd as nanstd
from ._nan_reductions import nansum as nansum
from ._nan_reductions import nanvar as nanvar
from ._numeric_more import *  # noqa: F403
from ._numeric_more import __all__ as _numeric_more_all
from ._numpy_more import *  # noqa: F403
from ._numpy_more import __all__ as _numpy_more_all
from ._numpy_poly import *  # noqa: F403
from ._numpy_poly import __all__ as _numpy_poly_all
from ._pad import pad as pad
from ._products import (
    dot as dot,
)
from ._products import (
    einsum as einsum,
)
from ._products import (
    inner as inner,
)
from ._products import (
    matmul as matmul,
)
from ._products import (
    outer as outer,
)
from ._products import (
    tensordot as tensordot,
)
from ._products import (
    vdot as vdot,
)
from ._quantiles import median as median
from ._quantiles import nanmedian as nanmedian
from ._quantiles import nanpercentile as nanpercentile
from ._quantiles import nanquantile as nanquantile
from ._quantiles import percentile as percentile
from ._quantiles import quantile as quantile
from ._ranges import (
    arange as arange,
)
from ._ranges import (
    linspace as linspace,
)
from ._reductions import (
    all as all,
)
from ._reductions import (
    any as any,
)
from ._reductions import (
    argmax as argmax,
)
from ._reductions import (
    argmin as argmin,
)
from ._reductions import (
    cumprod as cumprod,
)
from ._reductions import (
    cumsum as cumsum,
)
from ._reductions import (
    max as max,
)
from ._reductions import (
    min as min,
)
from ._reductions import (
    prod as prod,
)
from ._reductions import (
    ptp as ptp,
)
from ._reductions import (
    sum as sum,
)
from ._scalar_kinds import *  # noqa: F403
from ._scalar_kinds import __all__ as _scalar_kinds_all
from ._scalar_types import (
    bfloat16 as bfloat16,
)
from ._scalar_types import (
    bool_ as bool_,
)
from ._scalar_types import (
    can_cast as can_cast,
)
from ._scalar_types import (
    complex64 as complex64,
)
from ._scalar_types import (
    complex128 as complex128,
)
from ._scalar_types import (
    dtype as dtype,
)
from ._scalar_types import (
    e as e,
)
from ._scalar_types import (
    euler_gamma as euler_gamma,
)
from ._scalar_types import (
    finfo as finfo,
)
from ._scalar_types import float4_e2m1fn as float4_e2m1fn
from ._scalar_types import float6_e2m3fn as float6_e2m3fn
from ._scalar_types import float6_e3m2fn as float6_e3m2fn
from ._scalar_types import float8_e3m4 as float8_e3m4
from ._scalar_types import float8_e4m3 as float8_e4m3
from ._scalar_types import float8_e4m3b11fnuz as float8_e4m3b11fnuz
from ._scalar_types import float8_e4m3fn as float8_e4m3fn
from ._scalar_types import float8_e4m3fnuz as float8_e4m3fnuz
from ._scalar_types import float8_e5m2 as float8_e5m2
from ._scalar_types import float8_e5m2fnuz as float8_e5m2fnuz
from ._scalar_types import float8_e8m0fnu as float8_e8m0fnu
from ._scalar_types import (
    float16 as float16,
)
from ._scalar_types import (
    float32 as float32,
)
from ._scalar_types import (
    float64 as float64,
)
from ._scalar_types import (
    iinfo as iinfo,
)
from ._scalar_types import (
    inf as inf,
)
from ._scalar_types import int1 as int1
from ._scalar_types import int2 as int2
from ._scalar_types import int4 as int4
from ._scalar_types import (
    int8 as int8,
)
from ._scalar_types import (
    int16 as int16,
)
from ._scalar_types import (
    int32 as int32,
)
from ._scalar_types import (
    int64 as int64,
)
from ._scalar_types import (
    issubdtype as issubdtype,
)
from ._scalar_types import (
    nan as nan,
)
from ._scalar_types import (
    newaxis as newaxis,
)
from ._scalar_types import (
    pi as pi,
)
from ._scalar_types import (
    promote_types as promote_types,
)
from ._scalar_types import (
    result_type as result_type,
)
from ._scalar_types import uint1 as uint1
from ._scalar_types import uint2 as uint2
from ._scalar_types import uint4 as uint4
from ._scalar_types import (
    uint8 as uint8,
)
from ._scalar_types import (
    uint16 as uint16,
)
from ._scalar_types import (
    uint32 as uint32,
)
from ._scalar_types import (
    uint64 as uint64,
)
from ._selection import argpartition as argpartition
from ._selection import lexsort as lexsort
from ._selection import partition as partition
from ._selection import put as put
from ._selection import put_along_axis as put_along_axis
from ._sequences import array_split as array_split
from ._sequences import column_stack as column_stack
from ._sequences import diff as diff
from ._sequences import dsplit as dsplit
from ._sequences import dstack as dstack
from ._sequences import ediff1d as ediff1d
from ._sequences import geomspace as geomspace
from ._sequences import gradient as gradient
from ._sequences import hsplit as hsplit
from ._sequences import logspace as logspace
from ._sequences import meshgrid as meshgrid
from ._sequences import vsplit as vsplit
from ._set_edit import *  # noqa: F403
from ._set_edit import __all__ as _set_edit_all
from ._setops import argwhere as argwhere
from ._setops import bincount as bincount
from ._setops import flatnonzero as flatnonzero
from ._setops import nonzero as nonzero
from ._setops import unique as unique
from ._setops import unique_all as unique_all
from ._setops import unique_counts as unique_counts
from ._setops import unique_inverse as unique_inverse
from ._setops import unique_values as unique_values
from ._setops import where as where
from ._shape_ops import (
    atleast_1d as atleast_1d,
)
from ._shape_ops import (
    atleast_2d as atleast_2d,
)
from ._shape_ops import (
    atleast_3d as atleast_3d,
)
from ._shape_ops import (
    concatenate as concatenate,
)
from ._shape_ops import (
    expand_dims as expand_dims,
)
from ._shape_ops import (
    flip as flip,
)
from ._shape_ops import (
    hstack as hstack,
)
from ._shape_ops import (
    moveaxis as moveaxis,
)
from ._shape_ops import (
    ravel as ravel,
)
from ._shape_ops import (
    reshape as reshape,
)
from ._shape_ops import (
    split as split,
)
from ._shape_ops import (
    squeeze as squeeze,
)
from ._shape_ops import (
    stack as stack,
)
from ._shape_ops import (
    swapaxes as swapaxes,
)
from ._shape_ops import (
    transpose as transpose,
)
from ._shape_ops import (
    vstack as vstack,
)
from ._sorting import argsort as argsort
from ._sorting import nanargmax as nanargmax
from ._sorting import nanargmin as nanargmin
from ._sorting import searchsorted as searchsorted
from ._sorting import sort as sort
from ._statistics import average as average
from ._statistics import corrcoef as corrcoef
from ._statistics import cov as cov
from ._take import take as take
from ._take import take_along_axis as take_along_axis
from ._tiling import (
    repeat as repeat,
)
from ._tiling import (
    roll as roll,
)
from ._tiling import (
    tile as tile,
)
from ._ufunc_class import frompyfunc as frompyfunc
from ._ufunc_class import ufunc as ufunc
from ._ufuncs import (
    abs as abs,
)
from ._ufuncs import (
    absolute as absolute,
)
from ._ufuncs import (
    add as add,
)
from ._ufuncs import (
    arccos as arccos,
)
from ._ufuncs import (
    arccosh as arccosh,
)
from ._ufuncs import (
    arcsin as arcsin,
)
from ._ufuncs import (
    arcsinh as arcsinh,
)
from ._ufuncs import (
    arctan as arctan,
)
from ._ufuncs import (
    arctan2 as arctan2,
)
from ._ufuncs import (
    arctanh as arctanh,
)
from ._ufuncs import (
    bitwise_and as bitwise_and,
)
from ._ufuncs import (
    bitwise_not as bitwise_not,
)
from ._ufuncs import (
    bitwise_or as bitwise_or,
)
from ._ufuncs import (
    bitwise_xor as bitwise_xor,
)
from ._ufuncs import (
    cbrt as cbrt,
)
from ._ufuncs import (
    ceil as ceil,
)
from ._ufuncs import (
    conj as conj,
)
from ._ufuncs import (
    conjugate as conjugate,
)
from ._ufuncs import (
    copysign as copysign,
)
from ._ufuncs import (
    cos as cos,
)
from ._ufuncs import (
    cosh as cosh,
)
from ._ufuncs import (
    deg2rad as deg2rad,
)
from ._ufuncs import (
    degrees as degrees,
)
from ._ufuncs import (
    divide as divide,
)
from ._ufuncs import (
    equal as equal,
)
from ._ufuncs import (
    exp as exp,
)
from ._ufuncs import (
    exp2 as exp2,
)
from ._ufuncs import (
    expm1 as expm1,
)
from ._ufuncs import (
    fabs as fabs,
)
from ._ufuncs import (
    float_power as float_power,
)
from ._ufuncs import (
    floor as floor,
)
from ._ufuncs import (
    floor_divide as floor_divide,
)
from ._ufuncs import (
    fmax as fmax,
)
from ._ufuncs import (
    fmin as fmin,
)
from ._ufuncs import (
    fmod as fmod,
)
from ._ufuncs import (
    greater as greater,
)
from ._ufuncs import (
    greater_equal as greater_equal,
)
from ._ufuncs import (
    heaviside as heaviside,
)
from ._ufuncs import (
    hypot as hypot,
)
from ._ufuncs import (
    imag as imag,
)
from ._ufuncs import (
    invert as invert,
)
from ._ufuncs import (
    isfinite as isfinite,
)
from ._ufuncs import (
    isinf as isinf,
)
from ._ufuncs import (
    isnan as isnan,
)
from ._ufuncs import (
    left_shift as left_shift,
)
from ._ufuncs import (
    less as less,
)
from ._ufuncs import (
    less_equal as less_equal,
)
from ._ufuncs import (
    log as log,
)
from ._ufuncs import (
    log1p as log1p,
)
from ._ufuncs import (
    log2 as log2,
)
from ._ufuncs import (
    log10 as log10,
)
from ._ufuncs import (
    logaddexp as logaddexp,
)
from ._ufuncs import (
    logaddexp2 as logaddexp2,
)
from ._ufuncs import (
    logical_and as logical_and,
)
from ._ufuncs import (
    logical_not as logical_not,
)
from ._ufuncs import (
    logical_or as logical_or,
)
from ._ufuncs import (
    logical_xor as logical_xor,
)
from ._ufuncs import (
    maximum as maximum,
)
from ._ufuncs import (
    minimum as minimum,
)
from ._ufuncs import (
    mod as mod,
)
from ._ufuncs import (
    multiply as multiply,
)
from ._ufuncs import (
    negative as negative,
)
from ._ufuncs import (
    nextafter as nextafter,
)
from ._ufuncs import (
    not_equal as not_equal,
)
from ._ufuncs import (
    positive as positive,
)
from ._ufuncs import (
    rad2deg as rad2deg,
)
from ._ufuncs import (
    radians as radians,
)
from ._ufuncs import (
    real as real,
)
from ._ufuncs import (
    reciprocal as reciprocal,
)
from ._ufuncs import (
    remainder as remainder,
)
from ._ufuncs import (
    right_shift as right_shift,
)
from ._ufuncs import (
    rint as rint,
)
from ._ufuncs import (
    sign as sign,
)
from ._ufuncs import (
    signbit as signbit,
)
from ._ufuncs import (
    sin as sin,
)
from ._ufuncs import (
    sinc as sinc,
)
from ._ufuncs import (
    sinh as sinh,
)
from ._ufuncs import (
    sqrt as sqrt,
)
from ._ufuncs import (
    square as square,
)
from ._ufuncs import (
    subtract as subtract,
)
from ._ufuncs import (
    tan as tan,
)
from ._ufuncs import (
    tanh as tanh,
)
from ._ufuncs import (
    true_divide as true_divide,
)
from ._ufuncs import (
    trunc as trunc,
)
from ._where import (
    broadcast_arrays as broadcast_arrays,
)
from ._where import (
    broadcast_to as broadcast_to,
)
from ._where import (
    clip as clip,
)

_install()

__all__ = [
    "abs", "absolute", "add", "all", "allclose", "any", "arange", "arccos", "arccosh", "arcsin",
    "arcsinh", "arctan", "arctan2", "arctanh", "argmax", "argmin", "argpartition", "argsort",
    "argwhere", "around", "array", "array_equal", "array_equiv", "array_split", "asarray", "astype",
    "atleast_1d", "atleast_2d", "atleast_3d", "average", "bfloat16", "bincount", "bitwise_and",
    "bitwise_not", "bitwise_or", "bitwise_xor", "bool_", "broadcast_arrays", "broadcast_to",
    "can_cast", "cbrt", "ceil", "choose", "clip", "column_stack", "complex64", "complex128",
    "compress", "concatenate", "conj", "conjugate", "convolve", "copysign", "corrcoef", "correlate",
    "cos", "cosh", "count_nonzero", "cov", "cross", "cumprod", "cumsum", "deg2rad", "degrees",
    "diag", "diagflat", "diagonal", "diff", "digitize", "divide", "divmod", "dot", "dsplit",
    "dstack", "dtype", "e", "ediff1d", "einsum", "empty", "empty_like", "equal", "euler_gamma",
    "exp", "exp2", "expand_dims", "expm1", "eye", "fabs", "fft", "finfo", "flatnonzero", "flip",
    "fliplr", "flipud", "float16", "float32", "float64", "float_power", "floor", "floor_divide",
    "fmax", "fmin", "fmod", "frexp", "full", "full_like", "gcd", "geomspace", "gradient", "greater",
    "greater_equal", "heaviside", "histogram", "histogram_bin_edges", "hsplit", "hstack", "hypot",
    "i0", "identity", "iinfo", "imag", "inf", "inner", "int8", "int16", "int32", "int64", "interp",
    "invert", "isclose", "isfinite", "isinf", "isnan", "issubdtype", "kron", "lcm", "ldexp",
    "left_shift", "less", "less_equal", "lexsort", "linalg", "linspace", "log", "log1p", "log2",
    "log10", "logaddexp", "logaddexp2", "logical_and", "logical_not", "logical_or", "logical_xor",
    "logspace", "matmul", "max", "maximum", "mean", "median", "meshgrid", "min", "minimum", "mod",
    "modf", "moveaxis", "multiply", "nan", "nan_to_num", "nanargmax", "nanargmin", "nancumprod",
    "nancumsum", "nanmax", "nanmean", "nanmedian", "nanmin", "nanpercentile", "nanprod",
    "nanquantile", "nanstd", "nansum", "nanvar", "ndarray", "negative", "newaxis", "nextafter",
    "nonzero", "not_equal", "ones", "ones_like", "outer", "pad", "partition", "percentile", "pi",
    "piecewise", "polyval", "positive", "pow", "power", "prod", "promote_types", "ptp", "put",
    "put_along_axis", "quantile", "rad2deg", "radians", "ravel", "real", "reciprocal", "remainder",
    "repeat", "reshape", "result_type", "right_shift", "rint", "roll", "rot90", "round",
    "searchsorted", "select", "sign", "signbit", "sin", "sinc", "sinh", "sort", "split", "sqrt",
    "square", "squeeze", "stack", "std", "subtract", "sum", "swapaxes", "take", "take_along_axis",
    "tan", "tanh", "tensordot", "tile", "trace", "transpose", "tri", "tril", "triu", "true_divide",
    "trunc", "uint8", "uint16", "uint32", "uint64", "unique", "unique_all", "unique_counts",
    "unique_inverse", "unique_values", "var", "vdot", "vsplit", "vstack", "where", "zeros",
    "zeros_like",
]  # fmt: skip
__all__ += [*_array_extras_all, *_numpy_more_all, *_numpy_poly_all, *_scalar_kinds_all]
__all__ += [*_numeric_more_all, *_grids_io_all, *_set_edit_all, "frompyfunc", "ufunc"]
__all__ += [
    "float4_e2m1fn", "float6_e2m3fn", "float6_e3m2fn", "float8_e3m4", "float8_e4m3",
    "float8_e4m3b11fnuz", "float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz",
    "float8_e8m0fnu", "int1", "int2", "int4", "uint1", "uint2", "uint4",
]  # fmt: skip
