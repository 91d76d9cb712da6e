"""One config facade over the tracer's flags and the PRNG's."""

from __future__ import annotations

import pytest
import tessela as tx
import tessela_prng
import tessela_tracer


def test_x64_switches_every_package_together() -> None:
    try:
        tx.config.update("jax_enable_x64", True)
        assert tessela_tracer.config.read("jax_enable_x64") is True
        assert tessela_prng.config.read("jax_enable_x64") is True
        assert tx.config.jax_enable_x64 is True
        assert tx.numpy.arange(3.0).dtype == "float64"
    finally:
        tx.config.update("jax_enable_x64", False)
    assert tessela_prng.config.read("jax_enable_x64") is False
    assert tx.numpy.arange(3.0).dtype == "float32"


def test_prng_only_flag_and_tessela_spelling() -> None:
    try:
        tx.config.update("tessela_threefry_partitionable", False)
        assert tessela_prng.config.read("jax_threefry_partitionable") is False
        assert tx.config.read("jax_threefry_partitionable") is False
    finally:
        tx.config.update("jax_threefry_partitionable", True)


def test_flag_names_and_unknown_flag() -> None:
    names = tx.config.flag_names()
    assert {"jax_enable_x64", "jax_threefry_partitionable", "jax_disable_jit"} <= set(names)
    with pytest.raises(AttributeError, match="jax_enable_x64"):
        tx.config.update("jax_enable_x46", True)
    with pytest.raises(AttributeError, match="Unrecognized config option"):
        tx.config.read("nope")
