"""oar.distribution against torch.distributions (log_prob, entropy, mean, variance, cdf,
icdf, KL pairs; ContinuousBernoulli, MultivariateNormal, StudentT and LKJCholesky too),
reparameterised gradients, sample moments and validity, seeding and typed errors;
Geometric.rsample's Paddle behaviour; and the special-function ops it builds on
(lgamma, digamma, polygamma, standard_gamma)."""
import math

import numpy as np
import pytest
import torch
import torch.distributions as td
from scipy import special

import oar
import oar.distribution as D

RNG = np.random.default_rng(0)


def _t(a, dtype="float64"):
    return oar.to_tensor(np.asarray(a, dtype=dtype))


def _close(got, want, rtol=1e-9, atol=1e-10):
    want = want.detach().numpy() if isinstance(want, torch.Tensor) else np.asarray(want)
    np.testing.assert_allclose(got.numpy(), want, rtol=rtol, atol=atol)


# ---- special functions -------------------------------------------------------------------

@pytest.mark.parametrize("dtype,rtol", [("float64", 1e-12), ("float32", 2e-6)])
def test_lgamma_digamma_polygamma_vs_torch(dtype, rtol):
    x = np.concatenate([RNG.uniform(0.01, 8, 200), RNG.uniform(8, 1e4, 50),
                        RNG.uniform(-20, 0, 50), [1e-6, 0.5, 1.0, 2.0, 171.0, 1e8]])
    x = x[np.abs(x - np.round(x)) > 1e-3 * (x < 0)]  # keep off the poles at x <= 0
    xt = torch.tensor(x, dtype=getattr(torch, dtype))
    xo = _t(x, dtype)
    _close(oar.lgamma(xo), torch.lgamma(xt), rtol=rtol, atol=rtol)
    _close(oar.digamma(xo), torch.digamma(xt), rtol=rtol, atol=rtol)
    pos = x > 0
    for n in (1, 2, 3, 5):
        # near x = 0 psi^(n) ~ n! / x^(n+1): relative precision stays, absolute does not
        # torch's polygamma is off by up to 5e-10 relative (oar's matches mpmath and SciPy)
        _close(oar.polygamma(_t(x[pos], dtype), n), torch.polygamma(n, xt[pos]),
               rtol=max(rtol * 10, 1e-8))
    _close(xo.lgamma(), torch.lgamma(xt), rtol=rtol, atol=rtol)  # the Tensor methods


def test_special_function_edges():
    x = _t([0.0, -0.0, -1.0, -2.0, float("inf"), float("nan")])
    xt = torch.tensor([0.0, -0.0, -1.0, -2.0, float("inf"), float("nan")], dtype=torch.float64)
    for f, g in ((oar.lgamma, torch.lgamma), (oar.digamma, torch.digamma)):
        np.testing.assert_array_equal(f(x).numpy(), g(xt).numpy())
    with pytest.raises(ValueError, match="polygamma: argument 'n' must be >= 0"):
        oar.polygamma(_t([1.0]), -1)


def test_special_function_gradients_of_any_order():
    x = _t([0.7, 2.5, 9.0])
    x.stop_gradient = False
    g1, = oar.grad(oar.lgamma(x).sum(), x, create_graph=True)
    g2, = oar.grad(g1.sum(), x, create_graph=True)
    g3, = oar.grad(g2.sum(), x)
    xt = torch.tensor([0.7, 2.5, 9.0], dtype=torch.float64)
    _close(g1, torch.digamma(xt), 1e-12)
    # SciPy as the oracle here: torch's polygamma is off by up to 5e-10 relative
    _close(g2, special.polygamma(1, xt.numpy()), 1e-12)
    _close(g3, special.polygamma(2, xt.numpy()), 1e-11)


def test_standard_gamma_moments_and_seeding():
    alpha = np.array([0.05, 0.5, 1.0, 3.0, 40.0])
    n = 200_000
    oar.seed(11)
    s = oar.standard_gamma(_t(np.broadcast_to(alpha, (n, 5)).copy())).numpy()
    assert (s > 0).all()
    # Gamma(a, 1): mean a, variance a. Tolerance: 6 standard errors of each estimate.
    np.testing.assert_array_less(np.abs(s.mean(0) - alpha), 6 * np.sqrt(alpha / n))
    m4 = 3 * alpha * (alpha + 2)  # the fourth central moment: var of the variance estimate
    np.testing.assert_array_less(np.abs(s.var(0) - alpha), 6 * np.sqrt((m4 - alpha ** 2) / n))
    from scipy import stats
    for j in (0, 1, 3):  # the whole distribution: a KS test at p = 1e-4
        assert stats.kstest(s[:20000, j], stats.gamma(alpha[j]).cdf).pvalue > 1e-4
    oar.seed(11)
    again = oar.standard_gamma(_t(np.broadcast_to(alpha, (n, 5)).copy())).numpy()
    np.testing.assert_array_equal(s, again)
    f32 = oar.standard_gamma(_t([1e-3] * 1000, "float32"))
    assert f32.dtype == oar.float32 and bool((f32 > 0).all())  # tiny shapes stay positive


def test_standard_gamma_rejects_bad_concentrations():
    for bad in (0.0, -1.0, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="standard_gamma: argument 'x' holds concentrations"):
            oar.standard_gamma(_t([1.0, bad]))


def test_standard_gamma_gradient_is_the_implicit_one():
    # d x / d a at fixed u = P(a, x), by finite differences of scipy's inverse incomplete
    # gamma (an independent oracle), and against torch's approximation.
    a = np.array([0.05, 0.3, 1.0, 2.5, 7.0, 30.0, 300.0] * 3)
    u = np.repeat([0.02, 0.5, 0.97], 7)
    x = special.gammaincinv(a, u)
    h = 1e-6 * a
    want = (special.gammaincinv(a + h, u) - special.gammaincinv(a - h, u)) / (2 * h)
    got = oar._C.standard_gamma_grad(_t(a), _t(x)).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-6)
    tg = torch._standard_gamma_grad(torch.tensor(a), torch.tensor(x)).numpy()
    np.testing.assert_allclose(got, tg, rtol=1e-4)


def test_standard_gamma_backward():
    a = _t([0.5, 2.0, 9.0])
    a.stop_gradient = False
    oar.seed(3)
    s = oar.standard_gamma(a)
    s.sum().backward()
    want = oar._C.standard_gamma_grad(a.detach(), s.detach())
    _close(a.grad, want.numpy(), 1e-15)


# ---- distributions against torch ---------------------------------------------------------

def _pos(*shape, low=0.3, high=3.0):
    return RNG.uniform(low, high, shape)


def _pair(oar_cls, torch_cls, *params, oar_kw=None):
    return oar_cls(*[_t(p) for p in params], **(oar_kw or {})), \
        torch_cls(*[torch.tensor(p) for p in params])


CASES = {
    "Normal": (lambda: _pair(D.Normal, td.Normal, RNG.normal(size=(2, 3)), _pos(2, 3)),
               lambda: RNG.normal(size=(2, 3))),
    "Uniform": (lambda: _pair(D.Uniform, td.Uniform, np.full((4,), -1.0), _pos(4, low=0.5)),
                lambda: RNG.uniform(-0.9, 0.4, (4,))),
    "Exponential": (lambda: _pair(D.Exponential, td.Exponential, _pos(5)),
                    lambda: _pos(5, low=0.01)),
    "Laplace": (lambda: _pair(D.Laplace, td.Laplace, RNG.normal(size=4), _pos(4)),
                lambda: RNG.normal(size=4)),
    "Gumbel": (lambda: _pair(D.Gumbel, td.Gumbel, RNG.normal(size=4), _pos(4)),
               lambda: RNG.normal(size=4)),
    "Cauchy": (lambda: _pair(D.Cauchy, td.Cauchy, RNG.normal(size=4), _pos(4)),
               lambda: RNG.normal(size=4) * 3),
    "LogNormal": (lambda: _pair(D.LogNormal, td.LogNormal, RNG.normal(size=4), _pos(4)),
                  lambda: _pos(4, low=0.05)),
    "Gamma": (lambda: _pair(D.Gamma, td.Gamma, _pos(2, 3), _pos(2, 3)),
              lambda: _pos(2, 3, low=0.05)),
    "Chi2": (lambda: _pair(D.Chi2, td.Chi2, _pos(4, low=0.5, high=6)),
             lambda: _pos(4, low=0.05)),
    "Beta": (lambda: _pair(D.Beta, td.Beta, _pos(4), _pos(4)),
             lambda: RNG.uniform(0.02, 0.98, 4)),
    "Dirichlet": (lambda: _pair(D.Dirichlet, td.Dirichlet, _pos(2, 4)),
                  lambda: RNG.dirichlet(np.ones(4), size=2)),
    "Bernoulli": (lambda: _pair(D.Bernoulli, td.Bernoulli, RNG.uniform(0.05, 0.95, 5)),
                  lambda: RNG.integers(0, 2, 5).astype(float)),
    "Geometric": (lambda: _pair(D.Geometric, td.Geometric, RNG.uniform(0.05, 0.95, 5)),
                  lambda: RNG.integers(0, 6, 5).astype(float)),
    "Poisson": (lambda: _pair(D.Poisson, td.Poisson, _pos(5, high=20)),
                lambda: RNG.integers(0, 15, 5).astype(float)),
    "Binomial": (lambda: _pair(D.Binomial, td.Binomial, np.array([3.0, 10, 1, 7]),
                               RNG.uniform(0.05, 0.95, 4)),
                 lambda: np.array([2.0, 10, 0, 3])),
}

# the methods torch lacks for a distribution (its entropy of Poisson, cdf of many)
NO_TORCH = {("Poisson", "entropy"), ("Binomial", "entropy")}


@pytest.mark.parametrize("name", sorted(CASES))
def test_against_torch(name):
    make, value = CASES[name]
    p, q = make()
    v = value()
    _close(p.log_prob(_t(v)), q.log_prob(torch.tensor(v)))
    _close(p.prob(_t(v)), q.log_prob(torch.tensor(v)).exp())
    if (name, "entropy") not in NO_TORCH:
        _close(p.entropy(), q.entropy())
    if name != "Cauchy":
        _close(p.mean, q.mean)
        _close(p.variance, q.variance)
    assert tuple(p.batch_shape) == tuple(q.batch_shape)
    assert tuple(p.event_shape) == tuple(q.event_shape)
    for method in ("cdf", "icdf"):
        if hasattr(p, method) and name not in ("Bernoulli", "Geometric"):
            arg = v if method == "cdf" else RNG.uniform(0.05, 0.95, v.shape)
            try:
                want = getattr(q, method)(torch.tensor(arg))
            except NotImplementedError:
                continue
            _close(getattr(p, method)(_t(arg)), want)


def test_binomial_entropy_by_summation():
    n, p = np.array([3.0, 10.0]), np.array([0.3, 0.8])
    k = np.arange(11)[:, None]
    lp = (special.gammaln(n + 1) - special.gammaln(k + 1) - special.gammaln(n - k + 1)
          + k * np.log(p) + (n - k) * np.log1p(-p))
    _close(D.Binomial(_t(n), _t(p)).entropy(), -(np.where(k <= n, np.exp(lp) * lp, 0)).sum(0))


def test_poisson_entropy_by_summation():
    rate = np.array([0.5, 3.0, 40.0])
    k = np.arange(400)[:, None]
    lp = k * np.log(rate) - rate - special.gammaln(k + 1)
    _close(D.Poisson(_t(rate)).entropy(), -(np.exp(lp) * lp).sum(0))


def test_geometric_and_bernoulli_cdf():
    g = D.Geometric(_t([0.3]))
    # failures before the first success: P(X <= k) = 1 - (1 - p)^(k + 1)
    _close(g.cdf(_t([0.0, 2.0])), 1 - 0.7 ** np.array([1.0, 3.0]))
    b = D.Bernoulli(_t([0.3]))
    _close(b.cdf(_t([-0.5, 0.0, 0.5, 1.0])), [0.0, 0.7, 0.7, 1.0])


def test_multinomial_against_torch():
    probs = RNG.uniform(0.1, 1, (2, 4))
    p, q = D.Multinomial(6, _t(probs)), td.Multinomial(6, torch.tensor(probs))
    v = np.array([[1.0, 2, 0, 3], [6, 0, 0, 0]])
    _close(p.log_prob(_t(v)), q.log_prob(torch.tensor(v)))
    # 2e-8 relative apart from torch's (not investigated; both sum the same series)
    _close(p.entropy(), q.entropy(), rtol=1e-7)
    _close(p.mean, q.mean)
    _close(p.variance, q.variance)
    oar.seed(4)
    s = p.sample([5000]).numpy()
    assert s.shape == (5000, 2, 4) and (s.sum(-1) == 6).all()
    np.testing.assert_allclose(s.mean(0), q.mean.numpy(), atol=6 * np.sqrt(6 * 0.25 / 5000))


def test_categorical_paddle_semantics():
    logits = RNG.uniform(0.1, 2.0, (2, 3))
    c = D.Categorical(_t(logits))
    # entropy, KL and sampling by softmax(logits); probs / log_prob by logits / sum
    _close(c.entropy(), td.Categorical(logits=torch.tensor(logits)).entropy())
    norm = logits / logits.sum(-1, keepdims=True)
    _close(c.probs(_t([2, 0], "int64")), norm[:, [2, 0]])
    _close(c.log_prob(_t([[1], [2]], "int64")), np.log(norm[[0, 1], [1, 2]])[:, None])
    oar.seed(1)
    s = c.sample([20000]).numpy()
    assert s.shape == (20000, 2) and s.dtype == np.int64
    sm = torch.softmax(torch.tensor(logits), -1).numpy()
    freq = np.stack([(s[:, i, None] == np.arange(3)).mean(0) for i in range(2)])
    np.testing.assert_allclose(freq, sm, atol=6 * np.sqrt(0.25 / 20000))


KL_PAIRS = {
    "Normal": lambda: [_pair(D.Normal, td.Normal, RNG.normal(size=3), _pos(3)) for _ in (0, 1)],
    "LogNormal": lambda: [_pair(D.LogNormal, td.LogNormal, RNG.normal(size=3), _pos(3))
                          for _ in (0, 1)],
    "Uniform": lambda: [_pair(D.Uniform, td.Uniform, np.array([-1.0, 0, 0.5]),
                              np.array([1.0, 2, 0.9])),
                        _pair(D.Uniform, td.Uniform, np.array([-2.0, 0.5, 0.0]),
                              np.array([1.5, 3, 1.0]))],
    "Exponential": lambda: [_pair(D.Exponential, td.Exponential, _pos(3)) for _ in (0, 1)],
    "Gamma": lambda: [_pair(D.Gamma, td.Gamma, _pos(3), _pos(3)) for _ in (0, 1)],
    "Beta": lambda: [_pair(D.Beta, td.Beta, _pos(3), _pos(3)) for _ in (0, 1)],
    "Dirichlet": lambda: [_pair(D.Dirichlet, td.Dirichlet, _pos(2, 4)) for _ in (0, 1)],
    "Laplace": lambda: [_pair(D.Laplace, td.Laplace, RNG.normal(size=3), _pos(3))
                        for _ in (0, 1)],
    "Bernoulli": lambda: [_pair(D.Bernoulli, td.Bernoulli, RNG.uniform(0.05, 0.95, 3))
                          for _ in (0, 1)],
    "Geometric": lambda: [_pair(D.Geometric, td.Geometric, RNG.uniform(0.05, 0.95, 3))
                          for _ in (0, 1)],
    "Poisson": lambda: [_pair(D.Poisson, td.Poisson, _pos(3)) for _ in (0, 1)],
    "Cauchy": lambda: [_pair(D.Cauchy, td.Cauchy, RNG.normal(size=3), _pos(3))
                       for _ in (0, 1)],
    "Binomial": lambda: [_pair(D.Binomial, td.Binomial, np.array([4.0, 9.0]),
                               RNG.uniform(0.05, 0.95, 2)) for _ in (0, 1)],
}


@pytest.mark.parametrize("name", sorted(KL_PAIRS))
def test_kl_divergence_against_torch(name):
    (p, tp), (q, tq) = KL_PAIRS[name]()
    want = td.kl_divergence(tp, tq)
    _close(D.kl_divergence(p, q), want, rtol=1e-8)
    _close(p.kl_divergence(q), want, rtol=1e-8)


def test_kl_categorical_keeps_the_axis_as_paddle():
    a, b = RNG.normal(size=(2, 5)), RNG.normal(size=(2, 5))
    got = D.kl_divergence(D.Categorical(_t(a)), D.Categorical(_t(b)))
    want = td.kl_divergence(td.Categorical(logits=torch.tensor(a)),
                            td.Categorical(logits=torch.tensor(b)))
    _close(got, want.numpy()[:, None])


def test_kl_exponential_family_bregman_and_independent():
    # The generic exponential-family KL (autograd of the log-normaliser) on a class whose
    # closed form is bypassed, and Independent's sum over the reinterpreted axes.
    class MyExp(D.Exponential):
        pass

    p, q = MyExp(_t([0.5, 2.0])), MyExp(_t([1.5, 0.7]))
    want = td.kl_divergence(td.Exponential(torch.tensor([0.5, 2.0], dtype=torch.float64)),
                            td.Exponential(torch.tensor([1.5, 0.7], dtype=torch.float64)))
    _close(p.kl_divergence(q), want)
    _close(D.kl._kl_expfamily_expfamily(p, q), want)
    _close(D.Exponential.entropy(p), D.ExponentialFamily.entropy(p))  # the generic entropy
    loc, scale = RNG.normal(size=(2, 3)), _pos(2, 3)
    ip = D.Independent(D.Normal(_t(loc), _t(scale)), 1)
    iq = D.Independent(D.Normal(_t(loc * 0), _t(scale * 0 + 1)), 1)
    want = td.kl_divergence(td.Independent(td.Normal(torch.tensor(loc), torch.tensor(scale)), 1),
                            td.Independent(td.Normal(torch.zeros(2, 3, dtype=torch.float64),
                                                     torch.ones(2, 3, dtype=torch.float64)), 1))
    _close(D.kl_divergence(ip, iq), want)


def test_register_kl_and_missing_pairs():
    class A(D.Normal):
        pass

    @D.register_kl(A, D.Normal)
    def _kl(p, q):
        return p.loc * 0 + 42.0

    a, n = A(0.0, 1.0), D.Normal(0.0, 1.0)
    assert D.kl_divergence(a, n).item() == 42.0  # the more specific pair wins
    assert D.kl_divergence(n, a).item() == 0.0
    with pytest.raises(NotImplementedError, match="Normal and Gamma"):
        D.kl_divergence(n, D.Gamma(1.0, 1.0))
    with pytest.raises(TypeError, match="register_kl: argument 'cls_p'"):
        D.register_kl(int, D.Normal)
    with pytest.raises(TypeError, match="argument 'q' must be a Distribution"):
        D.kl_divergence(n, 3.0)


# ---- sampling: moments, gradients, seeding -----------------------------------------------

N = 200_000

MOMENTS = {
    "Normal": lambda: D.Normal(_t([0.5, -1.0]), _t([1.0, 2.0])),
    "Uniform": lambda: D.Uniform(_t([0.0, -2.0]), _t([1.0, 3.0])),
    "Exponential": lambda: D.Exponential(_t([0.5, 3.0])),
    "Laplace": lambda: D.Laplace(_t([0.0, 1.0]), _t([1.0, 0.5])),
    "Gumbel": lambda: D.Gumbel(_t([0.0, 1.0]), _t([1.0, 0.5])),
    "LogNormal": lambda: D.LogNormal(_t([0.0, 0.3]), _t([0.25, 0.5])),
    "Gamma": lambda: D.Gamma(_t([0.3, 4.0]), _t([1.0, 2.0])),
    "Chi2": lambda: D.Chi2(_t([1.0, 5.0])),
    "Beta": lambda: D.Beta(_t([0.5, 2.0]), _t([0.5, 5.0])),
    "Dirichlet": lambda: D.Dirichlet(_t([0.5, 1.0, 3.0])),
    "Bernoulli": lambda: D.Bernoulli(_t([0.1, 0.7])),
    "Geometric": lambda: D.Geometric(_t([0.2, 0.9])),
    "Poisson": lambda: D.Poisson(_t([0.5, 7.0])),
    "Binomial": lambda: D.Binomial(_t([5.0, 20.0]), _t([0.3, 0.8])),
}


@pytest.mark.parametrize("name", sorted(MOMENTS))
def test_sample_moments(name):
    d = MOMENTS[name]()
    oar.seed(123)
    s = d.sample([N])
    assert list(s.shape) == [N] + list(d.batch_shape) + list(d.event_shape)
    assert s.stop_gradient
    x = s.numpy()
    mean, var = d.mean.numpy(), d.variance.numpy()
    # The sample mean is within 6 standard errors sqrt(var / N); the sample variance
    # within 6 of its own, estimated from the sample's fourth central moment.
    np.testing.assert_array_less(np.abs(x.mean(0) - mean), 6 * np.sqrt(var / N))
    m4 = ((x - x.mean(0)) ** 4).mean(0)
    np.testing.assert_array_less(np.abs(x.var(0) - var), 6 * np.sqrt((m4 - var ** 2) / N) + 1e-12)
    oar.seed(123)
    np.testing.assert_array_equal(d.sample([N]).numpy(), x)  # oar.seed makes it reproducible


def test_cauchy_sample_quartiles():
    oar.seed(5)
    x = D.Cauchy(_t([1.0]), _t([2.0])).sample([N]).numpy()[:, 0]
    q1, q2, q3 = np.quantile(x, [0.25, 0.5, 0.75])
    # quartiles loc - scale, loc, loc + scale; their standard error is about 2.2 scale / sqrt(N)
    np.testing.assert_allclose([q1, q2, q3], [-1.0, 1.0, 3.0], atol=6 * 2.2 * 2 / np.sqrt(N))


def _param(values):
    t = _t(values)
    t.stop_gradient = False
    return t


# d E[rsample] / d theta (the mean of the pathwise gradients of N samples) against the
# derivative of the closed-form mean; tolerance 6 standard errors of the gradient estimate.
RSAMPLE_GRADS = {
    "Normal": (lambda a, b: D.Normal(a, b), [0.5, 1.5], lambda a, b: (1.0, 0.0)),
    "Uniform": (lambda a, b: D.Uniform(a, b), [0.5, 1.5], lambda a, b: (0.5, 0.5)),
    "Exponential": (lambda a: D.Exponential(a), [2.0], lambda a: (-1 / a ** 2,)),
    "Laplace": (lambda a, b: D.Laplace(a, b), [0.5, 1.5], lambda a, b: (1.0, 0.0)),
    "Gumbel": (lambda a, b: D.Gumbel(a, b), [0.5, 1.5], lambda a, b: (1.0, 0.5772156649)),
    "LogNormal": (lambda a, b: D.LogNormal(a, b), [0.2, 0.4],
                  lambda a, b: (math.exp(a + b * b / 2), b * math.exp(a + b * b / 2))),
    "Gamma": (lambda a, b: D.Gamma(a, b), [0.4, 2.0], lambda a, b: (1 / b, -a / b ** 2)),
    "Gamma-large": (lambda a, b: D.Gamma(a, b), [25.0, 1.0], lambda a, b: (1 / b, -a / b ** 2)),
    "Beta": (lambda a, b: D.Beta(a, b), [0.7, 2.0],
             lambda a, b: (b / (a + b) ** 2, -a / (a + b) ** 2)),
}


@pytest.mark.parametrize("name", sorted(RSAMPLE_GRADS))
def test_rsample_gradient_of_the_mean(name):
    make, values, dmean = RSAMPLE_GRADS[name]
    params = [_param([v]) for v in values]
    d = make(*params)
    oar.seed(7)
    s = d.rsample([N])
    # the mean gradient of each of K chunks; their spread gives the standard error
    k = 20
    chunks = [oar.grad(c.sum(), params, retain_graph=True) for c in oar.chunk(s, k)]
    for i, want in enumerate(dmean(*values)):
        m = np.array([g[i].item() for g in chunks]) / (N // k)
        se = m.std(ddof=1) / math.sqrt(k)
        assert abs(m.mean() - want) < 6 * se + 1e-12, (name, i, m.mean(), want, se)


def test_dirichlet_rsample_gradient():
    a = _param([0.5, 1.0, 3.0])
    d = D.Dirichlet(a)
    oar.seed(9)
    s = d.rsample([N])
    g, = oar.grad(s[:, 0].sum(), a)
    a0 = 4.5
    # d E[x_0] / d a = (a0 - a_0) / a0^2 for a_0, -a_0 / a0^2 for the others
    want = np.array([4.0 / a0 ** 2, -0.5 / a0 ** 2, -0.5 / a0 ** 2])
    np.testing.assert_allclose(g.numpy() / N, want, atol=0.01)


def test_rsample_pathwise_gradient_exact():
    # Normal: d (loc + eps scale) / d scale = eps = (x - loc) / scale, exactly per sample
    loc, scale = _param([0.3]), _param([1.7])
    x = D.Normal(loc, scale).rsample([1000])
    g, = oar.grad((x * x).sum(), scale)
    eps = (x.detach().numpy() - 0.3) / 1.7
    np.testing.assert_allclose(g.item(), (2 * x.detach().numpy() * eps).sum(), rtol=1e-10)


def test_bernoulli_rsample_is_paddles_relaxation():
    p = _param([0.3])
    d = D.Bernoulli(p)
    oar.seed(2)
    r = d.rsample([N], temperature=0.5)
    assert list(r.shape) == [N, 1]
    # sigmoid(r) is a relaxed Bernoulli sample: P(r > 0) = p
    assert abs((r.numpy() > 0).mean() - 0.3) < 6 * math.sqrt(0.21 / N)
    g, = oar.grad(r.sum(), p)
    np.testing.assert_allclose(g.item() / N, 1 / (0.3 * 0.7) / 0.5, rtol=1e-10)


# ---- transforms and composite distributions ----------------------------------------------

TRANSFORMS = [
    (lambda: D.ExpTransform(), lambda: td.transforms.ExpTransform(), RNG.normal(size=(3, 4))),
    (lambda: D.AffineTransform(_t([1.0, -2.0]), _t([0.5, -3.0])),
     lambda: td.transforms.AffineTransform(torch.tensor([1.0, -2.0], dtype=torch.float64),
                                           torch.tensor([0.5, -3.0], dtype=torch.float64)),
     RNG.normal(size=(3, 2))),
    (lambda: D.SigmoidTransform(), lambda: td.transforms.SigmoidTransform(),
     RNG.normal(size=5) * 4),
    (lambda: D.TanhTransform(), lambda: td.transforms.TanhTransform(), RNG.normal(size=5) * 2),
    (lambda: D.PowerTransform(_t([2.5])), lambda: td.transforms.PowerTransform(
        torch.tensor([2.5], dtype=torch.float64)), _pos(5)),
    (lambda: D.StickBreakingTransform(), lambda: td.transforms.StickBreakingTransform(),
     RNG.normal(size=(2, 4))),
    (lambda: D.ChainTransform([D.AffineTransform(_t(0.5), _t(2.0)), D.ExpTransform()]),
     lambda: td.transforms.ComposeTransform([
         td.transforms.AffineTransform(0.5, 2.0), td.transforms.ExpTransform()]),
     RNG.normal(size=4)),
]


@pytest.mark.parametrize("i", range(len(TRANSFORMS)))
def test_transforms_against_torch(i):
    make, make_torch, x = TRANSFORMS[i]
    t, tt = make(), make_torch()
    xt = torch.tensor(x)
    y = t.forward(_t(x))
    _close(y, tt(xt))
    _close(t.inverse(y), x, rtol=1e-7, atol=1e-8)
    ref = tt.log_abs_det_jacobian(xt, tt(xt)).numpy()
    fldj, ildj = t.forward_log_det_jacobian(_t(x)), t.inverse_log_det_jacobian(y)
    if isinstance(t, D.AffineTransform):  # log|scale| itself, as Paddle's
        assert fldj.shape == ildj.shape == list(t.scale.shape)
        fldj, ildj = (_t(np.broadcast_to(v.numpy(), ref.shape)) for v in (fldj, ildj))
    _close(fldj, ref, rtol=1e-8)
    _close(ildj, -ref, rtol=1e-8)
    assert tuple(t.forward_shape(x.shape)) == tuple(tt.forward_shape(x.shape))
    assert tuple(t.inverse_shape(t.forward_shape(x.shape))) == x.shape


def test_other_transforms():
    x = _t(RNG.normal(size=(2, 3)))
    a = D.AbsTransform()
    _close(a.forward(x), np.abs(x.numpy()))
    neg, pos = a.inverse(_t([1.0, 2.0]))
    _close(neg, [-1.0, -2.0])
    _close(pos, [1.0, 2.0])
    s = D.SoftmaxTransform()
    _close(s.forward(x), torch.softmax(torch.tensor(x.numpy()), -1))
    r = D.ReshapeTransform((3,), (3, 1))
    assert list(r.forward(x).shape) == [2, 3, 1] and r.forward_shape((2, 3)) == (2, 3, 1)
    _close(r.forward_log_det_jacobian(x), np.zeros(2))
    st = D.StackTransform([D.ExpTransform(), D.AffineTransform(_t(1.0), _t(2.0))], axis=1)
    y = st.forward(_t(np.ones((2, 2))))
    _close(y, [[math.e, 3.0], [math.e, 3.0]])
    _close(st.forward_log_det_jacobian(_t(np.ones((2, 2)))), [[1.0, math.log(2)]] * 2)
    # AffineTransform's log-det-Jacobian is log|scale| unbroadcast, as Paddle's; the
    # transforms that sum it over event dimensions still count every element.
    aff = D.AffineTransform(_t(1.0), _t(2.0))
    assert aff.forward_log_det_jacobian(_t([0.5, 1.5])).shape == []
    assert aff.inverse_log_det_jacobian(_t([0.5, 1.5])).shape == []
    _close(D.IndependentTransform(aff, 1).forward_log_det_jacobian(_t([[0.5, 1.5, 3.0]])),
           [3 * math.log(2)])
    base = D.Normal(_t([0.0, 0.0]), _t([1.0, 1.0]))
    lp = D.TransformedDistribution(base, [aff]).log_prob(_t([0.5, 1.5]))
    f64 = dict(dtype=torch.float64)
    _close(lp, torch.distributions.Normal(torch.tensor(1.0, **f64), torch.tensor(2.0, **f64))
           .log_prob(torch.tensor([0.5, 1.5], **f64)))
    it = D.IndependentTransform(D.ExpTransform(), 1)
    _close(it.forward_log_det_jacobian(x), x.numpy().sum(-1))
    # calling a transform: on a tensor forward, on a transform a chain, on a distribution
    _close(D.ExpTransform()(x), np.exp(x.numpy()))
    assert isinstance(D.ExpTransform()(D.AbsTransform()), D.ChainTransform)
    assert isinstance(D.ExpTransform()(D.Normal(0.0, 1.0)), D.TransformedDistribution)
    with pytest.raises(TypeError, match="AffineTransform: argument 'loc' must be a Tensor"):
        D.AffineTransform(1.0, _t(1.0))
    with pytest.raises(ValueError, match="StackTransform: the input has 3 slices"):
        st.forward(_t(np.ones((2, 3))))
    with pytest.raises(ValueError, match="different numbers of elements"):
        D.ReshapeTransform((3,), (2,))


def test_transformed_distribution_against_torch():
    loc, scale = RNG.normal(size=3), _pos(3)
    base = D.Normal(_t(loc), _t(scale))
    tbase = td.Normal(torch.tensor(loc), torch.tensor(scale))
    d = D.TransformedDistribution(base, [D.AffineTransform(_t(1.0), _t(2.0)),
                                         D.TanhTransform()])
    t = td.TransformedDistribution(tbase, [td.transforms.AffineTransform(1.0, 2.0),
                                           td.transforms.TanhTransform()])
    v = RNG.uniform(-0.9, 0.9, 3)
    _close(d.log_prob(_t(v)), t.log_prob(torch.tensor(v)), rtol=1e-8)
    assert tuple(d.batch_shape) == (3,) and tuple(d.event_shape) == ()
    # a simplex-valued one: Normal (event rank 1 through Independent) and stick breaking
    base = D.Independent(D.Normal(_t(np.zeros((2, 3))), _t(np.ones((2, 3)))), 1)
    tb = td.Independent(td.Normal(torch.zeros(2, 3, dtype=torch.float64),
                                  torch.ones(2, 3, dtype=torch.float64)), 1)
    d = D.TransformedDistribution(base, [D.StickBreakingTransform()])
    t = td.TransformedDistribution(tb, [td.transforms.StickBreakingTransform()])
    v = RNG.dirichlet(np.ones(4), size=2)
    _close(d.log_prob(_t(v)), t.log_prob(torch.tensor(v)), rtol=1e-8)
    assert tuple(d.batch_shape) == (2,) and tuple(d.event_shape) == (4,)
    oar.seed(0)
    assert list(d.sample([5]).shape) == [5, 2, 4]
    with pytest.raises(ValueError, match="must be injective"):
        D.TransformedDistribution(D.Normal(0.0, 1.0), [D.AbsTransform()])


def test_independent_against_torch():
    loc, scale = RNG.normal(size=(2, 3)), _pos(2, 3)
    d = D.Independent(D.Normal(_t(loc), _t(scale)), 1)
    t = td.Independent(td.Normal(torch.tensor(loc), torch.tensor(scale)), 1)
    v = RNG.normal(size=(2, 3))
    _close(d.log_prob(_t(v)), t.log_prob(torch.tensor(v)))
    _close(d.entropy(), t.entropy())
    assert d.batch_shape == (2,) and d.event_shape == (3,)
    with pytest.raises(ValueError, match="'reinterpreted_batch_rank' must be an int in"):
        D.Independent(D.Normal(_t(loc), _t(scale)), 3)


# ---- Paddle's argument handling and typed errors -----------------------------------------

def test_parameter_conversion_as_paddle():
    n = D.Normal(0.0, 1.0)
    assert n.loc.dtype == oar.float32 and n.batch_shape == () and list(n.sample([3]).shape) == [3]
    n = D.Normal([0.0, 1.0], [1.0, 2.0])
    assert n.batch_shape == (2,) and list(n.sample([3]).shape) == [3, 2]
    assert n.loc.dtype == oar.float32
    n = D.Normal(np.array([0.0, 1.0]), 1.0)  # a float64 array keeps float64
    assert n.loc.dtype == oar.float64 and n.scale.dtype == oar.float64
    # a value of another float dtype is cast to the parameters'
    assert D.Normal(0.0, 1.0).log_prob(_t([0.5])).dtype == oar.float32


@pytest.mark.parametrize("make,match", [
    (lambda: D.Normal(0.0, -1.0), "Normal: argument 'scale' must be > 0"),
    (lambda: D.Normal("a", 1.0), "Normal: argument 'loc' must be a float"),
    (lambda: D.Normal([0.0, 1.0], [1.0, 1.0, 1.0]), "Normal: the parameters' shapes"),
    (lambda: D.Uniform(1.0, 0.0), "Uniform: argument 'high' must be > low"),
    (lambda: D.Gamma(-1.0, 1.0), "Gamma: argument 'concentration' must be > 0"),
    (lambda: D.Beta(1.0, 0.0), "Beta: argument 'beta' must be > 0"),
    (lambda: D.Dirichlet(1.0), "Dirichlet: argument 'concentration' must be at least 1-D"),
    (lambda: D.Bernoulli(1.5), r"Bernoulli: argument 'probs' must be in \[0, 1\]"),
    (lambda: D.Multinomial(0, _t([0.5, 0.5])), "Multinomial: argument 'total_count'"),
    (lambda: D.Geometric(0.0), r"Geometric: argument 'probs' must be in \(0, 1\]"),
    (lambda: D.Poisson(-1.0), "Poisson: argument 'rate' must be >= 0"),
    (lambda: D.Binomial(2.5, 0.5), "Binomial: argument 'total_count' must be whole numbers"),
    (lambda: D.Exponential(0.0), "Exponential: argument 'rate' must be > 0"),
    (lambda: D.Normal(0.0, 1.0).sample(3), "Normal.sample: argument 'shape' must be a list"),
    (lambda: D.Normal(0.0, 1.0).rsample([-1]), "Normal.rsample: argument 'shape' must hold"),
    (lambda: D.Categorical(_t([0.2, 0.8])).log_prob(_t([2], "int64")),
     r"Categorical: argument 'value' must be category indices in \[0, 2\)"),
    (lambda: D.Bernoulli(0.5).rsample([2], temperature=0), "'temperature' must be a number > 0"),
    (lambda: D.Cauchy(0.0, 1.0).mean, "Cauchy: the distribution has no mean"),
])
def test_typed_errors(make, match):
    with pytest.raises((ValueError, TypeError), match=match):
        make()


def test_no_rsample_is_reported():
    with pytest.raises(NotImplementedError, match="Poisson has no reparameterised sampler"):
        D.Poisson(1.0).rsample([2])


# Both sides of lims, inside it (the Taylor branch) and near the clipped ends.
CB_P = [0.02, 0.2, 0.4995, 0.5, 0.5008, 0.8, 0.999]


CB_X = [0.3, 0.05, 0.9, 0.5, 0.7, 0.0, 1.0]


def test_continuous_bernoulli_vs_torch():
    o, t = D.ContinuousBernoulli(_t(CB_P)), td.ContinuousBernoulli(torch.tensor(CB_P,
                                                                            dtype=torch.float64))
    for attr in ("mean", "variance"):
        _close(getattr(o, attr), getattr(t, attr), rtol=1e-8, atol=1e-10)
    _close(o.entropy(), t.entropy(), rtol=1e-8, atol=1e-10)
    x = torch.tensor(CB_X, dtype=torch.float64)
    _close(o.log_prob(_t(CB_X)), t.log_prob(x), rtol=1e-8, atol=1e-10)
    _close(o.cdf(_t(CB_X)), t.cdf(x), rtol=1e-8, atol=1e-10)
    _close(o.icdf(_t(CB_X)), t.icdf(x), rtol=1e-8, atol=1e-10)
    q = [0.7, 0.5, 0.3, 0.1, 0.6, 0.45, 0.9]
    _close(D.kl_divergence(o, D.ContinuousBernoulli(_t(q))),
           td.kl_divergence(t, td.ContinuousBernoulli(torch.tensor(q, dtype=torch.float64))),
           rtol=1e-8, atol=1e-10)
    assert o.kl_divergence(D.ContinuousBernoulli(_t(q))).shape == [7]


def test_continuous_bernoulli_rsample_is_differentiable_and_in_range():
    p = _t([0.2, 0.9])
    p.stop_gradient = False
    d = D.ContinuousBernoulli(p)
    s = d.rsample([500])
    assert s.shape == [500, 2]
    v = s.numpy()
    assert (v >= 0).all() and (v <= 1).all()
    s.sum().backward()
    assert p.grad is not None and np.isfinite(p.grad.numpy()).all()
    # the sample mean is near the distribution's (sd of the mean < 0.015)
    np.testing.assert_allclose(v.mean(0), d.mean.numpy(), atol=0.06)


COV = [[2.0, 1.0, 0.2], [1.0, 2.0, 0.5], [0.2, 0.5, 1.5]]


@pytest.mark.parametrize("kind", ["covariance_matrix", "precision_matrix", "scale_tril"])
def test_multivariate_normal_vs_torch(kind):
    cov = torch.tensor(COV, dtype=torch.float64)
    mats = {"covariance_matrix": cov, "precision_matrix": torch.linalg.inv(cov),
            "scale_tril": torch.linalg.cholesky(cov)}
    loc = torch.tensor([[2.0, 5.0, -1.0], [0.0, 1.0, 2.0]], dtype=torch.float64)
    t = td.MultivariateNormal(loc, **{kind: mats[kind]})
    o = D.MultivariateNormal(_t(loc.numpy()), **{kind: _t(mats[kind].numpy())})
    assert o.batch_shape == (2,) and o.event_shape == (3,)
    _close(o.mean, t.mean)
    _close(o.variance, t.variance, rtol=1e-9)
    _close(o.covariance_matrix, t.covariance_matrix, rtol=1e-9)
    _close(o.precision_matrix, t.precision_matrix, rtol=1e-8)
    _close(o.entropy(), t.entropy())
    x = torch.tensor([[1.0, 2.0, 0.5], [3.0, 4.0, -2.0]], dtype=torch.float64)
    _close(o.log_prob(_t(x.numpy())), t.log_prob(x))
    _close(o.prob(_t(x.numpy())), t.log_prob(x).exp())
    cov2 = torch.tensor([[3.0, 2.0, 0.0], [2.0, 3.0, 0.1], [0.0, 0.1, 1.0]], dtype=torch.float64)
    t2 = td.MultivariateNormal(torch.zeros(3, dtype=torch.float64), cov2)
    o2 = D.MultivariateNormal(_t([0.0, 0.0, 0.0]), _t(cov2.numpy()))
    _close(o.kl_divergence(o2), td.kl_divergence(t, t2))


def test_multivariate_normal_rsample_gradient_and_moments():
    loc = _t([1.0, -2.0])
    loc.stop_gradient = False
    tril = _t([[1.0, 0.0], [0.5, 2.0]])
    tril.stop_gradient = False
    d = D.MultivariateNormal(loc, scale_tril=tril)
    s = d.rsample([4000])
    assert s.shape == [4000, 2]
    s.sum().backward()
    np.testing.assert_allclose(loc.grad.numpy(), [4000.0, 4000.0])
    assert np.isfinite(tril.grad.numpy()).all()
    v = d.sample([4000]).numpy()
    np.testing.assert_allclose(np.cov(v.T), [[1.0, 0.5], [0.5, 4.25]], atol=0.35)


def test_multivariate_normal_errors():
    with pytest.raises(ValueError, match="exactly one"):
        D.MultivariateNormal(_t([0.0, 0.0]))
    with pytest.raises(ValueError, match="exactly one"):
        D.MultivariateNormal(_t([0.0, 0.0]), covariance_matrix=_t(np.eye(2)),
                             scale_tril=_t(np.eye(2)))
    with pytest.raises(ValueError, match=r"shape \[\.\.\., 2, 2\]"):
        D.MultivariateNormal(_t([0.0, 0.0]), covariance_matrix=_t(np.eye(3)))
    with pytest.raises(ValueError, match="positive definite"):
        D.MultivariateNormal(_t([0.0, 0.0]), covariance_matrix=_t([[1.0, 2.0], [2.0, 1.0]]))
    with pytest.raises(ValueError, match="positive diagonal"):
        D.MultivariateNormal(_t([0.0, 0.0]), scale_tril=_t([[1.0, 0.0], [1.0, -1.0]]))


def test_student_t_vs_torch():
    df, loc, scale = [10.0, 5.0, 1.5, 0.8], [0.0, 1.0, -1.0, 0.0], [1.0, 2.0, 0.5, 1.0]
    o = D.StudentT(_t(df), _t(loc), _t(scale))
    t = td.StudentT(*(torch.tensor(v, dtype=torch.float64) for v in (df, loc, scale)))
    x = torch.tensor([0.8, -3.0, 2.0, 10.0], dtype=torch.float64)
    _close(o.log_prob(_t(x.numpy())), t.log_prob(x))
    _close(o.entropy(), t.entropy())
    _close(o.mean, t.mean)
    _close(o.variance, t.variance)


def test_student_t_paddle_shapes_and_rsample():
    assert D.StudentT(10.0, 0.0, 1.0).sample([3]).shape == [3, 1]  # Python numbers: batch [1]
    df = _t([6.0])
    df.stop_gradient = False
    d = D.StudentT(df, _t([1.0]), _t([2.0]))
    s = d.rsample([3000])
    s.mean().backward()
    assert df.grad is not None and np.isfinite(df.grad.numpy()).all()
    np.testing.assert_allclose(np.median(s.numpy()), 1.0, atol=0.15)
    with pytest.raises(ValueError, match="df"):
        D.StudentT(_t([0.0]), _t([0.0]), _t([1.0]))


@pytest.mark.parametrize("method", ["onion", "cvine"])
def test_lkj_cholesky_samples_and_log_prob(method):
    d = D.LKJCholesky(4, _t(2.0), method)
    s = d.sample([200])
    assert s.shape == [200, 4, 4]
    v = s.numpy()
    assert np.allclose(np.triu(v, 1), 0)
    assert (np.diagonal(v, 0, 1, 2) > 0).all()
    np.testing.assert_allclose(np.diagonal(v @ v.transpose(0, 2, 1), 0, 1, 2), 1, atol=1e-12)
    _close(d.log_prob(s), td.LKJCholesky(4, torch.tensor(2.0, dtype=torch.float64))
           .log_prob(torch.tensor(v)), rtol=1e-9)
    # the marginal correlation of LKJ(eta) in dim 4 is Beta(eta + 1, eta + 1) on [-1, 1]:
    # variance 1 / (2 eta + 3) = 1/7
    corr = (v @ v.transpose(0, 2, 1))[:, 0, 3]
    assert abs(corr.var() - 1 / 7) < 0.05


def test_lkj_cholesky_errors():
    with pytest.raises(ValueError, match="dim"):
        D.LKJCholesky(1)
    with pytest.raises(ValueError, match="sample_method"):
        D.LKJCholesky(3, 1.0, "other")
    with pytest.raises(ValueError, match="concentration"):
        D.LKJCholesky(3, -1.0)


def test_geometric_rsample_runs_through_probs():
    p = _t([0.5, 0.2])
    p.stop_gradient = False
    s = D.Geometric(p).rsample([3])
    assert s.shape == [3, 2] and not s.stop_gradient
    assert (s.numpy() == np.floor(s.numpy())).all() and (s.numpy() >= 0).all()
    s.sum().backward()
    np.testing.assert_array_equal(p.grad.numpy(), [0.0, 0.0])  # floor: gradient 0


def test_non_injective_forward_log_det_jacobian_is_not_implemented():
    # Paddle 3.3.1 raises NotImplementedError for a non-injective transform (abs maps x
    # and -x to one y); oar negated the pair inverse_log_det_jacobian returns instead and
    # failed with an untyped TypeError. A chain, stack or independent wrapper holding the
    # AbsTransform names it.
    x = _t([[-1.0, 2.0], [0.5, -3.0]])
    a = D.AbsTransform()
    for t in [a, D.ChainTransform([a, D.ExpTransform()]), D.IndependentTransform(a, 1),
              D.StackTransform([a, D.ExpTransform()], 1)]:
        with pytest.raises(NotImplementedError, match="AbsTransform is not injective"):
            t.forward_log_det_jacobian(x)
    with pytest.raises(NotImplementedError, match="SoftmaxTransform is not injective"):
        D.SoftmaxTransform().forward_log_det_jacobian(x)
    # the inverse's log-det-Jacobian stays defined: zero for each of the two preimages
    neg, pos = a.inverse_log_det_jacobian(_t([1.0, 2.0]))
    assert float(neg) == 0.0 and float(pos) == 0.0
