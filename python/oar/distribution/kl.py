"""kl_divergence and its registry: register_kl(P, Q) adds the closed form for a pair of
distribution classes; kl_divergence(p, q) uses the most specific registered pair."""

from __future__ import annotations

import math
from typing import Callable, TypeVar

from .bernoulli import Bernoulli
from .beta import Beta, _lbeta
from .binomial import Binomial
from .categorical import Categorical
from .cauchy import Cauchy
from .continuous_bernoulli import ContinuousBernoulli
from .dirichlet import Dirichlet
from . import distribution as _distribution
from .distribution import Distribution, ExponentialFamily
from .exponential import Exponential
from .gamma import Gamma
from .geometric import Geometric
from .independent import Independent
from .laplace import Laplace
from .multivariate_normal import MultivariateNormal, kl_mvn_mvn
from .normal import LogNormal, Normal
from .poisson import Poisson
from .transform import _sum_rightmost
from .uniform import Uniform
from .. import _C
from .. import nn as _nn
from ..autograd import grad
from ..framework.typing import Tensor
from ..tensor.creation import full_like
from ..tensor.creation import zeros_like
from ..tensor.search import where

__all__ = ["kl_divergence", "register_kl"]

_REGISTRY: dict = {}
# a KL function fn(p, q); register_kl returns it unchanged
_KLFn = TypeVar("_KLFn", bound=Callable[..., Tensor])


def register_kl(cls_p: type[Distribution], cls_q: type[Distribution]) -> Callable[[_KLFn], _KLFn]:
    """Decorator registering fn(p, q) as KL(p || q) for p a cls_p and q a cls_q."""
    for c, name in ((cls_p, "cls_p"), (cls_q, "cls_q")):
        if not (isinstance(c, type) and issubclass(c, Distribution)):
            raise TypeError(
                f"register_kl: argument '{name}' must be a subclass of Distribution, got {c!r}"
            )

    def decorator(fn):
        _REGISTRY[cls_p, cls_q] = fn
        return fn

    return decorator


def _dispatch(type_p, type_q):
    """The registered pair nearest to (type_p, type_q) along both MROs."""
    best, best_key = None, None
    for (cp, cq), fn in _REGISTRY.items():
        if issubclass(type_p, cp) and issubclass(type_q, cq):
            key = (type_p.__mro__.index(cp) + type_q.__mro__.index(cq), type_p.__mro__.index(cp))
            if best_key is None or key < best_key:
                best, best_key = fn, key
    return best


def kl_divergence(p: Distribution, q: Distribution) -> Tensor:
    """KL(p || q) = E_p[log p(x) - log q(x)], elementwise over the batch.

    Args:
        p: A Distribution.
        q: A Distribution.

    Raises:
        NotImplementedError: no closed form is registered for the pair.
    """
    for d, name in ((p, "p"), (q, "q")):
        if not isinstance(d, Distribution):
            raise TypeError(
                f"kl_divergence: argument '{name}' must be a Distribution, got {type(d).__name__}"
            )
    fn = _dispatch(type(p), type(q))
    if fn is None:
        raise NotImplementedError(
            f"kl_divergence: no KL divergence is registered for "
            f"{type(p).__name__} and {type(q).__name__}"
        )
    return fn(p, q)


@register_kl(Normal, Normal)
def _kl_normal_normal(p, q):
    ratio = p.scale / q.scale
    var_ratio = ratio * ratio
    t = (p.loc - q.loc) / q.scale
    return 0.5 * (var_ratio + t * t - 1 - var_ratio.log())


@register_kl(LogNormal, LogNormal)
def _kl_lognormal_lognormal(p, q):
    return _kl_normal_normal(p._base, q._base)


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p, q):
    kl = ((q.high - q.low) / (p.high - p.low)).log()
    outside = (q.low > p.low).logical_or(q.high < p.high)
    return where(outside, full_like(kl, float("inf")), kl)


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p, q):
    sp = _nn.functional.softplus
    # p log(p/q) + (1-p) log((1-p)/(1-q)) in logits, stable at p = 0 or 1
    return p.probs * (sp(-q.logits) - sp(-p.logits)) + (1 - p.probs) * (sp(q.logits) - sp(p.logits))


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p, q):
    """As Paddle's: over softmax(logits), with the last axis kept (size 1)."""
    lp = _nn.functional.log_softmax(p.logits, axis=-1)
    lq = _nn.functional.log_softmax(q.logits, axis=-1)
    return (lp.exp() * (lp - lq)).sum(-1, keepdim=True)


@register_kl(Beta, Beta)
def _kl_beta_beta(p, q):
    a, b = p.alpha, p.beta
    s = a + b
    return (
        _lbeta(q.alpha, q.beta)
        - _lbeta(a, b)
        + (a - q.alpha) * _C.digamma(a)
        + (b - q.beta) * _C.digamma(b)
        + (q.alpha - a + q.beta - b) * _C.digamma(s)
    )


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p, q):
    a, b = p.concentration, q.concentration
    a0 = a.sum(-1)
    return (
        _C.lgamma(a0)
        - _C.lgamma(b.sum(-1))
        - _C.lgamma(a).sum(-1)
        + _C.lgamma(b).sum(-1)
        + ((a - b) * (_C.digamma(a) - _C.digamma(a0).unsqueeze(-1))).sum(-1)
    )


@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p, q):
    ratio = q.rate / p.rate
    return ratio - 1 - ratio.log()


@register_kl(Gamma, Gamma)
def _kl_gamma_gamma(p, q):
    a, r = p.concentration, p.rate
    return (
        (a - q.concentration) * _C.digamma(a)
        - _C.lgamma(a)
        + _C.lgamma(q.concentration)
        + q.concentration * (r.log() - q.rate.log())
        + a * (q.rate - r) / r
    )


@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p, q):
    ratio = p.scale / q.scale
    d = (p.loc - q.loc).abs()
    return -ratio.log() + d / q.scale + ratio * (-d / p.scale).exp() - 1


@register_kl(Cauchy, Cauchy)
def _kl_cauchy_cauchy(p, q):
    s = p.scale + q.scale
    d = p.loc - q.loc
    return (s * s + d * d).log() - math.log(4) - p.scale.log() - q.scale.log()


@register_kl(Geometric, Geometric)
def _kl_geometric_geometric(p, q):
    # E_p[k] (log(1-p) - log(1-q)) + log p - log q, E_p[k] = (1 - p) / p
    return (
        (1 / p.probs - 1) * ((-p.probs).log1p() - (-q.probs).log1p())
        + p.probs.log()
        - q.probs.log()
    )


@register_kl(Poisson, Poisson)
def _kl_poisson_poisson(p, q):
    term = where(p.rate == 0, zeros_like(p.rate), p.rate * (p.rate / q.rate).log())
    return term - p.rate + q.rate


@register_kl(Binomial, Binomial)
def _kl_binomial_binomial(p, q):
    if not bool((p.total_count == q.total_count).all()):
        raise NotImplementedError(
            "kl_divergence: the KL divergence of binomials with different "
            "total_count is not available in closed form"
        )
    return p.total_count * (_kl_bernoulli_bernoulli(Bernoulli(p.probs), Bernoulli(q.probs)))


@register_kl(Independent, Independent)
def _kl_independent_independent(p, q):
    if p._reinterpreted_batch_rank != q._reinterpreted_batch_rank:
        raise NotImplementedError(
            "kl_divergence: Independent distributions with different reinterpreted_batch_rank"
        )
    return _sum_rightmost(kl_divergence(p._base, q._base), p._reinterpreted_batch_rank)


register_kl(MultivariateNormal, MultivariateNormal)(kl_mvn_mvn)


@register_kl(ContinuousBernoulli, ContinuousBernoulli)
def _kl_cb_cb(p, q):
    """-H(p) - E_p[log q(x)], E_p[x] being p's mean."""
    log_q, log_1mq = q.probs.log(), (-q.probs).log1p()
    return -p.entropy() - (q._log_normalizer() + p.mean * (log_q - log_1mq) + log_1mq)


@register_kl(ExponentialFamily, ExponentialFamily)
def _kl_expfamily_expfamily(p, q):
    """The Bregman divergence of the log-normaliser A, for two members of one family:
    A(theta_q) - A(theta_p) - <theta_q - theta_p, grad A(theta_p)>."""
    if type(p) is not type(q):
        raise NotImplementedError(
            f"kl_divergence: no KL divergence is registered for "
            f"{type(p).__name__} and {type(q).__name__}"
        )
    tp = [t.detach() for t in p._natural_parameters]
    for t in tp:
        t.stop_gradient = False
    a_p = p._log_normalizer(*tp)
    grads = grad(a_p.sum(), tp, create_graph=True)
    kl = q._log_normalizer(*q._natural_parameters) - a_p
    for t_q, t_p, g in zip(q._natural_parameters, tp, grads):
        term = (t_q - t_p) * g
        extra = term.ndim - kl.ndim
        kl = kl - (term.sum(list(range(-extra, 0))) if extra > 0 else term)
    return kl


_distribution._KL_DIVERGENCE[0] = kl_divergence  # Distribution.kl_divergence's
