"""oar.linalg: Paddle's paddle.linalg namespace.

The factorisations and solves are the ops of src/oar/ops/lapack.yaml (LAPACK); qr, svd
and eigh come packed into one tensor and are sliced apart here (docs/linalg.md). The
rest is composed of declared ops, so gradients of every order flow through all of it.
Matrices are the last two dims; leading dims are batch dims.

The functions live in oar.tensor.linalg (as Paddle's paddle/linalg.py re-exports
paddle/tensor/linalg.py); this is the public namespace."""
from .tensor.linalg import (cholesky, cholesky_inverse, cholesky_solve, cond, corrcoef,
                            cov, cross, det, diagonal, eig, eigh, eigvals, eigvalsh,
                            householder_product, inv, lstsq, lu, lu_solve, lu_unpack,
                            matmul, matrix_exp, matrix_norm, matrix_power, matrix_rank,
                            matrix_transpose, multi_dot, norm, ormqr, pca_lowrank, pinv,
                            qr, slogdet, solve, svd, svd_lowrank, svdvals,
                            triangular_solve, vecdot, vector_norm)

__all__ = ["cholesky", "cholesky_inverse", "cholesky_solve", "cond", "corrcoef", "cov",
           "cross", "det", "diagonal", "eig", "eigh", "eigvals", "eigvalsh",
           "householder_product", "inv", "lstsq", "lu", "lu_solve", "lu_unpack",
           "matmul", "matrix_exp", "matrix_norm", "matrix_power", "matrix_rank",
           "matrix_transpose", "multi_dot", "norm", "ormqr", "pca_lowrank", "pinv",
           "qr", "slogdet", "solve", "svd", "svd_lowrank", "svdvals",
           "triangular_solve", "vecdot", "vector_norm"]
