"""oar.incubate.optimizer.functional: minimize_bfgs and minimize_lbfgs, quasi-Newton
minimization of a function of one 1-D Tensor with a strong-Wolfe line search."""

from .bfgs import minimize_bfgs, minimize_lbfgs  # noqa: F401

__all__ = ["minimize_bfgs", "minimize_lbfgs"]
