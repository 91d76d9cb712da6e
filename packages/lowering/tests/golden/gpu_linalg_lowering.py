"""The cuSOLVER custom calls of the linear-algebra primitives, as JAX 0.10.2 emits them for CUDA.

Run with JAX 0.10.2 (``python gpu_linalg_lowering.py jax > gpu_linalg_lowering.txt``;
no GPU needed: ``jax.export`` lowers for the ``cuda`` and ``rocm`` platforms on any host)
it prints, for each case, the ``stablehlo.custom_call`` lines of the module
in a normal form (:func:`normalize`); ``tests/test_linalg_gpu.py`` imports
this file and lowers the same cases with ``tessela_lowering.jaxpr_to_module(...,
platform="cuda")`` (``python gpu_linalg_lowering.py tessela`` prints them).

The normal form keeps the target name, the FFI attributes
(``mhlo.backend_config``), ``num_batch_dims``, the operand and result
layouts, the output-operand aliases and the operand and result types; it drops
the SSA names, locations, Shardy's ``sdy.sharding_rule`` (written only for
the Shardy partitioner), and the empty string ``backend_config``.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from typing import Any

import numpy as np

_DROP = [
    re.compile(r", sdy\.sharding_rule = .*?(?=\} : )"),
    re.compile(r"backend_config = \"\", "),
    re.compile(r"\s+loc\(.*\)$"),
]


def normalize(module_text: str) -> list[str]:
    """The custom-call lines of ``module_text`` in the normal form."""
    out = []
    for line in module_text.splitlines():
        if "stablehlo.custom_call" not in line:
            continue
        line = line.strip()
        for pattern in _DROP:
            line = pattern.sub("", line)
        line = re.sub(r"%[\w#:]+", "%v", line)
        out.append(line)
    return out


def cases(linalg: Any) -> dict[str, tuple[Callable[..., Any], list[tuple[tuple[int, ...], Any]]]]:
    """Name -> (function of ``linalg``'s operations, operand shapes and dtypes).

    Cases named ``rocm: ...`` lower for ROCm, the others for CUDA.
    """
    f32, f64, c64, c128 = np.float32, np.float64, np.complex64, np.complex128
    svd, eigh = linalg.svd, linalg.eigh
    qr_alg, jacobi = linalg.SvdAlgorithm.QR, linalg.EighImplementation.JACOBI
    return {
        "svd f32 4x3": (lambda a: svd(a), [((4, 3), f32)]),
        "svd f32 4x3 values": (lambda a: svd(a, compute_uv=False), [((4, 3), f32)]),
        "svd c64 2x3x5 reduced": (lambda a: svd(a, full_matrices=False), [((2, 3, 5), c64)]),
        "svd f64 40x36 reduced": (lambda a: svd(a, full_matrices=False), [((40, 36), f64)]),
        "svd f32 3x5 QR": (lambda a: svd(a, algorithm=qr_alg), [((3, 5), f32)]),
        "svd c64 5x3 QR reduced": (
            lambda a: svd(a, full_matrices=False, algorithm=qr_alg),
            [((5, 3), c64)],
        ),
        "svd f32 3x4 QR values": (
            lambda a: svd(a, compute_uv=False, algorithm=qr_alg),
            [((3, 4), f32)],
        ),
        "svd f32 1030x4 reduced": (lambda a: svd(a, full_matrices=False), [((1030, 4), f32)]),
        "eigh f32 4x4": (lambda a: eigh(a), [((4, 4), f32)]),
        "eigh c64 2x5x5 upper": (lambda a: eigh(a, lower=False), [((2, 5, 5), c64)]),
        "eigh f64 3x3 jacobi": (lambda a: eigh(a, implementation=jacobi), [((3, 3), f64)]),
        "cholesky f32 4x4": (lambda a: linalg.cholesky(a), [((4, 4), f32)]),
        "cholesky c128 2x3x3": (lambda a: linalg.cholesky(a), [((2, 3, 3), c128)]),
        "lu f32 4x4": (lambda a: linalg.lu(a), [((4, 4), f32)]),
        "lu c64 2x3x5": (lambda a: linalg.lu(a), [((2, 3, 5), c64)]),
        "lu f64 5x3": (lambda a: linalg.lu(a), [((5, 3), f64)]),
        "qr f32 4x3": (lambda a: linalg.qr(a), [((4, 3), f32)]),
        "qr f32 4x3 reduced": (lambda a: linalg.qr(a, full_matrices=False), [((4, 3), f32)]),
        "qr c64 3x5": (lambda a: linalg.qr(a), [((3, 5), c64)]),
        "qr f64 2x4x4": (lambda a: linalg.qr(a, full_matrices=False), [((2, 4, 4), f64)]),
        "householder_product f32 4x3": (
            lambda a, t: linalg.householder_product(a, t),
            [((4, 3), f32), ((2,), f32)],
        ),
        "householder_product c128 2x3x3": (
            lambda a, t: linalg.householder_product(a, t),
            [((2, 3, 3), c128), ((2, 3), c128)],
        ),
        "rocm: svd f32 4x3": (lambda a: svd(a), [((4, 3), f32)]),
        "rocm: svd f32 3x4 divide and conquer": (
            lambda a: svd(a, algorithm=linalg.SvdAlgorithm.DIVIDE_AND_CONQUER),
            [((3, 4), f32)],
        ),
        "rocm: eigh f32 3x3": (lambda a: eigh(a), [((3, 3), f32)]),
        "rocm: lu f32 3x3": (lambda a: linalg.lu(a), [((3, 3), f32)]),
        "rocm: qr c64 4x3 reduced": (lambda a: linalg.qr(a, full_matrices=False), [((4, 3), c64)]),
    }


def report(lower: Callable[[Callable[..., Any], list[Any], str], str], linalg: Any) -> list[str]:
    """The golden file's lines: ``# name`` then the normalized custom calls of each case.

    ``lower(fn, specs, platform)`` returns the module text of ``fn`` lowered for
    ``platform`` on operands of the given shapes and dtypes.
    """
    lines = []
    for name, (fn, specs) in cases(linalg).items():
        lines.append(f"# {name}")
        platform = "rocm" if name.startswith("rocm:") else "cuda"
        lines.extend(normalize(lower(fn, specs, platform)))
    return lines


if __name__ == "__main__" and sys.argv[1] == "jax":
    import jax
    from jax import export

    jax.config.update("jax_enable_x64", True)

    def lower_jax(fn: Callable[..., Any], specs: list[Any], platform: str) -> str:
        args = [jax.ShapeDtypeStruct(shape, dtype) for shape, dtype in specs]
        exported = export.export(jax.jit(fn), platforms=[platform])(*args)
        return str(exported.mlir_module())

    print("\n".join(report(lower_jax, jax.lax.linalg)))
elif __name__ == "__main__":
    import tessela_lowering as tl
    from tessela_tracer import config, make_jaxpr
    from tessela_tracer.lax import linalg as tessela_linalg

    config.update("jax_enable_x64", True)

    def lower_tessela(fn: Callable[..., Any], specs: list[Any], platform: str) -> str:
        closed = make_jaxpr(fn)(*[np.zeros(shape, dtype) for shape, dtype in specs])
        return tl.jaxpr_to_module(closed, platform=platform)

    print("\n".join(report(lower_tessela, tessela_linalg)))
