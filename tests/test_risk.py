"""pujax.risk against direct numpy computations, finite differences and numerical minimisation."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from pujax import risk

NP_LOSSES = {
    "sigmoid": lambda z: 1.0 / (1.0 + np.exp(z)),
    "logistic": lambda z: np.log1p(np.exp(-z)),
    "quadratic": lambda z: (1.0 - z) ** 2,
    "savage": lambda z: 4.0 / (1.0 + np.exp(z)) ** 2,
    "double_hinge": lambda z: np.maximum(-z, np.maximum(0.0, (1.0 - z) / 2.0)),
    "zero_one": lambda z: (z <= 0).astype(float),
}
SMOOTH = ["sigmoid", "logistic", "quadratic", "savage", "double_hinge"]


def np_parts(g, s, prior, name, w=None):
    ell = NP_LOSSES[name]
    w = np.ones_like(g) if w is None else w
    p, u = s == 1, s == 0
    rp_plus = prior * np.sum(w[p] * ell(g[p])) / np.sum(w[p])
    ru_minus = np.sum(w[u] * ell(-g[u])) / np.sum(w[u])
    rp_minus = prior * np.sum(w[p] * ell(-g[p])) / np.sum(w[p])
    return rp_plus, ru_minus, rp_minus


@pytest.fixture
def problem():
    r = np.random.default_rng(1)
    g = r.normal(scale=2.0, size=200)
    s = (r.random(200) < 0.3).astype(np.int32)
    w = r.random(200) + 0.1
    return g, s, w


@pytest.mark.parametrize("name", list(NP_LOSSES))
def test_losses_match_numpy(name):
    z = np.linspace(-8, 8, 101)
    z_in = jnp.asarray(z, jnp.float64) if jax.config.jax_enable_x64 else z.astype(np.float32)
    np.testing.assert_allclose(np.asarray(risk.get_loss(name)(z_in)), NP_LOSSES[name](z), rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("name", list(NP_LOSSES))
@pytest.mark.parametrize("weighted", [False, True])
def test_risks_match_numpy(problem, name, weighted):
    g, s, w = problem
    w = w if weighted else None
    a, b, c = np_parts(g, s, 0.4, name, w)
    got = risk.pu_risk_parts(g.astype(np.float32), s, 0.4, name, weights=w)
    np.testing.assert_allclose(np.array(got), [a, b, c], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(risk.upu_risk(g, s, 0.4, name, w), a + b - c, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(risk.nnpu_risk(g, s, 0.4, name, w), a + max(0.0, b - c), rtol=1e-5, atol=1e-6)


def test_nnpu_at_least_its_positive_part_and_upu(problem):
    g, s, _ = problem
    for name in SMOOTH:
        a, _, _ = risk.pu_risk_parts(g, s, 0.7, name)
        nn = risk.nnpu_risk(g, s, 0.7, name)
        assert nn >= a - 1e-7
        assert nn >= risk.upu_risk(g, s, 0.7, name) - 1e-6


def test_upu_is_unbiased_for_pn_risk():
    """Averaged over random P/U draws from labeled data, uPU equals the PN risk of a fixed scorer."""
    r = np.random.default_rng(0)
    n, prior = 20000, 0.3
    y = (r.random(n) < prior).astype(int)
    x = r.normal(loc=np.where(y == 1, 1.0, -1.0))
    g_all = 1.5 * x  # a fixed scoring function
    sig = NP_LOSSES["sigmoid"]
    pn = prior * np.mean(sig(g_all[y == 1])) + (1 - prior) * np.mean(sig(-g_all[y == 0]))
    pos = np.flatnonzero(y == 1)
    est = []
    draw = jax.jit(lambda g, s: risk.upu_risk(g, s, prior, "sigmoid"))
    for _ in range(200):
        p_idx = r.choice(pos, 50, replace=False)
        u_idx = r.choice(n, 200, replace=False)
        g = np.concatenate([g_all[p_idx], g_all[u_idx]]).astype(np.float32)
        s = np.concatenate([np.ones(50, int), np.zeros(200, int)])
        est.append(float(draw(g, s)))
    est = np.array(est)
    se = est.std() / np.sqrt(len(est))
    assert abs(est.mean() - pn) < 4 * se + 1e-3, (est.mean(), pn, se)


@pytest.mark.parametrize("name", SMOOTH)
def test_grad_matches_finite_differences(name):
    r = np.random.default_rng(3)
    g = r.normal(size=12)
    g[np.abs(np.abs(g) - 1.0) < 0.05] += 0.2  # keep away from the double-hinge kinks
    s = np.array([1, 0] * 6)
    with jax.enable_x64(True):
        f = lambda v: risk.upu_risk(v, s, 0.35, name)
        grad = np.asarray(jax.grad(f)(jnp.asarray(g, jnp.float64)))
        eps = 1e-6
        fd = np.array([(f(jnp.asarray(g + eps * e)) - f(jnp.asarray(g - eps * e))) / (2 * eps) for e in np.eye(12)])
    np.testing.assert_allclose(grad, fd, rtol=1e-5, atol=1e-8)


@pytest.mark.parametrize("name", list(NP_LOSSES))
def test_finite_at_extreme_scores(name):
    g = jnp.array([1e4, -1e4, 1e4, -1e4, 0.0], jnp.float32)
    s = jnp.array([1, 1, 0, 0, 1])
    for fn in (risk.upu_risk, risk.nnpu_risk):
        val = fn(g, s, 0.5, name)
        grad = jax.grad(lambda v: fn(v, s, 0.5, name))(g)
        assert np.isfinite(val) and np.all(np.isfinite(grad)), (name, val, grad)
    sur, val = risk.nnpu_objective(g, s, 0.5, name)
    assert np.isfinite(sur) and np.all(np.isfinite(jax.grad(lambda v: risk.nnpu_objective(v, s, 0.5, name)[0])(g)))


def test_jit_and_vmap_equal_eager(problem):
    g, s, _ = problem
    g = g.astype(np.float32)
    priors = jnp.array([0.1, 0.3, 0.5, 0.9])
    eager = np.array([risk.nnpu_risk(g, s, p, "sigmoid") for p in priors])
    vm = jax.vmap(lambda p: risk.nnpu_risk(g, s, p, "sigmoid"))(priors)
    jt = jax.jit(jax.vmap(lambda p: risk.nnpu_risk(g, s, p, "sigmoid")))(priors)
    np.testing.assert_allclose(vm, eager, rtol=1e-6)
    np.testing.assert_allclose(jt, eager, rtol=1e-6)
    gb = np.stack([g, -g, 2 * g])  # vmap over batches of scores
    vb = jax.vmap(lambda x: risk.upu_risk(x, s, 0.3, "logistic"))(gb)
    np.testing.assert_allclose(vb, [risk.upu_risk(x, s, 0.3, "logistic") for x in gb], rtol=1e-6)


def test_empty_part_gives_zero_not_nan():
    g = jnp.array([0.3, -0.2])
    assert np.isfinite(risk.nnpu_risk(g, jnp.array([0, 0]), 0.3))
    assert np.isfinite(risk.upu_risk(g, jnp.array([1, 1]), 0.3))


def test_nnpu_objective_rule():
    s = jnp.array([1, 1, 0, 0])
    g = jnp.array([5.0, 6.0, -5.0, -4.0])  # P fitted as positive -> r = R_u^- - pi R_p^- < 0
    a, b, c = risk.pu_risk_parts(g, s, 0.9, "sigmoid")
    r = b - c
    sur, val = risk.nnpu_objective(g, s, 0.9, "sigmoid", beta=0.0, gamma=1.0)
    assert float(r) < 0
    np.testing.assert_allclose(sur, -r, rtol=1e-6)  # correction step
    np.testing.assert_allclose(val, a, rtol=1e-6)
    sur2, _ = risk.nnpu_objective(g, s, 0.9, "sigmoid", beta=-float(r) + 1e-3)
    np.testing.assert_allclose(sur2, a + r, rtol=1e-6)  # r >= -beta: ordinary step
    sur3, _ = risk.nnpu_objective(g, s, 0.9, "sigmoid", beta=np.inf)
    np.testing.assert_allclose(sur3, risk.upu_risk(g, s, 0.9, "sigmoid"), rtol=1e-6)


def test_pn_risk():
    r = np.random.default_rng(5)
    g, y = r.normal(size=50), r.integers(0, 2, 50)
    ell = NP_LOSSES["logistic"]
    np.testing.assert_allclose(risk.pn_risk(g, y, "logistic"), np.mean(ell(np.where(y == 1, g, -g))), rtol=1e-5)
    want = 0.2 * np.mean(ell(g[y == 1])) + 0.8 * np.mean(ell(-g[y == 0]))
    np.testing.assert_allclose(risk.pn_risk(g, y, "logistic", prior=0.2), want, rtol=1e-5)


def test_bad_loss_name():
    with pytest.raises(ValueError, match="loss="):
        risk.upu_risk(jnp.zeros(2), jnp.array([1, 0]), 0.5, loss="hinge2")
    with pytest.raises(ValueError, match="risk="):
        risk.node_risk(0.1, 0.2, risk="bpu")


# ------------------------------------------------------------------ closed-form node risks vs numerical minimum

V_GRID = np.concatenate([np.linspace(-60, 60, 240001)])


def numeric_node_min(Wp, Wn, risk_name, loss, vmax=60.0):
    ell = NP_LOSSES[loss]
    v = V_GRID[np.abs(V_GRID) <= vmax]
    lp, ln = ell(v), ell(-v)
    if risk_name in ("upu", "pn"):
        vals = Wp * lp + Wn * ln
    else:  # nnpu: W_p ell(v,+1) + max(0, W_u ell(v,-1) - W_p ell(v,-1)) with W_u - W_p = W_n
        vals = Wp * lp + np.maximum(0.0, Wn * ln)
    return vals.min()


NODE_CASES = [(0.2, 0.3), (0.05, 0.6), (0.4, 0.0), (0.3, -0.1), (0.0, 0.5), (0.25, 0.25), (0.1, 1e-4), (0.0, 0.0)]


@pytest.mark.parametrize("loss", ["quadratic", "savage", "logistic", "sigmoid", "double_hinge", "zero_one"])
@pytest.mark.parametrize("risk_name", ["upu", "nnpu", "pn"])
def test_node_risk_equals_numerical_minimum(loss, risk_name):
    with jax.enable_x64(True):
        for Wp, Wn in NODE_CASES:
            if risk_name == "pn" and Wn < 0:
                continue
            got = float(risk.node_risk(jnp.float64(Wp), jnp.float64(Wn), risk_name, loss))
            num = numeric_node_min(Wp, Wn, risk_name, loss)
            if np.isneginf(got):
                # unbounded below: the grid minimum keeps falling as the grid widens
                half = numeric_node_min(Wp, Wn, risk_name, loss, vmax=30.0)
                assert num < half - 1.0 * abs(Wn) * 10, (loss, risk_name, Wp, Wn, num, half)
            else:
                # sigmoid/savage infima are approached as |v| -> inf; the grid reaches within e^-60
                assert got == pytest.approx(num, abs=1e-6), (loss, risk_name, Wp, Wn, got, num)


def test_node_risk_vectorised_and_float32():
    Wp = jnp.array([0.1, 0.2, 0.3], jnp.float32)
    Wn = jnp.array([0.3, -0.1, 0.0], jnp.float32)
    out = risk.node_risk(Wp[:, None], Wn[None, :], "nnpu", "quadratic")
    assert out.shape == (3, 3) and out.dtype == jnp.float32
    assert np.all(np.isfinite(out))
    np.testing.assert_allclose(risk.node_value(0.2, 0.6), 0.25)
    assert np.isposinf(risk.node_value(0.2, -0.2))


def test_theorem1_gini_and_entropy():
    """PU ET Theorem 1: PN risk reduction = 2|S|w x Gini reduction (quadratic), |S|w x entropy reduction (logistic)."""
    r = np.random.default_rng(7)
    y = r.integers(0, 2, 300)
    x = r.normal(size=300) + y
    n, w = y.size, 1.0 / y.size
    left = x <= 0.4

    def gini(m):
        q = y[m].mean()
        return 1 - q ** 2 - (1 - q) ** 2

    def entropy(m):
        q = y[m].mean()
        return -(q * np.log(q) + (1 - q) * np.log(1 - q))

    def node(m, loss):
        return float(risk.node_risk(w * np.sum(y[m] == 1), w * np.sum(y[m] == 0), "pn", loss))

    allm = np.ones(n, bool)
    for loss, imp, scale in (("quadratic", gini, 2.0), ("logistic", entropy, 1.0)):
        rr = node(allm, loss) - node(left, loss) - node(~left, loss)
        ir = imp(allm) - left.mean() * imp(left) - (~left).mean() * imp(~left)
        assert rr == pytest.approx(scale * n * w * ir, rel=1e-4)
        assert node(allm, loss) == pytest.approx(scale * n * w * imp(allm), rel=1e-5)


def test_prop3_quadratic_equals_savage():
    r = np.random.default_rng(11)
    Wp = r.random(50)
    Wn = r.random(50) * 2 - 0.5
    for risk_name in ("nnpu", "pn", "upu"):
        wn = np.abs(Wn) if risk_name == "pn" else Wn
        q = risk.node_risk(Wp, wn, risk_name, "quadratic")
        s = risk.node_risk(Wp, wn, risk_name, "savage")
        if risk_name == "upu":  # Prop. 3 holds where v* <= 1; beyond, savage's infimum is 4 W_n (documented)
            keep = wn >= 0
            np.testing.assert_allclose(np.asarray(q)[keep], np.asarray(s)[keep], rtol=1e-5)
        else:
            np.testing.assert_allclose(q, s, rtol=1e-5)
