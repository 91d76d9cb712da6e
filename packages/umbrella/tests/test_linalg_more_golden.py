"""The newer ``lax.linalg`` names and the functions built on them against JAX 0.10.2.

``golden/linalg_more_cases.py`` runs ``eig`` (values, both eigenvector sets,
JVPs, ``vmap``), ``schur``, ``hessenberg``, ``tridiagonal``,
``householder_product``, ``ormqr``, ``tridiagonal_solve`` (with JVP, VJP and
``vmap``), ``lu_pivots_to_permutation``, ``cholesky_update``,
``symmetric_product``, ``qdwh``, ``numpy.linalg.eig``/``eigvals`` and
``scipy.linalg`` ``schur``, ``rsf2csf``, ``hessenberg``, ``sqrtm``, ``polar`` and ``funm``
through either library, recording what is invariant under the documented
sign and phase freedoms; ``golden/generate.py`` wrote JAX's side.
The defining identities (``A v = v w``, ``Q T Q^H = A`` with ``T``
quasi-triangular) are checked here on Tessela's own results.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
import tessela as tx
import tessela.numpy as tnp
import tessela.scipy.linalg as tsl
from _golden import allclose, cases_module, golden_tests, load_npz
from tessela import lax

cases = cases_module("linalg_more_cases")
GOLDEN = load_npz("linalg_more_golden.npz")

NS = SimpleNamespace(
    lax=lax, numpy=tnp, scipy_linalg=tsl, jit=tx.jit, jvp=tx.jvp, vjp=tx.vjp, vmap=tx.vmap
)
test_every_case_was_recorded, test_matches_jax = golden_tests(
    lambda: cases.run(NS), GOLDEN, allclose(2e-4, 2e-4)
)


def test_eig_defining_identities() -> None:
    a = cases.A4
    w, vl, vr = (np.asarray(o) for o in lax.linalg.eig(a))
    np.testing.assert_allclose(a @ vr, vr * w, atol=1e-5)
    np.testing.assert_allclose(vl.conj().T @ a, w[:, None] * vl.conj().T, atol=1e-5)
    np.testing.assert_allclose(np.linalg.norm(vr, axis=0), np.ones(4), atol=1e-6)


def test_schur_reconstructs_with_quasi_triangular_t() -> None:
    for a in (cases.A4, cases.C3):
        t, q = (np.asarray(o) for o in lax.linalg.schur(a))
        np.testing.assert_allclose(q @ t @ q.conj().T, a, atol=1e-5)
        np.testing.assert_allclose(q.conj().T @ q, np.eye(len(a)), atol=1e-5)
        assert np.all(np.tril(t, -2) == 0)
        if a.dtype.kind == "c":
            assert np.all(np.tril(t, -1) == 0)
        else:  # no two consecutive nonzero subdiagonal entries: 2x2 blocks only
            sub = np.diagonal(t, -1) != 0
            assert not np.any(sub[1:] & sub[:-1])


def test_bad_inputs_raise_as_jax() -> None:
    with pytest.raises(ValueError, match="square"):
        lax.linalg.eig(np.ones((2, 3), np.float32))
    with pytest.raises(TypeError, match="does not accept dtype int32"):
        lax.linalg.schur(np.ones((2, 2), np.int32))
    with pytest.raises(ValueError, match="'real' or 'complex'"):
        tsl.schur(cases.A4, output="imaginary")
    with pytest.raises(NotImplementedError, match="Blocked"):
        tsl.sqrtm(cases.SPD4, blocksize=2)
    with pytest.raises(ValueError, match="has to exceed"):
        lax.linalg.lu_pivots_to_permutation(cases.PIVOTS, 2)
    with pytest.raises(NotImplementedError, match="only supports"):
        tsl.polar(cases.TALL, side="left")
    with pytest.raises(ValueError, match="`side` must be"):
        tsl.polar(cases.TALL, side="up")
    with pytest.raises(NotImplementedError, match="enable_eigvec_derivs"):
        tx.jvp(lambda a: lax.linalg.eig(a)[2], (cases.A4,), (cases.DA4,))
