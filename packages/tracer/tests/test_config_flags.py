"""The flags real JAX code sets, against JAX 0.10.2's behaviour.

Expected texts and results come from JAX 0.10.2 (``jax.config.update`` with a
bad value, ``jax.numpy_dtype_promotion('strict')`` over the dtype pairs below,
``jax.numpy_rank_promotion('raise'/'warn')`` on ``(3,) + (2, 3)``, and
``make_jaxpr`` of ``a @ a`` under ``jax.default_matmul_precision('float32')``).
"""

from __future__ import annotations

import os
import subprocess
import sys
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from tessela_tracer import check_rank_promotion, config, lax, make_jaxpr
from tessela_tracer.dtypes import promote_types, result_type
from tessela_tracer.errors import TypePromotionError

FLAGS = (
    "jax_numpy_rank_promotion", "jax_numpy_dtype_promotion", "jax_check_tracer_leaks",
    "jax_default_matmul_precision", "jax_traceback_filtering", "jax_default_prng_impl",
    "jax_num_cpu_devices",
)  # fmt: skip


@pytest.fixture(autouse=True)
def _restore_flags() -> Iterator[None]:
    before = {name: config.read(name) for name in FLAGS}
    yield
    for name, value in before.items():
        config.update(name, value)


def test_defaults_are_jax_defaults() -> None:
    got = {name: config.read(name) for name in FLAGS}
    assert got == {
        "jax_numpy_rank_promotion": "allow",
        "jax_numpy_dtype_promotion": "standard",
        "jax_check_tracer_leaks": False,
        "jax_default_matmul_precision": None,
        "jax_traceback_filtering": "auto",
        "jax_default_prng_impl": "threefry2x32",
        "jax_num_cpu_devices": -1,
    }


@pytest.mark.parametrize(
    ("name", "value", "text"),
    [
        (
            "jax_numpy_rank_promotion",
            "bad",
            "new enum value must be in ['allow', 'warn', 'raise'], got bad of type <class 'str'>.",
        ),
        ("jax_numpy_dtype_promotion", "bad", "'bad' is not a valid NumpyDtypePromotion"),
        (
            "jax_traceback_filtering",
            "bad",
            "new enum value must be in ['off', 'tracebackhide', 'remove_frames', "
            "'quiet_remove_frames', 'auto'], got bad of type <class 'str'>.",
        ),
        (
            "jax_num_cpu_devices",
            "x",
            "new int config value must be None or of type int, got x of type <class 'str'>",
        ),
    ],
)
def test_bad_values_raise_jax_value_errors(name: str, value: Any, text: str) -> None:
    with pytest.raises(ValueError) as info:
        config.update(name, value)
    assert str(info.value) == text


def test_matmul_precision_accepts_none_and_names() -> None:
    for value in ("highest", "tensorfloat32", "F32_F32_F32", None):
        config.update("jax_default_matmul_precision", value)
        assert config.jax_default_matmul_precision == value
    with pytest.raises(ValueError, match=r"new enum value must be None or in \['default'"):
        config.update("jax_default_matmul_precision", "bad")


def test_prng_impl_other_than_threefry_is_not_implemented() -> None:
    with pytest.raises(NotImplementedError, match="threefry2x32 only"):
        config.update("jax_default_prng_impl", "rbg")
    with pytest.raises(ValueError, match="new enum value must be in"):
        config.update("jax_default_prng_impl", "bad")
    assert config.jax_default_prng_impl == "threefry2x32"


def test_parse_flags_with_absl_reads_jax_arguments(monkeypatch: pytest.MonkeyPatch) -> None:
    argv = [
        "prog", "--jax_numpy_rank_promotion=raise", "--jax_check_tracer_leaks",
        "--jax_num_cpu_devices", "3", "--unrelated=1", "--jax_unknown_flag=1",
        "--", "--jax_traceback_filtering=off",
    ]  # fmt: skip
    monkeypatch.setattr(sys, "argv", argv)
    config.parse_flags_with_absl()
    assert config.jax_numpy_rank_promotion == "raise"
    assert config.jax_check_tracer_leaks is True
    assert config.jax_num_cpu_devices == 3
    assert config.jax_traceback_filtering == "auto"  # after "--": not a flag
    monkeypatch.setattr(sys, "argv", ["prog", "--nojax_check_tracer_leaks"])
    config.parse_flags_with_absl()
    assert config.jax_check_tracer_leaks is False


def test_x64_enabled_follows_the_flag() -> None:
    assert config.x64_enabled is False
    config.update("jax_enable_x64", True)
    try:
        assert config.x64_enabled is True
    finally:
        config.update("jax_enable_x64", False)


# ---------------------------------------------------------------- rank promotion

RAISE_TEXT = (
    "Operands could not be broadcast together for add on shapes (3,) (2, 3) and with the "
    "config option jax_numpy_rank_promotion='raise'. For more information, see "
    "https://docs.jax.dev/en/latest/rank_promotion_warning.html."
)
WARN_TEXT = (
    "Following NumPy automatic rank promotion for add on shapes (3,) (2, 3). Set the "
    "jax_numpy_rank_promotion config option to 'allow' to disable this warning; for more "
    "information, see https://docs.jax.dev/en/latest/rank_promotion_warning.html."
)


def test_rank_promotion_raise_and_warn_texts() -> None:
    config.update("jax_numpy_rank_promotion", "raise")
    with pytest.raises(ValueError) as info:
        check_rank_promotion("add", [(3,), (2, 3)])
    assert str(info.value) == RAISE_TEXT
    config.update("jax_numpy_rank_promotion", "warn")
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        check_rank_promotion("add", [(3,), (2, 3)])
    assert [(w.category, str(w.message)) for w in seen] == [(UserWarning, WARN_TEXT)]


@pytest.mark.parametrize(
    "shapes", [[(3,), ()], [(1, 3), (2, 3)], [(2, 3), (), (2, 3)], [(), ()], [(3,)]]
)
def test_rank_promotion_leaves_scalars_and_equal_ranks_alone(shapes: list[Any]) -> None:
    config.update("jax_numpy_rank_promotion", "raise")
    check_rank_promotion("add", shapes)  # JAX: these broadcast without rank promotion


def test_rank_promotion_allow_is_silent() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_rank_promotion("add", [(3,), (2, 3)])


# ---------------------------------------------------------------- dtype promotion

# (args, JAX 0.10.2's result under 'strict': a dtype, or None for TypePromotionError)
STRICT = [
    ((int, float), "float32"),
    ((np.int32, int), "int32"),
    ((np.float32, int), "float32"),
    ((np.float16, float), "float16"),
    ((np.complex64, float), "complex64"),
    ((np.uint8, int), "uint8"),
    ((np.float32, np.float32), "float32"),
    ((np.int32, float), None),
    ((np.int32, np.float32), None),
    ((np.int8, np.int16), None),
    ((np.bool_, np.int32), None),
    ((np.bool_, int), None),
    ((np.float32, complex), None),
]


def _value(t: Any) -> Any:
    return {int: 1, float: 1.0, complex: 1j}.get(t) if t in (int, float, complex) else np.dtype(t)


@pytest.mark.parametrize(("args", "want"), STRICT)
def test_strict_dtype_promotion_matches_jax(args: tuple[Any, ...], want: str | None) -> None:
    config.update("jax_numpy_dtype_promotion", "strict")
    values = [_value(a) for a in args]
    if want is None:
        with pytest.raises(TypePromotionError, match="jax_numpy_dtype_promotion=strict"):
            result_type(*values)
    else:
        assert str(result_type(*values)) == want


def test_strict_promote_types_and_the_message() -> None:
    config.update("jax_numpy_dtype_promotion", "strict")
    with pytest.raises(TypePromotionError) as info:
        promote_types(np.int32, np.float32)
    assert str(info.value) == (
        "Input dtypes ('float32', 'int32') have no available implicit dtype promotion path "
        "when jax_numpy_dtype_promotion=strict. Try explicitly casting inputs to the desired "
        "output type, or set jax_numpy_dtype_promotion=standard."
    )
    config.update("jax_numpy_dtype_promotion", "standard")
    assert promote_types(np.int32, np.float32) == np.float32
    assert str(result_type(np.int32, 1.0)) == "float32"


# ---------------------------------------------------------------- matmul precision

HIGHEST = "precision=(Precision.HIGHEST, Precision.HIGHEST)"


def test_default_matmul_precision_fills_an_absent_precision() -> None:
    x = np.ones((2, 2), np.float32)
    assert "precision" not in str(make_jaxpr(lambda a: lax.dot(a, a))(x))
    config.update("jax_default_matmul_precision", "float32")
    assert HIGHEST in str(make_jaxpr(lambda a: lax.dot(a, a))(x))
    # JAX: an explicit precision wins over the flag.
    config.update("jax_default_matmul_precision", "tensorfloat32")
    assert HIGHEST in str(make_jaxpr(lambda a: lax.dot(a, a, precision="highest"))(x))
    # A dot algorithm preset's name is a value of the flag too (as in JAX).
    config.update("jax_default_matmul_precision", "F32_F32_F32")
    assert "precision=F32_F32_F32" in str(make_jaxpr(lambda a: lax.dot(a, a))(x))


# ---------------------------------------------------------------- tracer leaks


def test_leaked_tracer_raises_under_the_flag() -> None:
    kept: list[Any] = []

    def leaks(x: Any) -> Any:
        kept.append(x)
        return lax.sin(x)

    make_jaxpr(leaks)(1.0)  # the flag is off: nothing checked
    config.update("jax_check_tracer_leaks", True)
    with pytest.raises(Exception, match=r"^Leaked trace JaxprTrace\(tag=\d+\)\. Leaked tracer"):
        make_jaxpr(leaks)(1.0)


def test_leak_of_a_returned_tracer_is_still_a_leak() -> None:
    kept: list[Any] = []
    config.update("jax_check_tracer_leaks", True)
    with pytest.raises(Exception, match="Leaked trace"):
        make_jaxpr(lambda x: kept.append(x) or x)(1.0)


def test_bodies_cached_by_a_trace_do_not_outlive_it() -> None:
    # A scan body closing over the traced input: the trace caches the body's
    # subtrace (keyed on the function, so holding its closure) and forgets it
    # when it ends, so the checker finds no tracer left.
    config.update("jax_check_tracer_leaks", True)

    def f(x: Any) -> Any:
        def body(carry: Any, a: Any) -> Any:
            return lax.add(carry, lax.mul(a, x)), lax.sin(lax.mul(a, x))

        return lax.scan(body, x, lax.iota(np.float32, 3))

    out = make_jaxpr(f)(np.float32(2))
    assert len(out.jaxpr.outvars) == 2


def test_no_leak_no_error() -> None:
    config.update("jax_check_tracer_leaks", True)
    out = make_jaxpr(lambda x, y: (lax.sin(x), [y, x], {"k": x}))(1.0, 2.0)
    assert len(out.jaxpr.outvars) == 4


@pytest.mark.parametrize(("value", "want"), [("4", "4"), ("abc", "-1")])
def test_num_cpu_devices_reads_the_environment(value: str, want: str) -> None:
    code = "from tessela_tracer import config; print(config.jax_num_cpu_devices)"
    env = {k: v for k, v in os.environ.items() if "NUM_CPU_DEVICES" not in k}
    out = subprocess.run(
        [sys.executable, "-c", code],
        env={**env, "JAX_NUM_CPU_DEVICES": value},
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip() == want  # a malformed value is reported by the backend


def test_trace_key_follows_the_flags_that_change_tracing() -> None:
    before = config.trace_key
    assert before == (False, "allow", "standard", None)
    config.update("jax_numpy_dtype_promotion", "strict")
    config.update("jax_default_matmul_precision", "highest")
    assert config.trace_key == (False, "allow", "strict", "highest")
    config.update("jax_check_tracer_leaks", True)  # not a tracing flag
    assert config.trace_key == (False, "allow", "strict", "highest")
