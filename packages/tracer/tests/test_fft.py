"""``fft_p``: abstract evaluation, the ``lax.fft`` wrapper's conversions, errors."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from tessela_tracer import ShapeDtypeStruct, eval_shape, lax, make_jaxpr
from tessela_tracer.primitives import fft_p

F32, F64, C64, C128 = (np.dtype(t) for t in ("float32", "float64", "complex64", "complex128"))


def _sds(shape: tuple[int, ...], dtype: Any) -> ShapeDtypeStruct:
    return ShapeDtypeStruct(shape, dtype)


@pytest.mark.parametrize(
    ("typ", "in_shape", "in_dtype", "lengths", "out_shape", "out_dtype"),
    [
        ("fft", (2, 8), C64, (8,), (2, 8), C64),
        ("ifft", (2, 3, 4), C64, (3, 4), (2, 3, 4), C64),
        ("rfft", (2, 8), F32, (8,), (2, 5), C64),
        ("rfft", (3, 7), F32, (3, 7), (3, 4), C64),
        ("irfft", (2, 5), C64, (8,), (2, 8), F32),
        ("irfft", (2, 5), C64, (9,), (2, 9), F32),
        ("irfft", (3, 4, 5), C64, (4, 8), (3, 4, 8), F32),
        ("fft", (2, 8), F32, (8,), (2, 8), C64),
        ("rfft", (2, 8), np.int32, (8,), (2, 5), C64),
        ("ifft", (4,), np.float16, (4,), (4,), C64),
        ("fft", (4,), np.bool_, (4,), (4,), C64),
        ("fft", (4,), F32, (), (4,), C64),
    ],
)
def test_shapes_and_dtypes(
    typ: str, in_shape: Any, in_dtype: Any, lengths: Any, out_shape: Any, out_dtype: Any
) -> None:
    out = eval_shape(lambda x: lax.fft(x, typ, lengths), _sds(in_shape, in_dtype))
    assert (out.shape, out.dtype) == (out_shape, np.dtype(out_dtype))


@pytest.mark.usefixtures("x64")
@pytest.mark.parametrize(
    ("typ", "in_dtype", "out_dtype"),
    [("fft", F64, C128), ("rfft", F64, C128), ("irfft", C128, F64), ("fft", np.int64, C128),
     ("rfft", np.int32, C128), ("ifft", F32, C64), ("irfft", C64, F32)],
)  # fmt: skip
def test_x64_dtypes(typ: str, in_dtype: Any, out_dtype: Any) -> None:
    out = eval_shape(lambda x: lax.fft(x, typ, (8,)), _sds((8,), in_dtype))
    assert out.dtype == np.dtype(out_dtype)


def test_fft_type_enum_and_names() -> None:
    assert [t.value for t in lax.FftType] == [0, 1, 2, 3]
    assert str(lax.FftType.RFFT) == "2" and lax.FftType.IRFFT == 3
    jaxpr = make_jaxpr(lambda x: lax.fft(x, "IFFT", [8]))(np.ones(8, C64))
    (inner,) = jaxpr.eqns[0].params["jaxpr"].eqns
    assert inner.primitive is fft_p
    assert inner.params == {"fft_type": lax.FftType.IFFT, "fft_lengths": (8,)}
    assert type(inner.params["fft_type"]) is lax.FftType


def test_wrapper_stages_a_jit_named_fft() -> None:
    text = str(make_jaxpr(lambda x: lax.fft(x, "rfft", (8,)))(np.ones((2, 8), np.int32)))
    assert "name=fft" in text
    assert "convert_element_type[new_dtype=float32 weak_type=False]" in text
    assert "fft[fft_lengths=(8,) fft_type=2]" in text


@pytest.mark.parametrize(
    ("typ", "shape", "dtype", "lengths", "exc", "match"),
    [
        ("bogus", (8,), C64, (8,), ValueError, "Unknown FFT type 'bogus'"),
        ("Fft", (8,), C64, (8,), ValueError, "Unknown FFT type"),
        (5, (8,), C64, (8,), TypeError, "Unknown FFT type value '5'"),
        ("rfft", (8,), C64, (8,), ValueError, "only real valued inputs supported for rfft"),
        ("rfft", (8,), np.float16, (8,), ValueError, "RFFT input must be float32 or float64"),
        ("fft", (2, 8), C64, (4,), ValueError, "minor dimensions must be equal to fft_lengths"),
        ("rfft", (2, 8), F32, (4,), ValueError, "RFFT input shape"),
        ("irfft", (2, 8), C64, (3, 14), ValueError, "all except the last fft_length"),
        ("fft", (8,), C64, (1, 8), ValueError, "at least as many input dimensions"),
    ],
)
def test_errors(typ: Any, shape: Any, dtype: Any, lengths: Any, exc: Any, match: str) -> None:
    with pytest.raises(exc, match=match):
        eval_shape(lambda x: lax.fft(x, typ, lengths), _sds(shape, dtype))


def test_primitive_rejects_real_operands_of_complex_transforms() -> None:
    for typ in (lax.FftType.FFT, lax.FftType.IRFFT):
        with pytest.raises(ValueError, match="must be complex64 or complex128, got float32"):
            eval_shape(lambda x, t=typ: fft_p.bind(x, fft_type=t, fft_lengths=(4,)),
                       _sds((4,), F32))  # fmt: skip
