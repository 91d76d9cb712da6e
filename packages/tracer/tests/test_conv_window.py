"""conv_general_dilated and the windowed reductions: shapes, parameters and errors."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tessela_tracer import ShapeDtypeStruct, eval_shape, lax, make_jaxpr
from tessela_tracer.primitives import (
    conv_general_dilated_p,
    reduce_window_max_p,
    reduce_window_min_p,
    reduce_window_p,
    reduce_window_sum_p,
    select_and_gather_add_p,
    select_and_scatter_add_p,
)

F = np.float32


def _s(*shape: int, dtype: object = F) -> ShapeDtypeStruct:
    return ShapeDtypeStruct(shape, dtype)


def _out_size(n: int, k: int, s: int, lo: int, hi: int, ld: int, rd: int) -> int:
    """Output length of a 1-D convolution, counted by brute force."""
    dil_n = 0 if n == 0 else (n - 1) * ld + 1
    dil_k = (k - 1) * rd + 1
    padded = dil_n + lo + hi
    return len(range(0, padded - dil_k + 1, s)) if padded >= dil_k else 0


def test_string_dimension_numbers() -> None:
    dn = lax.conv_dimension_numbers((1, 5, 5, 3), (3, 3, 3, 4), ("NHWC", "HWIO", "NHWC"))
    assert dn == lax.ConvDimensionNumbers((0, 3, 1, 2), (3, 2, 0, 1), (0, 3, 1, 2))
    assert lax.conv_dimension_numbers((1, 2, 3), (1, 2, 3), None) == ((0, 1, 2),) * 3
    # spatial axes of lhs and out follow the kernel's order
    dn = lax.conv_dimension_numbers((1, 2, 3, 4), (1, 2, 3, 4), ("NCHW", "OIWH", "NWHC"))
    assert dn == ((0, 1, 3, 2), (0, 1, 2, 3), (0, 3, 1, 2))


@pytest.mark.parametrize(
    ("dn", "match"),
    [
        (("NHWC", "HWIO"), "must be length 3"),
        (("NHWC", "HWIO", "NHW"), "must have len equal"),
        (("NHWW", "HWIO", "NHWC"), "exactly once"),
        (("NHWC", "HXIO", "NHWC"), "same set of spatial"),
        ("NHWC", "must be tuple/list or None"),
    ],
)
def test_bad_dimension_numbers(dn: object, match: str) -> None:
    with pytest.raises(TypeError, match=match):
        lax.conv_dimension_numbers((1, 5, 5, 3), (3, 3, 3, 4), dn)


def test_padtype_to_pads() -> None:
    assert lax.padtype_to_pads((5, 6), (3, 2), (1, 2), "SAME") == [(1, 1), (0, 0)]
    assert lax.padtype_to_pads((4,), (4,), (1,), "SAME") == [(1, 2)]
    assert lax.padtype_to_pads((4,), (4,), (1,), "same_lower") == [(2, 1)]
    assert lax.padtype_to_pads((4,), (4,), (1,), "VALID") == [(0, 0)]
    with pytest.raises(RuntimeError, match="Unrecognized padding type"):
        lax.padtype_to_pads((4,), (4,), (1,), "FULL")


def test_params_as_jax_binds_them() -> None:
    jaxpr = make_jaxpr(
        lambda x, w: lax.conv_general_dilated(
            x, w, [2, 1], [(1, 0), (0, 2)], rhs_dilation=[1, 2], precision="highest"
        )
    )(np.ones((1, 2, 5, 5), F), np.ones((3, 2, 2, 2), F))
    params = jaxpr.eqns[0].params
    assert jaxpr.eqns[0].primitive is conv_general_dilated_p
    assert params["window_strides"] == (2, 1) and params["padding"] == ((1, 0), (0, 2))
    assert params["lhs_dilation"] == (1, 1) and params["rhs_dilation"] == (1, 2)
    assert params["precision"] == (lax.Precision.HIGHEST, lax.Precision.HIGHEST)
    assert params["preferred_element_type"] is None and params["out_sharding"] is None
    assert jaxpr.out_avals[0].shape == (1, 3, 3, 5)


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(0, 7), k=st.integers(1, 3), s=st.integers(1, 3), lo=st.integers(-1, 2),
    hi=st.integers(-1, 2), ld=st.integers(1, 2), rd=st.integers(1, 2),
    groups=st.sampled_from([(1, 1), (2, 1), (1, 2)]),
)  # fmt: skip
def test_conv_shape_matches_brute_force(
    n: int, k: int, s: int, lo: int, hi: int, ld: int, rd: int, groups: tuple[int, int]
) -> None:
    fg, bg = groups
    dil_n = 0 if n == 0 else (n - 1) * ld + 1
    if dil_n + lo + hi < 0:
        return
    lhs = _s(2 * bg, 2 * fg, n)
    rhs = _s(2 * fg * bg, 2, k)
    out = eval_shape(
        lambda x, w: lax.conv_general_dilated(x, w, (s,), [(lo, hi)], (ld,), (rd,), None, fg, bg),
        lhs,
        rhs,
    )
    assert out.shape == (2, 2 * fg * bg, _out_size(n, k, s, lo, hi, ld, rd))


@pytest.mark.parametrize(
    ("lhs", "rhs", "kw", "err", "match"),
    [
        ((1, 4, 5), (2, 3, 3), {}, ValueError, "divided by feature_group_count"),
        ((1, 4, 5), (3, 2, 3), {"feature_group_count": 2}, ValueError, "multiple of"),
        ((1, 3, 5), (2, 1, 3), {"feature_group_count": 2}, ValueError, "must divide lhs"),
        ((3, 2, 5), (2, 2, 3), {"batch_group_count": 2}, ValueError, "must divide lhs batch"),
        ((2, 4, 5), (4, 2, 3), {"feature_group_count": 2, "batch_group_count": 2}, ValueError,
         "At most one"),
        ((1, 2, 5), (2, 2, 3), {"feature_group_count": 0}, ValueError, "positive"),
    ],
)  # fmt: skip
def test_conv_errors(lhs: tuple, rhs: tuple, kw: dict, err: type, match: str) -> None:
    with pytest.raises(err, match=match):
        eval_shape(
            lambda x, w: lax.conv_general_dilated(x, w, (1,), "VALID", **kw), _s(*lhs), _s(*rhs)
        )


def test_conv_dtype_and_rank_errors() -> None:
    with pytest.raises(TypeError, match="same dtypes, got float32, float16"):
        eval_shape(
            lambda x, w: lax.conv(x, w, (1,), "VALID"), _s(1, 2, 5), _s(2, 2, 3, dtype=np.float16)
        )
    with pytest.raises(TypeError, match="ndim to be equal"):
        eval_shape(lambda x, w: lax.conv(x, w, (1,), "VALID"), _s(1, 2, 5), _s(2, 2))
    with pytest.raises(ValueError, match="String padding is not implemented"):
        eval_shape(
            lambda x, w: lax.conv_general_dilated(x, w, (1,), "SAME", (2,)),
            _s(1, 2, 5),
            _s(2, 2, 3),
        )
    with pytest.raises(ValueError, match="sequence of \\(low, high\\) pairs"):
        eval_shape(lambda x, w: lax.conv_general_dilated(x, w, (1,), [1]), _s(1, 2, 5), _s(2, 2, 3))


def test_preferred_element_type_and_weak_type() -> None:
    out = eval_shape(
        lambda x, w: lax.conv(x, w, (1,), "VALID", preferred_element_type=np.float32),
        _s(1, 2, 5, dtype=np.float16), _s(2, 2, 3, dtype=np.float16),
    )  # fmt: skip
    assert out.dtype == np.float32


def test_conv_transpose_shapes() -> None:
    x, w = _s(1, 4, 4, 2), _s(3, 3, 2, 5)
    assert eval_shape(lambda x, w: lax.conv_transpose(x, w, (2, 2), "SAME"), x, w).shape == (
        1,
        8,
        8,
        5,
    )
    assert eval_shape(lambda x, w: lax.conv_transpose(x, w, (2, 2), "VALID"), x, w).shape == (
        1,
        9,
        9,
        5,
    )
    got = eval_shape(
        lambda x, w: lax.conv_transpose(x, w, (1, 1), "SAME", transpose_kernel=True),
        x,
        _s(3, 3, 5, 2),
    )
    assert got.shape == (1, 4, 4, 5)


# ------------------------------------------------------------ windows


def _window_count(n: int, w: int, s: int, lo: int, hi: int, bd: int, wdl: int) -> int:
    return _out_size(n, w, s, lo, hi, bd, wdl)


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(1, 7), w=st.integers(1, 3), s=st.integers(1, 3), lo=st.integers(0, 2),
    hi=st.integers(0, 2), bd=st.integers(1, 2), wdl=st.integers(1, 2),
    kind=st.sampled_from(["sum", "max", "min"]),
)  # fmt: skip
def test_window_shape_matches_brute_force(
    n: int, w: int, s: int, lo: int, hi: int, bd: int, wdl: int, kind: str
) -> None:
    op, init = {"sum": (lax.add, 0.0), "max": (lax.max, -np.inf), "min": (lax.min, np.inf)}[kind]
    out = eval_shape(
        lambda x: lax.reduce_window(
            x, init, op, (1, w), (1, s), [(0, 0), (lo, hi)], (1, bd), (1, wdl)
        ),
        _s(2, n),
    )
    assert out.shape == (2, _window_count(n, w, s, lo, hi, bd, wdl))


def test_reduce_window_picks_primitive() -> None:
    x = np.ones((4, 4), F)
    i = np.ones((4, 4), np.int32)
    pick = lambda f, *a: make_jaxpr(f)(*a).eqns[0].primitive  # noqa: E731
    assert pick(lambda x: lax.reduce_window(x, 0.0, lax.add, (2, 2)), x) is reduce_window_sum_p
    assert pick(lambda x: lax.reduce_window(x, -np.inf, lax.max, (2, 2)), x) is reduce_window_max_p
    assert pick(lambda x: lax.reduce_window(x, np.inf, lax.min, (2, 2)), x) is reduce_window_min_p
    imin = np.iinfo(np.int32).min
    assert pick(lambda x: lax.reduce_window(x, imin, lax.max, (2, 2)), i) is reduce_window_max_p
    # Any other computation or initial value, and several operands: the general primitive.
    assert pick(lambda x: lax.reduce_window(x, 1.0, lax.mul, (2, 2)), x) is reduce_window_p
    assert pick(lambda x: lax.reduce_window(x, 0.0, lax.max, (2, 2)), x) is reduce_window_p
    pair = lambda x: lax.reduce_window(  # noqa: E731
        (x, x), (0.0, 0.0), lambda a, b: (lax.add(a[0], b[0]), a[1]), (2, 2)
    )
    assert pick(pair, x) is reduce_window_p
    with pytest.raises(ValueError, match="same tree structure"):
        make_jaxpr(lambda x: lax.reduce_window((x, x), 0.0, lax.add, (2, 2)))(x)
    with pytest.raises(TypeError, match="inconsistent dtypes"):
        make_jaxpr(lambda x: lax.reduce_window(x, np.int32(1), lax.mul, (2, 2)))(x)


def test_reduce_window_errors() -> None:
    x = _s(4, 4)
    with pytest.raises(TypeError, match="wrong number of window_dimensions"):
        eval_shape(lambda x: lax.reduce_window(x, 0.0, lax.add, (2,), (1,)), x)
    with pytest.raises(TypeError, match="strictly positive"):
        eval_shape(lambda x: lax.reduce_window(x, 0.0, lax.add, (2, 2), (0, 1)), x)
    with pytest.raises(TypeError, match="must have a number dtype, got bool"):
        eval_shape(lambda x: lax.reduce_window(x, False, lax.add, (2, 2)), _s(4, 4, dtype=np.bool_))


def test_select_and_gather_scatter_shapes() -> None:
    from tessela_tracer.primitives import ge_p

    win = {"window_dimensions": (2, 2), "window_strides": (2, 2), "padding": ((0, 0), (0, 1))}
    out = eval_shape(
        lambda t, x: select_and_gather_add_p.bind(
            t, x, select_prim=ge_p, base_dilation=(1, 1), window_dilation=(1, 1), **win
        ),
        _s(4, 5), _s(4, 5),
    )  # fmt: skip
    assert out.shape == (2, 3)
    back = eval_shape(
        lambda s, x: select_and_scatter_add_p.bind(s, x, select_prim=ge_p, **win),
        _s(2, 3),
        _s(4, 5),
    )
    assert back.shape == (4, 5)
    with pytest.raises(TypeError, match="shapes must match"):
        eval_shape(
            lambda t, x: select_and_gather_add_p.bind(
                t, x, select_prim=ge_p, base_dilation=(1, 1), window_dilation=(1, 1), **win
            ),
            _s(4, 4), _s(4, 5),
        )  # fmt: skip
