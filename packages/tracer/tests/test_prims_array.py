"""``device_put`` and ``to_concrete_array``: printed as JAX prints them, eager only when asked."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from tessela_tracer import ArrayCopySemantics, lax, make_jaxpr, to_concrete_array
from tessela_tracer.extend import device_put_p, find_impl, register_impl


@pytest.fixture
def recording_impl() -> Iterator[list[Any]]:
    """A stand-in backend whose device_put wraps values in a tuple and records them."""
    seen: list[Any] = []
    previous = find_impl(device_put_p)

    def impl(*xs: Any, devices: Any, srcs: Any, copy_semantics: Any) -> list[Any]:
        seen.extend(xs)
        return [("placed", x) for x in xs]

    register_impl(device_put_p, impl)
    try:
        yield seen
    finally:
        if previous is not None:
            register_impl(device_put_p, previous)


def test_device_put_prints_as_jax() -> None:
    def f(x: Any) -> Any:
        (y,) = device_put_p.bind(
            x, devices=(None,), srcs=(None,), copy_semantics=(ArrayCopySemantics.REUSE_INPUT,)
        )
        return y

    assert str(make_jaxpr(f)(1.0)) == (
        "{ lambda ; a:f32[]. let\n"
        "    b:f32[] = device_put[\n"
        "      copy_semantics=(ArrayCopySemantics.REUSE_INPUT,)\n"
        "      devices=(None,)\n"
        "      srcs=(None,)\n"
        "    ] a\n"
        "  in (b,) }"
    )


def test_device_put_keeps_avals_and_checks_parameter_lengths() -> None:
    shapes = make_jaxpr(
        lambda x, y: device_put_p.bind(
            x, y, devices=(None, None), srcs=(None, None), copy_semantics=(None, None)
        )
    )(np.ones((2, 3), np.int8), 2.0).out_avals
    assert [(a.shape, a.dtype, a.weak_type) for a in shapes] == [
        ((2, 3), np.dtype("int8"), False),
        ((), np.dtype("float32"), True),
    ]
    with pytest.raises(ValueError, match="one device, one source and one copy semantics"):
        make_jaxpr(lambda x: device_put_p.bind(x, devices=(), srcs=(), copy_semantics=()))(1.0)


def test_to_concrete_array_uses_the_backend_only_outside_traces(
    recording_impl: list[Any],
) -> None:
    host = np.arange(3, dtype=np.int32)
    placed = to_concrete_array(host)
    assert placed[0] == "placed" and placed[1] is host and recording_impl == [host]
    text = str(make_jaxpr(lambda: to_concrete_array(np.ones(2, np.float32)))())
    assert text == "{ lambda a:f32[2]; . let  in (a,) }"
    assert len(recording_impl) == 1


# make_jaxpr texts of JAX 0.10.2 for the same lax calls.
_F23 = np.ones((2, 3), np.float32)
JAX_TEXTS = [
    (lambda a: lax.stack([a, a], axis=-1), _F23,
     "{ lambda ; a:f32[2,3]. let b:f32[2,3,2] = stack[axis=2] a a in (b,) }"),
    (lambda a: lax.unstack(a, 1), _F23,
     "{ lambda ; a:f32[2,3]. let\n    b:f32[2] c:f32[2] d:f32[2] = unstack[axis=1] a\n"
     "  in (b, c, d) }"),
    (lambda a: lax.split(a, (1, 2), 1), _F23,
     "{ lambda ; a:f32[2,3]. let\n    b:f32[2,1] c:f32[2,2] = split[axis=1 sizes=(1, 2)] a\n"
     "  in (b, c) }"),
    (lambda a: lax.tile(a, (2, 1)), _F23,
     "{ lambda ; a:f32[2,3]. let b:f32[4,3] = tile[reps=(2, 1)] a in (b,) }"),
    (lambda a: lax.stack([a, a]), 1.0,
     "{ lambda ; a:f32[]. let b:f32[2] = stack[axis=0] a a in (b,) }"),
]  # fmt: skip


@pytest.mark.parametrize(("fun", "arg", "want"), JAX_TEXTS)
def test_assembling_primitives_print_as_jax(fun: Any, arg: Any, want: str) -> None:
    assert str(make_jaxpr(fun)(arg)) == want


def test_assembling_primitives_check_their_operands() -> None:
    with pytest.raises(TypeError, match="same shape and dtype"):
        make_jaxpr(lambda a, b: lax.stack([a, b]))(np.ones(3, np.float32), np.ones(2, np.float32))
    with pytest.raises(ValueError, match="must be equal to dimension 0"):
        make_jaxpr(lambda a: lax.split(a, (1, 1)))(np.ones(3, np.float32))
    with pytest.raises(ValueError, match="nonnegative"):
        make_jaxpr(lambda a: lax.split(a, (4, -1)))(np.ones(3, np.float32))
    with pytest.raises(ValueError, match="len\\(reps\\) must equal the operand rank"):
        make_jaxpr(lambda a: lax.tile(a, (2, 2)))(np.ones(3, np.float32))
    out = make_jaxpr(lambda a: lax.split(a, (0, 3)))(np.ones(3, np.int8)).out_avals
    assert [(o.shape, o.dtype) for o in out] == [((0,), np.int8), ((3,), np.int8)]
