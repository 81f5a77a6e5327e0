"""The multivariate normal distribution."""

from __future__ import annotations

import math

import numpy as np

from .distribution import Distribution, _as_param, _sample_shape
from .. import _C
from ..framework.dtype import float32
from ..framework.dtype import float64
from ..tensor import linalg as _linalg
from ..tensor.random import randn


def _batch_mv(mat, vec):
    """mat [..., n, n] @ vec [..., n] -> [..., n], batch dims broadcast."""
    return _C.matmul(mat, vec.unsqueeze(-1)).squeeze(-1)


class MultivariateNormal(Distribution):
    """N(loc, Sigma) over vectors of loc's last dim, Sigma given by exactly one of
    covariance_matrix, precision_matrix (its inverse) or scale_tril (its lower Cholesky
    factor, positive diagonal). The batch dims of loc and the matrix broadcast.

    Args:
        loc: The mean, [..., k].
        covariance_matrix: Symmetric positive definite [..., k, k].
        precision_matrix: Symmetric positive definite [..., k, k].
        scale_tril: Lower triangular with a positive diagonal, [..., k, k].
    """

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None):
        given = [m is not None for m in (covariance_matrix, precision_matrix, scale_tril)]
        if sum(given) != 1:
            raise ValueError(
                "MultivariateNormal: give exactly one of covariance_matrix, "
                "precision_matrix and scale_tril"
            )
        loc = _as_param(loc, "MultivariateNormal", "loc")
        if loc.ndim < 1:
            raise ValueError("MultivariateNormal: argument 'loc' must have at least one dim")
        name = ("covariance_matrix", "precision_matrix", "scale_tril")[given.index(True)]
        mat = _as_param(
            (covariance_matrix, precision_matrix, scale_tril)[given.index(True)],
            "MultivariateNormal",
            name,
        )
        dtype = float64 if float64 in (loc.dtype, mat.dtype) else float32
        loc, mat = loc.astype(dtype), mat.astype(dtype)
        k = loc.shape[-1]
        if mat.ndim < 2 or mat.shape[-1] != k or mat.shape[-2] != k:
            raise ValueError(
                f"MultivariateNormal: argument '{name}' must have shape [..., {k}, "
                f"{k}] to match loc {loc.shape}, got {mat.shape}"
            )
        try:
            batch = list(np.broadcast_shapes(tuple(loc.shape[:-1]), tuple(mat.shape[:-2])))
        except ValueError:
            raise ValueError(
                f"MultivariateNormal: the batch dims of loc {loc.shape} and "
                f"{name} {mat.shape} do not broadcast"
            ) from None
        try:
            if name == "covariance_matrix":
                tril = _linalg.cholesky(mat)
            elif name == "precision_matrix":
                tril = _linalg.cholesky(_linalg.inv(mat))
            else:
                tril = mat.tril()
                if not bool((tril.diagonal(0, -2, -1) > 0).all()):
                    raise ValueError("diagonal")
        except ValueError:
            raise ValueError(
                f"MultivariateNormal: argument '{name}' must be "
                + (
                    "lower triangular with a positive diagonal"
                    if name == "scale_tril"
                    else "symmetric positive definite"
                )
            ) from None
        self.loc = loc.expand(batch + [k])
        self._unbroadcasted_scale_tril = tril
        self.scale_tril = tril.expand(batch + [k, k])
        self.dtype = dtype
        super().__init__(batch, [k])

    @property
    def covariance_matrix(self):
        return _C.matmul(self.scale_tril, self.scale_tril, transpose_y=True)

    @property
    def precision_matrix(self):
        return _linalg.cholesky_inverse(self.scale_tril)

    @property
    def mean(self):
        return self.loc

    @property
    def variance(self):
        return (self.scale_tril * self.scale_tril).sum(-1)

    def rsample(self, shape=()):
        """loc + scale_tril @ eps, eps ~ N(0, I): differentiable in the parameters."""
        shape = self._extend_shape(_sample_shape(shape, "MultivariateNormal", "rsample"))
        eps = randn(list(shape), dtype=self.dtype)
        return self.loc + _batch_mv(self._unbroadcasted_scale_tril, eps)

    def _half_log_det(self):
        return self._unbroadcasted_scale_tril.diagonal(0, -2, -1).log().sum(-1)

    def _mahalanobis(self, diff):
        """|L^-1 diff|^2 over the last dim, batch dims broadcast."""
        tril = self._unbroadcasted_scale_tril
        shape = list(np.broadcast_shapes(tuple(tril.shape[:-2]), tuple(diff.shape[:-1])))
        t = tril.expand(shape + list(tril.shape[-2:]))
        d = diff.expand(shape + [diff.shape[-1]]).unsqueeze(-1)
        z = _linalg.triangular_solve(t, d, upper=False).squeeze(-1)
        return (z * z).sum(-1)

    def log_prob(self, value):
        value = self._value(value, self.loc)
        k = self._event_shape[0]
        m = self._mahalanobis(value - self.loc)
        return -0.5 * (k * math.log(2 * math.pi) + m) - self._half_log_det()

    def entropy(self):
        k = self._event_shape[0]
        h = 0.5 * k * (1.0 + math.log(2 * math.pi)) + self._half_log_det()
        return h.expand(list(self._batch_shape)) if self._batch_shape else h


def kl_mvn_mvn(p, q):
    """KL(p || q) for two multivariate normals of the same size."""
    if p._event_shape != q._event_shape:
        raise ValueError(
            f"kl_divergence: the event shapes {list(p._event_shape)} and "
            f"{list(q._event_shape)} of the two MultivariateNormal differ"
        )
    k = p._event_shape[0]
    lq, lp = q._unbroadcasted_scale_tril, p._unbroadcasted_scale_tril
    shape = list(np.broadcast_shapes(tuple(lq.shape[:-2]), tuple(lp.shape[:-2])))
    lq_b, lp_b = lq.expand(shape + [k, k]), lp.expand(shape + [k, k])
    trace = (_linalg.triangular_solve(lq_b, lp_b, upper=False) ** 2).sum([-2, -1])
    maha = q._mahalanobis(p.loc - q.loc)
    return q._half_log_det() - p._half_log_det() + 0.5 * (trace + maha - k)
