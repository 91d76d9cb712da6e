"""The random-number examples of the documentation print exactly what it shows."""

from __future__ import annotations

import contextlib
import io
import warnings

import numpy as np
import pytest
import tessela_prng as random


def capture(fn: object) -> str:
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        fn()  # type: ignore[operator]
    return buf.getvalue()


SHARP_BITS_REUSE = """\
[-0.20584226]
Array((), dtype=key<fry>) overlaying:
[0 0]
[-0.20584226]
Array((), dtype=key<fry>) overlaying:
[0 0]
"""

SHARP_BITS_SPLIT = """\
old key Array((), dtype=key<fry>) overlaying:
[0 0]
    \\---SPLIT --> new key    Array((), dtype=key<fry>) overlaying:
[4146024105  967050713]
             \\--> new subkey Array((), dtype=key<fry>) overlaying:
[2718843009 1272950319] --> normal [-1.2515389]
old key Array((), dtype=key<fry>) overlaying:
[4146024105  967050713]
    \\---SPLIT --> new key    Array((), dtype=key<fry>) overlaying:
[2384771982 3928867769]
             \\--> new subkey Array((), dtype=key<fry>) overlaying:
[1278412471 2182328957] --> normal [-0.58665055]
[-0.37533438]
[0.98645043]
[0.14553197]
"""


@pytest.fixture
def legacy_scheme() -> None:
    random.config.update("jax_threefry_partitionable", False)


def test_sharp_bits_key_repr() -> None:
    key = random.key(0)
    assert repr(key) == "Array((), dtype=key<fry>) overlaying:\n[0 0]"


@pytest.mark.usefixtures("legacy_scheme")
def test_sharp_bits_reusing_a_key() -> None:
    def example() -> None:
        key = random.key(0)
        print(random.normal(key, shape=(1,)))
        print(key)
        print(random.normal(key, shape=(1,)))
        print(key)

    assert capture(example) == SHARP_BITS_REUSE


@pytest.mark.usefixtures("legacy_scheme")
def test_sharp_bits_splitting() -> None:
    def example() -> None:
        key = random.key(0)
        for _ in range(2):
            print("old key", key)
            key, subkey = random.split(key)
            normal_pseudorandom = random.normal(subkey, shape=(1,))
            print(r"    \---SPLIT --> new key   ", key)
            print(r"             \--> new subkey", subkey, "--> normal", normal_pseudorandom)
        key, *subkeys = random.split(key, 4)
        for subkey in subkeys:
            print(random.normal(subkey, shape=(1,)))

    assert capture(example) == SHARP_BITS_SPLIT


def test_sharp_bits_float64_without_x64_warns_and_truncates() -> None:
    with pytest.warns(UserWarning, match="Explicitly requested dtype float64 is not available"):
        x = random.uniform(random.key(0), (1000,), dtype=np.float64)
    assert x.dtype == np.dtype("float32")


def test_float64_with_x64() -> None:
    random.config.update("jax_enable_x64", True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        x = random.uniform(random.key(0), (1000,), dtype=np.float64)
    assert x.dtype == np.dtype("float64")


def test_quickstart_key_and_reuse() -> None:
    def example() -> None:
        key = random.key(43)
        print(key)
        print(random.normal(key))
        print(random.normal(key))

    assert capture(example) == (
        "Array((), dtype=key<fry>) overlaying:\n[ 0 43]\n0.07520543\n0.07520543\n"
    )


def test_quickstart_draws() -> None:
    def example() -> None:
        key = random.key(43)
        for i in range(3):
            new_key, subkey = random.split(key)
            del key
            val = random.normal(subkey)
            del subkey
            print(f"draw {i}: {val}")
            key = new_key  # noqa: F841

    assert capture(example) == (
        "draw 0: -1.9133632183074951\ndraw 1: -1.4749839305877686\ndraw 2: -0.36703771352767944\n"
    )


def test_quickstart_vmap_inputs_shapes() -> None:
    key = random.key(1701)
    key1, key2 = random.split(key)
    assert random.normal(key1, (150, 100)).shape == (150, 100)
    assert random.normal(key2, (10, 100)).dtype == np.dtype("float32")
