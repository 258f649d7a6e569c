"""The losses of the deep PU methods (pujax.neural.losses) against numpy re-derivations of the papers' equations,
their gradients against central finite differences (float64), and the shared pieces of the rule engine they use
(weighted quantile, natural break, BBE on the device, proxy accuracy)."""
import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from pujax.neural import losses as L
from pujax.neural.rules import weighted_quantile


def _softplus(z):
    return np.logaddexp(0.0, z)


def _sig(z):
    return 1.0 / (1.0 + np.exp(-z))


def _means(v, s, w):
    return np.sum(v * s * w) / np.sum(s * w), np.sum(v * (1 - s) * w) / np.sum((1 - s) * w)


@pytest.fixture(scope="module")
def batch():
    r = np.random.default_rng(0)
    g = r.normal(size=12) * 1.5
    s = np.r_[np.ones(4), np.zeros(8)]
    w = np.r_[np.ones(11), 0.0]  # the last slot is empty
    return g, s, w


def test_label_distribution_loss(batch):
    g, s, w = batch
    m_p, m_u = _means(_sig(g), s, w)
    ref = (1 - m_p) + abs(m_u - 0.3) / 0.6  # Dist-PU: L1 to (0, 1) and to (1 - pi, pi), 1/(2 pi) weight
    np.testing.assert_allclose(float(L.label_distribution_loss(g, s, w, 0.3)), ref, rtol=1e-6)


def test_pubn_risk(batch):
    g, s, w = batch
    sigma = np.linspace(0.05, 0.95, 12)
    eta, prior = 0.5, 0.35
    ell = lambda z: _sig(-z)  # noqa: E731 - the sigmoid loss
    low = sigma <= eta
    pos = np.sum(s * w * ell(g)) / np.sum(s * w)
    neg_u = np.sum((1 - s) * w * low * (1 - sigma) * ell(-g)) / np.sum((1 - s) * w)
    neg_p = np.sum(s * w * ~low * (1 - sigma) / sigma * ell(-g)) / np.sum(s * w)
    ref = prior * pos + neg_u + prior * neg_p
    np.testing.assert_allclose(float(L.pubn_risk(g, s, w, sigma, eta, prior)), ref, rtol=1e-6)


def test_count_loss_is_the_exact_count_probability(batch):
    """-log P(sum over U of y = round(pi n_U)) by brute force over all 2^n labelings of the unlabeled rows."""
    g, s, w = batch
    prior = 0.4
    u = np.flatnonzero((1 - s) * w > 0)
    k = round(prior * len(u))
    p = _sig(g)
    total = sum(np.prod([p[i] if y else 1 - p[i] for i, y in zip(u, ys)])
                for ys in itertools.product([0, 1], repeat=len(u)) if sum(ys) == k)
    sup = np.sum(s * w * _softplus(-g)) / np.sum(s * w)
    np.testing.assert_allclose(float(jax.jit(L.count_loss)(g, s, w, prior)), sup - np.log(total), rtol=1e-5)
    alpha = np.asarray(jax.jit(L.count_log_probability)(jnp.log(p), jnp.log1p(-p), jnp.ones(12, bool)))
    np.testing.assert_allclose(np.exp(alpha).sum(), 1.0, rtol=1e-5)  # a distribution over 0..12 positives


def test_lda_and_two_way_losses(batch):
    g, s, w = batch
    prior, tmpr, margin = 0.3, 3.5, 0.6
    dist = lambda a, b, t: (_softplus(t * (a - b)) + _softplus(-t * (a - b))) / t  # noqa: E731
    m_p, m_u = _means(_sig(g), s, w)
    loss, m = L.lda_loss(g, s, w, prior, tmpr)
    np.testing.assert_allclose(float(loss), 2 * prior * (1 - m_p) + dist(m_u, prior, tmpr), rtol=1e-6)
    loss, m = L.lda_loss(g, s, w, prior, tmpr, 0.2, 0.85)
    avg = 0.85 * 0.2 + 0.15 * m_u
    np.testing.assert_allclose(float(m), avg, rtol=1e-6)
    np.testing.assert_allclose(float(loss), 2 * prior * (1 - m_p) + dist(avg, prior, tmpr) / 0.15, rtol=1e-6)
    lp = _sig(g) * _sig(-(g - margin))  # two-way sigmoid: bumps on [0, m] and [-m, 0]
    ln = _sig(g + margin) * _sig(-g)
    c_pp, c_pn, c_un = _means(lp, s, w)[0], _means(ln, s, w)[0], _means(ln, s, w)[1]
    loss, _ = L.two_way_loss(g, s, w, prior, margin)
    np.testing.assert_allclose(float(loss), prior * c_pp + dist(c_un, prior * c_pn, 1.0), rtol=1e-6)
    loss, (a_pn, a_un) = L.two_way_loss(g, s, w, prior, margin, (0.1, 0.2), 0.5)
    np.testing.assert_allclose([float(a_pn), float(a_un)], [0.05 + 0.5 * c_pn, 0.1 + 0.5 * c_un], rtol=1e-6)
    np.testing.assert_allclose(float(loss), prior * c_pp + dist(0.1 + 0.5 * c_un, prior * (0.05 + 0.5 * c_pn), 1.0)
                               / 0.5, rtol=1e-6)


def test_lbe_e_and_m_steps(batch):
    g, s, w = batch
    g_eta = np.linspace(-2, 2, 12)
    f, eta = _sig(g), _sig(g_eta)
    q = np.where(s > 0, 1.0, f * (1 - eta) / (f * (1 - eta) + 1 - f))  # P(y = 1 | x, s)
    np.testing.assert_allclose(np.asarray(L.lbe_posterior(g, g_eta, s)), q, rtol=1e-6)
    nll_f = -(q * np.log(f) + (1 - q) * np.log(1 - f))
    nll_eta = -q * (s * np.log(eta) + (1 - s) * np.log(1 - eta))
    ref = np.sum(w * (nll_f + nll_eta)) / np.sum(w)
    np.testing.assert_allclose(float(L.lbe_loss(g, g_eta, s, w, q)), ref, rtol=1e-6)
    small = np.sort(nll_f[w > 0])[:int(0.8 * w.sum())]  # the authors' small-loss selection of the classifier term
    ref = small.mean() + np.sum(w * nll_eta) / np.sum(w)
    np.testing.assert_allclose(float(L.lbe_loss(g, g_eta, s, w, q, keep=0.8)), ref, rtol=1e-6)


def test_cvir_robust_pu_and_mixup_losses(batch):
    g, s, w = batch
    keep = (np.arange(12) % 3 != 0).astype(float)
    bce = np.where(s > 0, _softplus(-g), _softplus(g))
    wk = w * (s + (1 - s) * keep)
    np.testing.assert_allclose(float(L.cvir_loss(g, s, w, keep)), np.sum(wk * bce) / np.sum(wk), rtol=1e-6)
    v = np.exp(-bce / 0.5 ** 2)
    np.testing.assert_allclose(np.asarray(L.self_paced_weights(bce, 0.5)), v, rtol=1e-6)
    ref = sum(np.sum(m * w * v * bce) / np.sum(m * w) for m in (s, 1 - s))
    np.testing.assert_allclose(float(L.robust_pu_loss(g, s, w, v)), ref, rtol=1e-6)
    ya, yb, lam = np.linspace(0, 1, 12), np.linspace(1, 0, 12), 0.3
    mix = lam * (ya * _softplus(-g) + (1 - ya) * _softplus(g)) + (1 - lam) * (yb * _softplus(-g) + (1 - yb)
                                                                              * _softplus(g))
    np.testing.assert_allclose(float(L.mixup_bce(g, ya, yb, lam, w)), np.sum(w * mix) / np.sum(w), rtol=1e-6)
    p = _sig(g)
    np.testing.assert_allclose(np.asarray(L.binary_entropy(g)), -p * np.log(p) - (1 - p) * np.log(1 - p), rtol=1e-5)
    np.testing.assert_allclose(np.asarray(L.trend_increment(0.2, np.array([0.5, 0.1]))),
                               np.log(1 + np.array([0.3, -0.1]) + 0.5 * np.array([0.3, -0.1]) ** 2), rtol=1e-6)


def _loss_cases():
    sigma = np.linspace(0.1, 0.9, 12)
    return {
        "dist_pu": lambda g, s, w: L.label_distribution_loss(g, s, w, 0.3),
        "pubn": lambda g, s, w: L.pubn_risk(g, s, w, sigma, 0.5, 0.3, "logistic"),
        "count": lambda g, s, w: L.count_loss(g, s, w, 0.4),
        "lda": lambda g, s, w: L.lda_loss(g, s, w, 0.3, 3.5, 0.2, 0.85)[0],
        "two_way": lambda g, s, w: L.two_way_loss(g, s, w, 0.3, 0.6, (0.1, 0.2), 0.5)[0],
        "lbe": lambda g, s, w: L.lbe_loss(g, g[::-1] * 0.5, s, w, jnp.linspace(0.2, 0.9, 12)),
        "cvir": lambda g, s, w: L.cvir_loss(g, s, w, (jnp.arange(12) % 3 != 0).astype(g.dtype)),
        "robust_pu": lambda g, s, w: L.robust_pu_loss(g, s, w, jnp.linspace(0.1, 1.0, 12)),
        "mixup": lambda g, s, w: L.mixup_bce(g, jnp.linspace(0, 1, 12), jnp.linspace(1, 0, 12), 0.3, w),
        "entropy": lambda g, s, w: jnp.sum(L.binary_entropy(g) * w),
    }


@pytest.mark.parametrize("name", list(_loss_cases()))
def test_gradient_matches_finite_differences(batch, name):
    """jax.grad of every loss with respect to the network scores equals central differences (float64)."""
    g0, s, w = batch
    with jax.enable_x64(True):
        f = _loss_cases()[name]
        g = jnp.asarray(g0 + 0.05, jnp.float64)  # away from the ties of the PUbN indicator
        s64, w64 = jnp.asarray(s), jnp.asarray(w)
        grad = np.asarray(jax.jit(jax.grad(lambda x: f(x, s64, w64)))(g))
        eps = 1e-6
        steps = eps * jnp.eye(12, dtype=jnp.float64)
        f_many = jax.jit(jax.vmap(lambda x: f(x, s64, w64)))
        fd = np.asarray((f_many(g + steps) - f_many(g - steps)) / (2 * eps))
        np.testing.assert_allclose(grad, fd, rtol=1e-5, atol=1e-8)
        assert np.abs(grad).max() > 1e-4


def test_losses_stay_finite_at_extreme_scores():
    g = jnp.asarray([-1e4, -50.0, 0.0, 50.0, 1e4, 3.0] * 2, jnp.float32)
    s = jnp.asarray([1.0, 1.0, 0.0, 0.0, 0.0, 0.0] * 2)
    w = jnp.ones(12)
    cases = _loss_cases()

    @jax.jit
    def values_and_grads(g):
        return [jax.value_and_grad(lambda x, f=f: f(x, s, w))(g) for f in cases.values()]

    for name, (value, grad) in zip(cases, values_and_grads(g)):
        assert np.isfinite(float(value)), name
        assert np.all(np.isfinite(np.asarray(grad))), name


def test_natural_break_and_weighted_quantile_against_brute_force():
    r = np.random.default_rng(3)
    v = np.r_[r.normal(-1, 0.3, 20), r.normal(2, 0.5, 9)]
    w = (r.random(29) < 0.8).astype(float)
    x = np.sort(v[w > 0])
    ss = [np.var(x[:k]) * k + np.var(x[k:]) * (len(x) - k) for k in range(1, len(x))]
    assert float(jax.jit(L.natural_break)(jnp.asarray(v), jnp.asarray(w))) == pytest.approx(x[int(np.argmin(ss))])
    quantile = jax.jit(weighted_quantile)
    for q in (0.1, 0.5, 0.63, 0.9):
        ref = x[int(np.ceil(q * len(x))) - 1]  # smallest value with at least a share q of the rows at or below it
        assert float(quantile(jnp.asarray(v), jnp.asarray(w), q)) == pytest.approx(ref)


def test_bbe_on_the_device_equals_the_host_estimate():
    from pujax.prior.bbe import bbe_estimate, bbe_from_scores

    r = np.random.default_rng(0)
    sp_, su = r.normal(1, 1, 200), np.r_[r.normal(1, 1, 300), r.normal(-1, 1, 700)]
    scores = np.r_[sp_, su, np.zeros(5)]
    is_p = np.r_[np.ones(200), np.zeros(1005)]
    w = np.r_[np.ones(1200), np.zeros(5)]
    dev = float(jax.jit(bbe_from_scores)(jnp.asarray(scores, jnp.float32), jnp.asarray(is_p), jnp.asarray(w)))
    assert dev == pytest.approx(float(bbe_estimate(sp_, su)["prior"]), rel=1e-5)


def test_proxy_accuracy_and_auc():
    """PA = 2 pi TPR_P + TNR_U = pu_accuracy + pi (unclipped); proxy AUC = AUC of labeled vs unlabeled rows."""
    from pujax.metrics import make_pu_scorer, pu_accuracy, pu_proxy_accuracy
    from pujax.neural.selection import selection_loss

    s = np.r_[np.ones(4), np.zeros(6)].astype(int)
    d = np.array([1.0, -1.0, 2.0, 0.5, -2.0, 0.3, -0.1, 1.5, -3.0, -0.4])
    tpr, tnr_u = 3 / 4, 4 / 6
    assert float(pu_proxy_accuracy(s, d > 0, 0.4)) == pytest.approx(2 * 0.4 * tpr + tnr_u)
    assert float(pu_proxy_accuracy(s, d > 0, 0.4)) == pytest.approx(float(pu_accuracy(s, d > 0, 0.4)) + 0.4)
    auc = np.mean([[float(a > b) + 0.5 * float(a == b) for b in d[4:]] for a in d[:4]])
    w = np.ones(10)
    assert -float(selection_loss("proxy_auc", jnp.asarray(d), s, w, 0.4)) == pytest.approx(auc)
    assert -float(selection_loss("proxy_accuracy", jnp.asarray(d), s, w, 0.4)) == pytest.approx(2 * 0.4 * tpr + tnr_u)

    class Fixed:
        classes_ = np.array([0, 1])

        def decision_function(self, X):
            return d

        def predict(self, X):
            return (d > 0).astype(int)

    assert make_pu_scorer("proxy_auc")(Fixed(), None, s) == pytest.approx(auc)
    assert make_pu_scorer("proxy_accuracy", 0.4)(Fixed(), None, s) == pytest.approx(2 * 0.4 * tpr + tnr_u)
