"""The LKJ distribution over Cholesky factors of correlation matrices."""

from __future__ import annotations

import math

import numpy as np

from .beta import Beta
from .distribution import Distribution, _check, _params, _sample_shape
from ..framework.memory import check_fits
from .. import _C
from ..framework.dtype import float32
from ..framework.grad_mode import no_grad
from ..tensor.creation import arange
from ..tensor.creation import ones
from ..tensor.creation import ones_like
from ..tensor.creation import to_tensor
from ..tensor.creation import zeros
from ..tensor.manipulation import stack
from ..tensor.random import randn
from ..tensor.search import where


class LKJCholesky(Distribution):
    """The distribution of the lower Cholesky factor L of a dim x dim correlation matrix
    drawn from LKJ(concentration): density proportional to det(L L^T)^(concentration - 1).

    Args:
        dim: The matrix size, >= 2.
        concentration: > 0; 1 is uniform over correlation matrices, larger values favour
            the identity.
        sample_method: 'onion' or 'cvine' (Lewandowski, Kurowicka and Joe, 2009); both
            draw from the same distribution.
    """

    def __init__(self, dim=2, concentration=1.0, sample_method="onion"):
        if isinstance(dim, bool) or not isinstance(dim, int) or dim < 2:
            raise ValueError(f"LKJCholesky: argument 'dim' must be an int >= 2, got {dim!r}")
        if sample_method not in ("onion", "cvine"):
            raise ValueError(
                f"LKJCholesky: argument 'sample_method' must be 'onion' or "
                f"'cvine', got {sample_method!r}"
            )
        self.concentration = _params("LKJCholesky", concentration=concentration)["concentration"]
        _check(self.concentration > 0, "LKJCholesky", "concentration", "> 0")
        self.dim, self.sample_method = dim, sample_method
        self.dtype = self.concentration.dtype
        # Every sample and log_prob holds dim x dim matrices (and cvine's Beta holds
        # dim(dim-1)/2 parameters): refuse a dim whose one matrix cannot fit.
        check_fits(
            "LKJCholesky:",
            f"argument 'dim' ({dim}) asks for {dim} x {dim} matrices, which",
            dim * dim * self.dtype.itemsize,
        )
        marginal = self.concentration + 0.5 * (dim - 2)
        offset = arange(dim - 1, dtype=self.dtype)
        if sample_method == "onion":
            offset = _C.concat([zeros([1], dtype=self.dtype), offset])
            self._beta = Beta(offset + 0.5, marginal.unsqueeze(-1) - 0.5 * offset)
        else:
            # the partial correlation (i + 1, j), j <= i, given j earlier variables
            # j for every entry, row by row, from numpy: a Python list of dim(dim-1)/2 floats
            # is minutes at the dims memory allows
            cols = np.tril_indices(dim - 1)[1]
            conc = marginal.unsqueeze(-1) - to_tensor(0.5 * cols, dtype=self.dtype)
            self._beta = Beta(conc, conc)
        super().__init__(self.concentration.shape, (dim, dim))

    def _onion(self, shape):
        y = self._beta.sample(shape).unsqueeze(-1)  # [..., dim, 1]
        u = randn(list(self._extend_shape(shape)), dtype=self.dtype).tril(-1)
        norm = (u * u).sum(-1, keepdim=True).sqrt()
        u = u / where(norm > 0, norm, ones_like(norm))  # row 0 stays zero
        w = y.sqrt() * u
        tiny = float(np.finfo(self.dtype.name).tiny)
        diag = (1 - (w * w).sum(-1)).clip(min=tiny).sqrt()
        return w + _C.diag_embed(diag)

    def _cvine(self, shape):
        d = self.dim
        r = 2 * self._beta.sample(shape) - 1  # [..., d(d-1)/2] partial correlations
        lead = list(r.shape[:-1])
        eps = 1e-7 if self.dtype == float32 else 1e-15
        r = r.clip(-1 + eps, 1 - eps)
        rows = []
        k = 0
        for i in range(d):
            vals = [r[..., k + j] for j in range(i)]
            k += i
            # L[i, j] = r_ij * prod_{l<j} sqrt(1 - r_il^2); L[i, i] = prod_{l<i} sqrt(1 - r_il^2)
            scale = ones(lead, dtype=self.dtype)
            row = []
            for v in vals:
                row.append(v * scale)
                scale = scale * (1 - v * v).sqrt()
            row.append(scale)
            row += [zeros(lead, dtype=self.dtype)] * (d - i - 1)
            rows.append(stack(row, -1))
        return stack(rows, -2)

    def sample(self, shape=()):
        """Lower-triangular factors of shape `shape + batch_shape + [dim, dim]`."""
        shape = _sample_shape(shape, "LKJCholesky", "sample")
        with no_grad():
            return self._onion(shape) if self.sample_method == "onion" else self._cvine(shape)

    def log_prob(self, value):
        value = self._value(value, self.concentration)
        d = self.dim
        diag = value.diagonal(0, -2, -1)[..., 1:]
        order = arange(2, d + 1, dtype=self.dtype)
        order = 2 * (self.concentration - 1).unsqueeze(-1) + d - order
        unnormalised = (order * diag.log()).sum(-1)
        dm1 = d - 1
        alpha = self.concentration + 0.5 * dm1
        j = arange(1, dm1 + 1, dtype=self.dtype)
        mvlgamma = dm1 * (dm1 - 1) / 4 * math.log(math.pi) + _C.lgamma(
            (alpha - 0.5).unsqueeze(-1) + (1 - j) / 2
        ).sum(-1)
        normaliser = 0.5 * dm1 * math.log(math.pi) + mvlgamma - _C.lgamma(alpha) * dm1
        return unnormalised - normaliser
