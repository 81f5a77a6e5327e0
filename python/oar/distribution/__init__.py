"""oar.distribution: probability distributions with Paddle's API (paddle.distribution).

Sampling draws from oar's default generator, so oar.seed(n) makes it reproducible.
rsample is reparameterised (differentiable in the parameters) where a pathwise gradient
exists: Normal, Uniform, Exponential, Laplace, Gumbel, Cauchy, LogNormal, Gamma, Chi2,
Beta, Dirichlet, StudentT (through oar.standard_gamma's implicit gradient),
MultivariateNormal, ContinuousBernoulli, and transformed or independent versions of them;
Bernoulli.rsample is Paddle's relaxed (logistic) sample.
See docs/distribution.md.
"""

from . import transform  # noqa: F401
from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .categorical import Categorical
from .cauchy import Cauchy
from .continuous_bernoulli import ContinuousBernoulli
from .dirichlet import Dirichlet
from .distribution import Distribution, ExponentialFamily
from .exponential import Exponential
from .gamma import Chi2, Gamma
from .geometric import Geometric
from .gumbel import Gumbel
from .independent import Independent
from .kl import kl_divergence, register_kl
from .laplace import Laplace
from .lkj_cholesky import LKJCholesky
from .multinomial import Multinomial
from .multivariate_normal import MultivariateNormal
from .normal import LogNormal, Normal
from .poisson import Poisson
from .student_t import StudentT
from .transform import (
    AbsTransform,
    AffineTransform,
    ChainTransform,
    ExpTransform,
    IndependentTransform,
    PowerTransform,
    ReshapeTransform,
    SigmoidTransform,
    SoftmaxTransform,
    StackTransform,
    StickBreakingTransform,
    TanhTransform,
    Transform,
)
from .transformed_distribution import TransformedDistribution
from .uniform import Uniform

__all__ = [
    "Bernoulli",
    "Beta",
    "Binomial",
    "Categorical",
    "Cauchy",
    "Chi2",
    "ContinuousBernoulli",
    "Dirichlet",
    "Distribution",
    "Exponential",
    "ExponentialFamily",
    "Gamma",
    "Geometric",
    "Gumbel",
    "Independent",
    "Laplace",
    "LKJCholesky",
    "LogNormal",
    "Multinomial",
    "MultivariateNormal",
    "Normal",
    "Poisson",
    "StudentT",
    "TransformedDistribution",
    "Uniform",
    "kl_divergence",
    "register_kl",
    "Transform",
    "AbsTransform",
    "AffineTransform",
    "ChainTransform",
    "ExpTransform",
    "IndependentTransform",
    "PowerTransform",
    "ReshapeTransform",
    "SigmoidTransform",
    "SoftmaxTransform",
    "StackTransform",
    "StickBreakingTransform",
    "TanhTransform",
]
