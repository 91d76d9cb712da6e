"""The NumPy examples of the seed documents (FAQ, Sharp Bits, Quickstart), traced."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tessela_numpy as jnp
from tessela_tracer import ShapeDtypeStruct, eval_shape, make_jaxpr
from tessela_tracer.errors import NonConcreteBooleanIndexError

IMMUTABLE = (
    "JAX arrays are immutable and do not support in-place item assignment. Instead of "
    "x[idx] = y, use x = x.at[idx].set(y) or another .at[] method: "
    "https://docs.jax.dev/en/latest/_autosummary/jax.numpy.ndarray.at.html"
)


def test_sum_of_list_is_type_error() -> None:
    with pytest.raises(TypeError) as info:
        jnp.sum([1, 2, 3])
    assert str(info.value) == (
        "sum requires ndarray or scalar arguments, got <class 'list'> at position 0."
    )


def test_permissive_sum_jaxpr(golden: dict[str, Any]) -> None:
    def permissive_sum(x: Any) -> Any:
        return jnp.sum(jnp.array(x))

    text = str(make_jaxpr(permissive_sum)(list(range(10))))
    assert text == golden["seeds"]["permissive_sum"]


def test_item_assignment_points_at_at() -> None:
    def f(x: Any) -> Any:
        x[0] = 10
        return x

    with pytest.raises(TypeError) as info:
        make_jaxpr(f)(np.arange(10, dtype=np.int32))
    assert str(info.value) == IMMUTABLE


def test_at_set_is_out_of_place() -> None:
    def f(x: Any) -> Any:
        return x, x.at[1, :].set(1.0)

    before, after = eval_shape(f, ShapeDtypeStruct((3, 3), np.float32))
    assert before.shape == after.shape == (3, 3)


@pytest.mark.parametrize("shape", [(5,), (10,)])
def test_boolean_mask_under_trace_is_nonconcrete(shape: tuple[int, ...]) -> None:
    def get_negatives(x: Any) -> Any:
        return x[x < 0]

    with pytest.raises(NonConcreteBooleanIndexError) as info:
        make_jaxpr(get_negatives)(np.zeros(shape, np.float32))
    assert str(info.value).startswith(
        f"Array boolean indices must be concrete; got bool[{shape[0]}]"
    )
    assert isinstance(info.value, IndexError)


def test_nansum_with_where_traces() -> None:
    def nansum_2(x: Any) -> Any:
        mask = ~jnp.isnan(x)
        return jnp.where(mask, x, 0).sum()

    out = eval_shape(nansum_2, ShapeDtypeStruct((5,), np.float32))
    assert (out.shape, out.dtype) == ((), np.float32)


def test_traced_length_in_shape_is_type_error() -> None:
    def example_fun(length: Any, val: Any) -> Any:
        return jnp.ones((length,)) * val

    with pytest.raises(
        TypeError, match="Shapes must be 1D sequences of concrete values of integer type"
    ) as info:
        make_jaxpr(example_fun)(10, 4)
    assert "static_argnums" in str(info.value)
    # With the length static, it traces.
    assert "mul" in str(make_jaxpr(example_fun, static_argnums=0)(5, 4))


def test_quickstart_dot_jaxpr() -> None:
    def f(x: Any, y: Any) -> Any:
        return jnp.dot(x + 1, y + 1)

    x = np.random.default_rng(0).standard_normal((3, 4))
    y = np.random.default_rng(1).standard_normal(4)
    assert str(make_jaxpr(f)(x, y)) == (
        "{ lambda ; a:f32[3,4] b:f32[4]. let\n"
        "    c:f32[3,4] = add a 1.0:f32[]\n"
        "    d:f32[4] = add b 1.0:f32[]\n"
        "    e:f32[3] = dot_general[\n"
        "      dimension_numbers=(([1], [0]), ([], []))\n"
        "      preferred_element_type=float32\n"
        "    ] c d\n"
        "  in (e,) }"
    )


def test_norm_and_logistic_shapes() -> None:
    def norm(x: Any) -> Any:
        x = x - x.mean(0)
        return x / x.std(0)

    def sum_logistic(x: Any) -> Any:
        return jnp.sum(1.0 / (1.0 + jnp.exp(-x)))

    assert eval_shape(norm, ShapeDtypeStruct((10000, 10), np.float32)).shape == (10000, 10)
    assert eval_shape(sum_logistic, ShapeDtypeStruct((3,), np.float32)).shape == ()


def test_linspace_sin_cos() -> None:
    def f() -> Any:
        x = jnp.linspace(0, 10, 1000)
        return 2 * jnp.sin(x) * jnp.cos(x)

    out = eval_shape(f)
    assert (out.shape, out.dtype) == ((1000,), np.float32)


def test_out_of_bounds_get_modes() -> None:
    def clamp(x: Any) -> Any:
        return x[11]

    def fill(x: Any) -> Any:
        return x.at[11].get(mode="fill", fill_value=jnp.nan)

    assert "dynamic_slice" in str(make_jaxpr(clamp)(np.arange(10, dtype=np.int32)))
    text = str(make_jaxpr(fill)(np.arange(10, dtype=np.float32)))
    assert "fill_value=nan" in text and "FILL_OR_DROP" in text
