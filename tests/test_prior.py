"""Tests of pujax.prior: class-prior estimation (BBE, Elkan-Noto, TIcE), intervals, conversions, prior="auto".

References are independent: synthetic Gaussians with a known positive fraction in the unlabeled rows (both the
case-control and the censoring scenario), a brute-force numpy BBE over thresholds, numpy re-derivations of the
Elkan-Noto estimators on the same bootstrap draws, vmap-vs-loop, and algebraic round trips.
Shapes are fixed (2500 rows) so that the jit-compiled cores compile once.
"""
import pickle

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from sklearn.base import BaseEstimator, clone
from sklearn.linear_model import LogisticRegression

from pujax import prior as P
from pujax.base import PUClassifierMixin
from pujax.prior import (
    PriorEstimate,
    _common,
    bbe,
    bbe_bootstrap,
    bbe_estimate,
    case_control_to_censoring,
    censoring_to_case_control,
    elkan_noto_bootstrap,
    elkan_noto_estimates,
    estimate_prior,
    label_frequency_from_prior,
    positive_fraction,
    prior_from_label_frequency,
    tice_lower_bound,
)

N_L, N_U = 500, 2000  # case-control sizes; censoring uses N_L + N_U rows too


def _gauss(rng, n, pi, d=4, sep=4.0):
    y = (rng.random(n) < pi).astype(int)
    X = rng.normal(size=(n, d))
    X[:, 0] += sep * y
    return X, y


def case_control(seed, pi):
    """P ~ p(x|y=1), U ~ p(x); truth = realised positive fraction of U (what estimate_prior must return)."""
    rng = np.random.default_rng(seed)
    Xp, _ = _gauss(rng, N_L, 1.0)
    Xu, yu = _gauss(rng, N_U, pi)
    return np.vstack([Xp, Xu]), np.r_[np.ones(N_L), np.zeros(N_U)].astype(int), float(yu.mean())


def censoring(seed, pi, c=0.5):
    """One sample from p(x), each positive labeled with probability c; truth = positive fraction of s == 0 rows."""
    rng = np.random.default_rng(seed)
    X, y = _gauss(rng, N_L + N_U, pi)
    s = ((y == 1) & (rng.random(y.size) < c)).astype(int)
    return X, s, float(y[s == 0].mean())


SCENARIOS = {"case_control": case_control, "censoring": censoring}


# ----------------------------------------------------------------------------------------------------------------
# BBE recovers the prior in both scenarios (the "done when" on synthetic data)
# ----------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("scenario", ["case_control", "censoring"])
@pytest.mark.parametrize("pi", [0.2, 0.5, 0.8])
def test_bbe_recovers_prior_of_unlabeled_rows(scenario, pi):
    X, s, truth = SCENARIOS[scenario](1, pi)
    est = estimate_prior(X, s, random_state=0)
    assert isinstance(est, PriorEstimate) and est.method == "bbe"
    assert abs(est.prior - truth) <= 0.05, (est, truth)
    lo, hi = est.interval
    assert 0.0 <= lo <= est.prior <= hi <= 1.0
    n_l, n_u = int(s.sum()), int((1 - s).sum())
    assert est.label_frequency == pytest.approx(n_l / (n_l + est.prior * n_u))
    d = est.diagnostics
    assert d["n_labeled"] == n_l and d["n_unlabeled"] == n_u
    assert d["dkw_upper"] >= est.prior - 1e-6
    assert 0.5 < d["pu_auc"] <= 1.0
    if scenario == "censoring":  # the population prior is recovered by (C5)
        pop = case_control_to_censoring(est.prior, est.label_frequency)
        assert pop == pytest.approx(positive_fraction(est.prior, n_l, n_u))


@pytest.mark.parametrize("scenario", ["case_control", "censoring"])
def test_elkan_noto_and_tice_recover_prior(scenario):
    X, s, truth = SCENARIOS[scenario](1, 0.5)
    en = estimate_prior(X, s, method="elkan_noto", random_state=0)
    assert abs(en.prior - truth) <= 0.1, (en, truth)
    d = en.diagnostics
    assert d["prior_e1"] == pytest.approx(en.prior, abs=1e-6)
    assert 0 < d["e1"] <= d["e3"] <= 1
    tice = estimate_prior(X, s, method="tice", random_state=0)
    assert abs(tice.prior - truth) <= 0.1, (tice, truth)
    assert len(tice.diagnostics["fold_estimates"]) == 2  # two iterations of 5 folds
    assert tice.interval[0] <= tice.prior <= tice.interval[1]


def test_estimates_are_reproducible_and_seeded():
    X, s, _ = case_control(2, 0.5)
    lr = LogisticRegression()
    a = estimate_prior(X, s, classifier=lr, random_state=3)
    b = estimate_prior(X, s, classifier=lr, random_state=3)
    assert a == b and a.interval == b.interval
    # bool and {-1, +1} PU labels give the same estimate
    c = estimate_prior(X, np.where(s == 1, 1, -1), classifier=lr, random_state=3)
    assert c.prior == a.prior


# ----------------------------------------------------------------------------------------------------------------
# Intervals
# ----------------------------------------------------------------------------------------------------------------
def test_interval_coverage_on_repeated_draws():
    """Bootstrap intervals (and the DKW upper bound) cover the truth on most of 12 independent draws."""
    lr = LogisticRegression()  # Bayes-optimal ranking for equal-covariance Gaussians, and fast
    cover_boot = cover_dkw_upper = 0
    draws = 12
    for seed in range(draws):
        X, s, truth = case_control(100 + seed, 0.5)
        est = estimate_prior(X, s, classifier=lr, random_state=seed)
        cover_boot += est.interval[0] <= truth <= est.interval[1]
        cover_dkw_upper += truth <= est.diagnostics["dkw_upper"] + 1e-9
    assert cover_boot >= 9, cover_boot  # nominal 95 %: P(<= 8 of 12) < 0.2 % at 95 % coverage
    assert cover_dkw_upper == draws


def test_dkw_interval():
    X, s, truth = case_control(5, 0.5)
    est = estimate_prior(X, s, classifier=LogisticRegression(), interval="dkw", random_state=0)
    lo, hi = est.interval
    assert lo <= est.prior <= hi
    assert hi == pytest.approx(est.diagnostics["dkw_upper"]) and lo <= truth <= hi


# ----------------------------------------------------------------------------------------------------------------
# Cores against independent references
# ----------------------------------------------------------------------------------------------------------------
def _bbe_numpy(sp, su, delta=0.1, gamma=0.01):
    eps = np.sqrt(np.log(4 / delta) / (2 * sp.size)) + np.sqrt(np.log(4 / delta) / (2 * su.size))
    best = (np.inf, None)
    for z in np.unique(np.r_[sp, su]):
        qp, qu = np.mean(sp >= z), np.mean(su >= z)
        if qp > 0:
            obj = qu / qp + (1 + gamma) / qp * eps
            if obj < best[0]:
                best = (obj, z, min(qu / qp, 1.0))
    return best[1], best[2]


def test_bbe_core_matches_bruteforce_with_ties():
    rng = np.random.default_rng(0)
    sp = np.round(rng.normal(1.0, 1.0, 500), 1)  # rounding creates many ties
    su = np.round(np.r_[rng.normal(1.0, 1.0, 800), rng.normal(-1.0, 1.0, 1200)], 1)
    out = bbe_estimate(sp, su)
    z, alpha = _bbe_numpy(sp, su)
    assert float(out["threshold"]) == pytest.approx(z, abs=1e-6)
    assert float(out["prior"]) == pytest.approx(alpha, rel=1e-5)
    assert float(out["q_p"]) == pytest.approx(np.mean(sp >= z), rel=1e-6)
    assert float(out["q_u"]) == pytest.approx(np.mean(su >= z), rel=1e-6)


def test_bbe_bootstrap_vmap_equals_loop():
    rng = np.random.default_rng(1)
    sp, su = rng.normal(1, 1, N_L), rng.normal(0, 1, N_U)  # same padded shape as the other tests: one compile
    key = jax.random.PRNGKey(7)
    boot = np.asarray(bbe_bootstrap(key, sp, su, n_bootstrap=200))
    values, first, is_p, _, pos_p, pos_u, n_p, n_u = bbe.prep_scores(sp, su)
    one = jax.jit(bbe.bbe_resample)
    loop = [float(one(k, values, first, is_p, pos_p, pos_u, n_p, n_u, 0.1, 0.01))
            for k in jax.random.split(key, 200)[:6]]
    np.testing.assert_allclose(boot[:6], loop, rtol=1e-6)
    assert np.all((boot >= 0) & (boot <= 1)) and np.std(boot) > 0


def test_elkan_noto_estimators_and_bootstrap_match_numpy():
    rng = np.random.default_rng(2)
    n = N_L + N_U
    s = (rng.random(n) < 0.3).astype(int)
    g = np.clip(0.2 + 0.5 * s * rng.random(n) + 0.1 * rng.random(n), 0, 1)
    cs, priors = elkan_noto_estimates(g, s)
    n_l, n_u = s.sum(), n - s.sum()
    e1, e2, e3 = g[s == 1].mean(), g[s == 1].sum() / g.sum(), g.max()
    np.testing.assert_allclose(np.asarray(cs), [e1, e2, e3], rtol=1e-5)
    ref = np.clip(n_l * (1 - np.array([e1, e2, e3])) / (np.array([e1, e2, e3]) * n_u), 0, 1)
    np.testing.assert_allclose(np.asarray(priors), ref, rtol=1e-5)
    # bootstrap rows drawn with the same helper, estimators recomputed in numpy
    key = jax.random.PRNGKey(3)
    boot = np.asarray(elkan_noto_bootstrap(key, g, s, n_bootstrap=200))
    size = _common.bucket(n)
    draw = jax.jit(_common.randindex, static_argnums=1)
    for b, k in enumerate(jax.random.split(key, 200)[:3]):
        idx = np.asarray(draw(k, size, n))[:n]
        gb, sb = g[idx], s[idx]
        c1 = gb[sb == 1].mean()
        expected = np.clip((sb == 1).sum() * (1 - c1) / (c1 * (sb == 0).sum()), 0, 1)
        assert boot[b, 0] == pytest.approx(expected, rel=1e-4)


def test_tice_lower_bound_formula_and_pure_subset():
    L, T, c, d = np.array([5.0, 30.0, 9.0]), np.array([10.0, 40.0, 9.0]), 0.4, 0.2
    ref = L / T - np.sqrt(c * (1 - c) * (1 - d) / (d * T))
    np.testing.assert_allclose(tice_lower_bound(L, T, c, d), ref)
    assert tice_lower_bound(5.0, 8.0, c, d, min_size=10) == 0.0  # too small a subset
    np.testing.assert_allclose(jax.jit(tice_lower_bound)(L, T, c, d), ref, rtol=1e-6)
    # a binary feature marks a pure-positive region: TIcE should find c there
    rng = np.random.default_rng(4)
    n = 3000
    y = (rng.random(n) < 0.5).astype(int)
    marker = (y == 1) & (rng.random(n) < 0.6)
    X = np.c_[marker, rng.normal(size=(n, 3))]
    s = ((y == 1) & (rng.random(n) < 0.3)).astype(int)
    c_hat, info = P.tice_label_frequency(X, s, random_state=0)
    assert 0.2 <= c_hat <= 0.34, c_hat
    assert max(info["n_splits"][0]) >= 1


# ----------------------------------------------------------------------------------------------------------------
# Conversions (C1)-(C5)
# ----------------------------------------------------------------------------------------------------------------
def test_conversion_round_trips():
    rng = np.random.default_rng(5)
    pi = rng.uniform(0.01, 0.99, 50)
    c = rng.uniform(0.01, 0.99, 50)
    n_l, n_u = rng.integers(10, 1000, 50), rng.integers(10, 5000, 50)
    np.testing.assert_allclose(prior_from_label_frequency(label_frequency_from_prior(pi, n_l, n_u), n_l, n_u), pi)
    c_ok = n_l / (n_l + n_u) + (1 - n_l / (n_l + n_u)) * c  # (C2) stays in [0, 1] for c >= n_l / (n_l + n_u)
    np.testing.assert_allclose(label_frequency_from_prior(prior_from_label_frequency(c_ok, n_l, n_u), n_l, n_u), c_ok)
    theta = censoring_to_case_control(pi, c)
    np.testing.assert_allclose(case_control_to_censoring(theta, c), pi)
    # censoring in expectation: n_l = pi c n, n_u = (1 - pi c) n; (C2) then gives (C4), positive_fraction gives pi
    n = 10_000.0
    nl, nu = pi * c * n, (1 - pi * c) * n
    np.testing.assert_allclose(prior_from_label_frequency(c, nl, nu), theta)
    np.testing.assert_allclose(positive_fraction(theta, nl, nu), pi)
    np.testing.assert_allclose(label_frequency_from_prior(theta, nl, nu), c)
    # jit-able and exact on a realised case-control split
    f = jax.jit(label_frequency_from_prior)
    assert float(f(jnp.float32(0.5), 1000.0, 60000.0)) == pytest.approx(1000 / 31000, rel=1e-6)


@pytest.mark.parametrize("fn, args", [
    (label_frequency_from_prior, (1.5, 10, 10)),
    (label_frequency_from_prior, (0.5, 0, 10)),
    (prior_from_label_frequency, (0.0, 10, 10)),
    (censoring_to_case_control, (0.5, 1.0)),
    (case_control_to_censoring, (-0.1, 0.5)),
    (positive_fraction, (np.nan, 10, 10)),
])
def test_conversion_bad_input(fn, args):
    with pytest.raises(ValueError):
        fn(*args)


# ----------------------------------------------------------------------------------------------------------------
# Bad input to estimate_prior
# ----------------------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def small_pu():
    X, s, _ = case_control(9, 0.5)
    return X, s


@pytest.mark.parametrize("kwargs, exc, match", [
    (dict(method="em"), ValueError, "method"),
    (dict(interval="wald"), ValueError, "interval"),
    (dict(method="tice", interval="dkw"), ValueError, "dkw"),
    (dict(n_bootstrap=1), ValueError, "n_bootstrap"),
    (dict(n_bootstrap=2.5), TypeError, "n_bootstrap"),
    (dict(confidence=1.0), ValueError, "confidence"),
    (dict(delta=0.0), ValueError, "delta"),
    (dict(gamma=-1.0), ValueError, "gamma"),
    (dict(variant="e4", method="elkan_noto"), ValueError, "variant"),
    (dict(n_folds=1), ValueError, "n_folds"),
    (dict(classifier="hgb"), TypeError, "classifier"),
    (dict(method="tice", max_splits=0), ValueError, "max_splits"),
    (dict(n_jobs=0), ValueError, "n_jobs"),
])
def test_estimate_prior_bad_arguments(small_pu, kwargs, exc, match):
    X, s = small_pu
    with pytest.raises(exc, match=match):
        estimate_prior(X, s, **kwargs)


def test_estimate_prior_bad_data():
    X, s, _ = case_control(9, 0.5)
    bad = X.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        estimate_prior(bad, s)
    with pytest.raises(ValueError, match="no labeled positive"):
        estimate_prior(X, np.zeros_like(s))
    with pytest.raises(ValueError, match="no unlabeled"):
        estimate_prior(X, np.ones_like(s))
    with pytest.raises(ValueError, match="rows"):
        estimate_prior(X, s[:-1])
    with pytest.raises(ValueError, match="binary"):
        estimate_prior(X, np.arange(s.size) % 3)
    with pytest.raises(ValueError, match="n_folds"):
        estimate_prior(X[:N_L + 5], np.r_[np.ones(1), np.zeros(N_L + 4)])

    class NoProba(BaseEstimator):
        def fit(self, X, s):
            self.classes_ = np.array([0, 1])
            return self

        def decision_function(self, X):
            return X[:, 0]

    with pytest.raises(TypeError, match="predict_proba"):
        estimate_prior(X, s, method="elkan_noto", classifier=NoProba())
    # BBE only needs a ranking: decision_function is enough
    est = estimate_prior(X, s, classifier=NoProba(), random_state=0)
    assert 0 < est.prior < 1


def test_bbe_estimate_bad_scores():
    with pytest.raises(ValueError, match="finite"):
        bbe_estimate([0.1, np.inf], [0.2])
    with pytest.raises(ValueError, match="at least one"):
        bbe_estimate([], [0.2])


# ----------------------------------------------------------------------------------------------------------------
# prior="auto" / prior=PriorEstimate through PUClassifierMixin._validate_fit
# ----------------------------------------------------------------------------------------------------------------
class _TinyPU(PUClassifierMixin, BaseEstimator):
    """Projects on the P-minus-U mean direction and labels the top ``prior`` share of U as positive."""

    def __init__(self, prior="auto", random_state=None):
        self.prior = prior
        self.random_state = random_state

    def fit(self, X, y):
        X, s, _, prior = self._validate_fit(X, y)
        self.w_ = X[s == 1].mean(0) - X[s == 0].mean(0)
        self.threshold_ = float(np.quantile(X[s == 0] @ self.w_, 1.0 - prior))
        return self

    def decision_function(self, X):
        X = self._validate_predict(X)
        return X @ self.w_ - self.threshold_

    def predict_proba(self, X):
        p = 1.0 / (1.0 + np.exp(-np.clip(self.decision_function(X), -50, 50)))
        return np.c_[1 - p, p]

    def predict(self, X):
        return (self.decision_function(X) > 0).astype(int)


def test_prior_auto_and_prior_estimate_in_an_estimator():
    X, s, truth = censoring(11, 0.5)
    model = _TinyPU(prior="auto", random_state=0).fit(X, s)
    ref = estimate_prior(X, s, random_state=0)
    assert model.prior_ == pytest.approx(ref.prior)
    assert abs(model.prior_ - truth) <= 0.05
    # a PriorEstimate is accepted as is, survives clone and pickling
    model2 = _TinyPU(prior=ref).fit(X, s)
    assert model2.prior_ == ref.prior
    cloned = clone(model2)
    assert cloned.prior == ref and not hasattr(cloned, "prior_")
    restored = pickle.loads(pickle.dumps(model2))
    assert restored.prior_ == ref.prior and restored.prior == ref
    np.testing.assert_array_equal(restored.predict(X), model2.predict(X))
    assert float(ref) == ref.prior and "PriorEstimate(prior=" in repr(ref)


def test_prior_auto_in_pu_extra_trees():
    trees = pytest.importorskip("pujax.trees")
    if not hasattr(trees, "PUExtraTreesClassifier"):
        pytest.skip("pujax.trees.PUExtraTreesClassifier not available yet")
    X, s, truth = case_control(12, 0.5)
    params = trees.PUExtraTreesClassifier().get_params()
    kwargs = {"n_estimators": 10} if "n_estimators" in params else {}
    model = trees.PUExtraTreesClassifier(prior="auto", random_state=0, **kwargs).fit(X, s)
    assert abs(model.prior_ - truth) <= 0.05


# ----------------------------------------------------------------------------------------------------------------
# Method options: validated per method
# ----------------------------------------------------------------------------------------------------------------
def test_unknown_method_option_is_named(small_pu):
    X, s = small_pu
    with pytest.raises(TypeError, match=r"unknown option\(s\) 'variant'.*'variant' is an option of 'elkan_noto'"):
        estimate_prior(X, s, method="bbe", variant="e2")
    with pytest.raises(TypeError, match=r"unknown option\(s\) 'bogus'; the options of 'tice' are"):
        estimate_prior(X, s, method="tice", bogus=1)


def test_tice_delta_old_name_warns():
    X, s, _ = case_control(9, 0.5)
    with pytest.warns(FutureWarning, match="tice_delta"):
        old = estimate_prior(X, s, method="tice", tice_delta=0.2, n_bootstrap=20, random_state=0)
    new = estimate_prior(X, s, method="tice", delta=0.2, n_bootstrap=20, random_state=0)
    assert old.prior == new.prior and old.interval == new.interval


# ----------------------------------------------------------------------------------------------------------------
# Degenerate X: constant features, boolean / low-cardinality features (duplicate rows)
# ----------------------------------------------------------------------------------------------------------------
def test_constant_X_gives_a_clear_error():
    s = (np.arange(200) < 50).astype(int)
    for method in ("bbe", "tice"):
        with pytest.raises(ValueError, match="single distinct row.*not identifiable"):
            estimate_prior(np.ones((200, 5)), s, method=method)


def _bool_case_control(d, seed=0, n_l=200, n_u=800, pi=0.4):
    """Gaussian case-control data thresholded to booleans: 2**d distinct rows, hundreds of copies of each."""
    rng = np.random.default_rng(seed)
    yu = rng.random(n_u) < pi
    Xp = rng.normal(size=(n_l, d)) + 2.0
    Xu = rng.normal(size=(n_u, d)) + 2.0 * yu[:, None]
    return np.vstack([Xp, Xu]) > 1.0, np.r_[np.ones(n_l), np.zeros(n_u)].astype(int), float(yu.mean())


@pytest.mark.parametrize("d", [2, 4])
def test_boolean_X_recovers_prior(d):
    """Rows repeated hundreds of times are spread over the folds (keeping them together trained and scored on
    disjoint values: 0.999 for a true 0.378 with d = 2)."""
    X, s, truth = _bool_case_control(d)
    est = estimate_prior(X, s, random_state=0)
    assert abs(est.prior - truth) <= 0.05, (est, truth)
    assert estimate_prior(X.astype(np.float64), s, random_state=0).prior == est.prior  # booleans are numbers


def test_duplicate_groups_keep_copies_spread_common_values():
    from pujax.preprocessing import duplicate_groups
    from pujax.prior._scores import MAX_GROUP

    rng = np.random.default_rng(0)
    Xu = rng.normal(size=(50, 3))
    common = np.zeros((MAX_GROUP + 1, 3))  # one value held by more than MAX_GROUP rows
    X = np.vstack([Xu[:10], Xu, common])   # the first 10 rows are copies of unlabeled rows (case-control)
    g = duplicate_groups(X, MAX_GROUP)
    np.testing.assert_array_equal(g[:10], g[10:20])  # copy pairs share a group
    assert np.unique(g[60:]).size == MAX_GROUP + 1    # the common value's rows each get their own
    assert np.unique(g).size == 50 + MAX_GROUP + 1


# ----------------------------------------------------------------------------------------------------------------
# prior_sensitivity / plot_prior_sensitivity
# ----------------------------------------------------------------------------------------------------------------
def test_prior_sensitivity_table_matches_direct_refits():
    from pujax.prior import prior_sensitivity

    X, s, truth = case_control(13, 0.5)
    priors = [0.2, 0.4, 0.5, 0.6, 0.8]
    table = prior_sensitivity(_TinyPU(), X, s, priors)
    np.testing.assert_allclose(table.priors, priors)
    n_u = int((s == 0).sum())
    # _TinyPU labels the top `prior` share of U positive: the positive share of U is the prior (to one row)
    np.testing.assert_allclose(table.positive_rate, priors, atol=1.0 / n_u + 1e-12)
    for p, score in zip(priors, table.scores):  # Lee & Liu: recall^2 / P(predicted positive), by hand
        pred = _TinyPU(prior=p).fit(X, s).predict(X)
        assert score == pytest.approx(pred[s == 1].mean() ** 2 / pred.mean(), rel=1e-5)
    assert table.scorer == "lee_liu" and len(table.rows()) == 5 and np.all(table.fit_time >= 0)
    assert abs(table.best_prior() - truth) <= 0.11  # the Lee-Liu optimum sits near the true prior here
    # a prior-dependent metric is evaluated at each fit's own prior; a callable scorer is used as is
    acc = prior_sensitivity(_TinyPU(), X, s, [0.5], scorer="pu_accuracy")
    assert 0.0 <= acc.scores[0] <= 1.0
    calls = prior_sensitivity(_TinyPU(), X, s, [0.3, 0.7], scorer=lambda est, X_, s_: est.prior_)
    np.testing.assert_allclose(calls.scores, [0.3, 0.7])


def test_prior_sensitivity_bad_input_and_plot():
    from pujax.prior import plot_prior_sensitivity, prior_sensitivity

    X, s, _ = case_control(14, 0.5)
    with pytest.raises(ValueError, match=r"priors\[1\]"):
        prior_sensitivity(_TinyPU(), X, s, [0.5, 1.5])
    with pytest.raises(TypeError, match="no 'prior' parameter"):
        prior_sensitivity(LogisticRegression(), X, s, [0.5])
    with pytest.raises(TypeError, match="scorer"):
        prior_sensitivity(_TinyPU(), X, s, [0.5], scorer=3)
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    table = prior_sensitivity(_TinyPU(), X, s, [0.3, 0.5, 0.7])
    est = PriorEstimate(prior=0.5, label_frequency=0.2, interval=(0.45, 0.55), method="bbe")
    ax = plot_prior_sensitivity(table, estimate=est)
    np.testing.assert_allclose(ax.lines[0].get_ydata(), table.scores)
    np.testing.assert_allclose(ax.right_ax.lines[0].get_ydata(), table.positive_rate)
    matplotlib.pyplot.close(ax.figure)
