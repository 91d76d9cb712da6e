"""Backends, devices and the default device, in this process and in fresh ones."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest
import tessela_lowering as tl


def _run(code: str, **env: str) -> str:
    full = {k: v for k, v in os.environ.items() if not k.startswith(("TESSELA_", "JAX_", "XLA_"))}
    full.update(env)
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        env=full,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    if proc.returncode != 0:
        raise AssertionError(proc.stderr)
    return proc.stdout.strip()


def test_default_backend_is_cpu_here() -> None:
    assert tl.default_backend() == "cpu"
    assert tl.devices() == tl.devices("cpu") == tl.local_devices()
    assert tl.device_count() == len(tl.devices()) == tl.local_device_count()
    assert tl.process_index() == 0 and tl.process_count() == 1
    assert repr(tl.devices()[0]) == "CpuDevice(id=0)"


def test_unknown_backend_names_the_choices() -> None:
    with pytest.raises(RuntimeError, match=r"Unknown backend 'warp'.*\['cpu'\]"):
        tl.devices("warp")


def test_default_device_context_manager_nests() -> None:
    first = tl.devices()[0]
    last = tl.devices()[-1]
    assert tl.get_default_device() == first
    with tl.default_device(last):
        assert tl.get_default_device() == last
        with tl.default_device("cpu"):
            assert tl.get_default_device() == first
        with tl.default_device(None):
            assert tl.get_default_device() == first
        assert tl.get_default_device() == last
    assert tl.get_default_device() == first


def test_default_device_rejects_other_things() -> None:
    with pytest.raises(TypeError, match="expected a Device"), tl.default_device(3):  # type: ignore[arg-type]
        pass


LIST = """
import tessela_lowering as tl
print(tl.device_count(), repr(tl.devices()[-1]), tl.default_backend())
"""


def test_num_cpu_devices_variable() -> None:
    assert _run(LIST, TESSELA_NUM_CPU_DEVICES="4") == "4 CpuDevice(id=3) cpu"


def test_jax_spelling_and_xla_flags() -> None:
    assert _run(LIST, JAX_NUM_CPU_DEVICES="3").startswith("3 ")
    assert _run(LIST, XLA_FLAGS="--xla_force_host_platform_device_count=2").startswith("2 ")


def test_platforms_variable_selects_cpu() -> None:
    assert _run(LIST, TESSELA_PLATFORMS="cpu").endswith("cpu")
    assert _run(LIST, JAX_PLATFORMS="cpu").endswith("cpu")


def test_platforms_variable_with_missing_plugin_fails_clearly() -> None:
    with pytest.raises(AssertionError, match="Unable to initialize backend 'warp'"):
        _run(LIST, TESSELA_PLATFORMS="warp,cpu")


def test_bad_device_count_is_a_value_error() -> None:
    with pytest.raises(AssertionError, match="TESSELA_NUM_CPU_DEVICES must be a positive integer"):
        _run(LIST, TESSELA_NUM_CPU_DEVICES="four")


def test_four_devices_are_distinct_and_usable() -> None:
    out = _run(
        """
        import numpy as np
        import tessela_lowering as tl
        from tessela_lowering import _xla
        devs = tl.devices()
        bufs = [_xla.device_put(np.full(2, i, np.int32), d) for i, d in enumerate(devs)]
        print([str(_xla.buffer_device(b)) for b in bufs], [int(_xla.to_numpy(b)[0]) for b in bufs])
        """,
        TESSELA_NUM_CPU_DEVICES="4",
    )
    assert out == "['cpu:0', 'cpu:1', 'cpu:2', 'cpu:3'] [0, 1, 2, 3]"
