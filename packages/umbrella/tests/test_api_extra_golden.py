"""The newer ``jax.scipy`` names, ``Array`` methods, ``random.key_dtype`` and ``debug``'s
sharding pictures against ``golden/api_extra_golden.{npz,json}``.

``golden/api_extra_cases.py`` runs the same cases through either
implementation; ``golden/generate_api_extra.py`` wrote the reference side
(eagerly; here the array cases run as one jitted program). Floats are compared
relative to the case's largest magnitude (at least 1); integers and strings
exactly; NaN and infinities by position.
"""

from __future__ import annotations

import contextlib
import io
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
import tessela as tx
import tessela.numpy as tnp
import tessela.scipy
from _golden import cases_module, golden_tests, load_json, load_npz, same_layout
from tessela import debug, random

api_extra_cases = cases_module("api_extra_cases")
GOLDEN = load_npz("api_extra_golden.npz")
HOST = load_json("api_extra_golden.json")

# Series stopped at a tolerance, and results that differ from the reference by
# the association order of sums (overlap-add, Householder products).
LOOSE = {
    "special|hyp1f1": 2e-5, "special|hyp2f1": 5e-5, "grad|hyp1f1": 5e-5, "grad|hyp2f1": 1e-4,
    "linalg|expm_frechet": 2e-5, "linalg|expm_frechet_expm": 2e-5,
}  # fmt: skip

NS = SimpleNamespace(scipy=tessela.scipy, grad=tx.grad, vmap=tx.vmap, jnp=tnp)


def _compare(name: str, got: np.ndarray, want: np.ndarray) -> None:
    if not same_layout(name, got, want):
        return
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want), err_msg=name)
    np.testing.assert_array_equal(np.isinf(got), np.isinf(want), err_msg=name)
    finite = np.isfinite(want)
    scale = max(1.0, float(np.max(np.abs(want[finite]), initial=0.0)))
    rtol = LOOSE.get(name, 4e-6 if want.dtype != np.float16 else 2e-3)
    np.testing.assert_allclose(got[finite], want[finite], rtol=0, atol=rtol * scale, err_msg=name)


test_every_case_is_in_the_golden_file, test_matches_the_reference = golden_tests(
    tx.jit(lambda: api_extra_cases.cases(NS)), GOLDEN, _compare
)


def test_host_values_match_the_reference() -> None:
    got = api_extra_cases.host_cases(tnp, debug, random)
    assert sorted(got) == sorted(HOST["host"])
    for name, want in HOST["host"].items():
        assert got[name] == want, name


class _Device:
    def __init__(self, ident: int) -> None:
        self.id = ident
        self.platform = "cpu"


class _Layout:
    """A sharding rebuilt from the reference's ``devices_indices_map``."""

    def __init__(self, index_map: list[Any]) -> None:
        self._map = {_Device(i): tuple(slice(a, b) for a, b in index) for i, index in index_map}

    @property
    def device_set(self) -> set[_Device]:
        return set(self._map)

    def devices_indices_map(self, shape: tuple[int, ...]) -> dict[_Device, tuple[slice, ...]]:
        return self._map


@pytest.mark.parametrize("name", sorted(HOST["layouts"]))
def test_visualize_sharding_draws_the_reference_picture(name: str) -> None:
    case = HOST["layouts"][name]
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        debug.visualize_sharding(
            tuple(case["shape"]), _Layout(case["index_map"]), **case["options"]
        )
    assert buffer.getvalue() == case["text"]


def test_breakpoint_session_matches_the_reference() -> None:
    got = api_extra_cases.debugger_transcript(tx.jit, tx.vmap, tnp, debug.breakpoint)
    assert got == HOST["debugger"]


def test_breakpoint_rejects_ordered_with_token_and_quits_on_q() -> None:
    with pytest.raises(ValueError, match="mutually exclusive"):
        debug.breakpoint(ordered=True, token=tnp.ones(1))
    with pytest.raises(SystemExit):
        debug.breakpoint(stdin=io.StringIO("q\n"), stdout=io.StringIO())


def test_visualize_needs_one_or_two_dimensions() -> None:
    with pytest.raises(ValueError, match="1 and 2 dimensions"):
        debug.visualize_array_sharding(tnp.float32(2.0))


def test_inspect_array_sharding_calls_back_inside_jit() -> None:
    seen: list[Any] = []

    @tx.jit
    def f(x: Any) -> Any:
        debug.inspect_array_sharding({"a": x, "b": x * 2}, callback=seen.append)
        return x

    f(tnp.ones(3))
    assert [s.device_set for s in seen] == [{tx.devices()[0]}] * 2
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        tx.jit(lambda x: debug.visualize_array_sharding(x) or x)(tnp.arange(4.0))
    assert buffer.getvalue() == HOST["host"]["debug|visualize_vector"]


def test_key_dtype_rejects_what_it_does_not_provide() -> None:
    assert random.key_dtype(random.key(1).dtype) == random.key(1).dtype
    with pytest.raises(ValueError, match='unrecognized PRNG implementation "rbg"'):
        random.key_dtype("rbg")
    with pytest.raises(TypeError, match="key_dtype"):
        random.key_dtype(3)


def test_spectral_functions_reject_bad_arguments() -> None:
    sig = tessela.scipy.signal
    x = np.ones(16, np.float32)
    with pytest.raises(ValueError, match="noverlap must be less than nperseg"):
        sig.stft(x, nperseg=4, noverlap=4)
    with pytest.raises(ValueError, match="average must be"):
        sig.welch(x, nperseg=4, average="mode")
    with pytest.raises(ValueError, match="Unknown scaling"):
        sig.csd(x, x, nperseg=4, scaling="power")
    with pytest.raises(ValueError, match="at least 2d"):
        sig.istft(x)
    with pytest.raises(ValueError, match="differing time and frequency"):
        sig.istft(tnp.ones((3, 4)), time_axis=0, freq_axis=0)


def test_linalg_and_special_reject_bad_arguments() -> None:
    linalg, special = tessela.scipy.linalg, tessela.scipy.special
    with pytest.raises(ValueError, match="same shape"):
        linalg.expm_frechet(tnp.eye(2), tnp.eye(3))
    with pytest.raises(ValueError, match="mode must be"):
        linalg.qr_multiply(tnp.eye(2), tnp.eye(2), mode="middle")
    with pytest.raises(ValueError, match="c @ Q"):
        linalg.qr_multiply(tnp.ones((4, 2)), tnp.ones((2, 3)))
    with pytest.raises(NotImplementedError, match="pivoting"):
        linalg.qr_multiply(tnp.eye(2), tnp.eye(2), pivoting=True)
    with pytest.raises(ValueError, match="complex"):
        special.hyp1f1(1.0, 1.0, 1j)
    with pytest.raises(ValueError, match="real-valued"):
        special.sici(1j)
    with pytest.raises(NotImplementedError, match="diff_n"):
        special.sph_harm_y(tnp.array([1]), tnp.array([0]), tnp.array([0.1]), tnp.array([0.2]),
                           diff_n=1)  # fmt: skip


def test_array_buffer_methods() -> None:
    x = tnp.arange(3.0)
    assert x.clone().unsafe_buffer_pointer() == x.unsafe_buffer_pointer()
    y = x.to_device(tx.devices()[0])
    assert y.committed and np.array_equal(np.asarray(y), np.asarray(x))
    with pytest.raises(NotImplementedError, match="stream"):
        x.to_device(tx.devices()[0], stream=1)
    x.delete()
    assert x.format.layout is None
    with pytest.raises(RuntimeError):
        x.is_ready()


def test_tracer_byteswap_and_to_device() -> None:
    jaxpr = str(tx.make_jaxpr(lambda a: a.byteswap().to_device(tx.devices()[0]))(tnp.ones(2)))
    assert "rev[dimensions=(1,)]" in jaxpr and "device_put" in jaxpr
    out = tx.jit(lambda a: a.byteswap())(tnp.arange(3, dtype="int16"))
    np.testing.assert_array_equal(np.asarray(out), np.arange(3, dtype=np.int16).byteswap())
