"""Linear algebra on NVIDIA and AMD GPUs through jaxlib's cuSOLVER/hipSOLVER FFI kernels.

On the GPU platforms (``"cuda"``, ``"rocm"``, and ``"gpu"``, the name a GPU
device reports) the LAPACK-style primitives lower as JAX 0.10.2 lowers them:
each becomes one ``stablehlo.custom_call`` (typed FFI) of a kernel from the GPU plugin's ``_solver`` or ``_linalg`` module (its
attributes in ``mhlo.backend_config``, as JAX writes typed-FFI calls), named with the
platform's prefix (``cu`` for CUDA, ``hip`` for ROCm), and the results of each
matrix whose ``info`` reports failure are replaced by NaNs:

- ``svd``: ``<p>solver_gesvdj_ffi`` (Jacobi; the default for matrices of at
  most 1024 rows and columns, and ``SvdAlgorithm.JACOBI``), attributes
  ``full_matrices`` and ``compute_uv``, results ``(a, s, u, v, info)``; ``v``
  is transposed (and conjugated) into ``vt``. Reduced factors of matrices of
  at most 32 rows or columns are computed full and sliced, as the batched
  kernel has no reduced mode. ``<p>solver_gesvd_ffi`` (larger matrices and
  ``SvdAlgorithm.QR``) adds ``transposed``: a wide matrix is passed row-major,
  i.e. transposed, and the kernel's ``u`` and ``vt`` swap places.
  ``SvdAlgorithm.POLAR`` calls ``<p>solver_gesvdp_ffi``;
  ``DIVIDE_AND_CONQUER`` is ROCm's ``hipsolver_gesdd_ffi`` only.
- ``eigh``: ``<p>solver_syevd_ffi`` (real and complex), attributes ``lower``
  and ``algorithm`` (``ui8``: 0 lets the kernel choose, 1 QR, 2 Jacobi),
  results ``(v, w, info)``.
- ``cholesky``: ``<p>solver_potrf_ffi``, attribute ``lower``.
- ``lu``: ``<p>solver_getrf_ffi`` (1-based pivots, made 0-based; NaNs only
  where ``info < 0``: a singular matrix is still factored), then
  ``<p>_lu_pivots_to_permutation`` for the permutation.
- ``qr``: ``<p>solver_geqrf_ffi`` then ``<p>solver_orgqr_ffi`` (the
  ``householder_product`` primitive), ``R`` the upper triangle.

Matrices are column-major in the kernels' operands and results, which the
layouts tell XLA; vectors and per-matrix scalars row-major. Each call carries
the frontend attribute ``num_batch_dims``, as JAX's do. The kernels are
registered with XLA, on the first GPU lowering, from the installed GPU plugin
(``jax_cuda13_plugin``, ``jax_cuda12_plugin``, or ROCm's).
"""

from __future__ import annotations

import contextlib
import importlib
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np
from tessela_tracer import ShapedArray, lax
from tessela_tracer import primitives as P
from tessela_tracer.dtypes import issubdtype
from tessela_tracer.extend import get_aval_of
from tessela_tracer.lax.linalg import EighImplementation, SvdAlgorithm
from tessela_tracer.typing import Array, DTypeLike

from tessela_lowering import _hlo
from tessela_lowering._lapack import I32, check_info
from tessela_lowering._lowering import LoweringRuleContext, lower_fun
from tessela_lowering._xla import Value, ir, stablehlo
from tessela_lowering._xla._jaxlib import _xla_client

__all__ = [
    "GPU_PLATFORMS",
    "GPU_RULES",
    "GPU_STRUCTURED_RULES",
    "eigh_gpu",
    "register_solver_targets",
    "solver_prefix",
    "svd_gpu",
]

GPU_PLATFORMS = ("cuda", "rocm", "gpu")
_PLUGINS = {
    "cu": ("jax_cuda13_plugin", "jax_cuda12_plugin", "jaxlib.cuda"),
    "hip": ("jax_rocm7_plugin", "jax_rocm60_plugin", "jaxlib.rocm"),
}
_XLA_PLATFORM = {"cu": "CUDA", "hip": "ROCM"}
_lock = threading.Lock()
_registered: dict[str, list[str]] = {}


def _plugin_module(prefix: str, name: str) -> Any:
    """The GPU plugin's submodule ``name`` (``_solver``, ``_linalg``), or ``None``."""
    for package in _PLUGINS[prefix]:
        try:
            return importlib.import_module(f"{package}.{name}")
        except ImportError:
            continue
    return None


def solver_prefix(platform: str) -> str:
    """The kernels' name prefix on ``platform``: ``"cu"`` (CUDA) or ``"hip"`` (ROCm).

    Args:
      platform: ``"cuda"``, ``"rocm"`` or ``"gpu"`` (a GPU device's platform,
        CUDA unless only a ROCm plugin is installed).

    Returns:
      ``"cu"`` or ``"hip"``.

    Example:
      >>> solver_prefix("cuda"), solver_prefix("rocm")
      ('cu', 'hip')
    """
    if platform == "rocm":
        return "hip"
    if platform == "gpu" and _plugin_module("cu", "_solver") is None:
        return "hip" if _plugin_module("hip", "_solver") is not None else "cu"
    return "cu"


def register_solver_targets(prefix: str) -> list[str]:
    """Register the GPU plugin's solver and linalg kernels with XLA; idempotent, thread-safe.

    The ``*_ffi`` kernels of ``_solver`` and every kernel of ``_linalg`` are
    typed FFI handlers (``api_version=1``), the other ``_solver`` ones legacy.
    Without a GPU plugin nothing is registered (the module text is the same).

    Args:
      prefix: ``"cu"`` or ``"hip"``.

    Returns:
      The registered target names.

    Example:
      >>> isinstance(register_solver_targets("cu"), list)
      True
    """
    with _lock:
        if prefix not in _registered:
            names: list[str] = []
            for sub in ("_solver", "_linalg"):
                module = _plugin_module(prefix, sub)
                if module is None:
                    continue
                for name, capsule in sorted(module.registrations().items()):
                    version = 1 if sub == "_linalg" or name.endswith("_ffi") else 0
                    # A name the plugin registered itself is refused; keep going.
                    with contextlib.suppress(RuntimeError):
                        _xla_client.register_custom_call_target(
                            name, capsule, platform=_XLA_PLATFORM[prefix], api_version=version
                        )
                    names.append(name)
            _registered[prefix] = names
        return list(_registered[prefix])


def _layout(rank: int, column_major: bool) -> ir.Attribute:
    order = [rank - 2, rank - 1, *range(rank - 3, -1, -1)] if column_major else range(rank)[::-1]
    data: Any = np.asarray(list(order), np.int64)
    attr: ir.Attribute = ir.DenseIntElementsAttr.get(data, type=ir.IndexType.get())
    return attr


def gpu_call(
    ctx: LoweringRuleContext,
    name: str,
    operands: Sequence[Value],
    avals_in: Sequence[ShapedArray],
    avals_out: Sequence[ShapedArray],
    attributes: dict[str, ir.Attribute] | None = None,
    *,
    alias_first: bool = True,
    column_major: bool = True,
    matrix_dims: int = 2,
) -> list[Value]:
    """One typed-FFI custom call of the kernel ``<prefix>name`` (batch axes leading).

    As JAX writes it: the attributes in ``mhlo.backend_config`` (a dictionary,
    which makes XLA call the kernel through the typed FFI), ``backend_config``
    empty and ``api_version`` 1.

    Operands and results of the highest operand rank are laid out column-major
    when ``column_major``, the others row-major; result 0 reuses operand 0's
    buffer when ``alias_first``. ``matrix_dims`` trailing axes are the
    kernel's own, the rest batch axes (``num_batch_dims``).
    """
    prefix = solver_prefix(ctx.platform)
    register_solver_targets(prefix)
    rank = max(a.ndim for a in avals_in)
    aliases = [
        stablehlo.OutputOperandAlias.get([0] if len(avals_out) > 1 else [], 0, [])
    ] if alias_first else []  # fmt: skip
    op = stablehlo.CustomCallOp(
        [_hlo.tensor_type(a.shape, a.dtype) for a in avals_out],
        list(operands),
        call_target_name=ir.StringAttr.get(prefix + name),
        has_side_effect=ir.BoolAttr.get(False),
        api_version=ir.IntegerAttr.get(ir.IntegerType.get_signless(32), 1),
        backend_config=ir.StringAttr.get(""),
        operand_layouts=ir.ArrayAttr.get(
            [_layout(a.ndim, column_major and a.ndim == rank) for a in avals_in]
        ),
        result_layouts=ir.ArrayAttr.get(
            [_layout(a.ndim, column_major and a.ndim == rank) for a in avals_out]
        ),
        output_operand_aliases=ir.ArrayAttr.get(aliases),
    )
    op.operation.attributes["mhlo.backend_config"] = ir.DictAttr.get(attributes or {})
    op.operation.attributes["mhlo.frontend_attributes"] = ir.DictAttr.get(
        {"num_batch_dims": ir.StringAttr.get(str(rank - matrix_dims))}
    )
    return list(op.results)


def _bool(value: bool) -> ir.Attribute:
    return ir.BoolAttr.get(value)


def _ui8(value: int) -> ir.Attribute:
    attr: ir.Attribute = ir.IntegerAttr.get(ir.IntegerType.get_unsigned(8), value)
    return attr


def _is_complex(dtype: DTypeLike) -> bool:
    return bool(issubdtype(dtype, np.complexfloating))


def _sub_ctx(
    ctx: LoweringRuleContext, avals_in: Sequence[ShapedArray], avals_out: Sequence[ShapedArray]
) -> LoweringRuleContext:
    return LoweringRuleContext(ctx.module_context, ctx.primitive, avals_in, avals_out)


# ----------------------------------------------------------------------- svd


def _svd_kernel(prefix: str, algorithm: SvdAlgorithm | None, m: int, n: int) -> str:
    if algorithm in (None, SvdAlgorithm.DEFAULT):
        return "gesvdj" if m <= 1024 and n <= 1024 else "gesvd"
    if algorithm is SvdAlgorithm.QR:
        return "gesvd"
    if algorithm is SvdAlgorithm.JACOBI:
        return "gesvdj"
    if algorithm is SvdAlgorithm.POLAR:
        return "gesvdp"
    if prefix != "hip":
        raise NotImplementedError(
            "svd: SvdAlgorithm.DIVIDE_AND_CONQUER is only supported on AMD (ROCm) GPUs, not on "
            "NVIDIA CUDA; pass None, SvdAlgorithm.JACOBI or SvdAlgorithm.QR."
        )
    return "gesdd"


def _adjoint_slice(v: Array, *, conj: bool, shape: tuple[int, ...] | None) -> Array:
    """``v^H`` (``v^T`` unless ``conj``), sliced to ``shape`` when given."""
    nb = get_aval_of(v).ndim - 2
    vt = lax.transpose(v, (*range(nb), nb + 1, nb))
    vt = lax.conj(vt) if conj else vt
    return vt if shape is None else lax.slice(vt, (0,) * len(shape), shape)


def _slice_to(x: Array, *, shape: tuple[int, ...]) -> Array:
    return lax.slice(x, (0,) * len(shape), shape)


_adjoint_rule = lower_fun(_adjoint_slice)
_slice_rule = lower_fun(_slice_to)


def svd_gpu(
    ctx: LoweringRuleContext,
    x: Value,
    full_matrices: bool,
    compute_uv: bool,
    algorithm: SvdAlgorithm | None,
    info_aval: ShapedArray,
) -> tuple[list[Value], Value]:
    """The ``svd`` kernel call on a GPU platform, for matrices without a zero dimension.

    Args:
      ctx: the ``svd`` equation's lowering context.
      x: the matrices.
      full_matrices: the primitive's parameter.
      compute_uv: the primitive's parameter.
      algorithm: the primitive's parameter (chooses the kernel).
      info_aval: the abstract value of the kernel's per-matrix status.

    Returns:
      ``([s, u, vt] or [s], info)``: the factors (unchecked) and the status.
    """
    (aval,) = ctx.avals_in
    *batch_list, m, n = aval.shape
    batch, k, dtype = tuple(batch_list), min(m, n), aval.dtype
    kernel = _svd_kernel(solver_prefix(ctx.platform), algorithm, m, n)
    s_aval = ctx.avals_out[0]
    attrs = {"compute_uv": _bool(compute_uv)}
    if kernel in ("gesvdj", "gesvdp"):
        # U and V always exist; the batched Jacobi kernel has no reduced mode.
        econ = not full_matrices and (kernel == "gesvdp" or (m > 32 and n > 32))
        u_aval = ShapedArray((*batch, m, k if econ else m), dtype)
        v_aval = ShapedArray((*batch, n, k if econ else n), dtype)
        attrs["full_matrices"] = _bool(not econ)
        _, s, u, v, info = gpu_call(
            ctx, f"solver_{kernel}_ffi", [x], [aval], [aval, s_aval, u_aval, v_aval, info_aval],
            attrs,
        )  # fmt: skip
        if compute_uv:
            cut = not full_matrices and not econ
            vt_aval = ShapedArray((*batch, k if cut else v_aval.shape[-1], n), dtype)
            (vt,) = _adjoint_rule(
                _sub_ctx(ctx, [v_aval], [vt_aval]), v, conj=_is_complex(dtype),
                shape=(*batch, k, n) if cut else None,
            )  # fmt: skip
            if cut:
                (u,) = _slice_rule(
                    _sub_ctx(ctx, [u_aval], [ctx.avals_out[1]]), u, shape=(*batch, m, k)
                )
    else:
        transposed = kernel == "gesvd" and m < n
        attrs["full_matrices"] = _bool(full_matrices)
        attrs["transposed"] = _bool(transposed)
        if compute_uv:
            u_aval, vt_aval = ctx.avals_out[1:]
        else:
            u_aval = vt_aval = ShapedArray((), dtype)
        mats = [vt_aval, u_aval] if transposed else [u_aval, vt_aval]
        _, s, a, b, info = gpu_call(
            ctx, f"solver_{kernel}_ffi", [x], [aval], [aval, s_aval, *mats, info_aval], attrs,
            column_major=not transposed,
        )  # fmt: skip
        u, vt = (b, a) if transposed else (a, b)
    return ([s, u, vt] if compute_uv else [s]), info


# ---------------------------------------------------------------------- eigh


def eigh_gpu(
    ctx: LoweringRuleContext, x: Value, lower: bool, algorithm: EighImplementation | None
) -> list[Value]:
    """The ``eigh`` kernel call on a GPU platform.

    Args:
      ctx: the ``eigh`` equation's lowering context.
      x: the matrices.
      lower: which triangle the kernel reads.
      algorithm: the primitive's parameter (QR, Jacobi, or the kernel's choice).

    Returns:
      ``[v, w]``, checked (NaNs where a matrix failed).
    """
    (aval,) = ctx.avals_in
    if algorithm is EighImplementation.QDWH:
        raise NotImplementedError(
            "eigh: implementation=EighImplementation.QDWH is only supported on TPU; pass "
            "implementation=None, EighImplementation.QR or EighImplementation.JACOBI."
        )
    code = 0 if algorithm is None else (2 if algorithm is EighImplementation.JACOBI else 1)
    v_aval, w_aval = ctx.avals_out
    info_aval = ShapedArray(tuple(aval.shape[:-2]), I32)
    attrs = {"lower": _bool(lower), "algorithm": _ui8(code)}
    v, w, info = gpu_call(ctx, "solver_syevd_ffi", [x], [aval], [v_aval, w_aval, info_aval], attrs)
    return check_info(ctx, info, [v, w], info_aval, [v_aval, w_aval])


# ------------------------------------------------------------------ cholesky


def _cholesky_gpu(ctx: LoweringRuleContext, x: Value) -> list[Value]:
    (aval,) = ctx.avals_in
    info_aval = ShapedArray(tuple(aval.shape[:-2]), I32)
    factor, info = gpu_call(
        ctx, "solver_potrf_ffi", [x], [aval], [aval, info_aval], {"lower": _bool(True)}
    )
    return check_info(ctx, info, [factor], info_aval, list(ctx.avals_out))


# ------------------------------------------------------------------------ lu


def _lu_finish(lu: Array, pivots: Array, info: Array) -> list[Array]:
    """0-based pivots; NaNs where ``info < 0`` (a singular matrix is still factored)."""
    pivots = lax.sub(pivots, lax.broadcast_in_dim(np.ones((), I32), get_aval_of(pivots).shape, ()))
    shape, nb = get_aval_of(lu).shape, get_aval_of(info).ndim
    ok = lax.ge(info, lax.broadcast_in_dim(np.zeros((), I32), get_aval_of(info).shape, ()))
    nan = lax.broadcast_in_dim(np.asarray(np.nan, get_aval_of(lu).dtype), shape, ())
    return [lax.select(lax.broadcast_in_dim(ok, shape, tuple(range(nb))), lu, nan), pivots]


_lu_finish_rule = lower_fun(_lu_finish, multiple_results=True)


def _pivots_to_permutation(
    ctx: LoweringRuleContext, pivots: Value, pivots_aval: ShapedArray, perm_aval: ShapedArray
) -> Value:
    (perm,) = gpu_call(
        ctx, "_lu_pivots_to_permutation", [pivots], [pivots_aval], [perm_aval],
        alias_first=False, column_major=False, matrix_dims=1,
    )  # fmt: skip
    return perm


def _lu_gpu(ctx: LoweringRuleContext, x: Value) -> list[Value]:
    (aval,) = ctx.avals_in
    lu_aval, pivots_aval, perm_aval = ctx.avals_out
    info_aval = ShapedArray(tuple(aval.shape[:-2]), I32)
    lu, pivots, info = gpu_call(
        ctx, "solver_getrf_ffi", [x], [aval], [lu_aval, pivots_aval, info_aval]
    )
    lu, pivots = _lu_finish_rule(
        _sub_ctx(ctx, [lu_aval, pivots_aval, info_aval], [lu_aval, pivots_aval]), lu, pivots, info
    )
    return [lu, pivots, _pivots_to_permutation(ctx, pivots, pivots_aval, perm_aval)]


def _lu_pivots_to_permutation_gpu(
    ctx: LoweringRuleContext, pivots: Value, *, permutation_size: int
) -> list[Value]:
    del permutation_size  # the result's shape carries it
    return [_pivots_to_permutation(ctx, pivots, ctx.avals_in[0], ctx.avals_out[0])]


# ------------------------------------------------------------------------ qr


def _orgqr(
    ctx: LoweringRuleContext, a: Value, taus: Value, a_aval: ShapedArray, taus_aval: ShapedArray
) -> Value:
    (q,) = gpu_call(ctx, "solver_orgqr_ffi", [a, taus], [a_aval, taus_aval], [a_aval])
    return q


def _householder_product_gpu(ctx: LoweringRuleContext, a: Value, taus: Value) -> list[Value]:
    a_aval, taus_aval = ctx.avals_in
    return [_orgqr(ctx, a, taus, a_aval, taus_aval)]


def _qr_reflectors(r: Array, *, m: int, n: int, full_matrices: bool) -> Array:
    """The reflectors ``orgqr`` reads: ``r`` cut to ``m x m`` (wide) or padded to it (full)."""
    nb = get_aval_of(r).ndim - 2
    batch = get_aval_of(r).shape[:nb]
    if m < n:
        return lax.slice(r, (0,) * (nb + 2), (*batch, m, m))
    if full_matrices and m > n:
        zero = np.zeros((), get_aval_of(r).dtype)
        return lax.pad(r, zero, [(0, 0, 0)] * (nb + 1) + [(0, m - n, 0)])
    return r


def _qr_upper(r: Array, *, rows: int) -> Array:
    """The upper triangle of ``r``'s first ``rows`` rows."""
    shape = get_aval_of(r).shape
    nb = len(shape) - 2
    r = lax.slice(r, (0,) * len(shape), (*shape[:nb], rows, shape[-1]))
    cut = get_aval_of(r).shape
    upper = lax.le(lax.broadcasted_iota(I32, cut, nb), lax.broadcasted_iota(I32, cut, nb + 1))
    zeros = lax.broadcast_in_dim(np.zeros((), get_aval_of(r).dtype), cut, ())
    return lax.select(upper, r, zeros)


def _qr_empty(x: Array, *, q_shape: tuple[int, ...], r_shape: tuple[int, ...]) -> list[Array]:
    """``Q`` the identity's first columns and ``R`` zeros, for a matrix without entries."""
    dtype = get_aval_of(x).dtype
    nb = len(q_shape) - 2
    eye = np.eye(q_shape[-2], q_shape[-1], dtype=dtype)
    q = lax.broadcast_in_dim(eye, q_shape, (nb, nb + 1))
    return [q, lax.broadcast_in_dim(np.zeros((), dtype), r_shape, ())]


_reflectors_rule = lower_fun(_qr_reflectors)
_upper_rule = lower_fun(_qr_upper)
_qr_empty_rule = lower_fun(_qr_empty, multiple_results=True)


def _qr_gpu(
    ctx: LoweringRuleContext,
    x: Value,
    *,
    pivoting: bool,
    full_matrices: bool,
    use_magma: bool | None,
) -> list[Value]:
    del pivoting, use_magma  # pivoting is refused by lax.linalg.qr
    (aval,) = ctx.avals_in
    q_aval, r_aval = ctx.avals_out
    *batch_list, m, n = aval.shape
    batch = tuple(batch_list)
    if m == 0 or n == 0:
        return list(_qr_empty_rule(ctx, x, q_shape=q_aval.shape, r_shape=r_aval.shape))
    taus_aval = ShapedArray((*batch, min(m, n)), aval.dtype)
    r, taus = gpu_call(ctx, "solver_geqrf_ffi", [x], [aval], [aval, taus_aval])
    refl_aval = ShapedArray((*batch, m, q_aval.shape[-1]), aval.dtype)
    (refl,) = _reflectors_rule(
        _sub_ctx(ctx, [aval], [refl_aval]), r, m=m, n=n, full_matrices=full_matrices
    )
    q = _orgqr(ctx, refl, taus, refl_aval, taus_aval)
    (r,) = _upper_rule(_sub_ctx(ctx, [aval], [r_aval]), r, rows=r_aval.shape[-2])
    return [q, r]


GPU_RULES: dict[Any, Any] = {
    P.cholesky_p: _cholesky_gpu,
    P.lu_p: _lu_gpu,
    P.qr_p: _qr_gpu,
}
"""The GPU platforms' rules of the ``linalg`` family (registered by ``_rules_linalg``, whose
``svd`` and ``eigh`` rules call :func:`svd_gpu` and :func:`eigh_gpu` on these platforms)."""

GPU_STRUCTURED_RULES: dict[Any, Any] = {
    P.lu_pivots_to_permutation_p: _lu_pivots_to_permutation_gpu,
    P.householder_product_p: _householder_product_gpu,
}
"""The GPU platforms' rules of the ``structured`` family (registered by ``_rules_structured``)."""
