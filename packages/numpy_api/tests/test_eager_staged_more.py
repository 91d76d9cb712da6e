"""The NaN reductions, ``tril``/``triu``/``kron``/``cross``, ``trapezoid``,
``matvec``/``vecmat`` and ``append`` run eagerly as one program per signature.

JAX compiles each of them as a whole with ``jit``; run eagerly, Tessela's do
the same (``run_compiled``). These tests pin that a staged call gives what the
function's own step-by-step path gives (NumPy's values, the traced path's
shape, dtype and weak type, the same errors), that the first call compiles
exactly one program and the next none, that jaxprs do not change, and that
without ``jit`` the bodies compute step by step.
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
import pytest
import tessela_lowering as tl
import tessela_numpy as tnp
from hypothesis import given, settings
from hypothesis import strategies as st
from tessela_numpy import (
    _array_extras,
    _eager,
    _histograms,
    _linalg_more,
    _matrix_ops,
    _nan_reductions,
    _numpy_more,
    _selection,
)  # fmt: skip
from tessela_tracer import config, jit, make_jaxpr

_RNG = np.random.default_rng(7)
_X = _RNG.standard_normal((5, 7)).astype(np.float32)
_N = _X.copy()
_N[1, 2] = _N[3, :2] = np.nan  # NaNs to ignore
_ALL_NAN = np.full((2, 3), np.nan, np.float32)
_ALL_NAN[0, 0] = 1.0  # one all-NaN column... and two
_I = (np.arange(35) % 7 - 3).reshape(5, 7).astype(np.int32)
_M = _X > 0.2  # a mask
_V7 = _RNG.standard_normal(7).astype(np.float32)
_V5 = _RNG.standard_normal(5).astype(np.float32)
_C3 = _RNG.standard_normal((4, 3)).astype(np.float32)
_C = (_X + 1j * _X[::-1]).astype(np.complex64)
_T = np.cumsum(np.abs(_X), axis=1)  # increasing sample points
with warnings.catch_warnings():
    warnings.simplefilter("ignore", RuntimeWarning)  # a column without unmasked values
    _MEAN = np.nanmean(_N, 0, keepdims=True, where=_M)
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning", "ignore::DeprecationWarning")

# name -> (tessela call, NumPy call, operands)
CASES: dict[str, tuple[Callable[..., Any], Callable[..., Any], tuple[Any, ...]]] = {
    "nansum": (tnp.nansum, np.nansum, (_N,)),
    "nansum_int": (tnp.nansum, np.nansum, (_I,)),
    "nansum_axis_keepdims": (
        lambda a: tnp.nansum(a, axis=(0, 1), keepdims=True),
        lambda a: np.nansum(a, axis=(0, 1), keepdims=True),
        (_N,),
    ),
    "nansum_dtype_where_initial": (
        lambda a, m: tnp.nansum(a, 1, np.float32, initial=2, where=m),
        lambda a, m: np.nansum(a, 1, np.float32, initial=2, where=m),
        (_I, _M),
    ),
    "nanprod": (lambda a: tnp.nanprod(a, 0), lambda a: np.nanprod(a, 0), (_N,)),
    "nanprod_dtype": (
        lambda a: tnp.nanprod(a, -1, dtype=tnp.float32),
        lambda a: np.nanprod(a, -1, dtype=np.float32),
        (_I,),
    ),
    "nanmax": (tnp.nanmax, np.nanmax, (_N,)),
    "nanmax_all_nan": (lambda a: tnp.nanmax(a, 0), lambda a: np.nanmax(a, 0), (_ALL_NAN,)),
    "nanmax_initial_where": (
        lambda a, m: tnp.nanmax(a, 1, initial=0.5, where=m),
        lambda a, m: np.nanmax(a, 1, initial=0.5, where=m),
        (_N, _M),
    ),
    "nanmin": (
        lambda a: tnp.nanmin(a, 1, keepdims=True),
        lambda a: np.nanmin(a, 1, keepdims=True),
        (_N,),
    ),
    "nanmin_int": (tnp.nanmin, np.nanmin, (_I,)),
    "nanmean": (tnp.nanmean, np.nanmean, (_N,)),
    "nanmean_int_axis": (lambda a: tnp.nanmean(a, 0), lambda a: np.nanmean(a, 0), (_I,)),
    "nanmean_where": (
        lambda a, m: tnp.nanmean(a, 1, where=m),
        lambda a, m: np.nanmean(a, 1, where=m),
        (_N, _M),
    ),
    "nanstd": (tnp.nanstd, np.nanstd, (_N,)),
    "nanstd_ddof_axis": (
        lambda a: tnp.nanstd(a, 1, ddof=1, keepdims=True),
        lambda a: np.nanstd(a, 1, ddof=1, keepdims=True),
        (_N,),
    ),
    "nanstd_complex": (lambda a: tnp.nanstd(a, 0), lambda a: np.nanstd(a, 0), (_C,)),
    "nanstd_where_mean": (
        lambda a, m, mean: tnp.nanstd(a, 0, where=m, mean=mean),
        lambda a, m, mean: np.nanstd(a, 0, where=m, mean=mean),
        (_N, _M, _MEAN),
    ),
    "nancumsum": (tnp.nancumsum, np.nancumsum, (_N,)),
    "nancumprod_axis_dtype": (
        lambda a: tnp.nancumprod(a, 1, "float32"),
        lambda a: np.nancumprod(a, 1, "float32"),
        (_I,),
    ),
    "kron": (tnp.kron, np.kron, (_X[:2, :3], _I[:3, :2])),
    "kron_1d": (tnp.kron, np.kron, (_V5, _X[:2, :3])),
    "tril": (tnp.tril, np.tril, (_X,)),
    "tril_k": (lambda a: tnp.tril(a, -2), lambda a: np.tril(a, -2), (_I,)),
    "triu_k": (lambda a: tnp.triu(a, 1), lambda a: np.triu(a, 1), (_X,)),
    "triu_3d": (tnp.triu, np.triu, (_X[:, None, :3] * _X[None, :4, :3],)),
    "cross": (tnp.cross, np.cross, (_C3, _C3[::-1])),
    "cross_2d_vectors": (tnp.cross, np.cross, (_C3[:, :2], _C3[::-1, :2])),
    "cross_axes": (
        lambda a, b: tnp.cross(a, b, axisa=0, axisb=-1, axisc=0),
        lambda a, b: np.cross(a, b, axisa=0, axisb=-1, axisc=0),
        (_C3[:3].T.copy(), _C3[:0:-1, :2]),
    ),
    "trapezoid": (tnp.trapezoid, np.trapezoid, (_X,)),
    "trapezoid_dx": (
        lambda a: tnp.trapezoid(a, dx=0.1, axis=0),
        lambda a: np.trapezoid(a, dx=0.1, axis=0),
        (_I,),
    ),
    "trapezoid_x": (tnp.trapezoid, np.trapezoid, (_X, _T[0])),
    "trapezoid_x_2d": (tnp.trapezoid, np.trapezoid, (_X, _T)),
    "matvec": (tnp.matvec, np.matvec, (_X, _V7)),
    "vecmat": (tnp.vecmat, np.vecmat, (_C[:, 0], _C)),
    "append": (tnp.append, np.append, (_X, _I)),
    "append_axis": (
        lambda a, b: tnp.append(a, b, axis=0),
        lambda a, b: np.append(a, b, axis=0),
        (_X, _I[:2]),
    ),
    "trace": (tnp.trace, np.trace, (_X,)),
    "trace_offset_dtype": (
        lambda a: tnp.trace(a, 1, dtype=np.dtype(np.float32)),
        lambda a: np.trace(a, 1, dtype=np.float32),
        (_I,),
    ),
    "diag_2d": (lambda a: tnp.diag(a, -1), lambda a: np.diag(a, -1), (_X,)),
    "diag_1d": (lambda v: tnp.diag(v, 2), lambda v: np.diag(v, 2), (_V5,)),
    "vander": (tnp.vander, np.vander, (_V5,)),
    "vander_increasing": (
        lambda v: tnp.vander(v, 3, increasing=True),
        lambda v: np.vander(v, 3, increasing=True),
        (_I[0],),
    ),
    "isin": (tnp.isin, np.isin, (_I, _I[1, :3])),
    "isin_invert": (
        lambda a, b: tnp.isin(a, b, invert=True),
        lambda a, b: np.isin(a, b, invert=True),
        (_I, _I[1, :3]),
    ),
    "digitize": (tnp.digitize, np.digitize, (_X, np.array([-1.0, 0.0, 0.5], np.float32))),
    "digitize_right_falling": (
        lambda x, b: tnp.digitize(x, b, right=True),
        lambda x, b: np.digitize(x, b, right=True),
        (_X, np.array([1.0, 0.0, -0.5], np.float32)),
    ),
}
MODULES = (
    _nan_reductions, _matrix_ops, _numpy_more, _array_extras, _selection, _histograms,
    _linalg_more,
)  # fmt: skip


@contextmanager
def unstaged() -> Iterator[None]:
    """The functions' own step-by-step paths: no program is made for them."""
    saved = [m.run_compiled for m in MODULES]
    for m in MODULES:
        m.run_compiled = lambda *args: None  # type: ignore[attr-defined]
    try:
        yield
    finally:
        for m, run in zip(MODULES, saved, strict=True):
            m.run_compiled = run  # type: ignore[attr-defined]


@contextmanager
def compiles() -> Iterator[list[str]]:
    """The XLA compilations logged meanwhile (``jax_log_compiles``)."""
    logged: list[str] = []

    class Handler(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if "Finished XLA compilation" in record.getMessage():
                logged.append(record.getMessage())

    logger = logging.getLogger("tessela_lowering")
    handler = Handler()
    before = config.read("jax_log_compiles")
    logger.addHandler(handler)
    config.update("jax_log_compiles", True)
    try:
        yield logged
    finally:
        config.update("jax_log_compiles", before)
        logger.removeHandler(handler)


def _same(got: Any, want: Any) -> None:
    assert (got.shape, got.dtype, got.aval.weak_type) == (
        want.shape,
        want.dtype,
        want.aval.weak_type,
    )
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("kind", ["numpy", "device"])
def test_staged_functions_match_numpy_the_traced_path_and_their_own_path(
    case: str, kind: str
) -> None:
    fn, np_fn, hosts = CASES[case]
    args = hosts if kind == "numpy" else tuple(tl.device_put(h) for h in hosts)
    traced = make_jaxpr(fn)(*hosts).out_avals[0]
    before = str(make_jaxpr(fn)(*hosts))
    with np.errstate(all="ignore"):
        want = np.asarray(np_fn(*hosts))
    with unstaged():
        own = fn(*args)
    for _ in range(2):  # the first call makes the program, the second finds it
        got = fn(*args)
        assert (got.shape, got.dtype, got.aval.weak_type) == (
            traced.shape,
            traced.dtype,
            traced.weak_type,
        )
        _same(got, own)
        np.testing.assert_allclose(
            np.asarray(got).astype(want.dtype), want, rtol=2e-5, atol=2e-5, equal_nan=True
        )
    assert str(make_jaxpr(fn)(*hosts)) == before  # no nested program: the same jaxpr


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("kind", ["numpy", "device"])
def test_a_fresh_signature_compiles_one_program_then_none(case: str, kind: str) -> None:
    fn, _, hosts = CASES[case]
    args = hosts if kind == "numpy" else tuple(tl.device_put(h) for h in hosts)
    fn(*args)  # any host-side constants the call makes exist already
    tl.clear_caches()
    with compiles() as logged:
        fn(*args)
        assert len(logged) == 1, logged
        fn(*args)
        assert len(logged) == 1, logged


def test_the_step_by_step_paths_compile_more() -> None:
    # What the staging saves: the functions' own paths dispatch per step.
    x = tl.device_put(_N)
    tl.clear_caches()
    with unstaged(), compiles() as logged:
        tnp.nanmean(x)
    assert len(logged) > 1


# name -> (a call with bad arguments, its operands): staged or not, it raises
# the same error (from the program's first trace, when staged).
BAD: dict[str, tuple[Callable[..., Any], tuple[np.ndarray, ...]]] = {
    "nansum_axis": (lambda a: tnp.nansum(a, axis=5), (_N,)),
    "nansum_dtype": (lambda a: tnp.nansum(a, dtype="not a dtype"), (_N,)),
    "nansum_where_shape": (lambda a, m: tnp.nansum(a, where=m), (_N, _M[0, :3])),
    "nanprod_axes": (lambda a: tnp.nanprod(a, axis=(0, 0)), (_N,)),
    "nanmax_axis": (lambda a: tnp.nanmax(a, axis=-3), (_N,)),
    "nanmax_where_no_initial": (lambda a, m: tnp.nanmax(a, where=m), (_N, _M)),
    "nanmin_empty": (tnp.nanmin, (np.zeros((0, 3), np.float32),)),
    "nanmean_axis": (lambda a: tnp.nanmean(a, axis=2), (_N,)),
    "nanmean_out": (lambda a: tnp.nanmean(a, out=a), (_N,)),
    "nanstd_int_dtype": (lambda a: tnp.nanstd(a, dtype=int), (_N,)),
    "nanstd_axis": (lambda a: tnp.nanstd(a, axis=(1, 4)), (_N,)),
    "nancumsum_axis": (lambda a: tnp.nancumsum(a, axis=2), (_N,)),
    "nancumprod_tuple_axis": (lambda a: tnp.nancumprod(a, axis=(0,)), (_N,)),
    "kron_list": (lambda a: tnp.kron([1.0, 2.0], a), (_X,)),
    "tril_1d": (tnp.tril, (_V5,)),
    "triu_0d": (tnp.triu, (np.float32(2.0),)),
    "cross_length": (tnp.cross, (_X, _X)),
    "cross_axis": (lambda a: tnp.cross(a, a, axisa=4), (_C3,)),
    "trapezoid_0d": (tnp.trapezoid, (np.float32(2.0),)),
    "trapezoid_x_shape": (tnp.trapezoid, (_X, _V5[:3])),
    "matvec_shapes": (tnp.matvec, (_X, _V5)),
    "vecmat_shapes": (tnp.vecmat, (_V7, _X)),
    "append_shapes": (lambda a: tnp.append(a, a[:, :2], axis=0), (_X,)),
    "append_axis": (lambda a: tnp.append(a, a, axis=3), (_X,)),
    "trace_1d": (tnp.trace, (_V5,)),
    "diag_3d": (tnp.diag, (_X[None],)),
    "vander_2d": (tnp.vander, (_X,)),
    "isin_method": (lambda a: tnp.isin(a, a, method="hash"), (_I,)),
    "digitize_bins_2d": (tnp.digitize, (_V5, _X)),
    "argpartition_kth": (lambda a: tnp.argpartition(a, 9), (_X,)),
}

UNSTAGED_BAD = {
    "kron_list",
    "nanmean_out",
    "isin_method",
}  # a list, ``out``, a bad method: checked first


def _error(call: Callable[..., Any], *args: Any) -> tuple[type[BaseException], str]:
    try:
        call(*args)
    except Exception as e:  # the error itself is compared
        return type(e), str(e)
    raise AssertionError("no error")


@pytest.mark.parametrize("case", sorted(BAD))
@pytest.mark.parametrize("kind", ["numpy", "device"])
def test_bad_arguments_raise_what_the_functions_own_paths_raise(case: str, kind: str) -> None:
    call, hosts = BAD[case]
    args = hosts if kind == "numpy" else tuple(tl.device_put(h) for h in hosts)
    with unstaged():
        want = _error(call, *args)
    bodies: list[str] = []
    run_body = _eager._run_body

    def recording(body: Any, *rest: Any) -> Any:
        bodies.append(body.__name__)
        return run_body(body, *rest)

    _eager._run_body = recording
    try:
        assert _error(call, *args) == want
    finally:
        _eager._run_body = run_body
    # Staged, the error comes from the program's first trace.
    assert bool(bodies) == (case not in UNSTAGED_BAD), bodies
    assert _error(call, *args) == want  # a failed trace leaves nothing cached


EAGER_CALLS: dict[str, Callable[[Any], Any]] = {
    "nansum": lambda a: tnp.nansum(a, 0),
    "nanprod": lambda a: tnp.nanprod(a),
    "nanmax": lambda a: tnp.nanmax(a, 1, keepdims=True),
    "nanmin": lambda a: tnp.nanmin(a),
    "nanmean": lambda a: tnp.nanmean(a, 0),
    "nanstd": lambda a: tnp.nanstd(a, ddof=1),
    "nancumsum": lambda a: tnp.nancumsum(a),
    "nancumprod": lambda a: tnp.nancumprod(a, 0),
    "kron": lambda a: tnp.kron(a, a[:2]),
    "tril": lambda a: tnp.tril(a, 1),
    "triu": lambda a: tnp.triu(a),
    "cross": lambda a: tnp.cross(a, a[::-1]),
    "trapezoid": lambda a: tnp.trapezoid(a, dx=0.5),
    "trapezoid_x": lambda a: tnp.trapezoid(a, a[0] + tnp.arange(3.0)),
    "matvec": lambda a: tnp.matvec(a, a[0]),
    "vecmat": lambda a: tnp.vecmat(a[0], a),
    "append": lambda a: tnp.append(a, a, 1),
}


@pytest.mark.parametrize("flag", ["jax_disable_jit", "jax_debug_nans"])
def test_program_bodies_run_step_by_step_without_jit(flag: str) -> None:
    # Without jit (or when debug_nans reruns a program as Python), a body
    # calls the public function again, which must compute, not recurse.
    x = tl.device_put(np.linspace(-1, 2, 9, dtype=np.float32).reshape(3, 3))
    want = {name: np.asarray(f(x)) for name, f in EAGER_CALLS.items()}
    before = config.read(flag)
    config.update(flag, True)
    try:
        for name, f in EAGER_CALLS.items():
            np.testing.assert_allclose(np.asarray(f(x)), want[name], rtol=1e-6, err_msg=name)
        if flag == "jax_debug_nans":
            with pytest.raises(FloatingPointError):
                tnp.nanmean(tnp.log(x))
    finally:
        config.update(flag, before)


UNARY = {
    "nansum": lambda a, axis, keep: tnp.nansum(a, axis, keepdims=keep),
    "nanprod": lambda a, axis, keep: tnp.nanprod(a, axis, keepdims=keep),
    "nanmax": lambda a, axis, keep: tnp.nanmax(a, axis, keepdims=keep),
    "nanmin": lambda a, axis, keep: tnp.nanmin(a, axis, keepdims=keep),
    "nanmean": lambda a, axis, keep: tnp.nanmean(a, axis, keepdims=keep),
    "nanstd": lambda a, axis, keep: tnp.nanstd(a, axis, ddof=int(keep), keepdims=keep),
    "nancumsum": lambda a, axis, keep: tnp.nancumsum(a, axis),
    "nancumprod": lambda a, axis, keep: tnp.nancumprod(a, axis),
    "tril": lambda a, axis, keep: tnp.tril(a, -1 if keep else 0),
    "triu": lambda a, axis, keep: tnp.triu(a, 2 if keep else 0),
    "kron": lambda a, axis, keep: tnp.kron(a, a if keep else 2),
    "append": lambda a, axis, keep: tnp.append(a, a, axis),
    "trapezoid": lambda a, axis, keep: tnp.trapezoid(a, dx=2 if keep else 0.5, axis=axis or 0),
}


@settings(max_examples=60, deadline=None, derandomize=True)
@given(
    st.sampled_from(sorted(UNARY)),
    st.sampled_from(["bool", "int8", "uint8", "int32", "float16", "float32", "complex64"]),
    st.sampled_from([(2, 3), (1, 4), (3, 2, 2), (0, 3)]),
    st.sampled_from([None, 0, -1]),
    st.booleans(),
    st.booleans(),
)
def test_eager_calls_equal_jit_and_the_traced_shape(
    name: str, dtype: str, shape: tuple[int, ...], axis: int | None, keep: bool, device: bool
) -> None:
    host = (np.arange(int(np.prod(shape))) % 5 - 1).reshape(shape).astype(dtype)
    if host.dtype.kind in "fc" and host.size:
        host.flat[0] = np.nan
    fn = UNARY[name]
    x = tl.device_put(host) if device else host
    try:
        traced = make_jaxpr(lambda v: fn(v, axis, keep))(host).out_avals[0]
    except Exception as e:  # not a valid call: the same error eagerly
        with pytest.raises(type(e)):
            fn(x, axis, keep)
        return
    eager = fn(x, axis, keep)
    jitted = jit(lambda v: fn(v, axis, keep))(x)
    with unstaged():
        own = fn(x, axis, keep)
    assert eager.aval == jitted.aval == own.aval
    assert (eager.shape, eager.dtype, eager.aval.weak_type) == (
        traced.shape,
        traced.dtype,
        traced.weak_type,
    )
    rtol = 2e-3 if dtype == "float16" else 1e-6
    for other in (jitted, own):
        np.testing.assert_allclose(
            np.asarray(eager), np.asarray(other), rtol=rtol, atol=rtol, equal_nan=True
        )


@pytest.mark.parametrize("kind", ["numpy", "device"])
def test_partitions_and_lstsq_run_as_one_program(kind: str) -> None:
    a = _X if kind == "numpy" else tl.device_put(_X)
    b = _V5 if kind == "numpy" else tl.device_put(_V5)
    with unstaged():
        own = [tnp.partition(a, 3), tnp.argpartition(a, 2, axis=0), *tnp.linalg.lstsq(a, b)]
    tl.clear_caches()
    with compiles() as logged:
        got = [tnp.partition(a, 3), tnp.argpartition(a, 2, axis=0), *tnp.linalg.lstsq(a, b)]
        assert len(logged) == 3, logged
        tnp.linalg.lstsq(a, b, rcond=0.5)  # a float rcond is an operand: a second program
        tnp.linalg.lstsq(a, b, rcond=0.25)  # ... whatever its value
        assert len(logged) == 4, logged
    for g, o in zip(got, own, strict=True):
        _same(g, o)
    np.testing.assert_array_equal(np.sort(np.asarray(got[0])[:, :3]), np.sort(_X, 1)[:, :3])
