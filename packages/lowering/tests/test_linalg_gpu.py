"""The GPU lowerings of the linear-algebra primitives, checked on a host without a GPU.

Each case of ``golden/gpu_linalg_lowering.py`` is lowered for the ``cuda`` (or
``rocm``) platform with :func:`tessela_lowering.jaxpr_to_module` and its
cuSOLVER/hipSOLVER custom calls (target names, FFI attributes, layouts,
aliases, operand and result types) are compared with JAX 0.10.2's, recorded in
``golden/gpu_linalg_lowering.txt``. The module text is built but not compiled:
running it needs a GPU and its plugin (``tools/gpu_check.py`` does that).
"""

from __future__ import annotations

import re
from typing import Any

import _golden_scripts
import numpy as np
import pytest
import tessela_lowering as tl
from tessela_lowering import _cusolver
from tessela_tracer import make_jaxpr
from tessela_tracer.lax import linalg

SCRIPT = _golden_scripts.load("gpu_linalg_lowering.py", "gpu_linalg_lowering")


def _module(fn: Any, specs: list[Any], platform: str) -> str:
    closed = make_jaxpr(fn)(*[np.zeros(shape, dtype) for shape, dtype in specs])
    return tl.jaxpr_to_module(closed, platform=platform)


def _targets(text: str) -> list[str]:
    return re.findall(r"stablehlo\.custom_call @(\w+)", text)


def _golden_sections() -> dict[str, list[str]]:
    sections: dict[str, list[str]] = {}
    name = ""
    for line in (_golden_scripts.GOLDEN / "gpu_linalg_lowering.txt").read_text().splitlines():
        if line.startswith("# "):
            name = line[2:]
            sections[name] = []
        else:
            sections[name].append(line)
    return sections


@pytest.mark.usefixtures("x64")
def test_custom_calls_match_jax() -> None:
    want = _golden_sections()
    got = SCRIPT.report(_module, linalg)
    assert len(want) == len(SCRIPT.cases(linalg)) == 27
    assert got == (_golden_scripts.GOLDEN / "gpu_linalg_lowering.txt").read_text().splitlines()
    # Every case calls at least one kernel, of the platform's family.
    for name, lines in want.items():
        assert lines, name
        prefix = "@hip" if name.startswith("rocm:") else "@cu"
        assert all(prefix in line for line in lines), name


def test_gpu_platform_name_lowers_as_cuda() -> None:
    # A GPU device reports the platform "gpu"; without a ROCm plugin it is CUDA.
    x = np.ones((3, 3), np.float32)
    text = _module(lambda a: linalg.eigh(a), [((3, 3), np.float32)], "gpu")
    assert _targets(text) == ["cusolver_syevd_ffi"]
    assert _cusolver.solver_prefix("gpu") == "cu"
    assert _targets(_module(linalg.lu, [(x.shape, x.dtype)], "rocm")) == [
        "hipsolver_getrf_ffi", "hip_lu_pivots_to_permutation",
    ]  # fmt: skip


def test_results_are_nan_filled_where_info_reports_failure() -> None:
    text = _module(lambda a: linalg.svd(a), [((2, 4, 3), np.float32)], "cuda")
    # One NaN select per result (s, u, vt) keyed on info == 0, as JAX does.
    assert text.count("stablehlo.select") == 3
    assert "stablehlo.compare  EQ" in text or "stablehlo.compare EQ" in text
    lu_text = _module(linalg.lu, [((4, 4), np.float32)], "cuda")
    # getrf's pivots are 1-based and a singular matrix is still factored (info >= 0).
    assert "stablehlo.subtract" in lu_text
    assert re.search(r"stablehlo\.compare\s+GE", lu_text)


def test_cpu_lowerings_are_unchanged() -> None:
    assert _targets(_module(lambda a: linalg.svd(a), [((4, 3), np.float32)], "cpu")) == [
        "lapack_sgesdd_ffi"
    ]
    assert _targets(_module(linalg.cholesky, [((3, 3), np.float32)], "cpu")) == []
    assert _targets(_module(linalg.lu, [((3, 3), np.float32)], "cpu")) == []


def test_unsupported_options_raise_naming_the_fix() -> None:
    spec = [((3, 4), np.float32)]
    dc = linalg.SvdAlgorithm.DIVIDE_AND_CONQUER
    with pytest.raises(NotImplementedError, match="only supported on AMD"):
        _module(lambda a: linalg.svd(a, algorithm=dc), spec, "cuda")
    qdwh = linalg.EighImplementation.QDWH
    with pytest.raises(NotImplementedError, match="QDWH is only supported on TPU"):
        _module(lambda a: linalg.eigh(a, implementation=qdwh), [((3, 3), np.float32)], "cuda")
    with pytest.raises(NotImplementedError, match="subset_by_index"):
        _module(lambda a: linalg.svd(a, full_matrices=False, subset_by_index=(0, 1)), spec, "cuda")
    with pytest.raises(NotImplementedError, match="platform 'cuda'"):
        _module(lambda a: linalg.eig(a), [((3, 3), np.float32)], "cuda")


def test_empty_matrices_need_no_kernel() -> None:
    assert _targets(_module(lambda a: linalg.svd(a), [((0, 3), np.float32)], "cuda")) == []
    q, r = (o.aval.shape for o in make_jaxpr(linalg.qr)(np.zeros((3, 0), np.float32)).jaxpr.outvars)
    text = _module(linalg.qr, [((3, 0), np.float32)], "cuda")
    assert _targets(text) == [] and (q, r) == ((3, 3), (3, 0))


def test_solver_targets_registration_without_a_plugin() -> None:
    have_plugin = _cusolver._plugin_module("cu", "_solver") is not None
    names = _cusolver.register_solver_targets("cu")
    assert names == _cusolver.register_solver_targets("cu")  # idempotent
    assert bool(names) == have_plugin
    if have_plugin:
        assert "cusolver_gesvdj_ffi" in names and "cu_lu_pivots_to_permutation" in names
