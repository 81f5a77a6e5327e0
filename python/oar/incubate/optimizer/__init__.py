"""oar.incubate.optimizer: LookAhead, ModelAverage, LBFGS (oar.optimizer.LBFGS) and
functional.minimize_bfgs / minimize_lbfgs."""

from ...optimizer.lbfgs import LBFGS  # noqa: F401
from . import functional  # noqa: F401
from .lookahead import LookAhead  # noqa: F401
from .modelaverage import ModelAverage  # noqa: F401

__all__ = ["LookAhead", "ModelAverage", "LBFGS"]
