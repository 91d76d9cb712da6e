"""Cases of ``scipy.special``, ``scipy.stats`` and ``ops`` compared with the reference.

Shared by ``generate.py`` (run under the reference implementation) and
``test_scipy_golden.py``. :func:`run` takes the implementation's modules and
``grad`` and returns host float32/int arrays keyed ``"<family>|<case>"``.
Inputs come from fixed NumPy generators.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

F32 = np.float32


def _rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


def inputs() -> dict[str, np.ndarray]:
    """The shared inputs."""
    r = _rng(0)
    return {
        "real": np.linspace(-6.0, 6.0, 41, dtype=F32),
        "wide": np.concatenate([np.linspace(-40, -5, 15), np.linspace(-4.5, 12, 23)]).astype(F32),
        "pos": np.linspace(0.05, 12.0, 33, dtype=F32),
        "unit": np.concatenate(
            [[0.0, 1e-30, 1e-12, 1e-5], np.linspace(0.01, 0.99, 25), [1 - 1e-6, 1.0]]
        ).astype(F32),
        "neg": np.array([-3.5, -2.5, -1.5, -0.5, -0.0, 0.0, 0.5, 1.5, -2.0], F32),
        "mat": r.normal(size=(3, 5)).astype(F32) * 3,
        "b": r.normal(size=(3, 5)).astype(F32),
        "mask": r.uniform(size=(3, 5)) < 0.7,
        "seg_data": r.normal(size=(12, 2)).astype(F32),
        "seg_ids": np.array([0, 0, 1, 3, 3, 3, 2, 0, 5, -1, 4, 1], np.int32),
    }


def run(
    special: Any, stats: Any, ops: Any, grad: Callable[..., Any], vmap: Callable[..., Any]
) -> dict[str, np.ndarray]:
    """Every case's output, keyed by name, as host arrays."""
    return {k: np.asarray(v) for k, v in cases(special, stats, ops, grad, vmap).items()}


def cases(
    special: Any, stats: Any, ops: Any, grad: Callable[..., Any], vmap: Callable[..., Any]
) -> dict[str, Any]:
    """Every case's output, keyed by name (traceable: no host conversion)."""
    i = inputs()
    real, wide, pos, unit, neg = i["real"], i["wide"], i["pos"], i["unit"], i["neg"]
    out: dict[str, Any] = {}
    unary = {
        "erf": real, "erfc": real, "erfinv": unit * 2 - 1, "gammaln": np.abs(real) + 0.1,
        "digamma": pos, "expit": real, "logit": unit, "ndtr": wide, "ndtri": unit,
        "log_ndtr": wide, "entr": np.concatenate([unit, [-1.0]]).astype(F32),
        "factorial": np.arange(-1, 12, dtype=F32), "gamma": np.concatenate([neg, pos]),
    }  # fmt: skip
    for name, x in unary.items():
        out[f"special|{name}"] = getattr(special, name)(x)
    y = pos[::-1].copy()
    out["special|xlogy"] = special.xlogy(np.concatenate([[0.0], pos[1:]]).astype(F32), y)
    out["special|xlog1py"] = special.xlog1py(real, np.abs(real))
    out["special|rel_entr"] = special.rel_entr(unit, unit[::-1].copy())
    out["special|kl_div"] = special.kl_div(unit, unit[::-1].copy())
    out["special|betaln"] = special.betaln(pos, np.array([0.5, 3.0, 9.0, 50.0, 1e4], F32)[:, None])
    out["special|zeta"] = special.zeta(pos + 1.5, np.float32(1.25))
    out["special|polygamma"] = special.polygamma(np.array([0, 1, 2, 3], np.int32)[:, None], pos)
    out["special|multigammaln"] = special.multigammaln(pos + 2, 3)
    out["special|log_ndtr_order5"] = special.log_ndtr(wide, series_order=5)
    mat, b, mask = i["mat"], i["b"], i["mask"]
    out["lse|all"] = special.logsumexp(mat)
    out["lse|axis1"] = special.logsumexp(mat, axis=1)
    out["lse|axes_keep"] = special.logsumexp(mat, axis=(0, 1), keepdims=True)
    out["lse|b"] = special.logsumexp(mat, axis=0, b=b)
    val, sign = special.logsumexp(mat, axis=1, b=b, return_sign=True)
    out["lse|sign_value"], out["lse|sign_sign"] = val, sign
    out["lse|where"] = special.logsumexp(mat, axis=1, where=mask)
    out["lse|grad"] = grad(lambda a: special.logsumexp(a, axis=1, b=np.abs(b)).sum())(mat)
    out["softmax|none"] = special.softmax(mat)
    out["softmax|axis1"] = special.softmax(mat, axis=1)
    out["log_softmax|none"] = special.log_softmax(mat)
    for name, fn in [("log_ndtr", special.log_ndtr), ("logit", special.logit),
                     ("ndtri", special.ndtri), ("erfinv", special.erfinv)]:  # fmt: skip
        x = {"log_ndtr": wide, "logit": unit[4:-2], "ndtri": unit[4:-2], "erfinv": unit[4:-2] - 0.5}
        out[f"grad|{name}"] = vmap(grad(fn))(x[name])
    out["grad|xlogy_x"], out["grad|xlogy_y"] = vmap(grad(special.xlogy, argnums=(0, 1)))(
        pos[:5], y[:5]
    )
    _stats(out, stats, i)
    d, ids = i["seg_data"], i["seg_ids"]
    for op in ["sum", "prod", "max", "min"]:
        fn = getattr(ops, f"segment_{op}")
        out[f"ops|{op}"] = fn(d, ids, num_segments=6)
        out[f"ops|{op}_bucket"] = fn(d, ids, num_segments=6, bucket_size=5)
        out[f"ops|{op}_int"] = fn(np.arange(12, dtype=np.int32), ids, num_segments=7)
        out[f"ops|{op}_clip"] = fn(d[:, 0], ids, num_segments=5, mode="clip")
    out["ops|sum_infer"] = ops.segment_sum(d, np.abs(ids))
    return out


def _stats(out: dict[str, Any], stats: Any, i: dict[str, np.ndarray]) -> None:
    real, unit, pos = i["real"], i["unit"][1:-1], i["pos"]
    loc, scale = np.float32(0.5), np.array([[0.5], [2.0]], F32)
    for dist in ["norm", "uniform", "expon", "laplace", "logistic", "cauchy"]:
        mod = getattr(stats, dist)
        for method in ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf", "isf"]:
            fn = getattr(mod, method, None)
            if fn is None:
                continue
            x = unit if method in ("ppf", "isf") else real
            out[f"stats|{dist}.{method}"] = fn(x, loc, scale)
        out[f"stats|{dist}.default"] = mod.pdf(real)
    out["stats|t.logpdf"] = stats.t.logpdf(real, np.array([[1.0], [3.5], [30.0]], F32), 0.5, 2.0)
    out["stats|t.pdf"] = stats.t.pdf(real, 4.0)
    out["stats|gamma.logpdf"] = stats.gamma.logpdf(real, np.array([[0.5], [2.0], [7.5]], F32),
                                                   -1.0, 1.5)  # fmt: skip
    out["stats|gamma.pdf"] = stats.gamma.pdf(pos, 2.0)
    out["stats|beta.logpdf"] = stats.beta.logpdf(unit, np.array([[0.5], [2.0]], F32), 3.0)
    out["stats|beta.loc_scale"] = stats.beta.pdf(real, 2.0, 3.0, -4.0, 8.0)
    k = np.arange(-1, 6, dtype=F32)
    out["stats|bernoulli.logpmf"] = stats.bernoulli.logpmf(k, 0.3)
    out["stats|bernoulli.pmf"] = stats.bernoulli.pmf(k, np.float32(0.8), 1)
    out["stats|poisson.logpmf"] = stats.poisson.logpmf(np.concatenate([k, [2.5]]), 2.5)
    out["stats|poisson.pmf"] = stats.poisson.pmf(k, np.array([[0.5], [4.0]], F32), 1)
    r = _rng(1)
    a = r.normal(size=(3, 3))
    cov = (a @ a.T + np.eye(3)).astype(F32)
    xs = r.normal(size=(4, 3)).astype(F32)
    mean = r.normal(size=3).astype(F32)
    mvn = stats.multivariate_normal
    out["stats|mvn.logpdf"] = mvn.logpdf(xs, mean, cov)
    out["stats|mvn.pdf"] = mvn.pdf(xs[0], mean, cov)
    out["stats|mvn.scalar_cov"] = mvn.logpdf(xs, mean, np.float32(1.7))
    out["stats|mvn.scalar_mean"] = mvn.logpdf(real, np.float32(0.5), np.float32(2.0))
    covs = np.stack([cov, np.eye(3, dtype=F32) * 2])
    out["stats|mvn.batched_cov"] = mvn.logpdf(xs[:2], mean, covs)
