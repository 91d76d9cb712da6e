"""``jax.scipy.stats.gaussian_kde``: Gaussian kernel density estimation, as JAX 0.10.2 has it.

A pytree (its arrays are leaves, so it passes through ``jit`` and ``vmap``);
the bandwidth follows Scott's or Silverman's rule, a scalar or a callable;
``evaluate``/``pdf``, ``logpdf``, ``integrate_gaussian``, ``integrate_box_1d``,
``integrate_kde`` and ``resample`` work as in JAX.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any, TypeAlias, cast

import numpy as np
import tessela_numpy as tnp
from tessela_batching import vmap
from tessela_numpy import linalg as tnp_linalg
from tessela_prng import KeyArray
from tessela_pytree import register_pytree_node_class
from tessela_tracer import dtypes
from tessela_tracer.lax import linalg as lax_linalg
from tessela_tracer.typing import Array, ArrayLike

from . import random as _random
from ._scipy_ndtr import ndtr
from ._scipy_promote import _inexact
from ._scipy_special import logsumexp

__all__ = ["gaussian_kde"]

# "scott", "silverman", a scalar factor, or a function of the estimator returning one.
BandwidthMethod: TypeAlias = "str | ArrayLike | Callable[[gaussian_kde], ArrayLike] | None"


@register_pytree_node_class
class gaussian_kde:
    """A Gaussian kernel density estimate of ``dataset`` (``(d, n)``, or ``(n,)`` for ``d = 1``).

    Args:
        dataset: the samples.
        bw_method: ``"scott"`` (default), ``"silverman"``, a scalar factor, or a
            callable of the estimator returning one.
        weights: optional sample weights (normalized to sum to one).

    Raises:
        NotImplementedError: complex data.
        ValueError: a dataset of one element, weights of the wrong shape, or
            an unknown bandwidth method.

    Example:
        >>> kde = gaussian_kde(tnp.array([0.0, 1.0, 2.0]))
        >>> print(tnp.round(kde.evaluate(tnp.array([1.0])), 4))
        [0.3182]
    """

    neff: Array
    dataset: Array
    weights: Array
    covariance: Array
    inv_cov: Array

    def __init__(
        self,
        dataset: ArrayLike,
        bw_method: BandwidthMethod = None,
        weights: ArrayLike | None = None,
    ) -> None:
        data = tnp.atleast_2d(tnp.asarray(dataset))
        if dtypes.issubdtype(data.dtype, np.complexfloating):
            raise NotImplementedError("gaussian_kde does not support complex data")
        if not data.size > 1:
            raise ValueError("`dataset` input should have multiple elements.")
        d, n = data.shape
        if weights is not None:
            data, w = _inexact(data, weights)
            w = tnp.atleast_1d(w)
            w = w / tnp.sum(w)
            if w.ndim != 1:
                raise ValueError("`weights` input should be one-dimensional.")
            if len(w) != n:
                raise ValueError("`weights` input should be of length n")
        else:
            (data,) = _inexact(data)
            w = tnp.full(n, 1.0 / n, dtype=data.dtype)
        self.dataset, self.weights = data, w
        self.neff = neff = 1 / tnp.sum(w**2)
        method = "scott" if bw_method is None else bw_method
        factor: Any  # an array, or the scalar the caller gave (kept as given, as in JAX)
        if method == "scott":
            factor = tnp.power(neff, -1.0 / (d + 4))
        elif method == "silverman":
            factor = tnp.power(neff * (d + 2) / 4.0, -1.0 / (d + 4))
        elif not callable(method) and not isinstance(method, str) and tnp.isscalar(method):
            factor = method
        elif callable(method):
            factor = method(self)
        else:
            raise ValueError("`bw_method` should be 'scott', 'silverman', a scalar, or a callable.")
        cov = tnp.atleast_2d(tnp.cov(data, rowvar=True, bias=False, aweights=w))
        self.covariance = cov * factor**2
        self.inv_cov = tnp_linalg.inv(cov) / factor**2

    def tree_flatten(self) -> tuple[tuple[Array, ...], None]:
        """The leaves ``(neff, dataset, weights, covariance, inv_cov)``."""
        return (self.neff, self.dataset, self.weights, self.covariance, self.inv_cov), None

    @classmethod
    def tree_unflatten(cls, aux_data: None, children: Sequence[Array]) -> gaussian_kde:
        """Rebuild an estimator from its leaves."""
        del aux_data
        kde = cls.__new__(cls)
        kde.neff, kde.dataset, kde.weights, kde.covariance, kde.inv_cov = children
        return kde

    @property
    def d(self) -> int:
        """The dimension of the data."""
        return int(self.dataset.shape[0])

    @property
    def n(self) -> int:
        """The number of samples."""
        return int(self.dataset.shape[1])

    def evaluate(self, points: ArrayLike) -> Array:
        """The density at ``points`` (``(d, m)``, or ``(m,)`` for ``d = 1``)."""
        points = self._reshape_points(points)
        out = _kernel_eval(False, self.dataset.T, self.weights[:, None], points.T, self.inv_cov)
        return cast(Array, out[:, 0])

    def __call__(self, points: ArrayLike) -> Array:
        """The density at ``points`` (as :meth:`evaluate`)."""
        return self.evaluate(points)

    def pdf(self, x: ArrayLike) -> Array:
        """The density at ``x`` (as :meth:`evaluate`)."""
        return self.evaluate(x)

    def logpdf(self, x: ArrayLike) -> Array:
        """The log density at ``x``, computed with ``logsumexp``."""
        x = self._reshape_points(x)
        return cast(
            Array,
            _kernel_eval(True, self.dataset.T, self.weights[:, None], x.T, self.inv_cov)[:, 0],
        )

    def integrate_gaussian(self, mean: ArrayLike, cov: ArrayLike) -> Array:
        """The integral of the density times a Gaussian ``N(mean, cov)``."""
        mean = tnp.atleast_1d(tnp.squeeze(tnp.asarray(mean)))
        cov = tnp.atleast_2d(tnp.asarray(cov))
        if mean.shape != (self.d,):
            raise ValueError(f"mean does not have dimension {self.d}")
        if cov.shape != (self.d, self.d):
            raise ValueError(f"covariance does not have dimension {self.d}")
        chol = _cho_factor(self.covariance + cov)
        norm = 1.0 / (tnp.sqrt(2 * np.pi) ** self.d * tnp.prod(tnp.diag(chol[0])))
        return cast(Array, _kernel_convolve(chol, norm, self.dataset, self.weights, mean))

    def integrate_box_1d(self, low: ArrayLike, high: ArrayLike) -> Array:
        """The probability mass between ``low`` and ``high`` (one-dimensional data only)."""
        if self.d != 1:
            raise ValueError("integrate_box_1d() only handles 1D pdfs")
        if np.ndim(low) != 0 or np.ndim(high) != 0:
            raise ValueError("the limits of integration in integrate_box_1d must be scalars")
        sigma = tnp.squeeze(tnp.sqrt(self.covariance))
        lo = tnp.squeeze((low - self.dataset) / sigma)
        hi = tnp.squeeze((high - self.dataset) / sigma)
        return tnp.sum(self.weights * (ndtr(hi) - ndtr(lo)))

    def integrate_kde(self, other: gaussian_kde) -> Array:
        """The integral of the product of this density and ``other``'s."""
        if other.d != self.d:
            raise ValueError("KDEs are not the same dimensionality")
        chol = _cho_factor(self.covariance + other.covariance)
        norm = 1.0 / (tnp.sqrt(2 * np.pi) ** self.d * tnp.prod(tnp.diag(chol[0])))
        small, large = (self, other) if self.n < other.n else (other, self)
        conv = functools.partial(_kernel_convolve, chol, norm, large.dataset, large.weights)
        return tnp.sum(vmap(conv, in_axes=1)(small.dataset) * small.weights)

    def resample(self, key: KeyArray | ArrayLike, shape: tuple[int, ...] = ()) -> Array:
        """Draw samples (``(d,) + shape``): a data point, plus Gaussian noise of the bandwidth."""
        ind_key, eps_key = _random.split(cast("KeyArray | Array", key))
        ind = _random.choice(ind_key, self.n, shape=shape, p=self.weights)
        mean = tnp.zeros(self.d, self.covariance.dtype)
        eps = _random.multivariate_normal(
            eps_key, mean, self.covariance, shape=shape, dtype=self.dataset.dtype
        ).T
        return cast(Array, self.dataset[:, ind] + eps)

    def integrate_box(
        self, low_bounds: ArrayLike, high_bounds: ArrayLike, maxpts: int | None = None
    ) -> Array:
        """Not supported, as in JAX: use :meth:`integrate_box_1d`."""
        del low_bounds, high_bounds, maxpts
        raise NotImplementedError("only 1D box integrations are supported; use `integrate_box_1d`")

    def set_bandwidth(self, bw_method: BandwidthMethod = None) -> None:
        """Not supported, as in JAX: build a new estimator instead."""
        del bw_method
        raise NotImplementedError("dynamically changing the bandwidth method is not supported")

    def _reshape_points(self, points: ArrayLike) -> Array:
        points = tnp.asarray(points)
        if dtypes.issubdtype(points.dtype, np.complexfloating):
            raise NotImplementedError("gaussian_kde does not support complex coordinates")
        points = tnp.atleast_2d(points)
        d, m = points.shape
        if d != self.d:
            if d == 1 and m == self.d:
                return tnp.reshape(points, (self.d, 1))
            raise ValueError(f"points have dimension {d}, dataset has dimension {self.d}")
        return points


def _cho_factor(a: Any) -> tuple[Any, bool]:
    """The lower Cholesky factor of ``a`` (SciPy's ``cho_factor(a, lower=True)``)."""
    return tnp_linalg.cholesky(a), True


def _cho_solve(chol: tuple[Any, bool], b: Any) -> Any:
    lower = chol[0]
    y = lax_linalg.triangular_solve(lower, b, left_side=True, lower=True)
    return lax_linalg.triangular_solve(lower, y, left_side=True, lower=True, transpose_a=True)


def _kernel_convolve(chol: Any, norm: Any, target: Any, weights: Any, mean: Any) -> Any:
    diff = target - mean[:, None]
    alpha = _cho_solve(chol, diff)
    arg = 0.5 * tnp.sum(diff * alpha, axis=0)
    return norm * tnp.sum(tnp.exp(-arg) * weights)


def _kernel_eval(in_log: bool, points: Any, values: Any, xi: Any, precision: Any) -> Any:
    points, values, xi, precision = _inexact(points, values, xi, precision)
    d = points.shape[1]
    if xi.shape[1] != d:
        raise ValueError("points and xi must have same trailing dim")
    if precision.shape != (d, d):
        raise ValueError("precision matrix must match data dims")
    whitening = tnp_linalg.cholesky(precision)
    points, xi = tnp.dot(points, whitening), tnp.dot(xi, whitening)
    log_norm = tnp.sum(tnp.log(tnp.diag(whitening))) - 0.5 * d * np.log(2 * np.pi)

    def kernel(x_test: Array, x_train: Array, y_train: Array) -> Array:
        arg = log_norm - 0.5 * tnp.sum(tnp.square(x_train - x_test))
        return cast(Array, tnp.log(y_train) + arg if in_log else y_train * tnp.exp(arg))

    reduce: Callable[..., Any] = logsumexp if in_log else tnp.sum

    def reduced(x: Array) -> Array:
        return cast(Array, reduce(vmap(kernel, in_axes=(None, 0, 0))(x, points, values), axis=0))

    return vmap(reduced)(xi)
